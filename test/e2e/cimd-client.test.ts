// Client ID Metadata Document clients end to end (SPEC 4.2, 8; issue 2 section 4): a document served
// over real HTTPS on loopback, resolved by the server, authorized by a person and exchanged for tokens.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuditEntry, listAudit } from '../../src/audit/audit-log.js';
import { type CimdServer, startCimdServer } from '../helpers/cimd-server.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { hiddenFields, type Person, person } from '../helpers/person.js';

type Json = Record<string, unknown>;

const REDIRECT_URI = 'http://127.0.0.1:9999/callback';

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function authorizationUrl(origin: string, clientId: string, scope: string, challenge: string, redirectUri = REDIRECT_URI): string {
  const url = new URL(`${origin}/oauth/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope,
    resource: origin,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'cimd-state',
  }).toString();
  return url.href;
}

async function tokenRequest(origin: string, form: Record<string, string>): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${origin}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** Signs the person in from an authorization URL and returns the consent page that follows. */
async function consentPageFor(who: Person, url: string): Promise<string> {
  const origin = new URL(url).origin;
  const signIn = await who.request(url);
  expect(signIn.status).toBe(200);
  expect(signIn.html).toContain('name="password"');
  const signedIn = await who.request(`${origin}/oauth/sign-in`, {
    form: { ...hiddenFields(signIn.html), email: who.email, password: who.password },
  });
  expect(signedIn.status).toBe(303);
  const consent = await who.request(String(signedIn.location));
  expect(consent.status).toBe(200);
  expect(consent.html).toContain('name="decision"');
  return consent.html;
}

/** An authorization request answered without a session: a page (status, html) or a redirect. */
async function firstAnswer(url: string): Promise<{ status: number; location: URL | null; html: string; contentType: string }> {
  const res = await fetch(url, { redirect: 'manual' });
  const location = res.headers.get('location');
  return {
    status: res.status,
    location: location ? new URL(location) : null,
    html: await res.text(),
    contentType: res.headers.get('content-type') ?? '',
  };
}

/** Errors that must not be redirected are a 400 page (CONTRACT 4). */
function expectErrorPage(answer: Awaited<ReturnType<typeof firstAnswer>>): void {
  expect(answer.status).toBe(400);
  expect(answer.location).toBeNull();
  expect(answer.contentType).toMatch(/^text\/html/);
}

function siteId(server: DemoServer, origin: string): string {
  return server.siteIdOf(origin);
}

async function refusals(server: DemoServer, clientId: string): Promise<AuditEntry[]> {
  const events = await listAudit(server.store.db, siteId(server, server.academy), 1000);
  return events.filter((e) => e.kind === 'cimd.refused' && e.clientId === clientId);
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`Client ID Metadata Document clients (${dialect})`, () => {
    let server: DemoServer;
    let cimd: CimdServer;
    beforeAll(async () => {
      [server, cimd] = await Promise.all([startDemoServer(dialect), startCimdServer()]);
    });
    afterAll(async () => {
      await Promise.all([server?.close(), cimd?.close()]);
    });

    /** Publishes a valid document at `path` (client_id = its URL) with changes, and returns its URL. */
    function publish(path: string, changes: Json = {}): string {
      const url = cimd.url(path);
      return cimd.serveDocument(path, {
        client_id: url,
        client_name: 'Test CLI',
        redirect_uris: [REDIRECT_URI],
        token_endpoint_auth_method: 'none',
        ...changes,
      });
    }

    it('is advertised in discovery as client_id_metadata_document_supported: true (demo)', async () => {
      for (const origin of [server.academy, server.studio]) {
        const metadata = (await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()) as Json;
        expect(metadata.client_id_metadata_document_supported).toBe(true);
      }
    });

    it('lets the owner authorize a document client with courses:read, naming the document host on consent, and the code exchanges with auth method none', async () => {
      const clientId = publish('/client.json');
      expect(clientId).toBe(`https://localhost:${cimd.port}/client.json`);
      const { verifier, challenge } = pkce();
      const url = authorizationUrl(server.academy, clientId, 'courses:read', challenge);
      const owner = person('owner');

      const consent = await consentPageFor(owner, url);
      expect(consent).toContain('Test CLI');
      expect(consent).toMatch(/published by <strong>localhost<\/strong>/);
      expect(consent).toContain('courses:read');

      const callback = await owner.authorize(url);
      expect(callback.origin + callback.pathname).toBe(REDIRECT_URI);
      expect(callback.searchParams.get('error')).toBeNull();
      expect(callback.searchParams.get('state')).toBe('cimd-state');
      expect(callback.searchParams.get('iss')).toBe(server.academy);
      const code = String(callback.searchParams.get('code'));

      const tokens = await tokenRequest(server.academy, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT_URI,
        client_id: clientId,
        code_verifier: verifier,
        resource: server.academy,
      });
      expect(tokens.status).toBe(200);
      expect(tokens.body.token_type).toBe('Bearer');
      expect(tokens.body.scope).toBe('courses:read');
      expect(typeof tokens.body.access_token).toBe('string');

      const refreshed = await tokenRequest(server.academy, {
        grant_type: 'refresh_token',
        refresh_token: String(tokens.body.refresh_token),
        client_id: clientId,
      });
      expect(refreshed.status).toBe(200);
      expect(refreshed.body.scope).toBe('courses:read');
    });

    it('fetches a document once and reuses it for later requests (cache)', async () => {
      const clientId = publish('/cached.json');
      const { challenge } = pkce();
      for (let i = 0; i < 3; i++) {
        const answer = await firstAnswer(authorizationUrl(server.academy, clientId, 'courses:read', challenge));
        expect(answer.status).toBe(200);
      }
      expect(cimd.hits('/cached.json')).toBe(1);
    });

    it('refuses courses:write for an unreviewed document client with invalid_scope (read and identity scopes only)', async () => {
      const clientId = publish('/write.json');
      const { challenge } = pkce();
      const answer = await firstAnswer(authorizationUrl(server.academy, clientId, 'courses:read courses:write', challenge));
      expect(answer.status).toBe(303);
      expect(answer.location?.origin).toBe('http://127.0.0.1:9999');
      expect(answer.location?.searchParams.get('error')).toBe('invalid_scope');
      expect(answer.location?.searchParams.get('state')).toBe('cimd-state');
      expect(answer.location?.searchParams.get('iss')).toBe(server.academy);
      expect(answer.location?.searchParams.get('code')).toBeNull();
    });

    it('refuses account:read for a document client with invalid_scope (member audience only)', async () => {
      const clientId = publish('/account.json');
      const { challenge } = pkce();
      const answer = await firstAnswer(authorizationUrl(server.academy, clientId, 'openid account:read', challenge));
      expect(answer.status).toBe(303);
      expect(answer.location?.searchParams.get('error')).toBe('invalid_scope');
      expect(answer.location?.searchParams.get('iss')).toBe(server.academy);
    });

    it('accepts the identity scopes and other read scopes for an unreviewed document client', async () => {
      const clientId = publish('/identity.json');
      const { challenge } = pkce();
      const answer = await firstAnswer(authorizationUrl(server.academy, clientId, 'openid profile email orders:read', challenge));
      expect(answer.status).toBe(200);
      expect(answer.html).toContain('name="password"');
    });

    it('shows a 400 page and audits cimd.refused when the document’s client_id differs from its URL', async () => {
      const clientId = cimd.url('/mismatch.json');
      cimd.serveDocument('/mismatch.json', { client_id: cimd.url('/other.json'), redirect_uris: [REDIRECT_URI] });
      const { challenge } = pkce();
      const answer = await firstAnswer(authorizationUrl(server.academy, clientId, 'courses:read', challenge));
      expectErrorPage(answer);
      expect(answer.html).toContain('client_id');
      const events = await refusals(server, clientId);
      expect(events).toHaveLength(1);
      expect(events[0]?.detail.reason).toBe('invalid_document');
    });

    it('shows a 400 page when the document lists a redirect_uri on another host', async () => {
      const clientId = publish('/foreign-redirect.json', { redirect_uris: [REDIRECT_URI, 'https://evil.example/callback'] });
      const { challenge } = pkce();
      const answer = await firstAnswer(authorizationUrl(server.academy, clientId, 'courses:read', challenge));
      expectErrorPage(answer);
      expect(answer.html).toContain('evil.example');
    });

    it('accepts an https redirect_uri under the document’s own host', async () => {
      const ownRedirect = `${cimd.origin}/callback`;
      const clientId = publish('/own-host.json', { redirect_uris: [ownRedirect] });
      const { challenge } = pkce();
      const answer = await firstAnswer(authorizationUrl(server.academy, clientId, 'courses:read', challenge, ownRedirect));
      expect(answer.status).toBe(200);
      expect(answer.html).toContain('name="password"');
    });

    it('shows a 400 page, never a redirect, for a redirect_uri the document does not list', async () => {
      const clientId = publish('/unlisted.json');
      const { challenge } = pkce();
      const answer = await firstAnswer(
        authorizationUrl(server.academy, clientId, 'courses:read', challenge, 'http://127.0.0.1:9999/elsewhere'),
      );
      expectErrorPage(answer);
    });

    it('shows a 400 page for a document that declares a shared-secret auth method', async () => {
      const clientId = publish('/secret.json', { token_endpoint_auth_method: 'client_secret_post' });
      const { challenge } = pkce();
      const answer = await firstAnswer(authorizationUrl(server.academy, clientId, 'courses:read', challenge));
      expectErrorPage(answer);
    });

    it('shows a 400 page for a client_id URL with a fragment, without fetching it', async () => {
      publish('/fragment.json');
      const { challenge } = pkce();
      const answer = await firstAnswer(authorizationUrl(server.academy, `${cimd.url('/fragment.json')}#x`, 'courses:read', challenge));
      expectErrorPage(answer);
      expect(cimd.hits('/fragment.json')).toBe(0);
    });

    it('shows a 400 page when the document cannot be fetched, and does not cache the failure', async () => {
      const clientId = cimd.url('/late.json');
      const { challenge } = pkce();
      const url = authorizationUrl(server.academy, clientId, 'courses:read', challenge);
      expectErrorPage(await firstAnswer(url));
      expect(cimd.hits('/late.json')).toBe(1);
      publish('/late.json');
      const answer = await firstAnswer(url);
      expect(answer.status).toBe(200);
      expect(cimd.hits('/late.json')).toBe(2);
    });

    describe('from an address that used up its failed-authentication budget', () => {
      let tight: DemoServer;
      beforeAll(async () => {
        tight = await startDemoServer(dialect, {
          platform: (p) => {
            p.limits.failed_client_auth_per_minute = 2;
          },
        });
      });
      afterAll(() => tight?.close());

      it('answers the token endpoint with 429 and fetches no document for a document client', async () => {
        tight.clock.startRateWindow();
        for (let i = 0; i < 2; i++) {
          const failed = await tokenRequest(tight.academy, {
            grant_type: 'refresh_token',
            refresh_token: 'sgr_x',
            client_id: 'academy-member-web',
            client_secret: 'wrong-secret',
          });
          expect(failed.status, `attempt ${i + 1}`).toBe(401);
        }
        const clientId = publish('/limited-address.json');
        const answer = await tokenRequest(tight.academy, { grant_type: 'refresh_token', refresh_token: 'sgr_x', client_id: clientId });
        expect(answer.status).toBe(429);
        expect(cimd.hits('/limited-address.json')).toBe(0);
      });
    });

    describe('with a host that is not on the allowlist', () => {
      let closed: DemoServer;
      beforeAll(async () => {
        closed = await startDemoServer(dialect, {
          platform: (p) => {
            p.cimd.allowlist = [];
          },
        });
      });
      afterAll(() => closed?.close());

      it('shows a 400 page, does not fetch the document, and audits cimd.refused', async () => {
        const clientId = publish('/not-allowed.json');
        const { challenge } = pkce();
        const answer = await firstAnswer(authorizationUrl(closed.academy, clientId, 'courses:read', challenge));
        expectErrorPage(answer);
        expect(answer.html).toContain('localhost');
        expect(cimd.hits('/not-allowed.json')).toBe(0);
        const events = await listAudit(closed.store.db, siteId(closed, closed.academy), 1000);
        const refused = events.filter((e) => e.kind === 'cimd.refused');
        expect(refused).toHaveLength(1);
        expect(refused[0]?.clientId).toBe(clientId);
        expect(refused[0]?.detail.reason).toBe('host_not_allowed');
      });

      it('does not advertise client_id_metadata_document_supported when no host is allowed', async () => {
        const metadata = (await (await fetch(`${closed.academy}/.well-known/oauth-authorization-server`)).json()) as Json;
        expect(metadata.client_id_metadata_document_supported).toBe(false);
      });
    });
  });
}
