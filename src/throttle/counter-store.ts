// Fixed-window counters behind every rate limit. With Redis they are shared by all nodes; without it, or
// while Redis cannot answer, each node counts alone (a limit then holds per node, never not at all).
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

export interface CounterStore {
  /** Adds `by` to the counter `key` of a window that ends in `ttlMs`; answers the new count. */
  add(key: string, by: number, ttlMs: number): Promise<number>;
  /** The current counts of `keys` (0 when absent), in one round trip where the store is remote. */
  read(keys: readonly string[]): Promise<number[]>;
}

/** Entries kept before expired ones are swept; a flood of distinct addresses cannot grow memory past it. */
const MAX_ENTRIES = 100_000;

export class MemoryCounterStore implements CounterStore {
  private readonly counters = new Map<string, { count: number; expiresAt: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async add(key: string, by: number, ttlMs: number): Promise<number> {
    const now = this.now();
    const entry = this.counters.get(key);
    if (entry && entry.expiresAt > now) {
      entry.count += by;
      return entry.count;
    }
    if (this.counters.size >= MAX_ENTRIES) this.sweep(now);
    this.counters.set(key, { count: by, expiresAt: now + ttlMs });
    return by;
  }

  async read(keys: readonly string[]): Promise<number[]> {
    const now = this.now();
    return keys.map((key) => {
      const entry = this.counters.get(key);
      return entry && entry.expiresAt > now ? entry.count : 0;
    });
  }

  private sweep(now: number): void {
    for (const [key, entry] of this.counters) if (entry.expiresAt <= now) this.counters.delete(key);
    // Still full of live windows: drop the oldest, which are the closest to expiry anyway.
    for (const key of this.counters.keys()) {
      if (this.counters.size < MAX_ENTRIES) break;
      this.counters.delete(key);
    }
  }
}

// INCRBY and PEXPIRE in one step, so a counter never outlives its window even if a node dies between them.
const ADD_SCRIPT = `local c = redis.call('INCRBY', KEYS[1], ARGV[1])
if c == tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return c`;
// Called by its SHA-1, as Redis recommends for scripts run often (EVALSHA): the text is sent again only
// when Redis does not hold the script (after a restart or SCRIPT FLUSH), which EVAL then loads again.
const ADD_SCRIPT_SHA = createHash('sha1').update(ADD_SCRIPT).digest('hex');

export class RedisCounterStore implements CounterStore {
  constructor(
    private readonly redis: Redis,
    private readonly fallback: CounterStore,
    private readonly onFallback: () => void = () => {},
  ) {}

  async add(key: string, by: number, ttlMs: number): Promise<number> {
    try {
      return Number(await this.addInRedis(`sg:rl:${key}`, by, ttlMs));
    } catch {
      this.onFallback();
      return this.fallback.add(key, by, ttlMs);
    }
  }

  private async addInRedis(key: string, by: number, ttlMs: number): Promise<unknown> {
    try {
      return await this.redis.evalsha(ADD_SCRIPT_SHA, 1, key, by, ttlMs);
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('NOSCRIPT')) return this.redis.eval(ADD_SCRIPT, 1, key, by, ttlMs);
      throw error;
    }
  }

  async read(keys: readonly string[]): Promise<number[]> {
    try {
      const values = await this.redis.mget(keys.map((key) => `sg:rl:${key}`));
      return values.map((value) => Number(value ?? 0));
    } catch {
      this.onFallback();
      return this.fallback.read(keys);
    }
  }
}
