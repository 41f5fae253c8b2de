// What anonymous MCP callers read most (search_courses, get_course), kept per process. Many assistants
// ask the same school the same few questions; each answer costs a statement over the catalogue, which
// only operators change. Coherent like the other caches (storage/coherent-cache.ts): every operator write
// signals `catalogue` after its commit (operations/operation.ts), which forgets that site's answers on
// every node; a write by another process on SQLite, or a lost Redis link, empties or bypasses it too.
// TTL_MS bounds what any other path could leave stale.
import type { Clock } from '../kernel/clock.js';
import { CoherentCache, NOTHING } from '../storage/coherent-cache.js';
import type { RevocationSignals } from '../storage/revocation-signals.js';

/** Short, since the catalogue may also change by paths no signal covers (a seed, a migration). */
export const TTL_MS = 5_000;
/** A page of listings is some kilobytes: the search texts of a crawler stay within a few megabytes. */
export const MAX_ENTRIES = 1_000;

/** Site ids hold no NUL, so one site's prefix never starts another's key. */
const siteKeyPrefix = (siteId: string) => `${siteId}\u0000`;

export class PublicCatalogueCache {
  private readonly cache: CoherentCache<unknown>;

  constructor(
    private readonly signals: RevocationSignals,
    clock: Clock,
  ) {
    // One site's change forgets that site's answers only: in a deployment of many schools, some operator
    // is always writing somewhere, and emptying every school's answers each time would keep none.
    this.cache = new CoherentCache<unknown>(signals, clock, TTL_MS, MAX_ENTRIES, (signal) =>
      signal.kind === 'catalogue' ? { keyPrefix: siteKeyPrefix(signal.siteId) } : NOTHING,
    );
  }

  get stats() {
    return this.cache.stats;
  }

  /**
   * The answer of a public read of a site's catalogue: the one kept for `key` (which names the read and
   * its arguments) when it may be trusted, else `load()`'s. Answers are shared by every caller, so they
   * must not be changed after they are returned.
   */
  async read<T>(siteId: string, key: string, load: () => Promise<T>): Promise<T> {
    return (await this.cache.get(`${siteKeyPrefix(siteId)}${key}`, load)) as T;
  }

  /** Called after an operator's write has committed: every node reads this site's catalogue afresh. */
  changed(siteId: string): Promise<void> {
    return this.signals.publish({ kind: 'catalogue', siteId });
  }
}
