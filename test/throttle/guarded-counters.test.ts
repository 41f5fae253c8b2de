// Guarded counting (throttle/counter-store.ts addUnless, Throttle.takeUnless/recordUnless): the back
// channel's address budgets and the client's own budget are settled in one step, in memory and in Redis
// alike: a guard at its limit stops the spending (nothing is added, 429 names the guard), otherwise the
// counter is added to with its window's expiry. In Redis it is one round trip.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CounterStore, MemoryCounterStore, RedisCounterStore } from '../../src/throttle/counter-store.js';
import { type Budget, RateLimitExceeded, Throttle } from '../../src/throttle/throttle.js';
import { REDIS_URL, redisAvailable } from '../helpers/redis.js';

const available = await redisAvailable();
const prefix = `guarded-${process.pid}-${Date.now()}`;
const failures: Budget = { name: `${prefix}-failures`, limit: 2, windowSeconds: 60 };
const client: Budget = { name: `${prefix}-client`, limit: 3, windowSeconds: 60 };

/** The same rules, whatever the store. */
function behavesAsGuardedCounters(kind: string, makeStore: () => CounterStore) {
  describe(`guarded counters (${kind})`, () => {
    it('adds to the counter while every guard is under its limit, and stops at the first guard at its limit', async () => {
      const store = makeStore();
      const k = `${prefix}-${kind}-a`;
      expect(await store.addUnless([{ key: `${k}-g1`, limit: 1 }], `${k}-t`, 1, 60_000)).toEqual({ stoppedBy: -1, count: 1 });
      await store.add(`${k}-g2`, 2, 60_000);
      const stopped = await store.addUnless(
        [
          { key: `${k}-g1`, limit: 1 },
          { key: `${k}-g2`, limit: 2 },
        ],
        `${k}-t`,
        1,
        60_000,
      );
      expect(stopped).toEqual({ stoppedBy: 1, count: 2 });
      // Nothing was added when a guard stopped it.
      expect(await store.read([`${k}-t`])).toEqual([1]);
      expect(await store.addUnless([], `${k}-t`, 2, 60_000)).toEqual({ stoppedBy: -1, count: 3 });
    });

    it('throttles a client behind its address budgets: 429 for the used-up guard spends nothing, then the client’s own limit', async () => {
      // Halfway through a window that does not move: the spending below cannot straddle two windows.
      const throttle = new Throttle(makeStore(), () => 30_000);
      const address = `${kind}-203.0.113.9`;
      const guards = [[failures, address] as const];
      for (let i = 1; i <= 3; i++) expect((await throttle.takeUnless(guards, client, `${kind}-c1`)).remaining).toBe(3 - i);
      await expect(throttle.takeUnless(guards, client, `${kind}-c1`)).rejects.toMatchObject({ budget: client });
      // The address's failures reach their limit: the next request is refused for the address, not the client.
      await throttle.recordUnless(guards, failures, address);
      await throttle.recordUnless(guards, failures, address);
      const refused = await throttle.takeUnless(guards, client, `${kind}-c2`).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(RateLimitExceeded);
      expect((refused as RateLimitExceeded).budget).toBe(failures);
      expect((refused as RateLimitExceeded).tally.remaining).toBe(0);
      // Refused requests are not counted once the address is over its budget, and nothing was spent for c2.
      await expect(throttle.recordUnless(guards, failures, address)).rejects.toBeInstanceOf(RateLimitExceeded);
      expect((await throttle.takeUnless([], client, `${kind}-c2`)).remaining).toBe(2);
    });
  });
}

behavesAsGuardedCounters('memory', () => new MemoryCounterStore());

describe.skipIf(!available)('guarded counters in Redis', () => {
  let redis: Redis;
  let observer: Redis;
  const calls: string[] = [];
  let counting: Redis;
  beforeAll(() => {
    redis = new Redis(REDIS_URL, { db: 14 });
    observer = new Redis(REDIS_URL, { db: 14 });
    // The real client, with its commands written down: how many round trips a decision takes.
    counting = new Proxy(redis, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          calls.push(String(property));
          return value.apply(target, args);
        };
      },
    });
  });
  afterAll(async () => {
    const keys = await observer.keys(`sg:rl:${prefix}*`);
    if (keys.length > 0) await observer.del(...keys);
    redis.disconnect();
    observer.disconnect();
  });

  behavesAsGuardedCounters('redis', () => new RedisCounterStore(redis, new MemoryCounterStore()));

  it('decides the guards and the spending in one command, by the script’s SHA-1 once Redis holds it', async () => {
    const throttle = new Throttle(new RedisCounterStore(counting, new MemoryCounterStore(), () => calls.push('fallback')));
    await observer.script('FLUSH');
    await throttle.takeUnless([[failures, 'one-trip']], client, 'one-trip');
    calls.length = 0;
    await throttle.takeUnless([[failures, 'one-trip']], client, 'one-trip');
    expect(calls).toEqual(['evalsha']);
  });

  it('gives a new counter its window’s expiry and counts on the node when Redis does not answer', async () => {
    const store = new RedisCounterStore(redis, new MemoryCounterStore());
    await store.addUnless([{ key: `${prefix}-g`, limit: 5 }], `${prefix}-ttl`, 1, 5_000);
    const ttl = await observer.pttl(`sg:rl:${prefix}-ttl`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5_000);
    const down = new Redis(REDIS_URL, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    const fellBack: number[] = [];
    const local = new RedisCounterStore(down, new MemoryCounterStore(), () => fellBack.push(1));
    expect(await local.addUnless([{ key: 'g', limit: 1 }], 't', 1, 5_000)).toEqual({ stoppedBy: -1, count: 1 });
    expect(await local.addUnless([{ key: 't', limit: 1 }], 'u', 1, 5_000)).toEqual({ stoppedBy: 0, count: 1 });
    expect(fellBack).toEqual([1, 1]);
    down.disconnect();
  });
});
