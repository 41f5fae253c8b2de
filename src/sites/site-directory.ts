// Origin -> site lookup on every request (CONTRACT 2). A deployment may serve 10,000 sites (issue 12), so
// nothing here lists them all: each origin is read by its unique index on first use and kept for a few
// seconds in a bounded map (unknown origins too, so a stream of requests for one unknown Host costs one
// query per interval). A `flush` signal (a site changed: its beta flag, its name) makes every node read
// its sites again at once.
import type { Kysely } from 'kysely';
import type { Clock } from '../kernel/clock.js';
import type { Database } from '../storage/schema.js';
import type { Site } from './site.js';
import { findSiteByOrigin } from './sites.repository.js';
import { setBounded } from '../kernel/bounded-map.js';

/** How long a lookup is trusted without a flush; sites change rarely (the CLI, the admin pages). */
export const SITE_TTL_MS = 5000;
/** Origins kept; beyond that the least recently loaded is dropped first. */
export const SITES_KEPT = 20_000;

interface Entry {
  site: Site | undefined;
  until: number;
}

export class SiteDirectory {
  private entries = new Map<string, Entry>();
  private loading = new Map<string, Promise<Site | undefined>>();
  /** Bumped by every flush: a lookup that started before it is answered but not kept. */
  private generation = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /** The site whose stored origin equals this one (already normalised), or undefined. */
  byOriginOf(origin: string): Promise<Site | undefined> | Site | undefined {
    const entry = this.entries.get(origin);
    if (entry && entry.until > this.clock.now()) return entry.site;
    let pending = this.loading.get(origin);
    if (!pending) {
      const generation = this.generation;
      pending = findSiteByOrigin(this.db, origin)
        .then(
          (site) => {
            if (generation === this.generation) this.remember(origin, site);
            return site;
          },
          (err: unknown) => {
            // A store fault must not take down an origin already known: keep answering from the last lookup.
            if (entry) return entry.site;
            throw err;
          },
        )
        .finally(() => {
          if (this.loading.get(origin) === pending) this.loading.delete(origin);
        });
      this.loading.set(origin, pending);
    }
    return pending;
  }

  private remember(origin: string, site: Site | undefined): void {
    setBounded(this.entries, origin, { site, until: this.clock.now() + SITE_TTL_MS }, SITES_KEPT);
  }

  /**
   * Every later lookup reads the store again (a site changed somewhere), never joining a read that began
   * before this: that one may have read the site as it was before the change.
   */
  invalidate(): void {
    this.generation++;
    // Marked stale rather than dropped: a lookup that then meets a store fault still answers with the
    // last site it knew (see byOriginOf), as it would have without the flush.
    for (const entry of this.entries.values()) entry.until = 0;
    this.loading.clear();
  }

  /** Kept for callers that changed a site in this process: the next lookup reads it afresh. */
  async reload(): Promise<void> {
    this.invalidate();
  }
}
