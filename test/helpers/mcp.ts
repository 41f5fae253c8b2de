// Talking to /mcp in tests: the MCP SDK's own client over Streamable HTTP, and plain fetch where the
// HTTP status and headers are what a test checks (the SDK client hides them).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import type { DemoServer } from './demo-server.js';

/** An MCP client connected (initialized) to a site's /mcp, anonymous or with a bearer token. */
export async function connectMcp(origin: string, accessToken?: string): Promise<Client> {
  const client = new Client({ name: 'schoolgate-tests', version: '1.0.0' });
  const requestInit: RequestInit = accessToken ? { headers: { authorization: `Bearer ${accessToken}` } } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', origin), { requestInit }));
  return client;
}

export async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((t) => t.name).sort();
}

/** A successful tool result's structured content; fails the test on an error result. */
export function structured<T = Record<string, unknown>>(result: Awaited<ReturnType<Client['callTool']>>): T {
  const r = result as CallToolResult;
  if (r.isError) throw new Error(`tool error: ${JSON.stringify(r.content)}`);
  expect(r.structuredContent).toBeDefined();
  // The text content carries the same JSON (MCP "Structured content" backwards compatibility).
  const text = r.content.find((c) => c.type === 'text');
  expect(text && text.type === 'text' ? JSON.parse(text.text) : undefined).toEqual(r.structuredContent);
  return r.structuredContent as T;
}

/** An error result's text; fails the test on a successful result. */
export function errorText(result: Awaited<ReturnType<Client['callTool']>>): string {
  const r = result as CallToolResult;
  expect(r.isError).toBe(true);
  const text = r.content.find((c) => c.type === 'text');
  return text && text.type === 'text' ? text.text : '';
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

/** POSTs one JSON-RPC message (or any body) to /mcp the way a stateless client does, without initialize. */
export async function mcpPost(
  origin: string,
  body: unknown,
  options: { token?: string; authorization?: string; headers?: Record<string, string> } = {},
): Promise<RawAnswer> {
  const headers: Record<string, string> = {
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
    ...options.headers,
  };
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  else if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  const res = await fetch(`${origin}/mcp`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON: the test sees the text.
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

export function toolCall(name: string, args: Record<string, unknown> = {}, id: number | string = 1) {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } };
}

/** The site ids of the demo's two sites. */
export async function demoSiteIds(server: DemoServer): Promise<{ academy: string; studio: string }> {
  const rows = await server.store.db.selectFrom('sites').select(['id', 'origin']).execute();
  const byOrigin = new Map(rows.map((r) => [r.origin, r.id]));
  return { academy: byOrigin.get(server.academy) ?? '', studio: byOrigin.get(server.studio) ?? '' };
}

/** The id of a demo person by e-mail. */
export async function personId(server: DemoServer, email: string): Promise<string> {
  const row = await server.store.db.selectFrom('people').where('email', '=', email).select('id').executeTakeFirstOrThrow();
  return row.id;
}

/** Parses one WWW-Authenticate Bearer challenge into its parameters. */
export function challengeParams(header: string | null): Record<string, string> {
  const params: Record<string, string> = {};
  if (!header) return params;
  for (const m of header.matchAll(/(\w+)="([^"]*)"/g)) params[m[1] as string] = m[2] as string;
  return params;
}
