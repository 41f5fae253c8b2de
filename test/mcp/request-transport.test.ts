// The transport between the `/mcp` route and a long-lived SDK server (mcp/request-transport.ts): requests enter
// the SDK's own request handling directly, skipping the type guards of its `onmessage` dispatch, and answer
// exactly as they do through that dispatch.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RequestTransport, requestEntryOf } from '../../src/mcp/request-transport.js';

/** A real SDK server with one tool, connected to a transport that enters it directly or through `onmessage`. */
async function connected(direct: boolean): Promise<RequestTransport<string>> {
  const server = new McpServer({ name: 'test', version: '1.0.0' });
  const transport = new RequestTransport<string>(direct ? server.server : undefined);
  server.registerTool(
    'echo',
    { inputSchema: { text: z.string() }, outputSchema: { text: z.string(), caller: z.string() } },
    async ({ text }, extra) => {
      const structured = { text, caller: transport.contextOf(extra.requestId) ?? 'nobody' };
      return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
    },
  );
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
    expect(requestEntryOf(server.server)).toBeTypeOf('function');
    expect(requestEntryOf({})).toBeUndefined();
  });

  it('answers a tool call, an unknown method and bad arguments the same entering directly as through onmessage', async () => {
    const direct = await connected(true);
    const dispatched = await connected(false);
    const requests: JSONRPCRequest[] = [
      call(7, { text: 'hello' }),
      call('a', { text: 42 }),
      { jsonrpc: '2.0', id: 8, method: 'no/such/method' },
      { jsonrpc: '2.0', id: 9, method: 'tools/list' },
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
  });

  it('refuses a request before its server is connected, entering directly or not', async () => {
    const server = new McpServer({ name: 'test', version: '1.0.0' });
    await expect(new RequestTransport<string>(server.server).request(call(1, { text: 'x' }), 'alice')).rejects.toThrow(/not connected/);
    await expect(new RequestTransport<string>().request(call(1, { text: 'x' }), 'alice')).rejects.toThrow(/not connected/);
  });
});
