// The ID token (OIDC Core 2 and 3.1.3.7, SPEC 2.3 and 5.3, INTEROP openid-client): ES256 with a `kid`
// published at `jwks_uri`, `iss` = the origin, `aud` = the client_id, `exp` = `iat` + 10 minutes,
// `nonce` echoed, `auth_time`, `sub`, `org_id`, `roles`; verified here with jose against the live JWKS.
import { createRemoteJWKSet, decodeProtectedHeader, type JWTPayload, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { DEMO, type Person, person } from '../helpers/person.js';
import { DEMO_CLIENTS, type DemoClient, type DemoSite, getTokens } from '../helpers/token-flow.js';

const { academyApp, academyWeb, studioApp } = DEMO_CLIENTS;

interface Jwks {
  keys: Record<string, unknown>[];
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`OpenID Connect ID token (${dialect})`, () => {
    let server: DemoServer;
    let people: Record<DemoSite, Person>;
    const siteIds: Partial<Record<DemoSite, string>> = {};

    async function discovery(origin: string): Promise<Record<string, unknown>> {
      return (await (await fetch(`${origin}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    }

    async function verify(site: DemoSite, client: DemoClient, idToken: string, jwksOrigin = server[site]) {
      const meta = await discovery(jwksOrigin);
      const jwks = createRemoteJWKSet(new URL(meta.jwks_uri as string));
      return jwtVerify(idToken, jwks, {
        issuer: server[site],
        audience: client.clientId,
        algorithms: ['ES256'],
        currentDate: new Date(server.clock.now()),
      });
    }

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      people = { academy: person('student'), studio: person('student') };
      for (const row of await server.store.db.selectFrom('sites').select(['id', 'origin']).execute()) {
        if (row.origin === server.academy) siteIds.academy = row.id;
        if (row.origin === server.studio) siteIds.studio = row.id;
      }
    });
    afterAll(() => server?.close());

    it('advertises ES256 and a jwks_uri on this origin in discovery', async () => {
      for (const origin of [server.academy, server.studio]) {
        const meta = await discovery(origin);
        expect(meta.issuer).toBe(origin);
        expect(meta.id_token_signing_alg_values_supported).toEqual(['ES256']);
        expect(meta.jwks_uri).toBe(`${origin}/.well-known/jwks.json`);
      }
    });

    for (const [site, client] of [
      ['academy', academyApp],
      ['academy', academyWeb],
      ['studio', studioApp],
    ] as const) {
      it(`${site} / ${client.clientId}: ES256 with a kid in the JWKS, verified by jose against jwks_uri`, async () => {
        const tokens = await getTokens(server, client, { who: people[site], scope: 'openid profile email', nonce: `nonce-${site}` });
        const idToken = tokens.id_token as string;
        const header = decodeProtectedHeader(idToken);
        expect(header.alg).toBe('ES256');
        expect(typeof header.kid).toBe('string');
        const jwks = (await (await fetch(`${server[site]}/.well-known/jwks.json`)).json()) as Jwks;
        const key = jwks.keys.find((k) => k.kid === header.kid);
        expect(key).toBeDefined();
        expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
        for (const k of jwks.keys) expect(k.d).toBeUndefined();

        const { payload, protectedHeader } = await verify(site, client, idToken);
        expect(protectedHeader.kid).toBe(header.kid);
        expect(payload.iss).toBe(server[site]);
        expect(payload.aud).toBe(client.clientId);
        expect(payload.nonce).toBe(`nonce-${site}`);
      });
    }

    it('carries iss, aud, exp = iat + 600, iat, nonce, auth_time, sub, org_id and roles', async () => {
      const before = Math.floor(server.clock.now() / 1000);
      const tokens = await getTokens(server, academyApp, { who: people.academy, scope: 'openid', nonce: 'the-nonce' });
      const after = Math.ceil(server.clock.now() / 1000);
      const { payload } = await verify('academy', academyApp, tokens.id_token as string);
      const student = await server.store.db
        .selectFrom('people')
        .select('id')
        .where('email', '=', DEMO.student.email)
        .executeTakeFirstOrThrow();
      expect(payload.iss).toBe(server.academy);
      expect(payload.aud).toBe(academyApp.clientId);
      expect(payload.sub).toBe(student.id);
      expect(payload.org_id).toBe(siteIds.academy);
      expect(payload.roles).toEqual(['student']);
      expect(payload.nonce).toBe('the-nonce');
      const iat = payload.iat as number;
      expect(iat).toBeGreaterThanOrEqual(before);
      expect(iat).toBeLessThanOrEqual(after);
      expect(payload.exp).toBe(iat + 600);
      expect(Number.isInteger(payload.auth_time)).toBe(true);
      expect(payload.auth_time as number).toBeLessThanOrEqual(iat);
    });

    it('keeps auth_time at the sign-in of the session across later authorizations', async () => {
      const who = person('student');
      const first = await getTokens(server, academyApp, { who, scope: 'openid', nonce: 'a' });
      server.clock.advance(5_000);
      const second = await getTokens(server, academyApp, { who, scope: 'openid', nonce: 'b' });
      const a = (await verify('academy', academyApp, first.id_token as string)).payload;
      const b = (await verify('academy', academyApp, second.id_token as string)).payload;
      expect(b.auth_time).toBe(a.auth_time);
      expect(b.iat as number).toBeGreaterThanOrEqual((a.iat as number) + 5);
    });

    it('carries no nonce claim when the authorization request had none', async () => {
      const tokens = await getTokens(server, academyApp, { who: people.academy, scope: 'openid' });
      const { payload } = await verify('academy', academyApp, tokens.id_token as string);
      expect(payload.nonce).toBeUndefined();
    });

    it('releases email and name with their scopes, picture only on Demo Academy (variant A)', async () => {
      const academy = await getTokens(server, academyApp, { who: people.academy, scope: 'openid profile email', nonce: 'x' });
      const a: JWTPayload = (await verify('academy', academyApp, academy.id_token as string)).payload;
      expect(a.email).toBe(DEMO.student.email);
      expect(a.name).toBe('Sam Student');
      expect(String(a.picture)).toMatch(/^http:\/\/localhost:\d+\/avatars\//);

      const studio = await getTokens(server, studioApp, { who: people.studio, scope: 'openid profile email', nonce: 'x' });
      const s = (await verify('studio', studioApp, studio.id_token as string)).payload;
      expect(s.email).toBe(DEMO.student.email);
      expect(s.name).toBe('Sam Student');
      expect(s.picture).toBeUndefined();
      expect(s.org_id).toBe(siteIds.studio);
      expect(s.sub).toBe(a.sub);

      const bare = await getTokens(server, academyApp, { who: people.academy, scope: 'openid', nonce: 'x' });
      const b = (await verify('academy', academyApp, bare.id_token as string)).payload;
      expect(b.email).toBeUndefined();
      expect(b.name).toBeUndefined();
      expect(b.picture).toBeUndefined();
    });

    it('names the roles of the person at this site only', async () => {
      const owner = person('owner');
      const academy = await getTokens(server, academyApp, { who: owner, scope: 'openid', nonce: 'o' });
      expect((await verify('academy', academyApp, academy.id_token as string)).payload.roles).toEqual(['owner']);
      const studio = await getTokens(server, studioApp, { who: owner, scope: 'openid', nonce: 'o' });
      expect((await verify('studio', studioApp, studio.id_token as string)).payload.roles).toEqual(['admin']);
    });

    it("is signed with the site's own key: another site's JWKS does not verify it", async () => {
      const tokens = await getTokens(server, academyApp, { who: people.academy, scope: 'openid', nonce: 'k' });
      await expect(verify('academy', academyApp, tokens.id_token as string, server.studio)).rejects.toThrow();
    });

    it('fails verification for another audience or issuer', async () => {
      const tokens = await getTokens(server, academyApp, { who: people.academy, scope: 'openid', nonce: 'k' });
      const idToken = tokens.id_token as string;
      await expect(verify('academy', academyWeb, idToken)).rejects.toThrow(/aud/);
      await expect(verify('studio', academyApp, idToken, server.academy)).rejects.toThrow(/iss/);
    });

    it('expires 10 minutes after issue', async () => {
      const tokens = await getTokens(server, academyApp, { who: people.academy, scope: 'openid', nonce: 'e' });
      const meta = await discovery(server.academy);
      const jwks = createRemoteJWKSet(new URL(meta.jwks_uri as string));
      const at = (offsetSeconds: number) => new Date(server.clock.now() + offsetSeconds * 1000);
      await expect(jwtVerify(tokens.id_token as string, jwks, { currentDate: at(590) })).resolves.toBeDefined();
      await expect(jwtVerify(tokens.id_token as string, jwks, { currentDate: at(601) })).rejects.toThrow(/exp/);
    });
  });
}
