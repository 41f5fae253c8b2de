// Issue 8, "Operations": Prometheus metrics at /metrics behind METRICS_TOKEN (the separate METRICS_PORT
// listener is checked on the real executable in logs-and-shutdown.test.ts). Every number below is caused
// by a request the test made, and read back from the scrape.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { DEMO_CLIENTS, expectTokens, getTokens, postForm, refresh, userInfo } from '../helpers/token-flow.js';

const TOKEN = 'metrics-token-for-the-scraper-0123456789';

/** The value of one series in a Prometheus text exposition, or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = Object.fromEntries([...(match[3] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => present[k] === v)) return Number(match[4]);
  }
  return undefined;
}

async function scrape(server: DemoServer): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${server.port}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`metrics behind METRICS_TOKEN (${dialect})`, () => {
    let server: DemoServer;
    beforeAll(async () => {
      server = await startDemoServer(dialect, {
        env: { METRICS_TOKEN: TOKEN },
        platform: (p) => {
          p.limits.failed_client_auth_per_minute = 1;
        },
      });
    });
    afterAll(() => server?.close());

    it('refuses a scrape without the token, or with another, with 401 and a Bearer challenge', async () => {
      for (const authorization of [undefined, 'Bearer not-the-token', `Basic ${TOKEN}`]) {
        const res = await fetch(`http://127.0.0.1:${server.port}/metrics`, { headers: authorization ? { authorization } : {} });
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
        expect(await res.text()).not.toContain('schoolgate_');
      }
    });

    it('counts requests by route template, method and status, with durations, and no series per random path', async () => {
      const before = sample(await scrape(server), 'schoolgate_http_requests_total', { route: '/api/oauth/userinfo', status: '401' }) ?? 0;
      for (let i = 0; i < 3; i++) expect((await userInfo(server.academy, 'sga_nothing')).status).toBe(401);
      for (let i = 0; i < 3; i++) await fetch(`${server.academy}/scan-${i}-${Math.random()}`);
      const text = await scrape(server);
      expect(sample(text, 'schoolgate_http_requests_total', { route: '/api/oauth/userinfo', method: 'GET', status: '401' })).toBe(
        before + 3,
      );
      expect(
        sample(text, 'schoolgate_http_request_duration_seconds_count', { route: '/api/oauth/userinfo', method: 'GET', status: '401' }),
      ).toBe(before + 3);
      expect(text).not.toContain('scan-');
      expect(sample(text, 'schoolgate_http_requests_total', { route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(3);
    });

    it('counts tokens issued by grant type, refresh reuse, cache lookups and rate-limit refusals', async () => {
      const client = DEMO_CLIENTS.academyApp;
      const tokens = await getTokens(server, client);
      const rotated = expectTokens(await refresh(server, client, tokens.refresh_token));
      expect((await userInfo(server.academy, rotated.access_token)).status).toBe(200);
      expect((await userInfo(server.academy, rotated.access_token)).status).toBe(200);
      server.clock.advance((server.config.platform.lifetimes.refresh_grace + 1) * 1000);
      expect((await refresh(server, client, tokens.refresh_token)).body.error).toBe('invalid_grant');
      const web = DEMO_CLIENTS.academyWeb;
      const wrong = { token: 'x', client_id: web.clientId, client_secret: 'wrong' };
      server.clock.startRateWindow();
      expect((await postForm(`${server.academy}/api/oauth/introspect`, wrong)).status).toBe(401);
      expect((await postForm(`${server.academy}/api/oauth/introspect`, wrong)).status).toBe(429);

      const text = await scrape(server);
      expect(sample(text, 'schoolgate_tokens_issued_total', { grant_type: 'authorization_code' })).toBe(1);
      expect(sample(text, 'schoolgate_tokens_issued_total', { grant_type: 'refresh_token' })).toBe(1);
      expect(sample(text, 'schoolgate_refresh_reuse_detected_total')).toBe(1);
      expect(sample(text, 'schoolgate_rate_limited_total', { budget: 'client-auth-failures' })).toBe(1);
      // On SQLite the second UserInfo call with the same token is answered from the access-token cache; on
      // PostgreSQL without Redis no node can hear another's revocations, so the cache is bypassed.
      const hits = sample(text, 'schoolgate_cache_lookups_total', { cache: 'access_tokens', result: 'hit' });
      if (dialect === 'sqlite') expect(hits).toBeGreaterThanOrEqual(1);
      else expect(hits).toBe(0);
      expect(sample(text, 'schoolgate_cache_lookups_total', { cache: 'access_tokens', result: 'miss' })).toBeGreaterThanOrEqual(1);
      // Rotations commit in groups: one transaction on SQLite, one statement on PostgreSQL.
      expect(sample(text, 'schoolgate_group_commit_total', { counted: 'units' })).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'schoolgate_group_commit_total', { counted: 'transactions' })).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'schoolgate_process_resident_memory_bytes')).toBeGreaterThan(0);
      if (dialect === 'postgres') expect(sample(text, 'schoolgate_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
      else expect(text).not.toContain('schoolgate_db_pool_connections');
    });
  });
}

describe('metrics without METRICS_TOKEN', () => {
  let server: DemoServer;
  beforeAll(async () => {
    server = await startDemoServer('sqlite');
  });
  afterAll(() => server?.close());

  it('does not serve /metrics on the main listener at all', async () => {
    const res = await fetch(`${server.academy}/metrics`);
    expect(res.status).toBe(404);
  });
});
