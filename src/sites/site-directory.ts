// Origin -> site lookup on every request, from memory. Sites change rarely (CLI, admin pages), so the
// list is reloaded at most every few seconds; an unknown origin triggers no query at all.
import type { Kysely } from 'kysely';
import type { Clock } from '../kernel/clock.js';
import type { Database } from '../storage/schema.js';
import type { Site } from './site.js';
import { listSites } from './sites.repository.js';

const REFRESH_MS = 5000;

export class SiteDirectory {
  private byOrigin = new Map<string, Site>();
  private loadedAt = -Infinity;
  private loading: Promise<void> | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /** The site whose stored origin equals this one (already normalised), or undefined. */
  async byOriginOf(origin: string): Promise<Site | undefined> {
    if (this.clock.now() - this.loadedAt > REFRESH_MS) {
      try {
        await this.reload();
      } catch (err) {
        // A store fault must not take down every origin: keep answering from the last good list.
        if (this.loadedAt === -Infinity) throw err;
      }
    }
    return this.byOrigin.get(origin);
  }

  /** The next lookup reads the list again (a site changed: its beta flag, its name). */
  invalidate(): void {
    this.loadedAt = -Infinity;
  }

  async reload(): Promise<void> {
    this.loading ??= listSites(this.db)
      .then((sites) => {
        this.byOrigin = new Map(sites.map((s) => [s.origin, s]));
        this.loadedAt = this.clock.now();
      })
      .finally(() => {
        this.loading = undefined;
      });
    return this.loading;
  }

  all(): Site[] {
    return [...this.byOrigin.values()];
  }
}
