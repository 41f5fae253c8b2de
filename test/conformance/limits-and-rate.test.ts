// Limits at the OAuth endpoints (issue 2, issue 8, platform config `limits`): back-channel calls are
// counted by who calls (a confidential client per site, a public client per address, failed client
// authentications per address), sign-in and registration per address; every 429 carries Retry-After and
// the RateLimit-* headers and the endpoint's own error shape. Request and body sizes are bounded too.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { REDIS_URL, redisAvailable } from '../helpers/redis.js';
import { DEMO_CLIENTS, type FormResponse, postForm } from '../helpers/token-flow.js';

const { academyApp, academyWeb } = DEMO_CLIENTS;
const redis = await redisAvailable();
/** A Redis database of its own, so other test files' counters never meet these. */
const LIMITS_REDIS_URL = (() => {
  const url = new URL(REDIS_URL);
  url.pathname = '/9';
  return url.toString();
})();
const OTHER_PREFIX = 'other-network';
const FAILURES = 4;
const CONFIDENTIAL = 12;
const PUBLIC = 3;

function expectRateLimited(res: FormResponse | Response, body?: Record<string, unknown>): void {
  expect(res.status).toBe(429);
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(Number(res.headers.get('ratelimit-limit'))).toBeGreaterThan(0);
  expect(res.headers.get('ratelimit-remaining')).toBe('0');
  expect(res.headers.get('ratelimit-reset')).toBe(String(retryAfter));
  expect(res.headers.get('ratelimit-policy')).toMatch(/^\d+;w=\d+$/);
  if (body) {
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(body).sort()).toEqual(['error', 'error_description']);
  }
}

const introspect = (origin: string, secret: string = academyWeb.secret) =>
  postForm(`${origin}/api/oauth/introspect`, { token: 'sga_x', client_id: academyWeb.clientId, client_secret: secret });

const tightLimits = (p: {
  limits: {
    failed_client_auth_per_minute: number;
    client_rate_per_minute: { confidential: number; public: number };
    oauth_rate_per_minute: number;
  };
}) => {
  p.limits.failed_client_auth_per_minute = FAILURES;
  p.limits.client_rate_per_minute.confidential = CONFIDENTIAL;
  p.limits.client_rate_per_minute.public = PUBLIC;
  p.limits.oauth_rate_per_minute = PUBLIC;
};

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`back-channel rate limits (${dialect})`, () => {
    let server: DemoServer;

    beforeAll(async () => {
      server = await startDemoServer(dialect, { platform: tightLimits });
    });
    afterAll(() => server?.close());

    it('a confidential client is counted per client, not per address: it outlasts the per-address budgets, then gets 429 with RateLimit-*', async () => {
      server.clock.startRateWindow();
      for (let i = 0; i < CONFIDENTIAL; i++) {
        const res = await introspect(server.academy);
        expect(res.status, `call ${i + 1}`).toBe(200);
      }
      const limited = await introspect(server.academy);
      expectRateLimited(limited, limited.body);
      expect(limited.headers.get('ratelimit-limit')).toBe(String(CONFIDENTIAL));
      expect(limited.headers.get('ratelimit-policy')).toBe(`${CONFIDENTIAL};w=60`);
    });

    it('a public client is counted per client and address, apart from the confidential one', async () => {
      server.clock.startRateWindow();
      const revoke = () => postForm(`${server.academy}/api/oauth/revoke`, { token: 'sga_x', client_id: academyApp.clientId });
      for (let i = 0; i < PUBLIC; i++) expect((await revoke()).status, `call ${i + 1}`).toBe(200);
      const limited = await revoke();
      expectRateLimited(limited, limited.body);
      expect(limited.headers.get('ratelimit-limit')).toBe(String(PUBLIC));
    });
  });

  describe.skipIf(skipDialect(dialect))(`failed client authentication per address (${dialect})`, () => {
    let server: DemoServer;

    beforeAll(async () => {
      server = await startDemoServer(dialect, { platform: tightLimits });
    });
    afterAll(() => server?.close());

    it('after failed_client_auth_per_minute wrong secrets the address gets 429 whatever the secret, even the right one', async () => {
      server.clock.startRateWindow();
      for (let i = 0; i < FAILURES; i++) {
        const res = await introspect(server.academy, 'wrong-secret');
        expect(res.status, `attempt ${i + 1}`).toBe(401);
        expect(res.body.error).toBe('invalid_client');
      }
      const wrong = await introspect(server.academy, 'wrong-secret');
      expectRateLimited(wrong, wrong.body);
      expect(wrong.headers.get('ratelimit-limit')).toBe(String(FAILURES));
      const right = await introspect(server.academy);
      expectRateLimited(right, right.body);
      // HTTP Basic and the token endpoint are the same door.
      const basic = await postForm(
        `${server.academy}/api/oauth/token`,
        { grant_type: 'refresh_token', refresh_token: 'sgr_x' },
        { authorization: `Basic ${Buffer.from(`${academyWeb.clientId}:${academyWeb.secret}`).toString('base64')}` },
      );
      expectRateLimited(basic, basic.body);
    });
  });

  describe.skipIf(skipDialect(dialect))(`unauthenticated refusals per address (${dialect})`, () => {
    let server: DemoServer;

    beforeAll(async () => {
      server = await startDemoServer(dialect, { platform: tightLimits });
    });
    afterAll(() => server?.close());

    it('requests refused before a client is known spend the address budget (oauth_rate_per_minute)', async () => {
      server.clock.startRateWindow();
      const url = `${server.academy}/api/oauth/token`;
      for (let i = 0; i < PUBLIC; i++) {
        const res = await postForm(url, { grant_type: 'password', client_id: academyApp.clientId });
        expect(res.body.error, `request ${i + 1}`).toBe('unsupported_grant_type');
      }
      const limited = await postForm(url, { grant_type: 'password', client_id: academyApp.clientId });
      expectRateLimited(limited, limited.body);
    });

    it('limits registration per address with the same headers', async () => {
      server.clock.startRateWindow();
      const register = () =>
        fetch(`${server.academy}/api/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ client_name: 'Nobody', redirect_uris: ['https://nobody.example/cb'] }),
        });
      for (let i = 0; i < PUBLIC; i++) expect((await register()).status, `request ${i + 1}`).toBe(400);
      const limited = await register();
      expectRateLimited(limited, (await limited.json()) as Record<string, unknown>);
    });
  });

  describe.skipIf(skipDialect(dialect) || !redis)(`rate limits shared through Redis (${dialect})`, () => {
    const servers: DemoServer[] = [];

    /** Another deployment on the same Redis, with a REDIS_PREFIX of its own. */
    let other: DemoServer;

    beforeAll(async () => {
      const admin = new Redis(LIMITS_REDIS_URL);
      await admin.flushdb();
      admin.disconnect();
      for (let i = 0; i < 2; i++)
        servers.push(await startDemoServer(dialect, { platform: tightLimits, env: { REDIS_URL: LIMITS_REDIS_URL } }));
      other = await startDemoServer(dialect, { platform: tightLimits, env: { REDIS_URL: LIMITS_REDIS_URL, REDIS_PREFIX: OTHER_PREFIX } });
      servers.push(other);
    });
    afterAll(async () => {
      for (const server of servers) await server.close();
    });

    it('failed client authentications at two nodes add up to one budget', async () => {
      const [a, b] = servers as [DemoServer, DemoServer];
      for (const node of [a, b]) node.clock.startRateWindow();
      for (let i = 0; i < FAILURES; i++) expect((await introspect((i % 2 ? a : b).academy, 'wrong-secret')).status).toBe(401);
      expectRateLimited(await introspect(a.academy, 'wrong-secret'));
      expectRateLimited(await introspect(b.academy));
    });

    it('a deployment with another REDIS_PREFIX on the same Redis spends budgets of its own', async () => {
      const [a, b] = servers as [DemoServer, DemoServer];
      // All three clocks in one window, so that only the prefix can keep the counters apart.
      for (const node of [b, other]) node.clock.advance(a.clock.now() - node.clock.now());
      for (const node of [a, b, other]) node.clock.startRateWindow();
      for (let i = 0; i < FAILURES; i++) expect((await introspect(a.academy, 'wrong-secret')).status).toBe(401);
      expectRateLimited(await introspect(b.academy));
      expect((await introspect(other.academy)).status).toBe(200);
      const observer = new Redis(LIMITS_REDIS_URL);
      try {
        expect(await observer.keys(`${OTHER_PREFIX}:sg:rl:*`)).not.toEqual([]);
      } finally {
        observer.disconnect();
      }
    });
  });

  describe.skipIf(skipDialect(dialect))(`rate limits while Redis is unreachable (${dialect})`, () => {
    let server: DemoServer;

    beforeAll(async () => {
      // Nothing listens on port 9 (discard) here: every Redis command fails at once.
      server = await startDemoServer(dialect, { platform: tightLimits, env: { REDIS_URL: 'redis://127.0.0.1:9' } });
    });
    afterAll(() => server?.close());

    it('keeps serving and falls back to counting on the node: the limit still holds', async () => {
      server.clock.startRateWindow();
      expect((await introspect(server.academy)).status).toBe(200);
      for (let i = 0; i < FAILURES; i++) expect((await introspect(server.academy, 'wrong-secret')).status).toBe(401);
      expectRateLimited(await introspect(server.academy, 'wrong-secret'));
    });
  });

  describe.skipIf(skipDialect(dialect))(`OAuth request size limits (${dialect})`, () => {
    let server: DemoServer;
    let tokenUrl: string;

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      tokenUrl = `${server.academy}/api/oauth/token`;
    });
    afterAll(() => server?.close());

    it('refuses a body over body_bytes (64 KiB) with 413 invalid_request', async () => {
      const res = await postForm(tokenUrl, {
        grant_type: 'refresh_token',
        client_id: academyApp.clientId,
        refresh_token: 'x'.repeat(65 * 1024),
      });
      expect(res.status).toBe(413);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.body.error).toBe('invalid_request');
      expect(typeof res.body.error_description).toBe('string');
    });

    it('refuses a parameter longer than 4096 characters with invalid_request', async () => {
      const res = await postForm(tokenUrl, {
        grant_type: 'refresh_token',
        client_id: academyApp.clientId,
        refresh_token: 'x'.repeat(5000),
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_request');
    });

    it('refuses an over-long bearer token at UserInfo with 401 invalid_token', async () => {
      const res = await fetch(`${server.academy}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${'A'.repeat(5000)}` } });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    });
  });
}
