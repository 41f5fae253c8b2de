// Fixed-window counters behind every rate limit. With Redis they are shared by all nodes; without it, or
// while Redis cannot answer, each node counts alone (a limit then holds per node, never not at all).
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { type RedisNames, redisNames } from '../storage/redis-names.js';

/** A counter that must stay under its limit for another one to be added to. */
export interface Guard {
  key: string;
  limit: number;
}

/** What addUnless did: `stoppedBy` is the index of the first guard at its limit (nothing was added), or -1. */
export interface GuardedAdd {
  stoppedBy: number;
  /** The stopping guard's count, or the added counter's new count. */
  count: number;
}

export interface CounterStore {
  /** Adds `by` to the counter `key` of a window that ends in `ttlMs`; answers the new count. */
  add(key: string, by: number, ttlMs: number): Promise<number>;
  /**
   * Adds `by` to `key` unless one of `guards` has reached its limit, in one step (one round trip where the
   * store is remote): the back channel's address budgets and the client's own are settled together.
   */
  addUnless(guards: readonly Guard[], key: string, by: number, ttlMs: number): Promise<GuardedAdd>;
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
    return keys.map((key) => this.count(key, now));
  }

  async addUnless(guards: readonly Guard[], key: string, by: number, ttlMs: number): Promise<GuardedAdd> {
    const now = this.now();
    for (const [i, guard] of guards.entries()) {
      const count = this.count(guard.key, now);
      if (count >= guard.limit) return { stoppedBy: i, count };
    }
    return { stoppedBy: -1, count: await this.add(key, by, ttlMs) };
  }

  private count(key: string, now: number): number {
    const entry = this.counters.get(key);
    return entry && entry.expiresAt > now ? entry.count : 0;
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

// The guards (KEYS[1..n-1] under the limits ARGV[1..n-1]) are read, and the last key is added to only if
// none is at its limit: { index of the stopping guard or 0, its count or the new count }. INCRBY and
// PEXPIRE in one step, so a counter never outlives its window even if a node dies between them.
const ADD_UNLESS_SCRIPT = `local n = #KEYS
for i = 1, n - 1 do
  local g = tonumber(redis.call('GET', KEYS[i]) or '0')
  if g >= tonumber(ARGV[i]) then return {i, g} end
end
local by = tonumber(ARGV[n])
local c = redis.call('INCRBY', KEYS[n], by)
if c == by then redis.call('PEXPIRE', KEYS[n], ARGV[n + 1]) end
return {0, c}`;
// Called by its SHA-1, as Redis recommends for scripts run often (EVALSHA): the text is sent again only
// when Redis does not hold the script (after a restart or SCRIPT FLUSH), which EVAL then loads again.
const ADD_UNLESS_SCRIPT_SHA = createHash('sha1').update(ADD_UNLESS_SCRIPT).digest('hex');

export class RedisCounterStore implements CounterStore {
  constructor(
    private readonly redis: Redis,
    private readonly fallback: CounterStore,
    private readonly onFallback: () => void = () => {},
    private readonly names: RedisNames = redisNames(),
  ) {}

  async add(key: string, by: number, ttlMs: number): Promise<number> {
    return (await this.addUnless([], key, by, ttlMs)).count;
  }

  async addUnless(guards: readonly Guard[], key: string, by: number, ttlMs: number): Promise<GuardedAdd> {
    try {
      const keys = [...guards.map((g) => this.names.counter(g.key)), this.names.counter(key)];
      const [index, count] = (await this.run(keys, [...guards.map((g) => g.limit), by, ttlMs])) as [number, number];
      return { stoppedBy: Number(index) - 1, count: Number(count) };
    } catch {
      this.onFallback();
      return this.fallback.addUnless(guards, key, by, ttlMs);
    }
  }

  private async run(keys: string[], args: number[]): Promise<unknown> {
    try {
      return await this.redis.evalsha(ADD_UNLESS_SCRIPT_SHA, keys.length, ...keys, ...args);
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('NOSCRIPT'))
        return this.redis.eval(ADD_UNLESS_SCRIPT, keys.length, ...keys, ...args);
      throw error;
    }
  }

  async read(keys: readonly string[]): Promise<number[]> {
    try {
      const values = await this.redis.mget(keys.map((key) => this.names.counter(key)));
      return values.map((value) => Number(value ?? 0));
    } catch {
      this.onFallback();
      return this.fallback.read(keys);
    }
  }
}
