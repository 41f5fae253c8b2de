// The JSON text of one JSON-RPC answer, as the `/mcp` route sends it. A tool's structured content is
// serialized once: MCP 2025-06-18 "Structured content" has a tool with structured output return the same
// JSON as a text block too, so that JSON is written before the answer exists (mcp-server.ts's callTool), and
// here it is reused for the `structuredContent` member instead of serializing the object a second time. The
// object's two serializations were 12% of a member's tool call on one core (bench/RESULTS.md).
import type { JSONRPCErrorResponse, JSONRPCResultResponse } from '@modelcontextprotocol/sdk/types.js';

export type JsonRpcAnswer = JSONRPCResultResponse | JSONRPCErrorResponse;

/**
 * `structuredJson`, when given, must be `JSON.stringify` of the answer's `structuredContent` as the tool
 * built it. The SDK checks that object against the tool's output schema and copies it (its result schema
 * parses `structuredContent` as a record of unknown values), which keeps every key, in order, and every
 * value as it is, so the JSON stays the same.
 */
export function answerJson(answer: JsonRpcAnswer, structuredJson: string | undefined): string {
  if (structuredJson === undefined || !('result' in answer) || answer.result.structuredContent === undefined) return JSON.stringify(answer);
  const { structuredContent: _written, ...rest } = answer.result;
  const head = JSON.stringify(rest);
  const result = head === '{}' ? `{"structuredContent":${structuredJson}}` : `${head.slice(0, -1)},"structuredContent":${structuredJson}}`;
  return `{"jsonrpc":"2.0","id":${JSON.stringify(answer.id)},"result":${result}}`;
}
