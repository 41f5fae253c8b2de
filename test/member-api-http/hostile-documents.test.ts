// Issue 8: hostile GraphQL documents and JSON bodies are refused with a 4xx and a GraphQL (or JSON-RPC)
// error before any recursive code sees them: no 500, no stack overflow, no hang. The limits are explicit
// (member-api/document-limits.ts) and each is tested at and past its edge.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DOCUMENT_NESTING, MAX_DOCUMENT_TOKENS } from '../../src/member-api/document-limits.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { mcpPost } from '../helpers/mcp.js';
import { person } from '../helpers/person.js';
import { DEMO_CLIENTS, getTokens } from '../helpers/token-flow.js';
import { graphql, send } from './graphql-http.js';

function expectGraphqlError(answer: { status: number; json?: unknown }, code: string): void {
  expect(answer.status).toBe(400);
  const errors = (answer.json as { errors?: Array<{ message: string; extensions?: { code?: string } }> }).errors ?? [];
  expect(errors.length).toBeGreaterThan(0);
  expect(errors[0]?.extensions?.code).toBe(code);
  expect(JSON.stringify(answer.json)).not.toMatch(/RangeError|Maximum call stack|\.js:\d+/);
}

describe('hostile GraphQL documents and JSON bodies (sqlite)', () => {
  let server: DemoServer;
  let token: string;
  beforeAll(async () => {
    server = await startDemoServer('sqlite');
    token = (await getTokens(server, DEMO_CLIENTS.academyApp, { who: person('student') })).access_token;
  });
  afterAll(() => server?.close());

  it('refuses a selection nested 5,000 levels deep with 400 DOCUMENT_TOO_DEEP, before parsing', async () => {
    const query = `${'{ viewer '.repeat(5000)}${'}'.repeat(5000)}`;
    expectGraphqlError(await graphql(server, 'academy', token, query), 'DOCUMENT_TOO_DEEP');
  });

  it(`accepts nesting up to ${MAX_DOCUMENT_NESTING} brackets and refuses one more`, async () => {
    const at = `{ viewer { id } }${' '.repeat(1)}`;
    expect((await graphql(server, 'academy', token, at)).status).toBe(200);
    const list = (depth: number) =>
      `query { viewer { id } } query Q($a: Int = ${'['.repeat(depth)}1${']'.repeat(depth)}) { viewer { id } }`;
    // Refused for another reason (validation) at the edge, but not for nesting.
    const edge = await graphql(server, 'academy', token, list(MAX_DOCUMENT_NESTING - 1));
    expect(JSON.stringify(edge.json)).not.toContain('DOCUMENT_TOO_DEEP');
    expectGraphqlError(await graphql(server, 'academy', token, list(MAX_DOCUMENT_NESTING + 1)), 'DOCUMENT_TOO_DEEP');
  });

  it('refuses list values nested 20,000 deep in an argument, and brackets inside strings and comments do not count', async () => {
    const deep = `{ viewer { id } course(id: ${'['.repeat(20_000)}${']'.repeat(20_000)}) { id } }`;
    expectGraphqlError(await graphql(server, 'academy', token, deep), 'DOCUMENT_TOO_DEEP');
    const harmless = `{ viewer { id } } # ${'{'.repeat(200)}\n`;
    expect((await graphql(server, 'academy', token, harmless)).status).toBe(200);
    const inString = `query($s: String = "${'{'.repeat(200)}") { viewer { id } }`;
    expect(JSON.stringify((await graphql(server, 'academy', token, inString)).json)).not.toContain('DOCUMENT_TOO_DEEP');
  });

  it(`refuses a document of more than ${MAX_DOCUMENT_TOKENS} tokens with 400 DOCUMENT_TOO_LARGE`, async () => {
    const many = `{ viewer { ${'id '.repeat(MAX_DOCUMENT_TOKENS)} } }`;
    expectGraphqlError(await graphql(server, 'academy', token, many), 'DOCUMENT_TOO_LARGE');
  });

  it('refuses variables nested 20,000 deep without a 500', async () => {
    // Written by hand: JSON.stringify itself recurses.
    const body = `{"query": "query Q($a: [Int]) { viewer { id } }", "variables": {"a": ${'['.repeat(20_000)}${']'.repeat(20_000)}}}`;
    const answer = await send(`${server.academy}/member/graphql`, body, { token });
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
  });

  it('answers a JSON-RPC body nested 20,000 deep at /mcp with a 4xx JSON-RPC error, never a 500', async () => {
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_courses","arguments":{"q":${'['.repeat(20_000)}${']'.repeat(20_000)}}}}`;
    const answer = await mcpPost(server.academy, body);
    expect(answer.status).toBeLessThan(500);
    const deepId = `{"jsonrpc":"2.0","id":${'['.repeat(20_000)}${']'.repeat(20_000)},"method":"ping"}`;
    expect((await mcpPost(server.academy, deepId)).status).toBeLessThan(500);
  });

  it('answers a deeply nested JSON body at the GraphQL path without a 500', async () => {
    const answer = await send(
      `${server.academy}/member/graphql`,
      `{"query": "{ viewer { id } }", "extensions": ${'{"a":'.repeat(8_000)}1${'}'.repeat(8_000)}}`,
      {
        token,
      },
    );
    expect(answer.status).toBeLessThan(500);
  });
});
