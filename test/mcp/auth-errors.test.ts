// SPEC 5.3, 5.4, 7 and MCP "Authorization" (2025-06-18, 2025-11-25): at /mcp a token that is present but
// unusable gets 401 invalid_token with resource_metadata, never anonymous service; a tool call the token's
// scopes do not cover gets 403 insufficient_scope naming the scopes; an anonymous call of a tool that needs
// a token gets 401 naming them. Statuses and headers are read with plain fetch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countAllCourses } from '../../src/school/operator-catalogue.repository.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { challengeParams, demoSiteIds, mcpPost, toolCall } from '../helpers/mcp.js';
import { person } from '../helpers/person.js';
import { DEMO_CLIENTS, type DemoClient, getTokens, revoke } from '../helpers/token-flow.js';

const VENDOR: DemoClient = { site: 'academy', clientId: 'demo-vendor', redirectUri: 'http://127.0.0.1:61000/callback' };

const LIST_TOOLS = { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} };
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`/mcp authorization errors (${dialect})`, () => {
    let server: DemoServer;
    let resourceMetadata: string;
    let member: string;
    let memberOpenidOnly: string;
    let memberAtStudio: string;
    let operatorCoursesRead: string;
    beforeAll(async () => {
      server = await startDemoServer(dialect);
      resourceMetadata = `${server.academy}/.well-known/oauth-protected-resource`;
      const student = person('student');
      member = (await getTokens(server, DEMO_CLIENTS.academyApp, { scope: 'openid account:read', who: student })).access_token;
      memberOpenidOnly = (await getTokens(server, DEMO_CLIENTS.academyApp, { scope: 'openid', who: student })).access_token;
      memberAtStudio = (await getTokens(server, DEMO_CLIENTS.studioApp, { scope: 'openid account:read', who: student })).access_token;
      operatorCoursesRead = (await getTokens(server, VENDOR, { scope: 'courses:read', who: person('owner') })).access_token;
    });
    afterAll(async () => {
      await server?.close();
    });

    function expectInvalidToken(answer: { status: number; headers: Headers; body: unknown }) {
      expect(answer.status).toBe(401);
      const challenge = challengeParams(answer.headers.get('www-authenticate'));
      expect(challenge.error).toBe('invalid_token');
      expect(challenge.resource_metadata).toBe(resourceMetadata);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.body).toMatchObject({ error: 'invalid_token' });
    }

    it('answers an unknown token with 401 invalid_token and resource_metadata, for every kind of message', async () => {
      const bogus = 'A'.repeat(43);
      for (const message of [INITIALIZE, LIST_TOOLS, toolCall('get_school'), toolCall('list_my_enrollments')]) {
        expectInvalidToken(await mcpPost(server.academy, message, { token: bogus }));
      }
    });

    it('answers a malformed Authorization header with 401, not as anonymous', async () => {
      expectInvalidToken(await mcpPost(server.academy, toolCall('get_school'), { authorization: 'Basic dXNlcjpwYXNz' }));
      expectInvalidToken(await mcpPost(server.academy, toolCall('get_school'), { authorization: 'Bearer' }));
    });

    it('answers a token bound to the other site’s origin with 401 naming this resource', async () => {
      const answer = await mcpPost(server.academy, LIST_TOOLS, { token: memberAtStudio });
      expectInvalidToken(answer);
      expect(challengeParams(answer.headers.get('www-authenticate')).error_description).toContain(server.academy);
      // The same token works where it belongs.
      expect((await mcpPost(server.studio, LIST_TOOLS, { token: memberAtStudio })).status).toBe(200);
    });

    it('answers a revoked token with 401', async () => {
      const student = person('student');
      const tokens = await getTokens(server, DEMO_CLIENTS.academyApp, { scope: 'openid account:read', who: student });
      expect((await mcpPost(server.academy, LIST_TOOLS, { token: tokens.access_token })).status).toBe(200);
      expect((await revoke(server, DEMO_CLIENTS.academyApp, tokens.access_token)).status).toBe(200);
      expectInvalidToken(await mcpPost(server.academy, toolCall('list_my_enrollments'), { token: tokens.access_token }));
    });

    it('answers an anonymous call of a member tool with 401 naming the scope, so the client can authorize', async () => {
      const answer = await mcpPost(server.academy, toolCall('list_my_enrollments'));
      expect(answer.status).toBe(401);
      const challenge = challengeParams(answer.headers.get('www-authenticate'));
      expect(challenge).toMatchObject({ scope: 'account:read', resource_metadata: resourceMetadata });
      const write = await mcpPost(server.academy, toolCall('mark_notifications_read', { all: true }));
      expect(challengeParams(write.headers.get('www-authenticate')).scope).toBe('account:write');
      const operator = await mcpPost(server.academy, toolCall('create_course_draft', { title: 'x' }));
      expect(operator.status).toBe(401);
      expect(challengeParams(operator.headers.get('www-authenticate')).scope).toBe('courses:write');
    });

    it('answers a token without the tool’s scope with 403 insufficient_scope naming every needed scope', async () => {
      const cases: [token: string, tool: string, args: Record<string, unknown>, scope: string][] = [
        [memberOpenidOnly, 'list_my_enrollments', {}, 'account:read'],
        [member, 'mark_notifications_read', { all: true }, 'account:write'],
        [member, 'list_courses', {}, 'courses:read'],
        [operatorCoursesRead, 'list_students', {}, 'students:read'],
        [operatorCoursesRead, 'list_my_enrollments', {}, 'account:read'],
      ];
      for (const [token, tool, args, scope] of cases) {
        const answer = await mcpPost(server.academy, toolCall(tool, args), { token });
        expect(answer.status, tool).toBe(403);
        const challenge = challengeParams(answer.headers.get('www-authenticate'));
        expect(challenge).toMatchObject({ error: 'insufficient_scope', scope, resource_metadata: resourceMetadata });
        expect(answer.body).toMatchObject({ error: 'insufficient_scope', scope });
      }
    });

    it('refuses a write the token does not cover before anything is written', async () => {
      const ids = await demoSiteIds(server);
      const before = await countAllCourses({ db: server.store.db, siteId: ids.academy });
      const answer = await mcpPost(server.academy, toolCall('create_course_draft', { title: 'Sneaky' }), { token: operatorCoursesRead });
      expect(answer.status).toBe(403);
      expect(challengeParams(answer.headers.get('www-authenticate')).scope).toBe('courses:write');
      expect(await countAllCourses({ db: server.store.db, siteId: ids.academy })).toBe(before);
    });

    it('checks every tools/call of a batch', async () => {
      const answer = await mcpPost(server.academy, [toolCall('get_school', {}, 1), toolCall('list_courses', {}, 2)], { token: member });
      expect(answer.status).toBe(403);
      expect(challengeParams(answer.headers.get('www-authenticate')).scope).toBe('courses:read');
    });

    it('serves a token holder’s public tool calls, and an anonymous unknown tool call as a tool error, not a 401', async () => {
      expect((await mcpPost(server.academy, toolCall('get_school'), { token: memberOpenidOnly })).status).toBe(200);
      const unknown = await mcpPost(server.academy, toolCall('no_such_tool'));
      expect(unknown.status).toBe(200);
      expect(unknown.body).toMatchObject({ result: { isError: true } });
    });

    it('answers an expired token with 401 (run last: it moves the clock)', async () => {
      expect((await mcpPost(server.academy, LIST_TOOLS, { token: member })).status).toBe(200);
      server.clock.advance((server.config.platform.lifetimes.access_token + 60) * 1000);
      expectInvalidToken(await mcpPost(server.academy, LIST_TOOLS, { token: member }));
    });
  });
}
