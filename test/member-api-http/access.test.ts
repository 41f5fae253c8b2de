// Who may call the member GraphQL API (SPEC 4.3, 5.2, 5.3, 5.4, 7; issue 3 section 3), over real HTTP at both
// variants' paths, with tokens from the real authorization flow: no anonymous mode, tokens bound to one
// origin, account:read for reads and account:write for mutations, operator tokens refused, revoked and expired
// tokens refused at once, and a store without a verdict answered 503 without a challenge.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { type Person, person } from '../helpers/person.js';
import { DEMO_CLIENTS, type DemoClient, getTokens, revoke, type TokenSet } from '../helpers/token-flow.js';
import {
  expectGraphqlErrors,
  expectInsufficientScope,
  expectInvalidToken,
  GRAPHQL_PATH,
  graphql,
  SITES,
  send,
  viewerOf,
} from './graphql-http.js';

const { academyApp, academyWeb, studioApp } = DEMO_CLIENTS;
const APP = { academy: academyApp, studio: studioApp } as const;

/** The pre-registered vendor integration of CONTRACT 3: an operator client at every site. */
const demoVendor = (site: 'academy' | 'studio'): DemoClient => ({
  site,
  clientId: 'demo-vendor',
  redirectUri: 'http://127.0.0.1:61000/callback',
});

const HOUR = 3_600_000;

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`member GraphQL API access over HTTP (${dialect})`, () => {
    let server: DemoServer;
    let student: Record<'academy' | 'studio', Person>;
    let tokens: Record<'academy' | 'studio', TokenSet>;

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      student = { academy: person('student'), studio: person('student') };
      tokens = {
        academy: await getTokens(server, academyApp, { who: student.academy }),
        studio: await getTokens(server, studioApp, { who: student.studio }),
      };
    });
    afterAll(() => server?.close());

    for (const site of SITES) {
      describe(`at Demo ${site === 'academy' ? 'Academy' : 'Studio'} (${GRAPHQL_PATH[site]})`, () => {
        it('answers the viewer to a token from the real flow holding account:read', async () => {
          const viewer = viewerOf(await graphql(server, site, tokens[site].access_token, '{ viewer { email } }'));
          expect(viewer.email).toBe('student@demo.test');
        });

        it('refuses a request without a token with 401 invalid_token and resource_metadata (no anonymous mode)', async () => {
          const answer = await graphql(server, site, undefined, '{ viewer { id } }');
          const params = expectInvalidToken(answer, server[site]);
          expect(params.scope).toBeUndefined();
          expect(answer.headers.get('www-authenticate')).toBe(
            `Bearer error="invalid_token", error_description="${params.error_description}", resource_metadata="${server[site]}/.well-known/oauth-protected-resource"`,
          );
        });

        it('refuses a malformed Authorization header and an unknown token with 401 invalid_token', async () => {
          const url = `${server[site]}${GRAPHQL_PATH[site]}`;
          for (const authorization of ['Bearer', `Basic ${Buffer.from('a:b').toString('base64')}`, `Token ${tokens[site].access_token}`]) {
            expectInvalidToken(await send(url, { query: '{ viewer { id } }' }, { authorization }), server[site]);
          }
          expectInvalidToken(
            await graphql(server, site, `${tokens[site].access_token.slice(0, -4)}AAAA`, '{ viewer { id } }'),
            server[site],
          );
        });

        it('checks the token before reading the query: an anonymous caller learns nothing about the schema', async () => {
          for (const query of ['{ viewer {', '{ viewer { noSuchField } }', '{ __schema { types { name } } }']) {
            const answer = await graphql(server, site, undefined, query);
            expectInvalidToken(answer, server[site]);
            expect(answer.text).not.toMatch(/Syntax Error|Cannot query field|__schema|Viewer/);
          }
          // Nor is the body read: a body over the limit, or of the wrong type, still gets the 401.
          const url = `${server[site]}${GRAPHQL_PATH[site]}`;
          expectInvalidToken(await send(url, { query: `{ viewer { id } } #${'x'.repeat(100_000)}` }), server[site]);
          expectInvalidToken(await send(url, 'query=1', { headers: { 'content-type': 'text/plain' } }), server[site]);
        });

        it('refuses a valid token without account:read with 403 insufficient_scope naming account:read', async () => {
          const narrow = await getTokens(server, APP[site], { who: student[site], scope: 'openid profile email' });
          const answer = await graphql(server, site, narrow.access_token, '{ viewer { id } }');
          const params = expectInsufficientScope(answer, server[site], 'account:read');
          expect(params.scope).toBe('account:read');
          expect(answer.headers.get('www-authenticate')).toBe(
            `Bearer error="insufficient_scope", error_description="${params.error_description}", scope="account:read", resource_metadata="${server[site]}/.well-known/oauth-protected-resource"`,
          );
          // A syntax error is reported only once the token has passed; the scope check follows the parse.
          expect((await graphql(server, site, narrow.access_token, '{ viewer {')).status).toBe(400);
        });

        it('refuses the demo-vendor operator token (courses:read, approved by the owner) with 403 insufficient_scope', async () => {
          const operator = await getTokens(server, demoVendor(site), { who: person('owner'), scope: 'openid courses:read' });
          expect(operator.scope.split(' ')).not.toContain('account:read');
          expectInsufficientScope(await graphql(server, site, operator.access_token, '{ viewer { id } }'), server[site], 'account:read');
        });

        it('answers 503 with Retry-After and no WWW-Authenticate when the token store gives no verdict', async () => {
          const check = vi.spyOn(server.app.services.bearer, 'check').mockResolvedValueOnce({ kind: 'unavailable' });
          try {
            const answer = await graphql(server, site, tokens[site].access_token, '{ viewer { id } }');
            expect(answer.json).toEqual({
              errors: [{ message: expect.stringMatching(/^Temporarily unavailable/), extensions: { code: 'UNAVAILABLE' } }],
            });
            expectGraphqlErrors(answer, 503);
            expect(answer.headers.get('retry-after')).toBe('2');
          } finally {
            check.mockRestore();
          }
          expect((await graphql(server, site, tokens[site].access_token, '{ viewer { id } }')).status).toBe(200);
        });
      });
    }

    it('refuses a Demo Studio token at Demo Academy’s path with 401 invalid_token and resource_metadata (SPEC 5.3)', async () => {
      const params = expectInvalidToken(await graphql(server, 'academy', tokens.studio.access_token, '{ viewer { id } }'), server.academy);
      expect(params.error_description).toContain('another resource');
    });

    it('refuses a Demo Academy token at Demo Studio’s path with 401 invalid_token and resource_metadata (SPEC 5.3)', async () => {
      expectInvalidToken(await graphql(server, 'studio', tokens.academy.access_token, '{ viewer { id } }'), server.studio);
    });

    it('refuses a mutation to a token without account:write with 403 insufficient_scope naming account:write', async () => {
      const readOnly = await getTokens(server, academyWeb, { who: person('student'), scope: 'openid account:read' });
      const answer = await graphql(server, 'academy', readOnly.access_token, 'mutation { markAllNotificationsRead { markedCount } }');
      expect(expectInsufficientScope(answer, server.academy, 'account:write').scope).toBe('account:write');
      // The same token still reads.
      expect(viewerOf(await graphql(server, 'academy', readOnly.access_token, '{ viewer { unreadNotificationCount } }'))).toEqual({
        unreadNotificationCount: 3,
      });
    });

    it('asks for both scopes when a mutation also reads the viewer, and names them in the 403', async () => {
      const writeOnly = await getTokens(server, academyApp, { who: student.academy, scope: 'openid account:write' });
      const query = 'mutation { markAllNotificationsRead { viewer { unreadNotificationCount } } }';
      const params = expectInsufficientScope(
        await graphql(server, 'academy', writeOnly.access_token, query),
        server.academy,
        'account:read',
      );
      expect(params.scope?.split(' ').sort()).toEqual(['account:read', 'account:write']);
    });

    it('refuses a token at once after it is revoked at /api/oauth/revoke', async () => {
      const fresh = await getTokens(server, academyWeb, { who: person('student') });
      expect((await graphql(server, 'academy', fresh.access_token, '{ viewer { id } }')).status).toBe(200);
      expect((await revoke(server, academyWeb, fresh.access_token)).status).toBe(200);
      const params = expectInvalidToken(await graphql(server, 'academy', fresh.access_token, '{ viewer { id } }'), server.academy);
      expect(params.error_description).toContain('revoked');
    });

    it('refuses an access token at once after the refresh token of its grant is revoked', async () => {
      const fresh = await getTokens(server, studioApp, { who: student.studio });
      expect((await revoke(server, studioApp, fresh.refresh_token)).status).toBe(200);
      expectInvalidToken(await graphql(server, 'studio', fresh.access_token, '{ viewer { id } }'), server.studio);
    });

    // Last: moving the clock past the access token lifetime (1 h) expires every token issued so far.
    it('refuses a token once it expired (1 h lifetime), at both sites', async () => {
      for (const site of SITES) expect((await graphql(server, site, tokens[site].access_token, '{ viewer { id } }')).status).toBe(200);
      server.clock.advance(HOUR + 1_000);
      for (const site of SITES) {
        const params = expectInvalidToken(await graphql(server, site, tokens[site].access_token, '{ viewer { id } }'), server[site]);
        expect(params.error_description).toContain('expired');
      }
    });
  });
}
