// RFC 7009 token revocation (SPEC 4.2, issue 2 section 4, INTEROP "Refresh tokens"): unknown tokens
// answer 200; an access token ends alone; a refresh token ends its grant (every access token under it)
// but not the person's session or consent; only the client a token was issued to may revoke it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { type Person, person } from '../helpers/person.js';
import {
  authorizationUrl,
  DEMO_CLIENTS,
  expectTokens,
  type FormResponse,
  getTokens,
  pkcePair,
  postForm,
  refresh,
  revoke,
  userInfo,
} from '../helpers/token-flow.js';

const { academyApp, academyWeb, studioApp } = DEMO_CLIENTS;

function expectOk(res: FormResponse): void {
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
}

function expectError(res: FormResponse, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.body.error).toBe(code);
  expect(typeof res.body.error_description).toBe('string');
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`RFC 7009 revocation (${dialect})`, () => {
    let server: DemoServer;
    let student: Person;
    let revokeUrl: string;

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      student = person('student');
      revokeUrl = `${server.academy}/api/oauth/revoke`;
    });
    afterAll(() => server?.close());

    it('answers 200 for an unknown token, with or without a hint (RFC 7009 2.2)', async () => {
      expectOk(await revoke(server, academyApp, 'sga_no-such-token'));
      expectOk(await revoke(server, academyApp, 'not-even-our-format', { token_type_hint: 'refresh_token' }));
      expectOk(await revoke(server, academyWeb, 'sgr_no-such-token', { token_type_hint: 'access_token' }));
    });

    it('answers 200 again for a token that is already revoked', async () => {
      const tokens = await getTokens(server, academyApp, { who: student });
      expectOk(await revoke(server, academyApp, tokens.refresh_token));
      expectOk(await revoke(server, academyApp, tokens.refresh_token));
      expectOk(await revoke(server, academyApp, tokens.access_token));
    });

    it('ends only the access token when an access token is revoked: the refresh token still works', async () => {
      const tokens = await getTokens(server, academyApp, { who: student });
      expectOk(await revoke(server, academyApp, tokens.access_token));
      expect((await userInfo(server.academy, tokens.access_token)).status).toBe(401);
      const next = expectTokens(await refresh(server, academyApp, tokens.refresh_token));
      expect((await userInfo(server.academy, next.access_token)).status).toBe(200);
    });

    it('ends the grant when a refresh token is revoked: the refresh token and every access token issued under it', async () => {
      const first = await getTokens(server, academyApp, { who: student });
      const second = expectTokens(await refresh(server, academyApp, first.refresh_token));
      expectOk(await revoke(server, academyApp, second.refresh_token, { token_type_hint: 'refresh_token' }));
      expect((await userInfo(server.academy, first.access_token)).status).toBe(401);
      expect((await userInfo(server.academy, second.access_token)).status).toBe(401);
      const res = await refresh(server, academyApp, second.refresh_token);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_grant');
    });

    it('leaves other grants of the same person and client alone', async () => {
      const one = await getTokens(server, academyApp, { who: student });
      const other = await getTokens(server, academyApp, { who: student });
      expectOk(await revoke(server, academyApp, one.refresh_token));
      expect((await userInfo(server.academy, other.access_token)).status).toBe(200);
      expectTokens(await refresh(server, academyApp, other.refresh_token));
    });

    it('keeps the session and the consent: a new authorization after revocation skips sign-in and consent', async () => {
      const tokens = await getTokens(server, academyApp, { who: student });
      expectOk(await revoke(server, academyApp, tokens.refresh_token));
      const url = authorizationUrl(server, academyApp, pkcePair().challenge);
      const step = await student.request(url);
      expect(step.status).toBe(303);
      const location = new URL(step.location as string);
      expect(`${location.origin}${location.pathname}`).toBe(academyApp.redirectUri);
      expect(location.searchParams.get('code')).toBeTruthy();
      const consents = await server.store.db
        .selectFrom('consents')
        .innerJoin('people', 'people.id', 'consents.person_id')
        .select('scope')
        .where('client_id', '=', academyApp.clientId)
        .where('people.email', '=', 'student@demo.test')
        .execute();
      expect(consents).toHaveLength(1);
    });

    it('refuses to revoke a token issued to another client and revokes nothing', async () => {
      const tokens = await getTokens(server, academyApp, { who: student });
      for (const token of [tokens.access_token, tokens.refresh_token]) {
        expectError(await revoke(server, academyWeb, token), 400, 'unauthorized_client');
      }
      expect((await userInfo(server.academy, tokens.access_token)).status).toBe(200);
      expectTokens(await refresh(server, academyApp, tokens.refresh_token));
    });

    it('does not reach a token of another site: 200 at the wrong origin and nothing revoked', async () => {
      const studioTokens = await getTokens(server, studioApp, { who: person('student') });
      expectOk(await postForm(revokeUrl, { token: studioTokens.refresh_token, client_id: academyApp.clientId }));
      expect((await userInfo(server.studio, studioTokens.access_token)).status).toBe(200);
      expectTokens(await refresh(server, studioApp, studioTokens.refresh_token));
    });

    it('refuses an unknown token_type_hint with unsupported_token_type and revokes nothing', async () => {
      const tokens = await getTokens(server, academyApp, { who: student });
      expectError(await revoke(server, academyApp, tokens.access_token, { token_type_hint: 'id_token' }), 400, 'unsupported_token_type');
      expect((await userInfo(server.academy, tokens.access_token)).status).toBe(200);
    });

    it('requires a confidential client to authenticate: no secret or a wrong one is 401 invalid_client', async () => {
      const tokens = await getTokens(server, academyWeb, { who: student });
      expectError(await postForm(revokeUrl, { token: tokens.refresh_token, client_id: academyWeb.clientId }), 401, 'invalid_client');
      expectError(
        await postForm(revokeUrl, { token: tokens.refresh_token, client_id: academyWeb.clientId, client_secret: 'wrong' }),
        401,
        'invalid_client',
      );
      expect((await userInfo(server.academy, tokens.access_token)).status).toBe(200);
      expectOk(await revoke(server, academyWeb, tokens.refresh_token));
      expect((await userInfo(server.academy, tokens.access_token)).status).toBe(401);
    });

    it('refuses a request without client_id, with an unknown client or with a wrong HTTP Basic secret as invalid_client', async () => {
      expectError(await postForm(revokeUrl, { token: 'sga_x' }), 401, 'invalid_client');
      expectError(await postForm(revokeUrl, { token: 'sga_x', client_id: 'no-such-client' }), 401, 'invalid_client');
      const basic = `Basic ${Buffer.from(`${academyWeb.clientId}:wrong`).toString('base64')}`;
      expectError(await postForm(revokeUrl, { token: 'sga_x' }, { authorization: basic }), 401, 'invalid_client');
    });

    it('refuses a public client that sends a client_secret with invalid_client', async () => {
      expectError(await postForm(revokeUrl, { token: 'sga_x', client_id: academyApp.clientId, client_secret: 'x' }), 401, 'invalid_client');
    });

    it('refuses a request without a token with invalid_request', async () => {
      expectError(await postForm(revokeUrl, { client_id: academyApp.clientId }), 400, 'invalid_request');
    });

    it('refuses a JSON body with invalid_request', async () => {
      const res = await fetch(revokeUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: 'sga_x', client_id: academyApp.clientId }),
      });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(((await res.json()) as { error: string }).error).toBe('invalid_request');
    });

    it('records token.revoked in the audit log without the token', async () => {
      const tokens = await getTokens(server, academyApp, { who: student });
      expectOk(await revoke(server, academyApp, tokens.refresh_token));
      const events = await server.store.db
        .selectFrom('audit_events')
        .select(['kind', 'detail'])
        .where('kind', '=', 'token.revoked')
        .execute();
      expect(events.length).toBeGreaterThan(0);
      for (const e of events) expect(e.detail).not.toContain(tokens.refresh_token);
    });
  });
}
