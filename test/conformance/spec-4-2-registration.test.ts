// The registration endpoint (SPEC 4.2, CONTRACT 5): not open dynamic registration (RFC 7591) but a
// lookup of the submitted client_name among the platform's vendor integrations, answered with RFC 7591
// field names and RFC 6749 5.2 errors.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { person } from '../helpers/person.js';

type Json = Record<string, unknown>;

interface Answer {
  status: number;
  headers: Headers;
  body: Json;
}

async function register(origin: string, body: string, contentType = 'application/json'): Promise<Answer> {
  const res = await fetch(`${origin}/api/oauth/register`, { method: 'POST', headers: { 'content-type': contentType }, body });
  const text = await res.text();
  let parsed: Json;
  try {
    parsed = JSON.parse(text) as Json;
  } catch {
    throw new Error(`registration answered ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`);
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

const registerJson = (origin: string, metadata: unknown) => register(origin, JSON.stringify(metadata));

/** RFC 6749 5.2 / RFC 7591 3.2.2: a JSON object with a string `error` and `error_description`. */
function expectOAuthError(answer: Answer, status: number, codes: string[]): void {
  expect(answer.status).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  expect(codes).toContain(answer.body.error);
  expect(typeof answer.body.error_description).toBe('string');
  expect(String(answer.body.error_description).length).toBeGreaterThan(0);
}

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function authorizationUrl(origin: string, clientId: string, redirectUri: string, scope: string, challenge: string, state: string): string {
  const url = new URL(`${origin}/oauth/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope,
    resource: origin,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
  }).toString();
  return url.href;
}

async function exchange(origin: string, form: Record<string, string>): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${origin}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`SPEC 4.2 registration endpoint (${dialect})`, () => {
    let server: DemoServer;
    beforeAll(async () => {
      server = await startDemoServer(dialect);
    });
    afterAll(() => server?.close());

    it('answers 201 with client_id demo-vendor and the redirect_uris for client_name "Demo Vendor"', async () => {
      const answer = await registerJson(server.academy, {
        client_name: 'Demo Vendor',
        redirect_uris: ['http://127.0.0.1:8123/callback'],
      });
      expect(answer.status).toBe(201);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.body.client_id).toBe('demo-vendor');
      expect(answer.body.client_name).toBe('Demo Vendor');
      expect(answer.body.redirect_uris).toEqual(['http://127.0.0.1:8123/callback']);
      expect(answer.body.token_endpoint_auth_method).toBe('none');
      expect(answer.body.client_secret).toBeUndefined();
    });

    it('returns the vendor’s registered redirect_uris when none are submitted', async () => {
      const answer = await registerJson(server.academy, { client_name: 'Demo Vendor' });
      expect(answer.status).toBe(201);
      expect(answer.body.client_id).toBe('demo-vendor');
      expect(answer.body.redirect_uris).toEqual(['http://127.0.0.1/callback']);
    });

    it('returns the same vendor client_id at every site', async () => {
      const answer = await registerJson(server.studio, { client_name: 'Demo Vendor', redirect_uris: ['http://127.0.0.1:8123/callback'] });
      expect(answer.status).toBe(201);
      expect(answer.body.client_id).toBe('demo-vendor');
    });

    it('accepts a loopback redirect_uri on any port (RFC 8252 7.3)', async () => {
      for (const port of [1, 8976, 53682, 65535]) {
        const redirect = `http://127.0.0.1:${port}/callback`;
        const answer = await registerJson(server.academy, { client_name: 'Demo Vendor', redirect_uris: [redirect] });
        expect(answer.status, redirect).toBe(201);
        expect(answer.body.redirect_uris).toEqual([redirect]);
      }
    });

    it('accepts the RFC 7591 fields MCP clients send (application_type, grant_types, token_endpoint_auth_method)', async () => {
      const answer = await registerJson(server.academy, {
        client_name: 'Demo Vendor',
        redirect_uris: ['http://127.0.0.1:33418/callback'],
        application_type: 'native',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      });
      expect(answer.status).toBe(201);
      expect(answer.body.client_id).toBe('demo-vendor');
      expect(answer.body.redirect_uris).toEqual(['http://127.0.0.1:33418/callback']);
    });

    it('refuses a redirect_uri on another host with 400 invalid_redirect_uri', async () => {
      const answer = await registerJson(server.academy, { client_name: 'Demo Vendor', redirect_uris: ['https://evil.example/callback'] });
      expectOAuthError(answer, 400, ['invalid_redirect_uri']);
    });

    it('refuses a loopback redirect_uri with another path, or with a fragment, with 400 invalid_redirect_uri', async () => {
      for (const redirect of ['http://127.0.0.1:8123/elsewhere', 'http://127.0.0.1:8123/callback#x']) {
        const answer = await registerJson(server.academy, { client_name: 'Demo Vendor', redirect_uris: [redirect] });
        expectOAuthError(answer, 400, ['invalid_redirect_uri']);
      }
    });

    it('refuses the whole registration when one of several redirect_uris is not allowed', async () => {
      const answer = await registerJson(server.academy, {
        client_name: 'Demo Vendor',
        redirect_uris: ['http://127.0.0.1:8123/callback', 'https://evil.example/callback'],
      });
      expectOAuthError(answer, 400, ['invalid_redirect_uri']);
    });

    it('refuses an unknown client_name with 400 invalid_client_metadata (no open registration)', async () => {
      const answer = await registerJson(server.academy, {
        client_name: 'Some Other Tool',
        redirect_uris: ['http://127.0.0.1:8123/callback'],
      });
      expectOAuthError(answer, 400, ['invalid_client_metadata']);
      expect(answer.body.client_id).toBeUndefined();
    });

    it('refuses a missing, empty or non-string client_name with 400 invalid_client_metadata', async () => {
      for (const metadata of [{ redirect_uris: ['http://127.0.0.1:8123/callback'] }, { client_name: '' }, { client_name: 42 }, {}]) {
        const answer = await registerJson(server.academy, metadata);
        expectOAuthError(answer, 400, ['invalid_client_metadata']);
      }
    });

    it('refuses redirect_uris that are not an array of strings with 400 invalid_client_metadata', async () => {
      for (const redirectUris of ['http://127.0.0.1:8123/callback', [42], { uri: 'http://127.0.0.1/callback' }]) {
        const answer = await registerJson(server.academy, { client_name: 'Demo Vendor', redirect_uris: redirectUris });
        expectOAuthError(answer, 400, ['invalid_client_metadata']);
      }
    });

    it('refuses a JSON body that is not an object (array, string, number, null) with 400 invalid_client_metadata', async () => {
      for (const body of ['[]', '[{"client_name":"Demo Vendor"}]', '"Demo Vendor"', '42', 'null']) {
        const answer = await register(server.academy, body);
        expectOAuthError(answer, 400, ['invalid_client_metadata']);
      }
    });

    it('refuses a body that is not JSON with an RFC 6749 JSON error, never a 500', async () => {
      const broken = await register(server.academy, '{"client_name": "Demo Vendor"');
      expectOAuthError(broken, 400, ['invalid_request', 'invalid_client_metadata']);
      const empty = await register(server.academy, '');
      expectOAuthError(empty, 400, ['invalid_request', 'invalid_client_metadata']);
      const text = await register(server.academy, 'client_name: Demo Vendor', 'text/plain');
      expect(text.status).toBeGreaterThanOrEqual(400);
      expect(text.status).toBeLessThan(500);
      expect(['invalid_request', 'invalid_client_metadata']).toContain(text.body.error);
      expect(typeof text.body.error_description).toBe('string');
    });

    it('lets the registered client_id complete a full authorization by the owner with an operator scope', async () => {
      const redirectUri = 'http://127.0.0.1:47011/callback';
      const registered = await registerJson(server.academy, { client_name: 'Demo Vendor', redirect_uris: [redirectUri] });
      expect(registered.status).toBe(201);
      const clientId = String(registered.body.client_id);
      const { verifier, challenge } = pkce();
      const state = randomBytes(8).toString('hex');
      const callback = await person('owner').authorize(
        authorizationUrl(server.academy, clientId, redirectUri, 'courses:read', challenge, state),
      );
      expect(callback.origin + callback.pathname).toBe(redirectUri);
      expect(callback.searchParams.get('error')).toBeNull();
      expect(callback.searchParams.get('state')).toBe(state);
      expect(callback.searchParams.get('iss')).toBe(server.academy);
      const code = callback.searchParams.get('code');
      expect(code).toBeTruthy();
      const tokens = await exchange(server.academy, {
        grant_type: 'authorization_code',
        code: String(code),
        redirect_uri: redirectUri,
        client_id: clientId,
        code_verifier: verifier,
        resource: server.academy,
      });
      expect(tokens.status).toBe(200);
      expect(tokens.body.token_type).toBe('Bearer');
      expect(typeof tokens.body.access_token).toBe('string');
      expect(typeof tokens.body.refresh_token).toBe('string');
      expect(tokens.body.scope).toBe('courses:read');
    });

    it('lets the owner, an admin at Demo Studio, authorize the vendor there too', async () => {
      const redirectUri = 'http://127.0.0.1:47012/callback';
      const { challenge } = pkce();
      const callback = await person('owner').authorize(
        authorizationUrl(server.studio, 'demo-vendor', redirectUri, 'courses:read', challenge, 'studio'),
      );
      expect(callback.searchParams.get('error')).toBeNull();
      expect(callback.searchParams.get('code')).toBeTruthy();
      expect(callback.searchParams.get('iss')).toBe(server.studio);
    });

    it('sends a student back with access_denied: only an owner or admin may authorize a vendor client (SPEC 5.2)', async () => {
      const redirectUri = 'http://127.0.0.1:47013/callback';
      const { challenge } = pkce();
      const callback = await person('student').authorize(
        authorizationUrl(server.academy, 'demo-vendor', redirectUri, 'courses:read', challenge, 'student'),
      );
      expect(callback.searchParams.get('error')).toBe('access_denied');
      expect(callback.searchParams.get('code')).toBeNull();
      expect(callback.searchParams.get('state')).toBe('student');
      expect(callback.searchParams.get('iss')).toBe(server.academy);
    });

    it('refuses account:read for the vendor client with invalid_scope (operator audience, SPEC 5.2)', async () => {
      const redirectUri = 'http://127.0.0.1:47014/callback';
      const { challenge } = pkce();
      const res = await fetch(authorizationUrl(server.academy, 'demo-vendor', redirectUri, 'account:read', challenge, 'scope'), {
        redirect: 'manual',
      });
      expect([302, 303]).toContain(res.status);
      const location = new URL(String(res.headers.get('location')));
      expect(location.origin + location.pathname).toBe(redirectUri);
      expect(location.searchParams.get('error')).toBe('invalid_scope');
      expect(location.searchParams.get('iss')).toBe(server.academy);
    });
  });
}
