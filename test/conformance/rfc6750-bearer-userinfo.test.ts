// RFC 6750 bearer tokens at UserInfo (SPEC 2.3, 5.3, 7; CONTRACT 5; RFC 9728 5.1): every refusal is a
// 401 invalid_token or 403 insufficient_scope with WWW-Authenticate naming the protected resource
// metadata; a token bound to another origin is refused here; the claims follow the granted scopes and
// equal the ID token's.
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { DEMO, type Person, person } from '../helpers/person.js';
import { DEMO_CLIENTS, type FormResponse, getTokens, revoke, userInfo } from '../helpers/token-flow.js';

const { academyApp, academyWeb, studioApp } = DEMO_CLIENTS;

/** The auth-params of a `WWW-Authenticate: Bearer ...` challenge. */
function challenge(res: FormResponse): Record<string, string> {
  const header = res.headers.get('www-authenticate') ?? '';
  expect(header).toMatch(/^Bearer /);
  const params: Record<string, string> = {};
  for (const m of header.slice('Bearer '.length).matchAll(/([a-z_]+)="([^"]*)"/g)) params[m[1] as string] = m[2] as string;
  return params;
}

function expectInvalidToken(res: FormResponse, origin: string): Record<string, string> {
  expect(res.status).toBe(401);
  expect(res.headers.get('cache-control')).toBe('no-store');
  const params = challenge(res);
  expect(params.error).toBe('invalid_token');
  expect(params.resource_metadata).toBe(`${origin}/.well-known/oauth-protected-resource`);
  expect(res.body.error).toBe('invalid_token');
  return params;
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`RFC 6750 bearer tokens at UserInfo (${dialect})`, () => {
    let server: DemoServer;
    let academyStudent: Person;
    let studioStudent: Person;

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      academyStudent = person('student');
      studioStudent = person('student');
    });
    afterAll(() => server?.close());

    it('refuses a request without a token with 401 invalid_token and resource_metadata in WWW-Authenticate', async () => {
      for (const origin of [server.academy, server.studio]) {
        const res = await userInfo(origin, undefined);
        expectInvalidToken(res, origin);
        expect(res.headers.get('www-authenticate')).toContain(`resource_metadata="${origin}/.well-known/oauth-protected-resource"`);
      }
    });

    it('refuses a malformed Authorization header with 401 invalid_token', async () => {
      const tokens = await getTokens(server, academyApp, { who: academyStudent });
      for (const header of [
        'Bearer',
        'Bearer ',
        `Basic ${Buffer.from('a:b').toString('base64')}`,
        `Token ${tokens.access_token}`,
        `Bearer ${tokens.access_token} extra`,
        `Bearer "${tokens.access_token}"`,
        `Bearer ${'A'.repeat(300)}`,
        tokens.access_token,
      ]) {
        expectInvalidToken(await userInfo(server.academy, undefined, header), server.academy);
      }
    });

    it('accepts the Bearer scheme case-insensitively (RFC 9110 11.1)', async () => {
      const tokens = await getTokens(server, academyApp, { who: academyStudent });
      expect((await userInfo(server.academy, undefined, `bearer ${tokens.access_token}`)).status).toBe(200);
      expect((await userInfo(server.academy, undefined, `BEARER ${tokens.access_token}`)).status).toBe(200);
    });

    it('refuses an unknown token with 401 invalid_token', async () => {
      expectInvalidToken(await userInfo(server.academy, 'sga_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), server.academy);
    });

    it('refuses a refresh token used as an access token with 401 invalid_token', async () => {
      const tokens = await getTokens(server, academyApp, { who: academyStudent });
      expectInvalidToken(await userInfo(server.academy, tokens.refresh_token), server.academy);
    });

    it('refuses a revoked token with 401 invalid_token', async () => {
      const tokens = await getTokens(server, academyApp, { who: academyStudent });
      expect((await revoke(server, academyApp, tokens.access_token)).status).toBe(200);
      const params = expectInvalidToken(await userInfo(server.academy, tokens.access_token), server.academy);
      expect(params.error_description).toMatch(/revoked/);
    });

    it('refuses a token issued for Demo Studio at Demo Academy, saying it was issued for another resource', async () => {
      const tokens = await getTokens(server, studioApp, { who: studioStudent });
      expect((await userInfo(server.studio, tokens.access_token)).status).toBe(200);
      const params = expectInvalidToken(await userInfo(server.academy, tokens.access_token), server.academy);
      expect(params.error_description).toMatch(/issued for another resource/);
      expect(params.error_description).toContain(server.academy);
    });

    it('refuses a token issued for Demo Academy at Demo Studio the same way', async () => {
      const tokens = await getTokens(server, academyApp, { who: academyStudent });
      const params = expectInvalidToken(await userInfo(server.studio, tokens.access_token), server.studio);
      expect(params.error_description).toMatch(/issued for another resource/);
    });

    it('refuses a token without openid with 403 insufficient_scope and scope="openid" in WWW-Authenticate', async () => {
      const tokens = await getTokens(server, academyApp, { who: academyStudent, scope: 'account:read' });
      const res = await userInfo(server.academy, tokens.access_token);
      expect(res.status).toBe(403);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const params = challenge(res);
      expect(params.error).toBe('insufficient_scope');
      expect(params.scope).toBe('openid');
      expect(params.resource_metadata).toBe(`${server.academy}/.well-known/oauth-protected-resource`);
      expect(res.body.error).toBe('insufficient_scope');
    });

    it('releases only sub, org_id and roles for openid alone', async () => {
      const tokens = await getTokens(server, academyApp, { who: academyStudent, scope: 'openid' });
      const res = await userInfo(server.academy, tokens.access_token);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(Object.keys(res.body).sort()).toEqual(['org_id', 'roles', 'sub']);
      expect(res.body.roles).toEqual(['student']);
    });

    it('releases the email only with the email scope, and no name or picture without profile', async () => {
      const tokens = await getTokens(server, academyApp, { who: academyStudent, scope: 'openid email' });
      const body = (await userInfo(server.academy, tokens.access_token)).body;
      expect(body.email).toBe(DEMO.student.email);
      expect(body.name).toBeUndefined();
      expect(body.picture).toBeUndefined();
    });

    it('releases name and picture with profile on Demo Academy (variant A), and no email without the email scope', async () => {
      const tokens = await getTokens(server, academyApp, { who: academyStudent, scope: 'openid profile' });
      const body = (await userInfo(server.academy, tokens.access_token)).body;
      expect(body.name).toBe('Sam Student');
      expect(String(body.picture)).toMatch(/^http:\/\/localhost:\d+\/avatars\//);
      expect(body.email).toBeUndefined();
    });

    it('never releases picture on Demo Studio (variant B), even with profile', async () => {
      const tokens = await getTokens(server, studioApp, { who: studioStudent, scope: 'openid profile email' });
      const body = (await userInfo(server.studio, tokens.access_token)).body;
      expect(body.name).toBe('Sam Student');
      expect(body.email).toBe(DEMO.student.email);
      expect(body.picture).toBeUndefined();
      expect(body.roles).toEqual(['student']);
    });

    it('returns the same claims as the ID token (sub, email, name, org_id, roles, picture) at both sites', async () => {
      for (const [origin, client, who] of [
        [server.academy, academyApp, academyStudent],
        [server.studio, studioApp, studioStudent],
        [server.academy, academyWeb, academyStudent],
      ] as const) {
        const tokens = await getTokens(server, client, { who, scope: 'openid profile email', nonce: 'n' });
        const idClaims = decodeJwt(tokens.id_token as string);
        const info = (await userInfo(origin, tokens.access_token)).body;
        for (const claim of ['sub', 'email', 'name', 'org_id', 'roles', 'picture']) {
          expect(info[claim], `${origin} ${claim}`).toEqual(idClaims[claim]);
        }
        const identity = (c: Record<string, unknown>) =>
          Object.fromEntries(Object.entries(c).filter(([k]) => !['iss', 'aud', 'exp', 'iat', 'nonce', 'auth_time'].includes(k)));
        expect(info).toEqual(identity(idClaims));
      }
    });

    it('answers POST as well as GET (OIDC Core 5.3.1)', async () => {
      const tokens = await getTokens(server, academyApp, { who: academyStudent, scope: 'openid' });
      const res = await fetch(`${server.academy}/api/oauth/userinfo`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      expect(res.status).toBe(200);
    });

    it('refuses an expired token (older than 1 h) with 401 invalid_token', async () => {
      const tokens = await getTokens(server, academyApp, { who: academyStudent });
      server.clock.advance(3600 * 1000 - 5_000);
      expect((await userInfo(server.academy, tokens.access_token)).status).toBe(200);
      server.clock.advance(6_000);
      const params = expectInvalidToken(await userInfo(server.academy, tokens.access_token), server.academy);
      expect(params.error_description).toMatch(/expired/);
    });
  });
}
