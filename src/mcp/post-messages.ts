// What a stateless Streamable HTTP POST must be before its messages reach the server (MCP 2025-06-18 /
// 2025-11-25 "Streamable HTTP" and "Lifecycle"), with the refusals worded and coded as the SDK's own
// transport words them, so clients see the same answers they would from any SDK server. Each message is
// validated by the SDK's JSON-RPC schema.
import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  isInitializeRequest,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type JSONRPCRequest,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { jsonRpcError, PARSE_ERROR, SERVER_ERROR } from './json-rpc.js';

const INVALID_REQUEST = -32600;

export interface PostHeaders {
  accept?: string | undefined;
  'content-type'?: string | undefined;
  'mcp-protocol-version'?: string | string[] | undefined;
}

export type PostVerdict =
  | { kind: 'refused'; status: number; body: ReturnType<typeof jsonRpcError> }
  /** Only notifications or responses: 202 Accepted with no body (the stateless server has nothing to do with them). */
  | { kind: 'accepted' }
  /** The requests to answer, in order; a batch (2025-03-26) is answered with an array. */
  | { kind: 'requests'; requests: JSONRPCRequest[]; batch: boolean };

function refused(status: number, code: number, message: string): PostVerdict {
  return { kind: 'refused', status, body: jsonRpcError(code, message) };
}

function parseMessages(body: unknown): JSONRPCMessage[] | undefined {
  const raw = Array.isArray(body) ? body : [body];
  const messages: JSONRPCMessage[] = [];
  for (const message of raw) {
    const parsed = JSONRPCMessageSchema.safeParse(message);
    if (!parsed.success) return undefined;
    messages.push(parsed.data);
  }
  return messages;
}

/** Checks one POST's headers and body (already parsed as JSON) and says what to do with it. */
export function readPost(headers: PostHeaders, body: unknown): PostVerdict {
  const accept = headers.accept;
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
    return refused(406, SERVER_ERROR, 'Not Acceptable: Client must accept both application/json and text/event-stream');
  }
  if (!isJsonContentType(headers['content-type'])) {
    return refused(415, SERVER_ERROR, 'Unsupported Media Type: Content-Type must be application/json');
  }
  if (Array.isArray(body) && body.length > MAX_BATCH_SIZE) {
    return refused(400, INVALID_REQUEST, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
  }
  const messages = parseMessages(body);
  if (messages === undefined) return refused(400, PARSE_ERROR, 'Parse error: Invalid JSON-RPC message');
  // Only a message whose method is `initialize` can pass the SDK's InitializeRequestSchema; asking the
  // guard of every other message built and dropped a ZodError each time (2% of a tool call's CPU).
  if (messages.some((message) => 'method' in message && message.method === 'initialize' && isInitializeRequest(message))) {
    if (messages.length > 1) return refused(400, INVALID_REQUEST, 'Invalid Request: Only one initialization request is allowed');
  } else {
    const version = headers['mcp-protocol-version'];
    if (version !== undefined && (typeof version !== 'string' || !SUPPORTED_PROTOCOL_VERSIONS.includes(version))) {
      return refused(
        400,
        SERVER_ERROR,
        `Bad Request: Unsupported protocol version: ${String(version)} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
      );
    }
  }
  // Each message passed JSONRPCMessageSchema, whose notifications have no id and whose responses no method.
  const requests = messages.filter((message): message is JSONRPCRequest => 'method' in message && 'id' in message);
  if (requests.length === 0) return { kind: 'accepted' };
  return { kind: 'requests', requests, batch: Array.isArray(body) };
}
