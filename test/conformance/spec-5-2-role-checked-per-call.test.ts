// SPEC 5.2, CONTRACT 6 (issue 8): who may hold a client's tokens is decided at consent AND on every use.
// Operator clients need owner or admin at the site, member applications any role there. A person who
// loses that standing is refused on the very next call (403), at every resource and at the token
// endpoint; nothing is deleted, so a restored role makes the same access token work again.
import { LOST_STANDING } from '../../src/oauth/standing.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { challengeParams, mcpPost, toolCall } from '../helpers/mcp.js';
import { graphql } from '../member-api-http/graphql-http.js';
import { type Person, person } from '../helpers/person.js';
import {
  clientCredentials,
  DEMO_CLIENTS,
  type DemoClient,
  exchangeCode,
  expectTokens,
  getCode,
  getTokens,
  introspect,
  refresh,
  userInfo,
} from '../helpers/token-flow.js';

const VENDOR: DemoClient = { site: 'academy', clientId: 'demo-vendor', redirectUri: 'http://127.0.0.1:61000/callback' };
const { academyWeb } = DEMO_CLIENTS;
const LOST = LOST_STANDING;

async function role(server: DemoServer, action: 'grant' | 'revoke', email: string, name: string): Promise<void> {
  const errors: string[] = [];
  const code = await runCli(
    ['role', action, '--site', 'demo-academy', '--email', email, '--role', name],
    { stdout: { write: () => true }, stderr: { write: (chunk: string) => errors.push(chunk) > 0 } },
    { DATABASE_URL: server.config.databaseUrl, SCHOOLGATE_SECRET: server.config.secret },
    { clock: server.clock },
  );
  expect(code, errors.join('')).toBe(0);
}

function expectLostStanding(answer: { status: number; headers: Headers }): void {
  expect(answer.status).toBe(403);
  const challenge = challengeParams(answer.headers.get('www-authenticate'));
  expect(challenge.error).toBe('insufficient_scope');
  expect(challenge.error_description).toBe(LOST);
  // Asking for other scopes would not help, so none is named.
  expect(challenge.scope).toBeUndefined();
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`role checked on every call (${dialect})`, () => {
    let server: DemoServer;
    let owner: Person;
    let student: Person;

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      owner = person('owner');
      student = person('student');
    });
    afterAll(() => server?.close());

    it('refuses an operator token with 403 on the next MCP call once its person is no longer owner or admin, and serves it again when the role returns', async () => {
      const tokens = await getTokens(server, VENDOR, { scope: 'openid courses:read', who: owner });
      const call = () => mcpPost(server.academy, toolCall('list_courses'), { token: tokens.access_token });
      expect((await call()).status).toBe(200);

      // A student role is not enough for an operator client.
      await role(server, 'grant', 'owner@demo.test', 'student');
      await role(server, 'revoke', 'owner@demo.test', 'owner');
      try {
        expectLostStanding(await call());
        expectLostStanding(await userInfo(server.academy, tokens.access_token));
      } finally {
        await role(server, 'grant', 'owner@demo.test', 'owner');
        await role(server, 'revoke', 'owner@demo.test', 'student');
      }
      // The access token was never revoked: the restored role is enough.
      expect((await call()).status).toBe(200);
    });

    it('refuses the refresh grant of a demoted operator with invalid_grant and ends the grant', async () => {
      const tokens = await getTokens(server, VENDOR, { scope: 'openid courses:read', who: owner });
      await role(server, 'revoke', 'owner@demo.test', 'owner');
      try {
        const refreshed = await refresh(server, VENDOR, tokens.refresh_token);
        expect(refreshed.status).toBe(400);
        expect(refreshed.body).toEqual({ error: 'invalid_grant', error_description: LOST });
      } finally {
        await role(server, 'grant', 'owner@demo.test', 'owner');
      }
      // Refusing a refresh is where the decision is kept: the grant ended, so the restored role revives nothing.
      expect((await mcpPost(server.academy, toolCall('list_courses'), { token: tokens.access_token })).status).toBe(401);
      expect((await refresh(server, VENDOR, tokens.refresh_token)).body.error).toBe('invalid_grant');
    });

    it('refuses a member app token at UserInfo, GraphQL and introspection once its person holds no role at the site', async () => {
      const tokens = await getTokens(server, academyWeb, { who: student });
      expect((await userInfo(server.academy, tokens.access_token)).status).toBe(200);

      await role(server, 'revoke', 'student@demo.test', 'student');
      try {
        expectLostStanding(await userInfo(server.academy, tokens.access_token));
        expectLostStanding(await graphql(server, 'academy', tokens.access_token, '{ viewer { id } }'));
        const inspected = await introspect(server.academy, tokens.access_token, clientCredentials(academyWeb));
        expect(inspected.body).toEqual({ active: false });
      } finally {
        await role(server, 'grant', 'student@demo.test', 'student');
      }
      expect((await userInfo(server.academy, tokens.access_token)).status).toBe(200);
      expect((await introspect(server.academy, tokens.access_token, clientCredentials(academyWeb))).body.active).toBe(true);
    });

    it('refuses to exchange a code whose person lost their role between consent and exchange (invalid_grant)', async () => {
      const issued = await getCode(server, academyWeb, { who: student });
      await role(server, 'revoke', 'student@demo.test', 'student');
      try {
        const res = await exchangeCode(issued);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ error: 'invalid_grant', error_description: LOST });
      } finally {
        await role(server, 'grant', 'student@demo.test', 'student');
      }
      // The code was not spent by the refusal; a fresh flow works as before.
      expectTokens(await exchangeCode(await getCode(server, academyWeb, { who: student })));
    });
  });
}
