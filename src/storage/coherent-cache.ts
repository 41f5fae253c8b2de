// A per-process cache of rows that change rarely (people with their roles, member applications), kept
// coherent by the revocation signals: any `flush` empties it, and it is bypassed while the signals are
// not reliable (storage/revocation-signals.ts). Whoever changes such rows publishes a flush; on SQLite a
// write by another process is noticed through data_version and flushes it too.
import type { Clock } from '../kernel/clock.js';
import { CacheStats } from '../observability/cache-stats.js';
import type { RevocationSignal, RevocationSignals } from './revocation-signals.js';
import { setBounded } from '../kernel/bounded-map.js';

/** What a signal makes a cache forget. */
export type Forgotten = typeof EVERYTHING | typeof NOTHING | { keyPrefix: string };
export const EVERYTHING = 'everything';
export const NOTHING = 'nothing';

/** How long an entry is kept at most: what a change no signal told a node about lasts there. */
export const COHERENT_CACHE_TTL_MS = 60_000;

export class CoherentCache<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();
  /** Bumped by every signal that forgets anything: a value read across one may be stale and is not kept. */
  private generation = 0;
  readonly stats = new CacheStats();

  constructor(
    private readonly signals: RevocationSignals,
    private readonly clock: Clock,
    private readonly ttlMs = COHERENT_CACHE_TTL_MS,
    private readonly maxEntries = 10_000,
    /**
     * What further signals, besides `flush`, forget: every entry, or those whose keys start with a prefix
     * (one site's, say), or nothing.
     */
    forgets: (signal: RevocationSignal) => Forgotten = () => NOTHING,
  ) {
    signals.subscribe((signal) => {
      const forgotten = signal.kind === 'flush' ? EVERYTHING : forgets(signal);
      if (forgotten === NOTHING) return;
      // Any load in flight may have read what changed: none of them is kept, whatever its key.
      this.generation++;
      if (forgotten === EVERYTHING) this.entries.clear();
      else for (const key of this.entries.keys()) if (key.startsWith(forgotten.keyPrefix)) this.entries.delete(key);
    });
  }

  /** The cached value when it may be trusted now, without waiting; undefined otherwise. */
  peek(key: string): V | undefined {
    if (!this.signals.reliable()) return undefined;
    const hit = this.entries.get(key);
    if (hit === undefined || hit.until <= this.clock.now()) return undefined;
    this.stats.count(true);
    return hit.value;
  }

  /** The cached value when it may be trusted, else `load()`'s (kept unless undefined). */
  async get(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const hit = this.peek(key);
    if (hit !== undefined) return hit;
    const reliable = this.signals.reliable();
    this.stats.count(false);
    const generation = this.generation;
    const value = await load();
    if (value !== undefined && reliable && this.signals.reliable() && generation === this.generation) {
      setBounded(this.entries, key, { value, until: this.clock.now() + this.ttlMs }, this.maxEntries);
    }
    return value;
  }
}
