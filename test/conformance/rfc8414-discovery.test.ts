// Discovery (SPEC 4.1, issue 2 section 3): RFC 8414 authorization server metadata, OpenID Connect
// Discovery 1.0 and RFC 9728 protected resource metadata, per origin, over real HTTP.
import http from 'node:http';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';

type Json = Record<string, unknown>;

/** Every scope of SPEC 5.5, written out here so the test does not trust the server's own catalogue. */
const SPEC_SCOPES = [
  'openid',
  'profile',
  'email',
  'courses:read',
  'courses:write',
  'students:read',
  'students:write',
  'members:read',
  'members:write',
  'analytics:read',
  'curriculum:read',
  'curriculum:write',
  'orders:read',
  'school:read',
  'school:write',
  'appearance:read',
  'appearance:write',
  'events:read',
  'events:write',
  'membership_plans:read',
  'membership_plans:write',
  'coupons:read',
  'coupons:write',
  'posts:read',
  'posts:write',
  'subscriptions:read',
  'subscriptions:write',
  'digital_products:read',
  'digital_products:write',
  'comments:read',
  'lecturers:read',
  'lecturers:write',
  'storage:write',
  'forms:read',
  'pages:read',
  'pages:write',
  'account:read',
  'account:write',
];

const ENDPOINT_FIELDS = [
  'authorization_endpoint',
  'token_endpoint',
  'userinfo_endpoint',
  'revocation_endpoint',
  'introspection_endpoint',
  'registration_endpoint',
  'jwks_uri',
] as const;

const WELL_KNOWN = {
  as: '/.well-known/oauth-authorization-server',
  oidc: '/.well-known/openid-configuration',
  pr: '/.well-known/oauth-protected-resource',
} as const;

async function getJson(url: string, headers: Record<string, string> = {}): Promise<{ status: number; contentType: string; body: Json }> {
  const res = await fetch(url, { headers });
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', body: (await res.json()) as Json };
}

/** A GET with a chosen Host header, which fetch does not allow. */
function getWithHost(port: number, path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'GET', headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Calls an endpoint the way its kind is called, with nothing valid in it, and returns what it answered. */
async function probe(field: (typeof ENDPOINT_FIELDS)[number], url: string): Promise<Response> {
  switch (field) {
    case 'authorization_endpoint':
    case 'userinfo_endpoint':
    case 'jwks_uri':
      return fetch(url, { redirect: 'manual' });
    case 'registration_endpoint':
      return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    default:
      return fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
  }
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`discovery documents per origin (${dialect})`, () => {
    let server: DemoServer;
    beforeAll(async () => {
      server = await startDemoServer(dialect);
    });
    afterAll(() => server?.close());

    for (const site of ['academy', 'studio'] as const) {
      describe(`at Demo ${site === 'academy' ? 'Academy' : 'Studio'}`, () => {
        const origin = () => server[site];

        it('serves the RFC 8414 document as JSON with issuer equal to the origin exactly (no trailing slash)', async () => {
          const { status, contentType, body } = await getJson(origin() + WELL_KNOWN.as);
          expect(status).toBe(200);
          expect(contentType).toMatch(/^application\/json/);
          expect(body.issuer).toBe(origin());
          expect(String(body.issuer).endsWith('/')).toBe(false);
        });

        it('passes the RFC 8414 and OIDC Discovery issuer checks of oauth4webapi', async () => {
          const issuer = new URL(origin());
          for (const algorithm of ['oauth2', 'oidc'] as const) {
            const response = await oauth.discoveryRequest(issuer, { algorithm, [oauth.allowInsecureRequests]: true });
            const metadata = await oauth.processDiscoveryResponse(issuer, response);
            expect(metadata.issuer).toBe(origin());
          }
        });

        it('puts every endpoint under the origin, and every endpoint answers there', async () => {
          const { body } = await getJson(origin() + WELL_KNOWN.as);
          for (const field of ENDPOINT_FIELDS) {
            const url = body[field];
            expect(typeof url, field).toBe('string');
            expect(String(url).startsWith(`${origin()}/`), `${field} ${String(url)}`).toBe(true);
            const res = await probe(field, String(url));
            expect(res.status, `${field} answered ${res.status}`).not.toBe(404);
            expect(res.status, `${field} answered ${res.status}`).toBeLessThan(500);
            if (field === 'authorization_endpoint') {
              // No client_id: the person sees a 400 page, never a redirect (CONTRACT 4).
              expect(res.status).toBe(400);
              expect(res.headers.get('content-type')).toMatch(/^text\/html/);
            } else if (field === 'userinfo_endpoint') {
              expect(res.status).toBe(401);
              expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
            } else if (field === 'jwks_uri') {
              expect(res.status).toBe(200);
              const jwks = (await res.json()) as { keys: unknown[] };
              expect(jwks.keys.length).toBeGreaterThan(0);
            } else {
              // Token, revocation, introspection and registration answer RFC 6749 5.2 JSON errors.
              expect(res.status).toBeGreaterThanOrEqual(400);
              const error = (await res.json()) as Json;
              expect(typeof error.error, field).toBe('string');
              expect(typeof error.error_description, field).toBe('string');
            }
          }
        });

        it('advertises exactly the grant types authorization_code and refresh_token', async () => {
          const { body } = await getJson(origin() + WELL_KNOWN.as);
          expect([...(body.grant_types_supported as string[])].sort()).toEqual(['authorization_code', 'refresh_token']);
          expect(body.response_types_supported).toEqual(['code']);
        });

        it('advertises PKCE with S256 only', async () => {
          const { body } = await getJson(origin() + WELL_KNOWN.as);
          expect(body.code_challenge_methods_supported).toEqual(['S256']);
        });

        it('advertises token endpoint auth methods none, client_secret_basic and client_secret_post', async () => {
          const { body } = await getJson(origin() + WELL_KNOWN.as);
          expect([...(body.token_endpoint_auth_methods_supported as string[])].sort()).toEqual([
            'client_secret_basic',
            'client_secret_post',
            'none',
          ]);
        });

        it('advertises the RFC 9207 iss parameter, Client ID Metadata Documents (demo) and ES256 ID tokens', async () => {
          const { body } = await getJson(origin() + WELL_KNOWN.as);
          expect(body.authorization_response_iss_parameter_supported).toBe(true);
          expect(body.client_id_metadata_document_supported).toBe(true);
          expect(body.id_token_signing_alg_values_supported).toEqual(['ES256']);
        });

        it('lists every SPEC 5.5 scope in scopes_supported, and nothing outside it', async () => {
          const { body } = await getJson(origin() + WELL_KNOWN.as);
          const scopes = body.scopes_supported as string[];
          for (const scope of SPEC_SCOPES) expect(scopes, scope).toContain(scope);
          expect([...scopes].sort()).toEqual([...SPEC_SCOPES].sort());
        });

        it('serves OpenID Connect Discovery with every field OIDC Discovery 1.0 section 3 requires', async () => {
          const { status, contentType, body } = await getJson(origin() + WELL_KNOWN.oidc);
          expect(status).toBe(200);
          expect(contentType).toMatch(/^application\/json/);
          expect(body.issuer).toBe(origin());
          for (const field of [
            'authorization_endpoint',
            'token_endpoint',
            'jwks_uri',
            'response_types_supported',
            'subject_types_supported',
            'id_token_signing_alg_values_supported',
          ]) {
            expect(body[field], field).toBeDefined();
          }
          expect(body.response_types_supported as string[]).toContain('code');
          expect(body.subject_types_supported as string[]).toContain('public');
          expect(body.id_token_signing_alg_values_supported).toEqual(['ES256']);
          expect(body.scopes_supported as string[]).toContain('openid');
          expect(String(body.userinfo_endpoint)).toBe(`${origin()}/api/oauth/userinfo`);
          for (const field of ENDPOINT_FIELDS) expect(String(body[field]).startsWith(`${origin()}/`), field).toBe(true);
          const claims = body.claims_supported as string[];
          for (const claim of ['sub', 'iss', 'aud', 'exp', 'iat', 'nonce', 'email', 'name', 'org_id', 'roles']) {
            expect(claims, claim).toContain(claim);
          }
          // SPEC 1: `picture` is a variant A claim only.
          if (site === 'academy') expect(claims).toContain('picture');
          else expect(claims).not.toContain('picture');
        });

        it('agrees between the RFC 8414 and the OIDC document on every endpoint and capability', async () => {
          const as = (await getJson(origin() + WELL_KNOWN.as)).body;
          const oidc = (await getJson(origin() + WELL_KNOWN.oidc)).body;
          for (const field of [
            'issuer',
            ...ENDPOINT_FIELDS,
            'grant_types_supported',
            'scopes_supported',
            'code_challenge_methods_supported',
            'token_endpoint_auth_methods_supported',
          ]) {
            expect(oidc[field], field).toEqual(as[field]);
          }
        });

        it('serves RFC 9728 metadata whose resource is the origin and whose authorization server is the origin', async () => {
          const { status, contentType, body } = await getJson(origin() + WELL_KNOWN.pr);
          expect(status).toBe(200);
          expect(contentType).toMatch(/^application\/json/);
          expect(body.resource).toBe(origin());
          expect(body.authorization_servers).toEqual([origin()]);
          expect(body.bearer_methods_supported as string[]).toContain('header');
        });

        it('lists offline_access in none of the discovery documents', async () => {
          for (const path of Object.values(WELL_KNOWN)) {
            const res = await fetch(origin() + path);
            expect(await res.text(), path).not.toContain('offline_access');
          }
        });

        it('keeps the configured origin in every discovery document under spoofed X-Forwarded-* headers', async () => {
          const spoofed = {
            'x-forwarded-host': 'evil.example',
            'x-forwarded-proto': 'https',
            'x-forwarded-port': '8443',
            forwarded: 'host=evil.example;proto=https',
          };
          for (const path of Object.values(WELL_KNOWN)) {
            const { status, body } = await getJson(origin() + path, spoofed);
            expect(status, path).toBe(200);
            expect(JSON.stringify(body), path).not.toContain('evil.example');
          }
          const as = (await getJson(origin() + WELL_KNOWN.as, spoofed)).body;
          expect(as.issuer).toBe(origin());
          expect(as.token_endpoint).toBe(`${origin()}/api/oauth/token`);
          const pr = (await getJson(origin() + WELL_KNOWN.pr, spoofed)).body;
          expect(pr.resource).toBe(origin());
        });
      });
    }

    it('gives each demo site its own issuer and endpoints', async () => {
      const academy = (await getJson(server.academy + WELL_KNOWN.as)).body;
      const studio = (await getJson(server.studio + WELL_KNOWN.as)).body;
      expect(academy.issuer).not.toBe(studio.issuer);
      expect(academy.jwks_uri).not.toBe(studio.jwks_uri);
      expect(String(studio.token_endpoint).startsWith(server.studio)).toBe(true);
    });

    it('answers 404 and reveals nothing when the Host matches no site (CONTRACT 2)', async () => {
      const res = await getWithHost(server.port, WELL_KNOWN.as, `evil.example:${server.port}`);
      expect(res.status).toBe(404);
      expect(res.body).not.toContain('issuer');
      expect(res.body).not.toContain(server.academy);
    });

    it('chooses the site by the Host header alone', async () => {
      const res = await getWithHost(server.port, WELL_KNOWN.as, `localhost:${server.port}`);
      expect(res.status).toBe(200);
      expect((JSON.parse(res.body) as Json).issuer).toBe(server.academy);
    });
  });
}
