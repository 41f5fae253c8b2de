// The deployment's counters client (services.ts) sends the commands of one turn of the event loop to Redis
// together (ioredis auto-pipelining): one write for the turn rather than one, and one wake-up of Redis, per
// request. Each command still gets its own answer.
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { REDIS_URL, redisAvailable } from '../helpers/redis.js';

const available = await redisAvailable();

describe.skipIf(!available)('the counters’ Redis client of a deployment', () => {
  let server: DemoServer;

  beforeAll(async () => {
    server = await startDemoServer('sqlite', { env: { REDIS_URL } });
  });

  afterAll(async () => {
    await server.close();
  });

  it('sends the commands issued in one turn of the event loop as one pipeline, each with its own answer', async () => {
    const redis = server.app.services.redis;
    if (!redis) throw new Error('the deployment has no Redis client although REDIS_URL is set');
    if (redis.status !== 'ready') await once(redis, 'ready');
    const key = `test-pipelined-${process.pid}-${Date.now()}`;
    const answers = [redis.incr(key), redis.incr(key), redis.incr(key)];
    // Queued for the end of this turn, not written one by one.
    expect(redis.autoPipelineQueueSize).toBe(3);
    expect(await Promise.all(answers)).toEqual([1, 2, 3]);
    await redis.del(key);
  });
});
