// CONTRACT 2 over real HTTP: a site is chosen by the request's origin; a Host that matches no site gets
// 404 and a body that reveals nothing; the issuer and every URL the service prints are the configured
// origin, never a value copied from request headers (TRUST_PROXY unset: X-Forwarded-* are ignored).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizationUrl, expectErrorAt, rawGet, type RawResponse } from '../helpers/authorization-url.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';

const FORWARDED = {
  'x-forwarded-host': 'attacker.example',
  'x-forwarded-proto': 'https',
  'x-forwarded-port': '443',
  forwarded: 'host=attacker.example;proto=https',
};

const METADATA_PATHS = [
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
  '/.well-known/oauth-protected-resource',
];

/** Every string inside a JSON value that looks like a URL. */
function urlsIn(value: unknown): string[] {
  if (typeof value === 'string') return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap(urlsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(urlsIn);
  return [];
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`CONTRACT 2 site resolution (${dialect})`, () => {
    let server: DemoServer;
    beforeAll(async () => {
      server = await startDemoServer(dialect);
    });
    afterAll(() => server?.close());

    const host = (origin: string) => new URL(origin).host;

    const expectNothingRevealed = (res: RawResponse, what: string) => {
      expect(res.status, what).toBe(404);
      expect(res.headers['set-cookie'], what).toBeUndefined();
      for (const secret of ['Demo', 'Academy', 'Studio', 'localhost', '127.0.0.1', String(server.port), 'issuer', 'oauth']) {
        expect(res.body, `${what} mentions ${secret}`).not.toContain(secret);
      }
      expect(res.body.length, what).toBeLessThan(100);
    };

    it('answers a Host that matches no site with 404 and a body that reveals nothing, on every path', async () => {
      const bodies = new Set<string>();
      for (const path of ['/', ...METADATA_PATHS, '/oauth/authorize?client_id=academy-member-app', '/.well-known/jwks.json', '/auth.md']) {
        const res = await rawGet(server.port, path, { host: 'unknown.example' });
        expectNothingRevealed(res, path);
        bodies.add(res.body);
      }
      // The same answer whatever was asked: a path that exists at a site is not told apart from one that does not.
      expect(bodies.size).toBe(1);
    });

    it('answers a known host on another port with 404: the origin includes the port', async () => {
      const res = await rawGet(server.port, '/.well-known/oauth-authorization-server', { host: `localhost:${server.port + 1}` });
      expectNothingRevealed(res, 'localhost on another port');
    });

    it('answers a Host that is not a host (user info, path) with 404 or 400 and reveals nothing', async () => {
      for (const bad of [`evil@localhost:${server.port}`, `localhost:${server.port}/x`]) {
        const res = await rawGet(server.port, '/.well-known/oauth-authorization-server', { host: bad });
        expect([400, 404], bad).toContain(res.status);
        expect(res.body, bad).not.toContain('issuer');
        expect(res.body, bad).not.toContain('Demo');
      }
    });

    it('resolves each demo origin to its own site, whose issuer is that origin', async () => {
      for (const origin of [server.academy, server.studio]) {
        const res = await rawGet(server.port, '/.well-known/oauth-authorization-server', { host: host(origin) });
        expect(res.status).toBe(200);
        expect((JSON.parse(res.body) as { issuer: string }).issuer).toBe(origin);
      }
    });

    it('keeps the issuer and every URL in the metadata on the configured origin when X-Forwarded-Host/Proto are sent', async () => {
      for (const origin of [server.academy, server.studio]) {
        for (const path of METADATA_PATHS) {
          const res = await rawGet(server.port, path, { host: host(origin), ...FORWARDED });
          expect(res.status, path).toBe(200);
          const doc = JSON.parse(res.body) as Record<string, unknown>;
          if ('issuer' in doc) expect(doc.issuer, path).toBe(origin);
          if ('resource' in doc) expect(doc.resource, path).toBe(origin);
          const urls = urlsIn(doc);
          expect(urls.length, path).toBeGreaterThan(0);
          for (const url of urls) expect(url === origin || url.startsWith(`${origin}/`), `${path}: ${url}`).toBe(true);
          expect(res.body, path).not.toContain('attacker.example');
        }
      }
    });

    it('does not switch sites on X-Forwarded-Host naming the other demo site', async () => {
      const res = await rawGet(server.port, '/.well-known/oauth-authorization-server', {
        host: host(server.academy),
        'x-forwarded-host': host(server.studio),
      });
      expect((JSON.parse(res.body) as { issuer: string }).issuer).toBe(server.academy);
    });

    it('keeps iss on an authorization error redirect at the configured origin when X-Forwarded-* are sent', async () => {
      const url = authorizationUrl(server.academy, 'academy-member-app', { response_type: 'token' });
      const target = new URL(url);
      const res = await rawGet(server.port, target.pathname + target.search, { host: target.host, ...FORWARDED });
      expect([302, 303]).toContain(res.status);
      expectErrorAt(String(res.headers.location), url, 'unsupported_response_type');
    });

    it('keeps /auth.md on the configured origin when X-Forwarded-* are sent', async () => {
      const res = await rawGet(server.port, '/auth.md', { host: host(server.academy), ...FORWARDED });
      expect(res.status).toBe(200);
      expect(res.body).toContain(server.academy);
      expect(res.body).not.toContain('attacker.example');
    });

    it('prints the configured origin on the sign-in page, never the forwarded host', async () => {
      const url = new URL(authorizationUrl(server.academy, 'academy-member-app'));
      const res = await rawGet(server.port, url.pathname + url.search, { host: url.host, ...FORWARDED });
      expect(res.status).toBe(200);
      expect(res.body).not.toContain('attacker.example');
      expect(String(res.headers['set-cookie'] ?? '')).not.toMatch(/;\s*secure/i);
    });
  });
}
