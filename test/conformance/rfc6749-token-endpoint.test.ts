// RFC 6749 3.2, 4.1.3, 5.1, 5.2 with RFC 7636 (PKCE) and RFC 8707 (resource), SPEC 4.2 and 7,
// CONTRACT 5: the token endpoint's authorization_code grant, client authentication and error shapes,
// over real HTTP against the demo.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { type Person, person } from '../helpers/person.js';
import {
  DEMO_CLIENTS,
  exchangeCode,
  expectTokens,
  type FormResponse,
  getCode,
  postForm,
  refresh,
  userInfo,
} from '../helpers/token-flow.js';

const { academyApp, academyWeb, studioApp } = DEMO_CLIENTS;

/** RFC 6749 5.2: a JSON error with `error` and `error_description`, never cached. */
function expectOAuthError(res: FormResponse, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.body.error).toBe(code);
  expect(typeof res.body.error_description).toBe('string');
  expect(Object.keys(res.body).sort()).toEqual(['error', 'error_description']);
}

async function rawPost(url: string, body: string, contentType: string | undefined): Promise<FormResponse> {
  const headers: Record<string, string> = {};
  if (contentType !== undefined) headers['content-type'] = contentType;
  const res = await fetch(url, { method: 'POST', headers, body });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`RFC 6749 token endpoint: authorization_code (${dialect})`, () => {
    let server: DemoServer;
    let student: Person;
    let studioStudent: Person;
    let tokenUrl: string;

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      student = person('student');
      studioStudent = person('student');
      tokenUrl = `${server.academy}/api/oauth/token`;
    });
    afterAll(() => server?.close());

    describe('success (RFC 6749 5.1, CONTRACT 5)', () => {
      it('answers access_token, token_type Bearer, expires_in, refresh_token, scope and id_token with openid, with Cache-Control no-store', async () => {
        const res = await exchangeCode(await getCode(server, academyApp, { who: student, nonce: 'n-1' }));
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(res.headers.get('cache-control')).toBe('no-store');
        expect(Object.keys(res.body).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'refresh_token', 'scope', 'token_type']);
        expect(res.body.token_type).toBe('Bearer');
        expect(res.body.expires_in).toBe(3600);
        expect(res.body.scope).toBe('openid profile email account:read account:write');
        expect(res.body.access_token).toMatch(/^[A-Za-z0-9_~.+/-]{43,}$/);
        expect(res.body.refresh_token).toMatch(/^[A-Za-z0-9_~.+/-]{43,}$/);
        expect(res.body.access_token).not.toBe(res.body.refresh_token);
        expect(String(res.body.id_token).split('.')).toHaveLength(3);
      });

      it('issues no id_token when openid was not requested', async () => {
        const tokens = expectTokens(await exchangeCode(await getCode(server, academyApp, { who: student, scope: 'account:read' })));
        expect(tokens.id_token).toBeUndefined();
        expect(tokens.scope).toBe('account:read');
        expect(typeof tokens.refresh_token).toBe('string');
      });

      it('authenticates a confidential client with client_secret_post', async () => {
        const tokens = expectTokens(await exchangeCode(await getCode(server, academyWeb, { who: student })));
        expect(tokens.token_type).toBe('Bearer');
      });

      it('accepts the resource with a trailing slash as the same origin', async () => {
        const issued = await getCode(server, academyApp, { who: student, resource: `${server.academy}/` });
        const tokens = expectTokens(await exchangeCode(issued, { resource: `${server.academy}/` }));
        expect((await userInfo(server.academy, tokens.access_token)).status).toBe(200);
      });

      it('accepts a form content type with a charset parameter', async () => {
        const issued = await getCode(server, academyApp, { who: student });
        const res = await postForm(
          tokenUrl,
          {
            grant_type: 'authorization_code',
            code: issued.code,
            redirect_uri: academyApp.redirectUri,
            code_verifier: issued.verifier,
            resource: server.academy,
            client_id: academyApp.clientId,
          },
          { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
        );
        expectTokens(res);
      });

      it('accepts a bare origin at the token endpoint after a trailing-slash authorization request', async () => {
        const issued = await getCode(server, academyApp, { who: student, resource: `${server.academy}/` });
        expectTokens(await exchangeCode(issued, { resource: server.academy }));
      });
    });

    describe('the code is single use (RFC 6749 4.1.2, 10.5)', () => {
      it('refuses a second exchange with invalid_grant and revokes the tokens of the first exchange', async () => {
        const issued = await getCode(server, academyApp, { who: student });
        const first = expectTokens(await exchangeCode(issued));
        expect((await userInfo(server.academy, first.access_token)).status).toBe(200);

        expectOAuthError(await exchangeCode(issued), 400, 'invalid_grant');

        expect((await userInfo(server.academy, first.access_token)).status).toBe(401);
        expectOAuthError(await refresh(server, academyApp, first.refresh_token), 400, 'invalid_grant');
      });

      it('lets only one of two concurrent exchanges of one code succeed, and the second use revokes what the first got', async () => {
        for (let round = 0; round < 3; round++) {
          const issued = await getCode(server, academyApp, { who: student });
          const results = await Promise.all([exchangeCode(issued), exchangeCode(issued)]);
          expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
          const loser = results.find((r) => r.status === 400) as FormResponse;
          expect(loser.body.error).toBe('invalid_grant');
          const winner = expectTokens(results.find((r) => r.status === 200) as FormResponse);
          expect((await userInfo(server.academy, winner.access_token)).status).toBe(401);
          expectOAuthError(await refresh(server, academyApp, winner.refresh_token), 400, 'invalid_grant');
        }
      });
    });

    describe('the code is bound to its request (RFC 6749 4.1.3, RFC 7636 4.6)', () => {
      it('refuses a redirect_uri that differs from the authorization request with invalid_grant', async () => {
        const issued = await getCode(server, academyApp, { who: student });
        expectOAuthError(await exchangeCode(issued, { redirect_uri: 'http://127.0.0.1:53124/callback' }), 400, 'invalid_grant');
        // A refused attempt does not consume the code.
        expectTokens(await exchangeCode(issued));
      });

      it('refuses a missing redirect_uri with invalid_request', async () => {
        const issued = await getCode(server, academyApp, { who: student });
        expectOAuthError(await exchangeCode(issued, { redirect_uri: undefined }), 400, 'invalid_request');
      });

      it('refuses a code_verifier that does not match the S256 challenge with invalid_grant', async () => {
        const issued = await getCode(server, academyApp, { who: student });
        expectOAuthError(await exchangeCode(issued, { code_verifier: 'a'.repeat(43) }), 400, 'invalid_grant');
      });

      it('refuses a malformed code_verifier (too short, bad characters) with invalid_request', async () => {
        const issued = await getCode(server, academyApp, { who: student });
        expectOAuthError(await exchangeCode(issued, { code_verifier: 'a'.repeat(42) }), 400, 'invalid_request');
        expectOAuthError(await exchangeCode(issued, { code_verifier: `${'a'.repeat(42)}!` }), 400, 'invalid_request');
        expectOAuthError(await exchangeCode(issued, { code_verifier: 'a'.repeat(129) }), 400, 'invalid_request');
      });

      it('refuses a missing code_verifier with invalid_request', async () => {
        const issued = await getCode(server, academyApp, { who: student });
        expectOAuthError(await exchangeCode(issued, { code_verifier: undefined }), 400, 'invalid_request');
      });

      it('refuses a code issued to another client with invalid_grant', async () => {
        const issued = await getCode(server, academyApp, { who: student });
        expectOAuthError(
          await exchangeCode(issued, {
            client_id: academyWeb.clientId,
            client_secret: academyWeb.secret,
            redirect_uri: academyApp.redirectUri,
          }),
          400,
          'invalid_grant',
        );
        // The rightful client can still use it.
        expectTokens(await exchangeCode(issued));
      });

      it('refuses an unknown code with invalid_grant', async () => {
        const issued = await getCode(server, academyApp, { who: student });
        expectOAuthError(await exchangeCode(issued, { code: `${issued.code}x` }), 400, 'invalid_grant');
      });

      it('refuses a code issued at another site with invalid_grant', async () => {
        const issued = await getCode(server, studioApp, { who: studioStudent });
        const res = await postForm(tokenUrl, {
          grant_type: 'authorization_code',
          code: issued.code,
          redirect_uri: studioApp.redirectUri,
          code_verifier: issued.verifier,
          resource: server.academy,
          client_id: academyApp.clientId,
        });
        expectOAuthError(res, 400, 'invalid_grant');
      });

      it('refuses an expired code (older than 60 s) with invalid_grant', async () => {
        const issued = await getCode(server, academyApp, { who: student });
        server.clock.advance(61_000);
        expectOAuthError(await exchangeCode(issued), 400, 'invalid_grant');
      });
    });

    describe('resource (RFC 8707, CONTRACT 5)', () => {
      it('refuses a resource of another origin with invalid_target naming the accepted value', async () => {
        const issued = await getCode(server, academyApp, { who: student });
        const res = await exchangeCode(issued, { resource: server.studio });
        expectOAuthError(res, 400, 'invalid_target');
        expect(res.body.error_description).toContain(server.academy);
      });

      it('refuses a missing resource with invalid_target', async () => {
        const issued = await getCode(server, academyApp, { who: student });
        expectOAuthError(await exchangeCode(issued, { resource: undefined }), 400, 'invalid_target');
      });

      it('refuses a resource with a path, a query or a fragment with invalid_target', async () => {
        const issued = await getCode(server, academyApp, { who: student });
        for (const resource of [`${server.academy}/mcp`, `${server.academy}/?utm_source=x`, `${server.academy}/#top`]) {
          expectOAuthError(await exchangeCode(issued, { resource }), 400, 'invalid_target');
        }
      });

      it('refuses two resource values with invalid_target', async () => {
        const issued = await getCode(server, academyApp, { who: student });
        expectOAuthError(await exchangeCode(issued, { resource: [server.academy, server.studio] }), 400, 'invalid_target');
      });
    });

    describe('malformed requests (RFC 6749 5.2 invalid_request, unsupported_grant_type)', () => {
      it('refuses a request without grant_type with invalid_request', async () => {
        const issued = await getCode(server, academyApp, { who: student });
        expectOAuthError(await exchangeCode(issued, { grant_type: undefined }), 400, 'invalid_request');
      });

      it('refuses an unknown grant_type with unsupported_grant_type', async () => {
        for (const grantType of ['password', 'client_credentials', 'implicit']) {
          expectOAuthError(
            await postForm(tokenUrl, { grant_type: grantType, client_id: academyApp.clientId }),
            400,
            'unsupported_grant_type',
          );
        }
      });

      it('refuses a repeated parameter with invalid_request', async () => {
        const issued = await getCode(server, academyApp, { who: student });
        expectOAuthError(await exchangeCode(issued, { code: [issued.code, issued.code] }), 400, 'invalid_request');
        expectOAuthError(await exchangeCode(issued, { grant_type: ['authorization_code', 'authorization_code'] }), 400, 'invalid_request');
        expectOAuthError(await exchangeCode(issued, { client_id: [academyApp.clientId, academyApp.clientId] }), 400, 'invalid_request');
        // None of that consumed the code.
        expectTokens(await exchangeCode(issued));
      });

      it('refuses a missing code with invalid_request', async () => {
        const issued = await getCode(server, academyApp, { who: student });
        expectOAuthError(await exchangeCode(issued, { code: undefined }), 400, 'invalid_request');
      });

      it('refuses a JSON body with an OAuth invalid_request error, not a framework error', async () => {
        const issued = await getCode(server, academyApp, { who: student });
        const json = JSON.stringify({
          grant_type: 'authorization_code',
          code: issued.code,
          redirect_uri: academyApp.redirectUri,
          code_verifier: issued.verifier,
          resource: server.academy,
          client_id: academyApp.clientId,
        });
        const res = await rawPost(tokenUrl, json, 'application/json');
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
        expectOAuthError(res, res.status, 'invalid_request');
        // The code was not spent by the refused request.
        expectTokens(await exchangeCode(issued));
      });

      it('refuses malformed JSON and other content types with an OAuth invalid_request error', async () => {
        for (const [body, type] of [
          ['{"grant_type":', 'application/json'],
          ['grant_type=authorization_code', 'text/plain'],
          ['grant_type=authorization_code', 'multipart/form-data; boundary=x'],
          ['grant_type=authorization_code', undefined],
        ] as const) {
          const res = await rawPost(tokenUrl, body, type);
          expect(res.status, `${type}`).toBeGreaterThanOrEqual(400);
          expect(res.status, `${type}`).toBeLessThan(500);
          expectOAuthError(res, res.status, 'invalid_request');
        }
      });

      it('refuses a body over the limit with 413 invalid_request', async () => {
        const res = await postForm(tokenUrl, {
          grant_type: 'authorization_code',
          client_id: academyApp.clientId,
          pad: 'x'.repeat(70 * 1024),
        });
        expectOAuthError(res, 413, 'invalid_request');
      });
    });

    describe('methods (RFC 6749 3.2: POST only; RFC 9110 15.5.6)', () => {
      it('answers another method at the token, revocation and introspection endpoints with 405, Allow: POST and an invalid_request error', async () => {
        for (const path of ['/api/oauth/token', '/api/oauth/revoke', '/api/oauth/introspect']) {
          for (const method of ['GET', 'PUT', 'DELETE']) {
            const res = await fetch(`${server.academy}${path}`, { method });
            const answer = { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
            expectOAuthError(answer, 405, 'invalid_request');
            expect(res.headers.get('allow'), `${method} ${path}`).toBe('POST');
          }
        }
        // A path served for GET lists what it is served for.
        const post = await fetch(`${server.academy}/.well-known/openid-configuration`, { method: 'POST' });
        expect(post.status).toBe(405);
        expect(post.headers.get('allow')).toBe('GET, HEAD');
      });

      it('answers 405 with Allow under a route with a parameter too (/assets/:id, /avatars/:name), as the router matches the path', async () => {
        for (const path of ['/assets/ast_anything', '/avatars/someone.svg']) {
          const res = await fetch(`${server.academy}${path}`, { method: 'DELETE' });
          const answer = { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
          expectOAuthError(answer, 405, 'invalid_request');
          expect(res.headers.get('allow'), path).toBe('GET, HEAD');
        }
        // One segment more is no route at all.
        const deeper = await fetch(`${server.academy}/assets/ast_anything/more`, { method: 'DELETE' });
        expect(deeper.status).toBe(404);
      });

      it('still answers 404 where nothing is served under any method, and to a host that is no site', async () => {
        const missing = await fetch(`${server.academy}/api/oauth/nothing-here`, { method: 'PUT' });
        expect([missing.status, ((await missing.json()) as { error: string }).error]).toEqual([404, 'not_found']);
        // Fetch cannot set Host: node:http names a host that is no site, on the server's own address.
        const url = new URL(tokenUrl);
        const unknownHost = await new Promise<{ status: number; allow: string | undefined }>((resolve, reject) => {
          const req = request(
            { host: '127.0.0.1', port: url.port, method: 'GET', path: url.pathname, headers: { host: `nowhere.example:${url.port}` } },
            (res) => {
              res.resume();
              res.on('end', () => resolve({ status: res.statusCode ?? 0, allow: res.headers.allow }));
            },
          );
          req.on('error', reject);
          req.end();
        });
        expect(unknownHost).toEqual({ status: 404, allow: undefined });
      });
    });

    describe('client authentication (RFC 6749 2.3, 3.2.1; SPEC 5.1)', () => {
      it('refuses a confidential client without its secret with 401 invalid_client', async () => {
        const issued = await getCode(server, academyWeb, { who: student });
        expectOAuthError(await exchangeCode(issued, { client_secret: undefined }), 401, 'invalid_client');
      });

      it('refuses a confidential client with a wrong secret with 401 invalid_client', async () => {
        const issued = await getCode(server, academyWeb, { who: student });
        expectOAuthError(await exchangeCode(issued, { client_secret: 'academy-member-secreT' }), 401, 'invalid_client');
        expectOAuthError(await exchangeCode(issued, { client_secret: 'x' }), 401, 'invalid_client');
        // The code survives failed client authentication.
        expectTokens(await exchangeCode(issued));
      });

      it('refuses a public client that sends a client_secret with invalid_client', async () => {
        const issued = await getCode(server, academyApp, { who: student });
        expectOAuthError(await exchangeCode(issued, { client_secret: 'anything' }), 401, 'invalid_client');
      });

      it('refuses HTTP Basic with a wrong secret with 401 invalid_client and a Basic challenge (RFC 6749 5.2)', async () => {
        const issued = await getCode(server, academyWeb, { who: student });
        const basic = `Basic ${Buffer.from(`${academyWeb.clientId}:wrong-secret`).toString('base64')}`;
        const res = await postForm(
          tokenUrl,
          {
            grant_type: 'authorization_code',
            code: issued.code,
            redirect_uri: academyWeb.redirectUri,
            code_verifier: issued.verifier,
            resource: server.academy,
          },
          { authorization: basic },
        );
        expectOAuthError(res, 401, 'invalid_client');
        expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm="/);
      });

      it('refuses an unknown client_id and a missing client_id with invalid_client', async () => {
        const issued = await getCode(server, academyApp, { who: student });
        expectOAuthError(await exchangeCode(issued, { client_id: 'no-such-client' }), 401, 'invalid_client');
        expectOAuthError(await exchangeCode(issued, { client_id: undefined }), 401, 'invalid_client');
      });

      it('refuses a client of another site with invalid_client', async () => {
        const issued = await getCode(server, academyApp, { who: student });
        expectOAuthError(await exchangeCode(issued, { client_id: studioApp.clientId }), 401, 'invalid_client');
      });

      it('checks client authentication before the grant: a bad code with a bad secret is invalid_client', async () => {
        const base = {
          grant_type: 'authorization_code',
          code: 'sgc_not-a-real-code',
          redirect_uri: academyWeb.redirectUri,
          code_verifier: 'a'.repeat(43),
          resource: server.academy,
        };
        expectOAuthError(
          await postForm(tokenUrl, { ...base, client_id: academyWeb.clientId, client_secret: 'wrong' }),
          401,
          'invalid_client',
        );
        expectOAuthError(await postForm(tokenUrl, { ...base, client_id: academyWeb.clientId }), 401, 'invalid_client');
        expectOAuthError(await postForm(tokenUrl, { ...base, client_id: 'no-such-client' }), 401, 'invalid_client');
        expectOAuthError(
          await postForm(tokenUrl, {
            grant_type: 'refresh_token',
            refresh_token: 'sgr_nope',
            client_id: academyWeb.clientId,
            client_secret: 'wrong',
          }),
          401,
          'invalid_client',
        );
        // With the right secret the same bad code is a grant error.
        expectOAuthError(
          await postForm(tokenUrl, { ...base, client_id: academyWeb.clientId, client_secret: academyWeb.secret }),
          400,
          'invalid_grant',
        );
      });
    });
  });
}
