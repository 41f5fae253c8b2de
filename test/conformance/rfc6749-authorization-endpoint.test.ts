// RFC 6749 4.1.1-4.1.2.1, RFC 9207 and SPEC 4.2 / CONTRACT 4 over real HTTP: the client and the
// redirect URI are checked first and their failures are a 400 page, never a redirect; every later
// error goes back to the redirect URI with `error`, `error_description`, `state` and `iss`; success
// carries `code`, `state` and `iss` and nothing else.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authorizationUrl,
  DEMO_REDIRECTS,
  expectCodeAt,
  expectErrorPage,
  expectErrorRedirect,
  isSignInForm,
} from '../helpers/authorization-url.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { person } from '../helpers/person.js';

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`RFC 6749 authorization endpoint (${dialect})`, () => {
    let server: DemoServer;
    beforeAll(async () => {
      server = await startDemoServer(dialect);
    });
    afterAll(() => server?.close());

    const anonymous = () => person('student');

    describe('the client and the redirect URI come first: failures are a 400 page, no redirect', () => {
      it('refuses an unknown client_id with a 400 page', async () => {
        const step = await anonymous().request(
          authorizationUrl(server.academy, 'no-such-app', { redirect_uri: DEMO_REDIRECTS['academy-member-app'], scope: 'openid' }),
        );
        expectErrorPage(step);
        expect(step.html).toContain('invalid_client');
      });

      it('shows what it refuses as text, never as markup (client_id and redirect_uri are escaped on the page)', async () => {
        const markup = '<script>alert(1)</script>';
        const unknown = await anonymous().request(
          authorizationUrl(server.academy, markup, { redirect_uri: DEMO_REDIRECTS['academy-member-app'], scope: 'openid' }),
        );
        expectErrorPage(unknown);
        const unregistered = await anonymous().request(
          authorizationUrl(server.academy, 'academy-member-app', { redirect_uri: `http://127.0.0.1:1/x?${markup}` }),
        );
        expectErrorPage(unregistered);
        for (const page of [unknown, unregistered]) {
          expect(page.html).not.toContain(markup);
          expect(page.html).not.toMatch(/<script/i);
        }
      });

      it('refuses a missing client_id with a 400 page', async () => {
        const step = await anonymous().request(
          authorizationUrl(server.academy, 'academy-member-app', { client_id: null, redirect_uri: DEMO_REDIRECTS['academy-member-app'] }),
        );
        expectErrorPage(step);
      });

      it('refuses a repeated client_id with a 400 page', async () => {
        const step = await anonymous().request(
          authorizationUrl(server.academy, 'academy-member-app', { client_id: ['academy-member-app', 'academy-member-app'] }),
        );
        expectErrorPage(step);
      });

      it('refuses an unregistered redirect_uri with a 400 page and does not redirect to it', async () => {
        const step = await anonymous().request(
          authorizationUrl(server.academy, 'academy-member-app', { redirect_uri: 'https://attacker.example/callback' }),
        );
        expectErrorPage(step);
      });

      it('refuses a missing redirect_uri with a 400 page', async () => {
        const step = await anonymous().request(authorizationUrl(server.academy, 'academy-member-app', { redirect_uri: null }));
        expectErrorPage(step);
      });

      it('refuses a repeated redirect_uri with a 400 page', async () => {
        const uri = DEMO_REDIRECTS['academy-member-app'];
        const step = await anonymous().request(authorizationUrl(server.academy, 'academy-member-app', { redirect_uri: [uri, uri] }));
        expectErrorPage(step);
      });

      it('shows the page, not a redirect, when the client is bad and later parameters are bad too', async () => {
        const step = await anonymous().request(
          authorizationUrl(server.academy, 'no-such-app', {
            redirect_uri: DEMO_REDIRECTS['academy-member-app'],
            response_type: 'token',
            code_challenge: null,
            scope: 'nonsense',
          }),
        );
        expectErrorPage(step);
      });

      it('treats a member app of the other site as unknown here', async () => {
        const studioAppAtAcademy = await anonymous().request(
          authorizationUrl(server.academy, 'studio-member-app', { redirect_uri: DEMO_REDIRECTS['academy-member-app'] }),
        );
        expectErrorPage(studioAppAtAcademy);
        const academyAppAtStudio = await anonymous().request(
          authorizationUrl(server.studio, 'academy-member-app', { redirect_uri: DEMO_REDIRECTS['studio-member-app'] }),
        );
        expectErrorPage(academyAppAtStudio);
      });

      it('accepts a loopback redirect_uri on any port for the public demo apps (RFC 8252 7.3)', async () => {
        const cases: Array<[string, string, string]> = [
          [server.academy, 'academy-member-app', 'http://127.0.0.1:1234/callback'],
          [server.academy, 'academy-member-app', 'http://localhost:65000/callback'],
          [server.academy, 'academy-member-app', 'http://127.0.0.1/callback'],
          [server.studio, 'studio-member-app', 'http://127.0.0.1:50001/callback'],
          [server.studio, 'studio-member-app', 'http://localhost:3/callback'],
          [server.academy, 'demo-vendor', 'http://127.0.0.1:40404/callback'],
          [server.studio, 'demo-vendor', 'http://127.0.0.1:8080/callback'],
        ];
        for (const [origin, clientId, redirectUri] of cases) {
          const step = await anonymous().request(authorizationUrl(origin, clientId, { redirect_uri: redirectUri }));
          expect(isSignInForm(step), `${clientId} with ${redirectUri}: ${step.status}`).toBe(true);
        }
      });

      it('matches a loopback redirect_uri on the registered host and path only (a path or host change is a page)', async () => {
        for (const redirectUri of [
          'http://127.0.0.1:53123/other',
          'http://127.0.0.1:53123/callback/',
          'http://127.0.0.1:53123/callback?next=x',
          'http://127.0.0.2:53123/callback',
          'https://127.0.0.1:53123/callback',
        ]) {
          const step = await anonymous().request(authorizationUrl(server.academy, 'academy-member-app', { redirect_uri: redirectUri }));
          expect(step.status, redirectUri).toBe(400);
          expectErrorPage(step);
        }
      });

      it('matches the redirect_uri of academy-member-web exactly: another port is a 400 page', async () => {
        const registered = await anonymous().request(authorizationUrl(server.academy, 'academy-member-web'));
        expect(isSignInForm(registered)).toBe(true);
        for (const redirectUri of ['http://127.0.0.1:8977/callback', 'http://127.0.0.1/callback', 'http://localhost:8976/callback']) {
          const step = await anonymous().request(authorizationUrl(server.academy, 'academy-member-web', { redirect_uri: redirectUri }));
          expect(step.status, redirectUri).toBe(400);
          expectErrorPage(step);
        }
      });
    });

    describe('after the client and redirect URI are known good, errors go back to the redirect URI', () => {
      it('refuses a missing response_type with invalid_request on the redirect (RFC 6749 4.1.2.1)', async () => {
        const url = authorizationUrl(server.academy, 'academy-member-app', { response_type: null });
        expectErrorRedirect(await anonymous().request(url), url, 'invalid_request');
      });

      it('refuses response_type=token with unsupported_response_type on the redirect', async () => {
        const url = authorizationUrl(server.academy, 'academy-member-app', { response_type: 'token' });
        expectErrorRedirect(await anonymous().request(url), url, 'unsupported_response_type');
      });

      it('refuses response_type="code id_token" with unsupported_response_type on the redirect', async () => {
        const url = authorizationUrl(server.academy, 'academy-member-app', { response_type: 'code id_token' });
        expectErrorRedirect(await anonymous().request(url), url, 'unsupported_response_type');
      });

      it('refuses a request object (request) with invalid_request on the redirect', async () => {
        const url = authorizationUrl(server.academy, 'academy-member-app', { request: 'eyJhbGciOiJub25lIn0.e30.' });
        expectErrorRedirect(await anonymous().request(url), url, 'invalid_request');
      });

      it('refuses a request object by reference (request_uri) with invalid_request on the redirect', async () => {
        const url = authorizationUrl(server.academy, 'academy-member-app', { request_uri: 'https://attacker.example/request.jwt' });
        expectErrorRedirect(await anonymous().request(url), url, 'invalid_request');
      });

      it('refuses a repeated state with invalid_request on the redirect', async () => {
        const url = authorizationUrl(server.academy, 'academy-member-app', { state: ['one', 'two'] });
        expectErrorRedirect(await anonymous().request(url), url, 'invalid_request');
      });

      it('refuses a repeated scope with invalid_request on the redirect', async () => {
        const url = authorizationUrl(server.academy, 'academy-member-app', { scope: ['openid', 'account:read'] });
        expectErrorRedirect(await anonymous().request(url), url, 'invalid_request');
      });

      it('refuses a missing scope with invalid_scope on the redirect', async () => {
        const url = authorizationUrl(server.academy, 'academy-member-app', { scope: null });
        expectErrorRedirect(await anonymous().request(url), url, 'invalid_scope');
      });

      it('refuses an empty scope with invalid_scope on the redirect', async () => {
        const url = authorizationUrl(server.academy, 'academy-member-app', { scope: ' ' });
        expectErrorRedirect(await anonymous().request(url), url, 'invalid_scope');
      });

      it('refuses an unknown scope with invalid_scope on the redirect', async () => {
        const url = authorizationUrl(server.academy, 'academy-member-app', { scope: 'openid account:admin' });
        const params = expectErrorRedirect(await anonymous().request(url), url, 'invalid_scope');
        expect(params.get('error_description')).toContain('account:admin');
      });

      it('echoes state exactly, characters that need escaping included', async () => {
        const state = 'a b&c=d/é?#+%';
        const url = authorizationUrl(server.academy, 'academy-member-app', { state, response_type: 'token' });
        const params = expectErrorRedirect(await anonymous().request(url), url, 'unsupported_response_type');
        expect(params.get('state')).toBe(state);
      });

      it('leaves state out of the redirect when the request had none', async () => {
        const url = authorizationUrl(server.academy, 'academy-member-app', { state: null, response_type: 'token' });
        const params = expectErrorRedirect(await anonymous().request(url), url, 'unsupported_response_type');
        expect(params.has('state')).toBe(false);
      });

      it('sends iss = the origin of the site asked, on both demo sites (RFC 9207)', async () => {
        for (const [origin, clientId] of [
          [server.academy, 'academy-member-app'],
          [server.studio, 'studio-member-app'],
        ] as const) {
          const url = authorizationUrl(origin, clientId, { response_type: 'token' });
          const params = expectErrorRedirect(await anonymous().request(url), url, 'unsupported_response_type');
          expect(params.get('iss')).toBe(origin);
        }
      });

      it('redirects errors to the exact loopback port the request named', async () => {
        const url = authorizationUrl(server.academy, 'academy-member-app', { redirect_uri: 'http://localhost:7777/callback', scope: null });
        const step = await anonymous().request(url);
        expectErrorRedirect(step, url, 'invalid_scope');
        expect(new URL(step.location as string).host).toBe('localhost:7777');
      });
    });

    describe('the code redirect (RFC 6749 4.1.2, RFC 9207)', () => {
      it('carries code, state and iss and nothing else: no token leaks into the URL', async () => {
        const url = authorizationUrl(server.academy, 'academy-member-app', { scope: 'openid profile email account:read', nonce: 'n-1' });
        const callback = await person('student').authorize(url);
        expectCodeAt(callback, url);
        expect(callback.href).not.toMatch(/access_token|id_token|refresh_token|token_type/);
        expect(callback.hash).toBe('');
      });

      it('is not cacheable and issues a code bound to the client, redirect URI and person', async () => {
        const url = authorizationUrl(server.studio, 'studio-member-app');
        const p = person('student');
        await p.authorize(url);
        // Consent is remembered: the same request now redirects straight away, so its headers can be read.
        const again = authorizationUrl(server.studio, 'studio-member-app');
        const step = await p.request(again);
        expect([302, 303]).toContain(step.status);
        expect(step.headers.get('cache-control')).toContain('no-store');
        const code = expectCodeAt(step.location, again);
        expect(code.length).toBeGreaterThanOrEqual(32);
        const row = await server.store.db
          .selectFrom('authorization_codes')
          .innerJoin('people', 'people.id', 'authorization_codes.person_id')
          .select(['authorization_codes.client_id', 'authorization_codes.redirect_uri', 'people.email'])
          .where('authorization_codes.client_id', '=', 'studio-member-app')
          .orderBy('authorization_codes.created_at', 'desc')
          .executeTakeFirstOrThrow();
        expect(row).toEqual({
          client_id: 'studio-member-app',
          redirect_uri: DEMO_REDIRECTS['studio-member-app'],
          email: 'student@demo.test',
        });
      });

      it('never stores the code itself, only its hash', async () => {
        const url = authorizationUrl(server.academy, 'academy-member-app');
        const code = expectCodeAt(await person('lecturer').authorize(url), url);
        const rows = await server.store.db.selectFrom('authorization_codes').select('code_hash').execute();
        expect(rows.some((r) => r.code_hash === code)).toBe(false);
      });
    });
  });
}
