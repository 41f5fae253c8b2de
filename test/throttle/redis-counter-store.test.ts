// throttle/counter-store.ts with Redis: the counter script runs by its SHA-1 (EVALSHA), is loaded again
// when Redis has forgotten it (SCRIPT FLUSH, a restart), and counts the same either way; a window's counter
// expires with its window.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryCounterStore, RedisCounterStore } from '../../src/throttle/counter-store.js';
import { REDIS_URL, redisAvailable } from '../helpers/redis.js';

const available = await redisAvailable();

describe.skipIf(!available)('rate counters in Redis', () => {
  let redis: Redis;
  let observer: Redis;
  const fallbacks: number[] = [];
  let store: RedisCounterStore;
  const key = `test-counter-${process.pid}-${Date.now()}`;
  beforeAll(() => {
    redis = new Redis(REDIS_URL, { db: 14 });
    observer = new Redis(REDIS_URL, { db: 14 });
    store = new RedisCounterStore(redis, new MemoryCounterStore(), () => fallbacks.push(1));
  });
  afterAll(async () => {
    await observer.del(`sg:rl:${key}`);
    redis.disconnect();
    observer.disconnect();
  });

  const evalshaCalls = async () => Number(/cmdstat_evalsha:calls=(\d+)/.exec(await observer.info('commandstats'))?.[1] ?? 0);

  it('counts by the script SHA-1 once Redis holds the script, and loads it again after SCRIPT FLUSH', async () => {
    await observer.script('FLUSH');
    expect(await store.add(key, 1, 60_000)).toBe(1);
    const before = await evalshaCalls();
    expect(await store.add(key, 2, 60_000)).toBe(3);
    expect(await evalshaCalls()).toBeGreaterThan(before);
    await observer.script('FLUSH');
    expect(await store.add(key, 1, 60_000)).toBe(4);
    expect(await store.read([key, `${key}-absent`])).toEqual([4, 0]);
    expect(fallbacks).toEqual([]);
  });

  it('gives the counter the window’s expiry when it is created', async () => {
    const fresh = `${key}-ttl`;
    expect(await store.add(fresh, 1, 5_000)).toBe(1);
    const ttl = await observer.pttl(`sg:rl:${fresh}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5_000);
    await observer.del(`sg:rl:${fresh}`);
  });
});
