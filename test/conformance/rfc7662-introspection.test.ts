// RFC 7662 token introspection (CONTRACT 5, SPEC 5.1): a confidential client sees its own active tokens
// with `aud` = the bound origin; everything else is exactly `{ "active": false }`; public clients and
// unauthenticated callers are refused with invalid_client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { type Person, person } from '../helpers/person.js';
import {
  DEMO_CLIENTS,
  expectTokens,
  type FormParams,
  type FormResponse,
  FULL_SCOPE,
  getTokens,
  introspect,
  refresh,
  revoke,
} from '../helpers/token-flow.js';

const { academyApp, academyWeb, studioApp } = DEMO_CLIENTS;
const WEB: FormParams = { client_id: academyWeb.clientId, client_secret: academyWeb.secret };

function expectInactive(res: FormResponse): void {
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.body).toEqual({ active: false });
}

function expectInvalidClient(res: FormResponse): void {
  expect(res.status).toBe(401);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.body.error).toBe('invalid_client');
  expect(typeof res.body.error_description).toBe('string');
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`RFC 7662 introspection (${dialect})`, () => {
    let server: DemoServer;
    let student: Person;
    let studentId: string;

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      student = person('student');
      const row = await server.store.db
        .selectFrom('people')
        .select('id')
        .where('email', '=', 'student@demo.test')
        .executeTakeFirstOrThrow();
      studentId = row.id;
    });
    afterAll(() => server?.close());

    it('shows a confidential client its own active access token with aud = origin, client_id, scope, sub, exp, iat, token_type', async () => {
      const before = Math.floor(server.clock.now() / 1000);
      const tokens = await getTokens(server, academyWeb, { who: student });
      const res = await introspect(server.academy, tokens.access_token, WEB);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.body).toMatchObject({
        active: true,
        aud: server.academy,
        client_id: academyWeb.clientId,
        scope: FULL_SCOPE,
        sub: studentId,
        token_type: 'Bearer',
      });
      const iat = res.body.iat as number;
      expect(Number.isInteger(iat)).toBe(true);
      expect(iat).toBeGreaterThanOrEqual(before);
      expect(res.body.exp).toBe(iat + 3600);
    });

    it('binds aud to the bare origin even when the resource was sent with a trailing slash', async () => {
      const tokens = await getTokens(server, academyWeb, { who: student, resource: `${server.academy}/` });
      const res = await introspect(server.academy, tokens.access_token, WEB);
      expect(res.body.active).toBe(true);
      expect(res.body.aud).toBe(server.academy);
    });

    it('shows its own active refresh token, with or without a token_type_hint', async () => {
      const tokens = await getTokens(server, academyWeb, { who: student });
      for (const hint of [undefined, 'refresh_token', 'access_token']) {
        const res = await introspect(server.academy, tokens.refresh_token, WEB, { token_type_hint: hint });
        expect(res.body).toMatchObject({
          active: true,
          aud: server.academy,
          client_id: academyWeb.clientId,
          sub: studentId,
          scope: FULL_SCOPE,
        });
        expect(typeof res.body.exp).toBe('number');
        expect(typeof res.body.iat).toBe('number');
        expect(res.body.token_type).toBeTruthy();
      }
    });

    it('shows the narrowed scope of an access token issued by a narrowing refresh', async () => {
      const tokens = await getTokens(server, academyWeb, { who: student });
      const narrow = expectTokens(await refresh(server, academyWeb, tokens.refresh_token, { scope: 'openid' }));
      expect((await introspect(server.academy, narrow.access_token, WEB)).body.scope).toBe('openid');
    });

    it("answers only { active: false } for another client's token", async () => {
      const tokens = await getTokens(server, academyApp, { who: student });
      expectInactive(await introspect(server.academy, tokens.access_token, WEB));
      expectInactive(await introspect(server.academy, tokens.refresh_token, WEB));
    });

    it('answers only { active: false } for a token of another site', async () => {
      const tokens = await getTokens(server, studioApp, { who: person('student') });
      expectInactive(await introspect(server.academy, tokens.access_token, WEB));
    });

    it('answers only { active: false } for a revoked access token and for the tokens of a revoked grant', async () => {
      const one = await getTokens(server, academyWeb, { who: student });
      expect((await revoke(server, academyWeb, one.access_token)).status).toBe(200);
      expectInactive(await introspect(server.academy, one.access_token, WEB));
      expect((await introspect(server.academy, one.refresh_token, WEB)).body.active).toBe(true);

      expect((await revoke(server, academyWeb, one.refresh_token)).status).toBe(200);
      expectInactive(await introspect(server.academy, one.refresh_token, WEB));
    });

    it('answers only { active: false } for a rotated refresh token, even inside the grace window', async () => {
      const tokens = await getTokens(server, academyWeb, { who: student });
      const next = expectTokens(await refresh(server, academyWeb, tokens.refresh_token));
      expectInactive(await introspect(server.academy, tokens.refresh_token, WEB));
      expect((await introspect(server.academy, next.refresh_token, WEB)).body.active).toBe(true);
    });

    it('answers only { active: false } for an unknown token', async () => {
      expectInactive(await introspect(server.academy, 'sga_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', WEB));
      expectInactive(await introspect(server.academy, 'garbage', WEB));
    });

    it('answers only { active: false } for an expired access token (older than 1 h)', async () => {
      const tokens = await getTokens(server, academyWeb, { who: student });
      server.clock.advance(3600 * 1000 + 1_000);
      expectInactive(await introspect(server.academy, tokens.access_token, WEB));
      // Its refresh token lives on.
      expect((await introspect(server.academy, tokens.refresh_token, WEB)).body.active).toBe(true);
    });

    it('answers only { active: false } for an expired refresh token (older than 30 days)', async () => {
      const tokens = await getTokens(server, academyWeb, { who: student });
      expect((await introspect(server.academy, tokens.refresh_token, WEB)).body.active).toBe(true);
      server.clock.advance(30 * 24 * 3600 * 1000 + 1_000);
      expectInactive(await introspect(server.academy, tokens.refresh_token, WEB));
    });

    it('refuses a public client with invalid_client', async () => {
      const tokens = await getTokens(server, academyApp, { who: student });
      expectInvalidClient(await introspect(server.academy, tokens.access_token, { client_id: academyApp.clientId }));
    });

    it('refuses a request without credentials, with a wrong secret or with an unknown client with 401 invalid_client', async () => {
      const tokens = await getTokens(server, academyWeb, { who: student });
      expectInvalidClient(await introspect(server.academy, tokens.access_token, {}));
      expectInvalidClient(await introspect(server.academy, tokens.access_token, { client_id: academyWeb.clientId }));
      expectInvalidClient(
        await introspect(server.academy, tokens.access_token, { client_id: academyWeb.clientId, client_secret: 'wrong' }),
      );
      expectInvalidClient(await introspect(server.academy, tokens.access_token, { client_id: 'no-such-client', client_secret: 'x' }));
      const basic = `Basic ${Buffer.from(`${academyWeb.clientId}:wrong`).toString('base64')}`;
      const res = await fetch(`${server.academy}/api/oauth/introspect`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
        body: new URLSearchParams({ token: tokens.access_token }).toString(),
      });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: string }).error).toBe('invalid_client');
    });

    it('refuses a request without a token with invalid_request', async () => {
      const res = await introspect(server.academy, '', WEB);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_request');
    });

    it('is advertised in the authorization server metadata with client_secret_basic and client_secret_post', async () => {
      const meta = (await (await fetch(`${server.academy}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
      expect(meta.introspection_endpoint).toBe(`${server.academy}/api/oauth/introspect`);
      expect(meta.introspection_endpoint_auth_methods_supported).toEqual(['client_secret_basic', 'client_secret_post']);
    });
  });
}
