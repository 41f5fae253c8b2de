// Issue 8, "Operations": GET /healthz says the process serves; GET /readyz says whether the database and,
// when configured, Redis answer (503 naming the part that does not). Both answer any Host, since probes
// call a node by address, and neither is rate limited.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawGet } from '../helpers/authorization-url.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { skipDialect } from '../helpers/dialects.js';
import { type ProxiedDemoServer, startProxiedDemoServer } from '../helpers/proxied-demo-server.js';
import { REDIS_URL } from '../helpers/redis.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const json = (body: string) => JSON.parse(body) as Record<string, unknown>;

describe('health and readiness (sqlite)', () => {
  let server: DemoServer;
  beforeAll(async () => {
    server = await startDemoServer('sqlite');
  });
  afterAll(() => server?.close());

  it('answers /healthz 200 for any Host, and /readyz 200 with the database ok', async () => {
    for (const host of ['unknown.example', `localhost:${server.port}`, '10.0.0.7']) {
      const live = await rawGet(server.port, '/healthz', { host });
      expect(live.status, host).toBe(200);
      expect(json(live.body)).toEqual({ status: 'ok' });
      const ready = await rawGet(server.port, '/readyz', { host });
      expect(ready.status, host).toBe(200);
      expect(json(ready.body)).toEqual({ status: 'ready', database: 'ok' });
      expect(ready.headers['cache-control']).toBe('no-store');
    }
  });

  it('is never rate limited: a thousand probes in a row all answer 200', async () => {
    const statuses = new Set<number>();
    for (let i = 0; i < 1000; i++) statuses.add((await fetch(`${server.academy}/healthz`)).status);
    expect([...statuses]).toEqual([200]);
  });
});

describe.skipIf(skipDialect('postgres'))('readiness with the database or Redis gone (postgres through TCP proxies)', () => {
  let server: ProxiedDemoServer;
  let redisProxy: TcpProxy;
  beforeAll(async () => {
    const redis = new URL(REDIS_URL);
    redisProxy = await startTcpProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
    server = await startProxiedDemoServer({ env: { REDIS_URL: `redis://127.0.0.1:${redisProxy.port}` } });
  });
  afterAll(async () => {
    await server?.close();
    await redisProxy?.close();
  });

  it('answers 200 with both parts ok, 503 naming the database when it is gone, and 200 again when it is back', async () => {
    expect(json((await rawGet(server.port, '/readyz', { host: 'lb.internal' })).body)).toEqual({
      status: 'ready',
      database: 'ok',
      redis: 'ok',
    });
    await server.proxy.pause('stall');
    try {
      const down = await rawGet(server.port, '/readyz', { host: 'lb.internal' });
      expect(down.status).toBe(503);
      expect(json(down.body)).toEqual({ status: 'unavailable', database: 'failed', redis: 'ok' });
      // Liveness does not depend on the database.
      expect((await rawGet(server.port, '/healthz', { host: 'lb.internal' })).status).toBe(200);
    } finally {
      server.proxy.resume();
    }
    await expect.poll(async () => (await rawGet(server.port, '/readyz', { host: 'lb.internal' })).status, { timeout: 10_000 }).toBe(200);
  });

  it('answers 503 naming Redis when it is gone, and 200 when it is back', async () => {
    await redisProxy.pause('refuse');
    try {
      await expect
        .poll(async () => json((await rawGet(server.port, '/readyz', { host: 'lb.internal' })).body).redis, { timeout: 10_000 })
        .toBe('failed');
    } finally {
      redisProxy.resume();
    }
    await expect.poll(async () => (await rawGet(server.port, '/readyz', { host: 'lb.internal' })).status, { timeout: 15_000 }).toBe(200);
  });
});
