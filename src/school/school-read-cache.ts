// Reads of a school that many requests repeat, kept per process: the public tools' catalogue answers
// (search_courses, get_course: many assistants ask the same school the same few questions) and a member's
// pages of enrolments with the member API's per-enrolment facts (every viewer query and list_my_enrollments
// call reads one, and a member's app asks again on every screen). Each costs a statement, while only
// operators change what it reads.
// Coherent like the other caches (storage/coherent-cache.ts): every operator write signals `catalogue`
// after its commit (operations/operation.ts), which forgets that site's entries in every such cache on
// every node; a write by another process on SQLite, or a lost Redis link, empties or bypasses them too.
// TTL_MS bounds what any other path could leave stale.
import type { Clock } from '../kernel/clock.js';
import { CoherentCache, NOTHING } from '../storage/coherent-cache.js';
import type { RevocationSignals } from '../storage/revocation-signals.js';

/** Short, since a school may also change by paths no signal covers (a seed, a migration). */
export const TTL_MS = 5_000;
/** A page of listings is some kilobytes: the search texts of a crawler stay within a few megabytes. */
export const CATALOGUE_ENTRIES = 1_000;
/**
 * Members' first pages of enrolments (two reads each, at most 21 rows a page) and the member API's batches
 * of facts about them (lecture counts, completed lectures, last lectures: at most 21 ids each;
 * enrollments.repository.ts): the members active within one TTL; some tens of megabytes if every one of
 * them had full pages.
 */
export const LEARNING_ENTRIES = 5_000;

/** Site ids hold no NUL, so one site's prefix never starts another's key. */
const siteKeyPrefix = (siteId: string) => `${siteId}\u0000`;

export class SchoolReadCache {
  private readonly cache: CoherentCache<unknown>;

  constructor(
    private readonly signals: RevocationSignals,
    clock: Clock,
    maxEntries: number,
  ) {
    // One site's change forgets that site's entries only: in a deployment of many schools, some operator
    // is always writing somewhere, and emptying every school's entries each time would keep none.
    this.cache = new CoherentCache<unknown>(signals, clock, TTL_MS, maxEntries, (signal) =>
      signal.kind === 'catalogue' ? { keyPrefix: siteKeyPrefix(signal.siteId) } : NOTHING,
    );
  }

  get stats() {
    return this.cache.stats;
  }

  /**
   * The answer of a read of a site's school: the one kept for `key` (which names the read and its
   * arguments, and the member for a member's own data) when it may be trusted, else `load()`'s. Answers
   * are shared by every caller, so they must not be changed after they are returned.
   */
  async read<T>(siteId: string, key: string, load: () => Promise<T>): Promise<T> {
    return (await this.cache.get(`${siteKeyPrefix(siteId)}${key}`, load)) as T;
  }

  /** Called after an operator's write has committed: every node reads this site's school afresh. */
  changed(siteId: string): Promise<void> {
    return this.signals.publish({ kind: 'catalogue', siteId });
  }
}
