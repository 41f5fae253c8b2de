// The JSON of `/mcp` answers. A tool's structured output travels twice in its answer (MCP 2025-06-18
// "Structured content": as `structuredContent` and, as a tool SHOULD, as the same JSON in a text block), and
// serializing the answer wrote it out twice more: once inside the escaped text and once as the object,
// though the tool had already written that object's JSON for the text. For the answers of a tool call whose
// structured content is still, field for field, the output the tool serialized, that JSON is reused.
//
// The SDK hands back a copy of the tool's result, parsed by its schema: the copy holds the output's fields as
// the same values, in the same order, so serializing it again gives the same text. Anything else (another
// shape, a changed or added field) is serialized as it is. Either way the bytes are what JSON.stringify of
// the answer gives.
import type { JsonRpcAnswer } from './request-transport.js';

/** A tool's structured output and the JSON text the tool made of it. */
export interface SerializedOutput {
  output: Record<string, unknown>;
  text: string;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function hasKeys(value: object, keys: readonly string[]): boolean {
  const own = Object.keys(value);
  return own.length === keys.length && own.every((key, i) => key === keys[i]);
}

/** Whether `copy` serializes as `original` does: plain objects with the same keys in order, each the same value. */
function sameFields(copy: unknown, original: Record<string, unknown>): boolean {
  if (!isPlainObject(copy) || !isPlainObject(original)) return false;
  const keys = Object.keys(original);
  return hasKeys(copy, keys) && keys.every((key) => copy[key] === original[key]);
}

const RESULT_KEYS = ['result', 'jsonrpc', 'id'];
const TOOL_RESULT_KEYS = ['content', 'structuredContent'];
const TEXT_KEYS = ['type', 'text'];

/** The answer's JSON with a known output's text spliced in, or undefined when the answer is not such a tool result. */
function spliced(answer: JsonRpcAnswer, outputs: readonly SerializedOutput[]): string | undefined {
  if (outputs.length === 0 || !hasKeys(answer, RESULT_KEYS) || !('result' in answer)) return undefined;
  const result: Record<string, unknown> = answer.result;
  if (!isPlainObject(result) || !hasKeys(result, TOOL_RESULT_KEYS)) return undefined;
  const content = result.content;
  if (!Array.isArray(content) || content.length !== 1) return undefined;
  const block: unknown = content[0];
  if (!isPlainObject(block) || !hasKeys(block, TEXT_KEYS) || block.type !== 'text') return undefined;
  const known = outputs.find((entry) => entry.text === block.text);
  if (known === undefined || !sameFields(result.structuredContent, known.output)) return undefined;
  return (
    `{"result":{"content":[{"type":"text","text":${JSON.stringify(known.text)}}],"structuredContent":${known.text}},` +
    `"jsonrpc":${JSON.stringify(answer.jsonrpc)},"id":${JSON.stringify(answer.id)}}`
  );
}

function answerJson(answer: JsonRpcAnswer, outputs: readonly SerializedOutput[]): string {
  return spliced(answer, outputs) ?? JSON.stringify(answer);
}

/** The body of a POST's answers: one answer, or the batch's array (JSON-RPC 2.0 section 6). */
export function answersJson(answers: JsonRpcAnswer | readonly JsonRpcAnswer[], outputs: readonly SerializedOutput[]): string {
  if (!Array.isArray(answers)) return answerJson(answers as JsonRpcAnswer, outputs);
  return `[${answers.map((answer) => answerJson(answer, outputs)).join(',')}]`;
}
