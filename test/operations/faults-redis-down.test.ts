// Issue 8, "Faults survived": Redis taken away. The service keeps serving: rate limits fall back to each
// node's own counters, token caches are bypassed while revocation signals cannot travel, so revocation
// stays correct (the database is the source of truth), on one node and across two. When Redis returns,
// the nodes use it again without a restart. Redis is cut by a TCP proxy in front of it.
import { request } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { openStore, type Store } from '../../src/storage/connect.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { person } from '../helpers/person.js';
import { REDIS_URL } from '../helpers/redis.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { DEMO_CLIENTS, getTokens, introspect, refresh, revoke, type TokenSet } from '../helpers/token-flow.js';

const WEB = DEMO_CLIENTS.academyWeb;
const METRICS_TOKEN = 'metrics-token-for-the-redis-fault-test-0123456789';

/** A request to one node's own address naming a site's host, as a load balancer sends it; answers the status. */
function viaNode(
  origin: string,
  host: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<number> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, method, path, headers: { ...headers, host } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer to ${method} ${path} at ${origin} within 10 s`)));
    req.end(body);
  });
}

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting until ${what}`);
}

for (const dialect of DIALECTS) {
  // One retry: once in a full CI run (of about a dozen) the first test waited 30 s on a request and timed out;
  // it did not happen again in many runs of this file, alone or six at once. Requests to a node now give up
  // after 10 s naming themselves, so the next occurrence says which one hangs (noted for a follow-up).
  describe.skipIf(skipDialect(dialect))(`serving with Redis taken away and given back (${dialect})`, { retry: 1 }, () => {
    let proxy: TcpProxy;
    let server: DemoServer;
    // PostgreSQL deployments run several nodes: a second one on the same database and Redis.
    let second: { app: FastifyInstance; store: Store; origin: string } | undefined;

    beforeAll(async () => {
      const target = new URL(REDIS_URL);
      proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
      const redisUrl = `redis://127.0.0.1:${proxy.port}/12`;
      server = await startDemoServer(dialect, { env: { REDIS_URL: redisUrl, METRICS_TOKEN } });
      if (dialect === 'postgres') {
        const store = openStore(server.config.databaseUrl, { poolSize: 3 });
        const app = await buildApp({ config: server.config, store, clock: server.clock, logger: false });
        await app.listen({ port: 0, host: '127.0.0.1' });
        const address = app.server.address();
        const port = typeof address === 'object' && address ? address.port : 0;
        second = { app, store, origin: `http://127.0.0.1:${port}` };
      }
      await until(() => server.app.services.signals.reliable() && (second?.app.services.signals.reliable() ?? true), 'subscribed');
    });
    afterEach(() => proxy?.resume());
    afterAll(async () => {
      await second?.app.close();
      await second?.store.close();
      await server?.close();
      await proxy?.close();
    });

    /** UserInfo at a node, naming the Academy's host as a load balancer would. */
    const userInfoAt = (origin: string, token: string) =>
      viaNode(origin, new URL(server.academy).host, 'GET', '/api/oauth/userinfo', { authorization: `Bearer ${token}` });
    const nodes = () => [server.academy, ...(second ? [second.origin] : [])];

    it('keeps serving without Redis: UserInfo, refresh, introspection; a revocation is refused at every node at once', async () => {
      const tokens: TokenSet = await getTokens(server, WEB, { scope: 'openid profile', who: person('student') });
      const other: TokenSet = await getTokens(server, WEB, { scope: 'openid profile', who: person('student') });
      // Warm the caches while Redis is up: these lookups are cached on every node.
      for (const origin of nodes()) expect(await userInfoAt(origin, other.access_token)).toBe(200);

      await proxy.pause('refuse');
      // On PostgreSQL the nodes stop trusting their caches (signals travel over Redis); SQLite's signals are in-process.
      if (dialect === 'postgres')
        await until(
          () => !server.app.services.signals.reliable() && !(second?.app.services.signals.reliable() ?? false),
          'the nodes notice Redis is gone',
        );

      for (const origin of nodes()) expect(await userInfoAt(origin, tokens.access_token)).toBe(200);
      const refreshed = await refresh(server, WEB, tokens.refresh_token ?? '');
      expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
      expect(
        (await introspect(server.academy, other.access_token, { client_id: WEB.clientId, client_secret: WEB.secret })).body,
      ).toMatchObject({
        active: true,
      });

      // Revoked at the first node; the token cached before the cut is refused everywhere.
      expect((await revoke(server, WEB, other.access_token)).status).toBe(200);
      for (const origin of nodes()) expect(await userInfoAt(origin, other.access_token)).toBe(401);

      // Rate limits still count (per node) and the fallback shows in the metrics.
      const metrics = await (await fetch(`${server.academy}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
      expect(metrics).toMatch(/^schoolgate_rate_limit_redis_fallbacks_total [1-9]\d*$/m);
      // Readiness says what is missing; liveness holds.
      const ready = await fetch(`${server.academy}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ redis: expect.anything() });
      expect((await fetch(`${server.academy}/healthz`)).status).toBe(200);
    });

    it('uses Redis again when it returns, without a restart: readiness, cached lookups and cross-node revocation', async () => {
      await until(() => server.app.services.signals.reliable() && (second?.app.services.signals.reliable() ?? true), 'resubscribed');
      await until(async () => (await fetch(`${server.academy}/readyz`)).status === 200, 'ready again');
      const tokens = await getTokens(server, WEB, { scope: 'openid profile', who: person('student') });
      for (const origin of nodes()) {
        expect(await userInfoAt(origin, tokens.access_token)).toBe(200);
        expect(await userInfoAt(origin, tokens.access_token)).toBe(200);
      }
      // Revoked through the last node: the first, which cached the lookup, refuses it at once.
      const status = await viaNode(
        nodes().at(-1) as string,
        new URL(server.academy).host,
        'POST',
        '/api/oauth/revoke',
        { 'content-type': 'application/x-www-form-urlencoded' },
        new URLSearchParams({ token: tokens.access_token, client_id: WEB.clientId, client_secret: WEB.secret ?? '' }).toString(),
      );
      expect(status).toBe(200);
      for (const origin of nodes()) expect(await userInfoAt(origin, tokens.access_token)).toBe(401);
    });
  });
}
