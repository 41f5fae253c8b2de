// The `/mcp` route writes a tool's structured content from the JSON its text block already holds
// (src/mcp/answer-json.ts): the answer's JSON must be exactly the answer, whatever its shape.
import { describe, expect, it } from 'vitest';
import { answerJson, type JsonRpcAnswer } from '../../src/mcp/answer-json.js';

const structured = {
  total: 2,
  nextCursor: null,
  items: [
    { id: 'a', title: 'Say "hi"\n\u2028' },
    { id: 'b', title: '' },
  ],
};

function roundTrip(answer: JsonRpcAnswer): unknown {
  const json =
    'result' in answer && answer.result.structuredContent !== undefined ? JSON.stringify(answer.result.structuredContent) : undefined;
  return JSON.parse(answerJson(answer, json));
}

describe('the JSON of a JSON-RPC answer', () => {
  it('writes a tool result with structured content as the answer itself, with a number or a string id', () => {
    for (const id of [1, 'call-1', 0]) {
      const answer: JsonRpcAnswer = {
        jsonrpc: '2.0',
        id,
        result: { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured },
      };
      expect(roundTrip(answer)).toEqual(answer);
    }
  });

  it('writes structured content that is the result’s only member, or comes before the others', () => {
    const alone: JsonRpcAnswer = { jsonrpc: '2.0', id: 2, result: { structuredContent: structured } };
    expect(roundTrip(alone)).toEqual(alone);
    const first: JsonRpcAnswer = {
      jsonrpc: '2.0',
      id: 3,
      result: { structuredContent: structured, content: [], _meta: { at: 'x' } },
    };
    expect(roundTrip(first)).toEqual(first);
  });

  it('writes answers without structured content, and errors, as they are, whatever JSON was kept', () => {
    const plain: JsonRpcAnswer = { jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: 'no' }], isError: true } };
    const error: JsonRpcAnswer = { jsonrpc: '2.0', id: 5, error: { code: -32602, message: 'bad' } };
    for (const answer of [plain, error]) {
      expect(answerJson(answer, '{"kept":true}')).toBe(JSON.stringify(answer));
      expect(answerJson(answer, undefined)).toBe(JSON.stringify(answer));
    }
  });
});
