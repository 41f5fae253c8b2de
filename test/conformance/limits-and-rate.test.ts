// Limits at the OAuth endpoints (issue 2, platform config `limits`): a per-address request rate that
// answers 429 with Retry-After and an RFC 6749 5.2-shaped JSON body, and bounded parameter and body sizes
// that answer invalid_request instead of doing work.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { DEMO_CLIENTS, type FormResponse, postForm } from '../helpers/token-flow.js';

const { academyApp, academyWeb } = DEMO_CLIENTS;
const RATE = 5;

function expectRateLimited(res: FormResponse): void {
  expect(res.status).toBe(429);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('cache-control')).toBe('no-store');
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(typeof res.body.error).toBe('string');
  expect(typeof res.body.error_description).toBe('string');
  expect(Object.keys(res.body).sort()).toEqual(['error', 'error_description']);
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`OAuth endpoint rate limit (${dialect})`, () => {
    let server: DemoServer;

    beforeAll(async () => {
      server = await startDemoServer(dialect, {
        platform: (p) => {
          p.limits.oauth_rate_per_minute = RATE;
        },
      });
    });
    afterAll(() => server?.close());

    it('answers the token endpoint with 429, Retry-After and an OAuth JSON error once oauth_rate_per_minute is used up', async () => {
      const url = `${server.academy}/api/oauth/token`;
      for (let i = 0; i < RATE; i++) {
        const res = await postForm(url, { grant_type: 'password', client_id: academyApp.clientId });
        expect(res.status, `request ${i + 1}`).toBe(400);
        expect(res.body.error).toBe('unsupported_grant_type');
      }
      expectRateLimited(await postForm(url, { grant_type: 'password', client_id: academyApp.clientId }));
      // A well-formed request is limited as well: the limit is per address, not per kind of request.
      expectRateLimited(await postForm(url, { grant_type: 'refresh_token', refresh_token: 'sgr_x', client_id: academyApp.clientId }));
    });

    it('limits the revocation and introspection endpoints the same way', async () => {
      for (const [path, params] of [
        ['/api/oauth/revoke', { token: 'sga_x', client_id: academyApp.clientId }],
        ['/api/oauth/introspect', { token: 'sga_x', client_id: academyWeb.clientId, client_secret: academyWeb.secret }],
      ] as const) {
        const statuses: number[] = [];
        let last: FormResponse | undefined;
        for (let i = 0; i < RATE + 1; i++) {
          last = await postForm(`${server.academy}${path}`, params);
          statuses.push(last.status);
        }
        expect(
          statuses.slice(0, RATE).every((s) => s === 200),
          `${path}: ${statuses.join(',')}`,
        ).toBe(true);
        expectRateLimited(last as FormResponse);
      }
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
