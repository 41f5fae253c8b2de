// Issue 2: "revocation effective immediately on every node (no per-node cache that outlives a revoke)".
// Access-token lookups are cached per process; these tests revoke through one process and check another
// at once: two nodes on PostgreSQL with Redis signals, two without Redis (no cache), and a SQLite file
// written by another process (the CLI, say).
import { request } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { runCli } from '../../src/cli/run.js';
import { openStore, type Store } from '../../src/storage/connect.js';
import { revokeGrant } from '../../src/oauth/tokens/tokens.repository.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { skipDialect } from '../helpers/dialects.js';
import { REDIS_URL, redisAvailable } from '../helpers/redis.js';
import { hiddenFields, person } from '../helpers/person.js';
import { DEMO_CLIENTS, getTokens, revoke } from '../helpers/token-flow.js';

const redis = await redisAvailable();

/** GET UserInfo at a node's own port while naming the site's origin in Host, as a load balancer would. */
function userInfoVia(port: number, siteHost: string, accessToken: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/api/oauth/userinfo', headers: { host: siteHost, authorization: `Bearer ${accessToken}` } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function secondNode(server: DemoServer, redisUrl: string | undefined): Promise<{ app: FastifyInstance; store: Store; port: number }> {
  const store = openStore(server.config.databaseUrl, { poolSize: 3 });
  const app = await buildApp({ config: { ...server.config, redisUrl }, store, clock: server.clock, logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  // Wait until the node listens for signals (with Redis), so the test checks the steady state.
  for (let i = 0; redisUrl && !app.services.signals.reliable() && i < 100; i++) await new Promise((r) => setTimeout(r, 20));
  return { app, store, port };
}

for (const withRedis of [true, false]) {
  describe.skipIf(skipDialect('postgres') || (withRedis && !redis))(
    `two nodes on PostgreSQL ${withRedis ? 'with' : 'without'} Redis`,
    () => {
      let server: DemoServer;
      let node: Awaited<ReturnType<typeof secondNode>>;
      beforeAll(async () => {
        server = await startDemoServer('postgres', withRedis ? { env: { REDIS_URL } } : {});
        node = await secondNode(server, withRedis ? REDIS_URL : undefined);
      });
      afterAll(async () => {
        await node?.app.close();
        await node?.store.close();
        await server?.close();
      });

      it(`${withRedis ? 'uses the cache only while subscribed, and ' : 'never caches, so '}a refresh-token revocation at one node is refused at the other at once`, async () => {
        if (withRedis) expect(node.app.services.signals.reliable()).toBe(true);
        else expect(node.app.services.signals.reliable()).toBe(false);
        const tokens = await getTokens(server, DEMO_CLIENTS.academyApp);
        const host = `localhost:${server.port}`;
        expect(await userInfoVia(node.port, host, tokens.access_token)).toBe(200);
        expect(await userInfoVia(node.port, host, tokens.access_token)).toBe(200);
        expect((await revoke(server, DEMO_CLIENTS.academyApp, tokens.refresh_token)).status).toBe(200);
        expect(await userInfoVia(node.port, host, tokens.access_token)).toBe(401);
        expect(await userInfoVia(server.port, host, tokens.access_token)).toBe(401);
      });

      // Only where the nodes share signals: without Redis a node re-reads its site list within 5 s instead.
      if (withRedis)
        it('the admin pages at one node (Revoke, MCP connections off and on) take effect at the other at once', async () => {
          const tokens = await getTokens(server, DEMO_CLIENTS.academyApp);
          const host = `localhost:${server.port}`;
          expect(await userInfoVia(node.port, host, tokens.access_token)).toBe(200);
          const owner = person('owner');
          const form = await owner.request(`${server.academy}/admin/settings/beta`);
          const signedIn = await owner.request(`${server.academy}/oauth/sign-in`, {
            form: { ...hiddenFields(form.html), email: owner.email, password: owner.password },
          });
          // Signed in: a refused sign-in would leave the admin forms below redirecting to it, changing nothing.
          expect(signedIn.status).toBe(303);
          const beta = await owner.request(signedIn.location as string);
          const csrf = /name="csrf_token" value="([^"]+)"/.exec(
            beta.html.slice(beta.html.indexOf('action="/admin/settings/beta"')),
          )?.[1] as string;
          const mcpConnections = (on: boolean) =>
            owner.request(`${server.academy}/admin/settings/beta`, {
              form: { csrf_token: csrf, ...(on ? { mcp_connections: 'on' } : {}) },
            });
          try {
            expect((await mcpConnections(false)).status).toBe(303);
            expect(await userInfoVia(node.port, host, tokens.access_token)).toBe(403);
          } finally {
            // Back on whatever happened above: the tests after this one authorize the member app.
            expect((await mcpConnections(true)).status).toBe(303);
          }
          expect(await userInfoVia(node.port, host, tokens.access_token)).toBe(200);
          const revoked = await owner.request(`${server.academy}/admin/connections/revoke`, {
            form: { csrf_token: csrf, client_id: 'academy-member-app' },
          });
          expect(revoked.status).toBe(303);
          expect(await userInfoVia(node.port, host, tokens.access_token)).toBe(401);
        });

      it('an access-token revocation at one node is refused at the other at once', async () => {
        const tokens = await getTokens(server, DEMO_CLIENTS.academyApp);
        const host = `localhost:${server.port}`;
        expect(await userInfoVia(node.port, host, tokens.access_token)).toBe(200);
        expect((await revoke(server, DEMO_CLIENTS.academyApp, tokens.access_token)).status).toBe(200);
        expect(await userInfoVia(node.port, host, tokens.access_token)).toBe(401);
      });
    },
  );
}

describe('SQLite: a revocation written by another process is seen at once', () => {
  let server: DemoServer;
  let other: Store;
  beforeAll(async () => {
    server = await startDemoServer('sqlite');
    other = openStore(server.config.databaseUrl);
  });
  afterAll(async () => {
    await other?.close();
    await server?.close();
  });

  it('refuses a cached token right after another connection revokes its grant (PRAGMA data_version)', async () => {
    const tokens = await getTokens(server, DEMO_CLIENTS.academyApp);
    const host = `localhost:${server.port}`;
    expect(await userInfoVia(server.port, host, tokens.access_token)).toBe(200);
    expect(await userInfoVia(server.port, host, tokens.access_token)).toBe(200);
    const row = await other.db
      .selectFrom('access_tokens')
      .select(['grant_id', 'site_id'])
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    await revokeGrant(other.db, row.site_id, row.grant_id, server.clock);
    // Another process's writes are noticed within DATA_VERSION_INTERVAL_MS (1 ms).
    await new Promise((r) => setTimeout(r, 5));
    expect(await userInfoVia(server.port, host, tokens.access_token)).toBe(401);
  });
});

// People and their roles are cached per process too (UserInfo, ID tokens); a change made by the CLI,
// another process, must show at once.
async function grantWithCli(server: DemoServer, email: string, role: string, extraEnv: Record<string, string> = {}): Promise<void> {
  let stderr = '';
  const code = await runCli(
    ['role', 'grant', '--site', 'demo-academy', '--email', email, '--role', role],
    {
      stdout: { write: () => true },
      stderr: {
        write: (chunk: string) => {
          stderr += chunk;
          return true;
        },
      },
    },
    { DATABASE_URL: server.config.databaseUrl, SCHOOLGATE_SECRET: server.config.secret, ...extraEnv },
  );
  expect(stderr).toBe('');
  expect(code).toBe(0);
}

async function rolesAt(origin: string, accessToken: string): Promise<string[]> {
  const res = await fetch(`${origin}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { roles: string[] }).roles;
}

describe('SQLite: a role granted by the CLI shows in UserInfo at once', () => {
  let server: DemoServer;
  beforeAll(async () => {
    server = await startDemoServer('sqlite');
  });
  afterAll(() => server?.close());

  it('reads the new role on the next UserInfo call although the person was cached', async () => {
    const tokens = await getTokens(server, DEMO_CLIENTS.academyApp);
    expect(await rolesAt(server.academy, tokens.access_token)).toEqual(['student']);
    expect(await rolesAt(server.academy, tokens.access_token)).toEqual(['student']);
    await grantWithCli(server, 'student@demo.test', 'lecturer');
    // Another process's writes are noticed within DATA_VERSION_INTERVAL_MS (1 ms).
    await new Promise((r) => setTimeout(r, 5));
    expect(await rolesAt(server.academy, tokens.access_token)).toEqual(['lecturer', 'student']);
  });
});

describe.skipIf(skipDialect('postgres') || !redis)('PostgreSQL with Redis: a role granted by the CLI shows in UserInfo at once', () => {
  let server: DemoServer;
  beforeAll(async () => {
    server = await startDemoServer('postgres', { env: { REDIS_URL } });
    for (let i = 0; !server.app.services.signals.reliable() && i < 100; i++) await new Promise((r) => setTimeout(r, 20));
  });
  afterAll(() => server?.close());

  it('reads the new role on the next UserInfo call although the person was cached', async () => {
    expect(server.app.services.signals.reliable()).toBe(true);
    const tokens = await getTokens(server, DEMO_CLIENTS.academyApp);
    expect(await rolesAt(server.academy, tokens.access_token)).toEqual(['student']);
    expect(await rolesAt(server.academy, tokens.access_token)).toEqual(['student']);
    await grantWithCli(server, 'student@demo.test', 'lecturer', { REDIS_URL });
    // The flush travels over Redis pub/sub; allow it the moment it takes to arrive.
    let roles: string[] = [];
    for (let i = 0; i < 50; i++) {
      roles = await rolesAt(server.academy, tokens.access_token);
      if (roles.length > 1) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(roles).toEqual(['lecturer', 'student']);
  });
});
