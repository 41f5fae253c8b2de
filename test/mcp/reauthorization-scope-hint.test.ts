// MCP clients (the SDK's auth()) authorize again with the 401 challenge's `scope`, and without one ask
// for every scope of the protected resource metadata, which mixes the member and operator audiences and
// is refused with invalid_scope (SPEC 5.2). So a 401 for an expired or revoked token names what it held,
// and a 401 for a tool call names what the tool needs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { challengeParams, mcpPost, toolCall } from '../helpers/mcp.js';
import { DEMO_CLIENTS, getTokens, revoke } from '../helpers/token-flow.js';

const LIST_TOOLS = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`a 401 at /mcp tells the client what to ask for again (${dialect})`, () => {
    let server: DemoServer;
    beforeAll(async () => {
      server = await startDemoServer(dialect);
    });
    afterAll(() => server?.close());

    it('names the scopes an expired token held', async () => {
      const tokens = await getTokens(server, DEMO_CLIENTS.academyApp, { scope: 'openid account:read' });
      expect((await mcpPost(server.academy, LIST_TOOLS, { token: tokens.access_token })).status).toBe(200);
      server.clock.advance(3600 * 1000 + 1000);
      const answer = await mcpPost(server.academy, LIST_TOOLS, { token: tokens.access_token });
      expect(answer.status).toBe(401);
      const challenge = challengeParams(answer.headers.get('www-authenticate'));
      expect(challenge.error).toBe('invalid_token');
      expect(challenge.scope).toBe('openid account:read');
      expect(challenge.resource_metadata).toBe(`${server.academy}/.well-known/oauth-protected-resource`);
    });

    it('names the scopes a revoked token held', async () => {
      const tokens = await getTokens(server, DEMO_CLIENTS.academyApp, { scope: 'openid account:read account:write' });
      await revoke(server, DEMO_CLIENTS.academyApp, tokens.refresh_token);
      const answer = await mcpPost(server.academy, LIST_TOOLS, { token: tokens.access_token });
      expect(answer.status).toBe(401);
      expect(challengeParams(answer.headers.get('www-authenticate')).scope).toBe('openid account:read account:write');
    });

    it("names a called tool's scopes rather than the old token's", async () => {
      const tokens = await getTokens(server, DEMO_CLIENTS.academyApp, { scope: 'openid account:read account:write' });
      await revoke(server, DEMO_CLIENTS.academyApp, tokens.refresh_token);
      const answer = await mcpPost(server.academy, toolCall('list_my_enrollments'), { token: tokens.access_token });
      expect(answer.status).toBe(401);
      expect(challengeParams(answer.headers.get('www-authenticate')).scope).toBe('account:read');
    });

    it('names no scope for a token it has never seen', async () => {
      const answer = await mcpPost(server.academy, LIST_TOOLS, { token: 'sga_unknown-token-value' });
      expect(answer.status).toBe(401);
      expect(challengeParams(answer.headers.get('www-authenticate')).scope).toBeUndefined();
    });
  });
}
