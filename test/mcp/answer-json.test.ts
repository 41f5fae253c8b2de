// The JSON of `/mcp` answers (src/mcp/answer-json.ts): a tool result's structured content reuses the JSON
// text the tool made of its output, and the bytes are always exactly what JSON.stringify of the answer gives,
// whatever the SDK changed on its way; over HTTP, answers of real tool calls, alone and in a batch.
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answersJson, type SerializedOutput } from '../../src/mcp/answer-json.js';
import type { JsonRpcAnswer } from '../../src/mcp/request-transport.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { toolCall } from '../helpers/mcp.js';
import { person } from '../helpers/person.js';
import { DEMO_CLIENTS, getTokens } from '../helpers/token-flow.js';

const output = {
  total: 2,
  items: [
    { title: 'Quotes " and \\ backslashes', note: 'line\nbreak, tab\t, U+2028 \u2028, é, 😀, <script>' },
    { title: 'Second', at: '2026-11-28T00:00:00.000Z', n: -0.5, none: null },
  ],
  nextCursor: null,
};

/** A tool result as the SDK hands it back: a copy of the tool's result with the same field values. */
function answerFor(structuredContent: Record<string, unknown>, text: string, id: number | string = 7): JsonRpcAnswer {
  return { result: { content: [{ type: 'text', text }], structuredContent }, jsonrpc: '2.0', id };
}

describe('the JSON of an MCP answer', () => {
  const text = JSON.stringify(output);
  const known: SerializedOutput[] = [{ output, text }];

  it('a tool result whose structured content is the output the tool serialized: the bytes of JSON.stringify, the text reused', () => {
    for (const id of [7, 'abc-"1"', 0]) {
      const answer = answerFor({ ...output }, text, id);
      expect(answersJson(answer, known)).toBe(JSON.stringify(answer));
    }
    // Reused, not written again: a text the tool wrote another way (indented) shows up as it was written.
    const indented = JSON.stringify(output, null, 1);
    const spliced = answersJson(answerFor({ ...output }, indented), [{ output, text: indented }]);
    expect(spliced).toContain(`"structuredContent":${indented}}`);
    expect(JSON.parse(spliced)).toEqual(JSON.parse(JSON.stringify(answerFor(output, indented))));
  });

  it('structured content that is no longer the output is written as it is: a changed, added, removed or reordered field', () => {
    const changed = [
      { ...output, total: 3 },
      { ...output, extra: true },
      { items: output.items, nextCursor: null },
      { items: output.items, total: 2, nextCursor: null },
      { ...output, items: [...output.items] },
    ];
    for (const structuredContent of changed) {
      const answer = answerFor(structuredContent, text);
      expect(answersJson(answer, known)).toBe(JSON.stringify(answer));
    }
  });

  it('other answers are written as they are: another text, another shape, an error, a batch', () => {
    const answers: JsonRpcAnswer[] = [
      answerFor({ ...output }, `${text} `),
      { result: { content: [{ type: 'text', text }], structuredContent: { ...output }, isError: false }, jsonrpc: '2.0', id: 1 },
      {
        result: {
          content: [
            { type: 'text', text },
            { type: 'text', text: 'more' },
          ],
          structuredContent: { ...output },
        },
        jsonrpc: '2.0',
        id: 2,
      },
      { result: { tools: [] }, jsonrpc: '2.0', id: 3 },
      { jsonrpc: '2.0', id: 4, error: { code: -32602, message: 'Invalid params' } },
    ];
    for (const answer of answers) expect(answersJson(answer, known)).toBe(JSON.stringify(answer));
    const batch = [answerFor({ ...output }, text, 1), ...answers];
    expect(answersJson(batch, known)).toBe(JSON.stringify(batch));
    expect(answersJson([], known)).toBe('[]');
  });
});

describe('MCP answers over HTTP are JSON.stringify’s bytes (sqlite)', () => {
  let server: DemoServer;
  let token: string;
  beforeAll(async () => {
    server = await startDemoServer('sqlite');
    token = (await getTokens(server, DEMO_CLIENTS.academyApp, { scope: 'openid account:read', who: person('student') })).access_token;
  });
  afterAll(() => server?.close());

  async function post(body: unknown, bearer?: string): Promise<string> {
    const res = await fetch(`${server.academy}/mcp`, {
      method: 'POST',
      headers: {
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
        ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    return res.text();
  }

  /** The answer's tool results: each text block is the structured content's JSON. */
  function toolResults(body: string) {
    const parsed = JSON.parse(body) as unknown;
    const answers = (Array.isArray(parsed) ? parsed : [parsed]) as Array<{
      result?: { content?: Array<{ text: string }>; structuredContent?: unknown };
    }>;
    return answers.flatMap((answer) => (answer.result?.structuredContent === undefined ? [] : [answer.result]));
  }

  it('a public and a member tool call, alone and in a batch with other requests', async () => {
    const bodies = [
      await post(toolCall('search_courses', { query: 'design' })),
      await post(toolCall('list_my_enrollments', {}, 'm-1'), token),
      await post(
        [
          toolCall('get_school', {}, 1),
          { jsonrpc: '2.0', id: 2, method: 'tools/list' },
          toolCall('list_my_enrollments', { limit: 2 }, 3),
          toolCall('no_such_tool', {}, 4),
        ],
        token,
      ),
    ];
    let results = 0;
    for (const body of bodies) {
      expect(body).toBe(JSON.stringify(JSON.parse(body)));
      for (const result of toolResults(body)) {
        results++;
        expect(result.content).toHaveLength(1);
        expect(JSON.parse(result.content?.[0]?.text ?? '')).toEqual(result.structuredContent);
      }
    }
    expect(results).toBe(4);
  });
});
