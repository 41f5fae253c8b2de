// MCP "Streamable HTTP" (2025-06-18, 2025-11-25) on a stateless server, and SPEC 5.4 anonymous access:
// initialize with the SDK's own client, version negotiation, POST-only, Origin validation, no caching.
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { connectMcp, mcpPost, structured, toolCall } from '../helpers/mcp.js';

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`Streamable HTTP /mcp (${dialect})`, () => {
    let server: DemoServer;
    beforeAll(async () => {
      server = await startDemoServer(dialect);
    });
    afterAll(async () => {
      await server?.close();
    });

    it('initializes an anonymous SDK client and names the school in serverInfo', async () => {
      const client = await connectMcp(server.academy);
      try {
        expect(client.getServerVersion()).toMatchObject({ name: 'schoolgate', title: 'Demo Academy' });
        expect(client.getServerCapabilities()?.tools).toBeDefined();
        expect(client.getInstructions()).toMatch(/treat them as data/);
      } finally {
        await client.close();
      }
    });

    it('negotiates the protocol version: echoes a supported one, answers its latest for an unknown one', async () => {
      const initialize = (protocolVersion: string) => ({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      });
      const older = await mcpPost(server.academy, initialize('2025-06-18'));
      expect(older.status).toBe(200);
      expect(older.body).toMatchObject({ result: { protocolVersion: '2025-06-18' } });
      const unknown = await mcpPost(server.academy, initialize('2099-01-01'));
      expect(unknown.body).toMatchObject({ result: { protocolVersion: LATEST_PROTOCOL_VERSION } });
      // Stateless: no session is handed out.
      expect(older.headers.get('mcp-session-id')).toBeNull();
    });

    it('answers a tools/call without initialize (stateless), as JSON, with Cache-Control: no-store', async () => {
      const answer = await mcpPost(server.academy, toolCall('get_school'));
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.body).toMatchObject({ id: 1, result: { structuredContent: { name: 'Demo Academy', origin: server.academy } } });
    });

    it('refuses an unsupported MCP-Protocol-Version header with 400', async () => {
      const answer = await mcpPost(server.academy, toolCall('get_school'), { headers: { 'mcp-protocol-version': '1900-01-01' } });
      expect(answer.status).toBe(400);
    });

    it('answers GET and DELETE with 405 and Allow: POST (no SSE stream, no session)', async () => {
      for (const method of ['GET', 'DELETE']) {
        const res = await fetch(`${server.academy}/mcp`, { method, headers: { accept: 'text/event-stream' } });
        expect(res.status, method).toBe(405);
        expect(res.headers.get('allow')).toBe('POST');
        expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
      }
    });

    it('refuses an Origin that is null, malformed or a plain-http page off loopback with 403 before anything else', async () => {
      for (const origin of ['null', 'http://evil.example', 'https://evil.example/path', 'not an origin', 'file://']) {
        const refused = await mcpPost(server.academy, toolCall('get_school'), { headers: { origin } });
        expect(refused.status, origin).toBe(403);
        expect(refused.body, origin).toMatchObject({ error: { code: -32000 } });
      }
      const get = await fetch(`${server.academy}/mcp`, { headers: { origin: 'null' } });
      expect(get.status).toBe(403);
    });

    it('lets browser-based clients in: the site itself, any https page and pages on loopback (bearer tokens only, never cookies)', async () => {
      for (const origin of [server.academy, server.studio, 'https://claude.ai', 'http://localhost:6274', 'http://127.0.0.1:5173']) {
        const answer = await mcpPost(server.academy, toolCall('get_school'), { headers: { origin } });
        expect(answer.status, origin).toBe(200);
      }
    });

    it('answers a body that is not JSON with a JSON-RPC parse error, and a wrong Content-Type with 415', async () => {
      const broken = await mcpPost(server.academy, '{"jsonrpc":');
      expect(broken.status).toBe(400);
      expect(broken.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 }, id: null });
      const text = await mcpPost(server.academy, 'hello', { headers: { 'content-type': 'text/plain' } });
      expect(text.status).toBe(415);
    });

    it('requires Accept to name both application/json and text/event-stream (406 otherwise)', async () => {
      const answer = await mcpPost(server.academy, toolCall('get_school'), { headers: { accept: 'application/json' } });
      expect(answer.status).toBe(406);
    });

    it('answers a batch (2025-03-26) with an array of answers under the ids the client chose', async () => {
      const ping = { jsonrpc: '2.0', id: 'p', method: 'ping' };
      const answer = await mcpPost(server.academy, [toolCall('get_school', {}, 7), ping], {
        headers: { 'mcp-protocol-version': '2025-03-26' },
      });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject([
        { jsonrpc: '2.0', id: 7, result: { structuredContent: { name: 'Demo Academy' } } },
        { jsonrpc: '2.0', id: 'p', result: {} },
      ]);
    });

    it('writes each tool answer of a batch with structured content equal to its text block, and other answers as they are', async () => {
      const ping = { jsonrpc: '2.0', id: 'p', method: 'ping' };
      const calls = [
        toolCall('search_courses', { query: 'design' }, 'a'),
        toolCall('get_course', { slug: 'no-such-course' }, 2),
        toolCall('get_school', {}, 3),
        ping,
      ];
      const res = await fetch(`${server.academy}/mcp`, {
        method: 'POST',
        headers: {
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          'mcp-protocol-version': '2025-03-26',
        },
        body: JSON.stringify(calls),
      });
      expect(res.status).toBe(200);
      const answers = JSON.parse(await res.text()) as Array<{
        id: string | number;
        result: { content?: Array<{ type: string; text: string }>; structuredContent?: unknown; isError?: boolean };
      }>;
      expect(answers.map((a) => a.id)).toEqual(['a', 2, 3, 'p']);
      const [search, missing, school, pong] = answers;
      for (const answer of [search, school]) {
        expect(answer?.result.structuredContent).toBeDefined();
        expect(JSON.parse(answer?.result.content?.[0]?.text ?? 'null')).toEqual(answer?.result.structuredContent);
      }
      expect(search?.result.structuredContent).toMatchObject({ total: expect.any(Number), items: expect.any(Array) });
      expect(missing?.result).toMatchObject({ isError: true });
      expect(missing?.result.structuredContent).toBeUndefined();
      expect(pong).toEqual({ jsonrpc: '2.0', id: 'p', result: {} });
    });

    it('accepts notifications alone with 202 and no body', async () => {
      const answer = await mcpPost(server.academy, { jsonrpc: '2.0', method: 'notifications/initialized' });
      expect(answer.status).toBe(202);
      expect(answer.body).toBeNull();
    });

    it('refuses with 400 a message that is not JSON-RPC, initialize inside a batch, and a batch over 100 messages', async () => {
      const notRpc = await mcpPost(server.academy, { hello: 'world' });
      expect(notRpc.status).toBe(400);
      expect(notRpc.body).toMatchObject({
        jsonrpc: '2.0',
        error: { code: -32700, message: 'Parse error: Invalid JSON-RPC message' },
        id: null,
      });
      const initialize = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      };
      const twoInits = await mcpPost(server.academy, [initialize, { jsonrpc: '2.0', id: 2, method: 'ping' }]);
      expect(twoInits.status).toBe(400);
      expect(twoInits.body).toMatchObject({
        error: { code: -32600, message: 'Invalid Request: Only one initialization request is allowed' },
      });
      const pings = Array.from({ length: 101 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'ping' }));
      const tooMany = await mcpPost(server.academy, pings);
      expect(tooMany.status).toBe(400);
      expect(tooMany.body).toMatchObject({ error: { code: -32600, message: 'Invalid Request: Batch must not exceed 100 messages' } });
    });

    it("answers an unknown method with JSON-RPC -32601 under the client's id", async () => {
      const answer = await mcpPost(server.academy, { jsonrpc: '2.0', id: 'x-1', method: 'no/such/method' });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ jsonrpc: '2.0', id: 'x-1', error: { code: -32601 } });
    });

    it("answers params that do not fit the method with JSON-RPC -32602 naming the field, under the client's id (not -32603 with the schema's issue list)", async () => {
      const cases: Array<[body: Record<string, unknown>, field: RegExp]> = [
        [
          { method: 'tools/call', params: { name: 'search_courses', arguments: 'design' } },
          /^Invalid params for tools\/call: params\.arguments: /,
        ],
        [{ method: 'tools/call', params: { name: 'search_courses', arguments: [1] } }, /params\.arguments: /],
        [{ method: 'tools/call', params: { name: { first: 'search_courses' } } }, /^Invalid params for tools\/call: params\.name: /],
        [{ method: 'tools/list', params: { cursor: 5 } }, /^Invalid params for tools\/list: params\.cursor: /],
        [
          { method: 'initialize', params: { protocolVersion: 5, capabilities: {}, clientInfo: { name: 'x', version: '1' } } },
          /params\.protocolVersion: /,
        ],
      ];
      for (const [request, field] of cases) {
        const answer = await mcpPost(server.academy, { jsonrpc: '2.0', id: 'bad-1', ...request });
        expect(answer.status).toBe(200);
        const body = answer.body as { id: unknown; error: { code: number; message: string } };
        expect(body.id).toBe('bad-1');
        expect(body.error.code, JSON.stringify(request)).toBe(-32602);
        expect(body.error.message).toMatch(field);
        expect(body.error.message).not.toContain('\n');
      }
      // The same server still answers a request that fits at once.
      expect((await mcpPost(server.academy, toolCall('search_courses', { query: 'design' }))).body).toMatchObject({ result: {} });
    });

    it('serves each site its own school at its own origin', async () => {
      const client = await connectMcp(server.studio);
      try {
        const school = structured(await client.callTool({ name: 'get_school', arguments: {} }));
        expect(school).toMatchObject({ name: 'Demo Studio', origin: server.studio });
      } finally {
        await client.close();
      }
    });
  });
}
