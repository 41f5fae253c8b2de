// The transport between the `/mcp` route and a long-lived SDK server (mcp/request-transport.ts): requests enter
// the SDK's own request handlers directly, skipping the type guards of its `onmessage` dispatch and the
// AbortController its `_onrequest` makes per request, and answer exactly as they do through that dispatch.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type JSONRPCRequest, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RequestTransport, requestEntryOf } from '../../src/mcp/request-transport.js';

/** A real SDK server with two tools and three methods of the test's own, connected to a transport that enters it directly or through `onmessage`. */
async function connected(direct: boolean, signals: AbortSignal[] = []): Promise<RequestTransport<string>> {
  const server = new McpServer({ name: 'test', version: '1.0.0' });
  const transport = new RequestTransport<string>(direct ? server.server : undefined);
  server.registerTool(
    'echo',
    { inputSchema: { text: z.string() }, outputSchema: { text: z.string(), caller: z.string() } },
    async ({ text }, extra) => {
      signals.push(extra.signal);
      const structured = { text, caller: transport.contextOf(extra) ?? 'nobody' };
      return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
    },
  );
  server.registerTool('broken', { inputSchema: {} }, async () => {
    throw new Error('the tool broke');
  });
  // Methods of the test's own, whose handlers throw: an McpError with data, an Error, and not an Error at all.
  const method = (name: string) => z.object({ method: z.literal(name), params: z.object({}).optional() });
  server.server.setRequestHandler(method('test/refuse'), () => {
    throw new McpError(-32001, 'refused here', { reason: 'a test' });
  });
  server.server.setRequestHandler(method('test/fail'), () => {
    throw new Error('failed here');
  });
  server.server.setRequestHandler(method('test/throw-string'), () => {
    throw 'not an error';
  });
  await server.connect(transport);
  return transport;
}

const call = (id: string | number, args: Record<string, unknown>): JSONRPCRequest => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'echo', arguments: args },
});

describe('the MCP request transport', () => {
  it('finds the request handling of the SDK server it is built with (else every call pays for the SDK dispatch’s guards)', () => {
    const server = new McpServer({ name: 'test', version: '1.0.0' });
    expect(requestEntryOf(server.server)?.direct).toBeTypeOf('function');
    expect(requestEntryOf({})).toBeUndefined();
  });

  it('answers every kind of request and every way a handler fails the same entering directly as through onmessage', async () => {
    const direct = await connected(true);
    const dispatched = await connected(false);
    const requests: JSONRPCRequest[] = [
      {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
      },
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      call(7, { text: 'hello' }),
      call('a', { text: 42 }),
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'broken', arguments: {} } },
      { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } },
      { jsonrpc: '2.0', id: 8, method: 'no/such/method' },
      { jsonrpc: '2.0', id: 9, method: 'tools/list' },
      { jsonrpc: '2.0', id: 10, method: 'test/refuse' },
      { jsonrpc: '2.0', id: 11, method: 'test/fail' },
      { jsonrpc: '2.0', id: 12, method: 'test/throw-string' },
      // A task asked for, or a related one named: these keep the SDK's own path, and answer as it does.
      { jsonrpc: '2.0', id: 13, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' }, task: { ttl: 1000 } } },
      {
        jsonrpc: '2.0',
        id: 14,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'x' }, _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't1' } } },
      },
    ];
    for (const request of requests) {
      const [one, other] = await Promise.all([direct.request(request, 'alice'), dispatched.request(request, 'alice')]);
      expect(JSON.parse(one)).toEqual(JSON.parse(other));
      expect(JSON.parse(one).id).toBe(request.id);
    }
    expect(JSON.parse(await direct.request(call(1, { text: 'hi' }), 'bob')).result.structuredContent).toEqual({
      text: 'hi',
      caller: 'bob',
    });
    expect(JSON.parse(await direct.request({ jsonrpc: '2.0', id: 2, method: 'no/such/method' }, 'bob')).error.code).toBe(-32601);
    expect(JSON.parse(await direct.request({ jsonrpc: '2.0', id: 3, method: 'test/refuse' }, 'bob')).error).toEqual({
      code: -32001,
      message: 'MCP error -32001: refused here',
      data: { reason: 'a test' },
    });
    expect(JSON.parse(await direct.request({ jsonrpc: '2.0', id: 4, method: 'test/throw-string' }, 'bob')).error).toEqual({
      code: -32603,
      message: 'Internal error',
    });
  });

  it('gives every request entering directly the one signal that never aborts, where the SDK makes an AbortController per request', async () => {
    const directSignals: AbortSignal[] = [];
    const dispatchedSignals: AbortSignal[] = [];
    const direct = await connected(true, directSignals);
    const dispatched = await connected(false, dispatchedSignals);
    for (const id of [1, 2, 3]) {
      await direct.request(call(id, { text: 'x' }), 'alice');
      await dispatched.request(call(id, { text: 'x' }), 'alice');
    }
    expect(new Set(directSignals).size).toBe(1);
    expect(directSignals[0]?.aborted).toBe(false);
    // Through the SDK's entry each request had a signal of its own (what Node 20 makes costly).
    expect(new Set(dispatchedSignals).size).toBe(3);
  });

  it('refuses a request before its server is connected, entering directly or not', async () => {
    const server = new McpServer({ name: 'test', version: '1.0.0' });
    await expect(new RequestTransport<string>(server.server).request(call(1, { text: 'x' }), 'alice')).rejects.toThrow(/not connected/);
    await expect(new RequestTransport<string>().request(call(1, { text: 'x' }), 'alice')).rejects.toThrow(/not connected/);
  });
});
