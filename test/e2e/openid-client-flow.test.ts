// The whole flow driven by openid-client (a certified relying party): discovery, PKCE, code, ID token
// verified against the JWKS, UserInfo, refresh, revocation; both demo sites, public and confidential.
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { person } from '../helpers/person.js';

interface Case {
  site: 'academy' | 'studio';
  clientId: string;
  secret?: string;
  /** How a confidential client authenticates (RFC 6749 2.3.1): HTTP Basic or the form body. */
  auth?: 'basic' | 'post';
  redirectUri: (port: number) => string;
}

const CASES: Case[] = [
  { site: 'academy', clientId: 'academy-member-app', redirectUri: () => 'http://127.0.0.1:53123/callback' },
  {
    site: 'academy',
    clientId: 'academy-member-web',
    secret: 'academy-member-secret',
    auth: 'post',
    redirectUri: () => 'http://127.0.0.1:8976/callback',
  },
  {
    site: 'academy',
    clientId: 'academy-member-web',
    secret: 'academy-member-secret',
    auth: 'basic',
    redirectUri: () => 'http://127.0.0.1:8976/callback',
  },
  { site: 'studio', clientId: 'studio-member-app', redirectUri: () => 'http://localhost:41000/callback' },
];

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`openid-client completes the flow (${dialect})`, () => {
    let server: DemoServer;
    beforeAll(async () => {
      server = await startDemoServer(dialect);
    });
    afterAll(() => server?.close());

    for (const c of CASES) {
      it(`${c.site} with ${c.clientId}${c.auth ? ` (client_secret_${c.auth})` : ''}: code + PKCE, verified ID token, UserInfo, refresh without id_token, revocation`, async () => {
        const origin = server[c.site];
        const config = await client.discovery(
          new URL(origin),
          c.clientId,
          c.secret ? { client_secret: c.secret } : undefined,
          c.secret ? (c.auth === 'basic' ? client.ClientSecretBasic(c.secret) : client.ClientSecretPost(c.secret)) : client.None(),
          { execute: [client.allowInsecureRequests] },
        );
        expect(config.serverMetadata().issuer).toBe(origin);
        const verifier = client.randomPKCECodeVerifier();
        const nonce = client.randomNonce();
        const state = client.randomState();
        const redirectUri = c.redirectUri(server.port);
        const url = client.buildAuthorizationUrl(config, {
          redirect_uri: redirectUri,
          scope: 'openid profile email account:read',
          code_challenge: await client.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
          resource: `${origin}/`,
          nonce,
          state,
        });
        const callback = await person('student').authorize(url.href);
        expect(callback.searchParams.get('iss')).toBe(origin);
        const tokens = await client.authorizationCodeGrant(
          config,
          callback,
          { pkceCodeVerifier: verifier, expectedNonce: nonce, expectedState: state },
          { resource: origin },
        );
        const claims = tokens.claims();
        expect(claims?.iss).toBe(origin);
        expect(claims?.aud).toBe(c.clientId);
        expect(claims?.email).toBe('student@demo.test');
        expect(claims?.roles).toEqual(['student']);
        expect(typeof claims?.org_id).toBe('string');
        if (c.site === 'academy') expect(String(claims?.picture)).toMatch(/^http:\/\/localhost:\d+\/avatars\//);
        else expect(claims?.picture).toBeUndefined();

        const info = await client.fetchUserInfo(config, tokens.access_token, claims?.sub as string);
        expect(info.sub).toBe(claims?.sub);
        expect(info.email).toBe(claims?.email);
        expect(info.name).toBe(claims?.name);
        expect(info.org_id).toBe(claims?.org_id);
        expect(info.roles).toEqual(claims?.roles);
        expect(info.picture).toBe(claims?.picture);

        const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token as string);
        expect(refreshed.id_token).toBeUndefined();
        expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
        expect(refreshed.access_token).not.toBe(tokens.access_token);

        if (c.secret) {
          const introspected = await client.tokenIntrospection(config, refreshed.access_token);
          expect(introspected.active).toBe(true);
          expect(introspected.client_id).toBe(c.clientId);
        }
        await client.tokenRevocation(config, refreshed.refresh_token as string);
        await expect(client.fetchUserInfo(config, refreshed.access_token, claims?.sub as string)).rejects.toThrow();
        await expect(client.refreshTokenGrant(config, refreshed.refresh_token as string)).rejects.toThrow();
      });
    }
  });
}
