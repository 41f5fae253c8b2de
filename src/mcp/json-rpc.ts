// Reading a POST body before the MCP SDK does (MCP 2025-06-18 / 2025-11-25 "Streamable HTTP": a body is
// one JSON-RPC message, or a batch under 2025-03-26), so that scope checks can answer at the HTTP level,
// and the JSON-RPC error bodies the HTTP layer writes itself (JSON-RPC 2.0 section 5.1 codes).
export type JsonRpcId = string | number | null;

export const PARSE_ERROR = -32700;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
/** Implementation-defined server error (JSON-RPC 2.0 5.1), as the SDK uses it for transport refusals. */
export const SERVER_ERROR = -32000;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The names of the tools a body asks to call (`tools/call` requests); malformed messages are the SDK's to refuse. */
export function toolCallsIn(body: unknown): string[] {
  const messages = Array.isArray(body) ? body : [body];
  const names: string[] = [];
  for (const message of messages) {
    if (!isRecord(message) || message.method !== 'tools/call' || !isRecord(message.params)) continue;
    const name = message.params.name;
    if (typeof name === 'string') names.push(name);
  }
  return names;
}

/** The id of a single request, to answer it with an error; null for a batch, a notification or garbage. */
export function requestIdOf(body: unknown): JsonRpcId {
  if (!isRecord(body)) return null;
  const id = body.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

export function jsonRpcError(code: number, message: string, id: JsonRpcId = null) {
  return { jsonrpc: '2.0' as const, error: { code, message }, id };
}
