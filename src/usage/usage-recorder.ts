// Counting what apps use (issue 11: "requests in the last 7 days, counted cheaply, without slowing the
// hot path"). A request adds one to an in-memory counter (a Map lookup, no I/O); every few seconds, and
// before a page reads the figures, the counters are added to `app_usage` in one batched upsert. Each node
// adds its own counts, so the sums are right however many nodes serve a site. A crash loses at most the
// last interval's counts: they are statistics, not records.
import type { Kysely } from 'kysely';
import { DAY_MS, utcDayOf } from '../kernel/calendar-days.js';
import type { Clock } from '../kernel/clock.js';
import { RepeatingJob } from '../maintenance/repeating-job.js';
import type { Database } from '../storage/schema.js';
import { addUsage, type UsageRow } from './app-usage.repository.js';

/** Who used something: the token's site, app and person. */
export interface UsageActor {
  siteId: string;
  clientId: string;
  personId: string;
}

/** How often the counters are written. */
export const USAGE_FLUSH_MS = 5000;
/** Distinct counters held before a write is started early (bounds the memory a burst can take). */
export const USAGE_MAX_PENDING = 20_000;
/** How many things one request may name (a GraphQL query selecting many fields); the rest are dropped. */
export const USAGE_MAX_THINGS_PER_REQUEST = 8;

export class UsageRecorder {
  private pending = new Map<string, UsageRow>();
  private day = '';
  private dayEndsAt = 0;
  private readonly job: RepeatingJob<void>;
  private onError: (err: unknown) => void = () => {};

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {
    this.job = new RepeatingJob(() => this.write());
  }

  /** One request of an app for a person, using each of `things` (`mcp:list_courses`, ...). */
  record(actor: UsageActor, things: readonly string[], write: boolean): void {
    const now = this.clock.now();
    if (now >= this.dayEndsAt) {
      this.day = utcDayOf(now);
      this.dayEndsAt = (Math.floor(now / DAY_MS) + 1) * DAY_MS;
    }
    const count = Math.min(things.length, USAGE_MAX_THINGS_PER_REQUEST);
    for (let i = 0; i < count; i++) {
      const what = things[i] as string;
      const key = `${actor.siteId}\u0000${actor.clientId}\u0000${actor.personId}\u0000${this.day}\u0000${what}`;
      const row = this.pending.get(key);
      if (row) {
        row.requests += 1;
        row.lastAt = now;
        if (write) row.write = 1;
      } else {
        this.pending.set(key, { ...actor, day: this.day, what, write: write ? 1 : 0, requests: 1, lastAt: now });
      }
    }
    if (this.pending.size >= USAGE_MAX_PENDING) void this.flush().catch(this.onError);
  }

  /** Writes what is counted so far; a page calls it before reading, so this node's figures are exact. */
  flush(): Promise<void> {
    return this.job.runOnce();
  }

  start(onError: (err: unknown) => void, intervalMs = USAGE_FLUSH_MS): void {
    this.onError = onError;
    this.job.start(intervalMs, onError);
  }

  /** Stops the schedule and writes the last counts. */
  async stop(): Promise<void> {
    await this.job.stop();
    await this.write();
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const rows = [...this.pending.values()];
    this.pending = new Map();
    try {
      await addUsage(this.db, rows);
    } catch (err) {
      // Put the counts back (merged with any taken since) for the next try, within the bound.
      for (const row of rows) {
        if (this.pending.size >= USAGE_MAX_PENDING) break;
        const key = `${row.siteId}\u0000${row.clientId}\u0000${row.personId}\u0000${row.day}\u0000${row.what}`;
        const newer = this.pending.get(key);
        if (newer) {
          newer.requests += row.requests;
          newer.write = Math.max(newer.write, row.write);
        } else this.pending.set(key, row);
      }
      throw err;
    }
  }
}
