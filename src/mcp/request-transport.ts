// The transport between the `/mcp` route and a long-lived MCP server (MCP 2025-06-18 / 2025-11-25
// "Streamable HTTP", stateless, JSON responses). The SDK's own HTTP transport is built for one request (a
// stateless one cannot be reused) and converts every Node request into a Web Request; building it, and a
// server, per request cost more than most tools' own work. Here one server per site and caller keeps its
// tools, and each HTTP request hands its JSON-RPC requests to it through this transport, which answers them
// by id. The messages are still validated by the SDK's schemas, and the server is still the SDK's.
//
// Ids: many clients use the same server at once and each numbers its requests from 0 or 1, so a request
// enters the server under an id of ours and leaves under the client's again. The server only ever sees our
// ids, so one client can never answer, cancel or read another's call. An answer of -32603 to params that
// do not fit their method leaves as -32602 (invalid-params.ts).
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, JSONRPCRequest, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { answerJson, type JsonRpcAnswer } from './answer-json.js';
import { invalidParams } from './invalid-params.js';
import { INTERNAL_ERROR, INVALID_PARAMS } from './json-rpc.js';

/**
 * Whether a message the server sends is an answer (JSON-RPC 2.0 section 5: a response carries a result or
 * an error). The server is the SDK's, so its messages are well formed; the SDK's guards parse the whole
 * message with a schema (the result included), which cost 0.6% of a member tool call.
 */
function isAnswer(message: JSONRPCMessage): message is JsonRpcAnswer {
  return 'result' in message || 'error' in message;
}

/** The SDK's handling of one request, once its kind is known. */
type RequestEntry = (request: JSONRPCRequest) => void;

/**
 * The request handling of an SDK server (`Protocol._onrequest`, SDK 1.x), bound to it; undefined if a later SDK
 * lacks it, and then requests go through `onmessage`. That `onmessage` (set by `Protocol.connect`) first tells
 * a message's kind with the SDK's guards, which parse it with zod: as a result response, as an error response
 * (each failing, and building a ZodError, for a request), then as a request. Entering past those guards, a
 * tool call took 10% (anonymous) to 14% (member) less CPU in pinned runs (bench/RESULTS.md, thirty-first
 * session). They decide nothing here: every message this transport hands on is a request that the SDK's own
 * JSONRPCMessageSchema has already parsed (post-messages.ts).
 */
export function requestEntryOf(protocol: object): RequestEntry | undefined {
  const onrequest = (protocol as { _onrequest?: unknown })._onrequest;
  if (typeof onrequest !== 'function') return undefined;
  return (request) => onrequest.call(protocol, request, undefined);
}

interface InFlight<C> {
  /** The request as the client sent it. */
  request: JSONRPCRequest;
  clientId: RequestId;
  context: C;
  /** The JSON of the tool's structured content, as its text block already holds it (answer-json.ts). */
  structuredJson?: string;
  answer(json: string): void;
}

/**
 * Carries one HTTP request's JSON-RPC requests to a server and their answers back, as JSON text; C is what a
 * handler may need of the request.
 */
export class RequestTransport<C> implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly inFlight = new Map<number, InFlight<C>>();
  private lastId = 0;
  private readonly entry: RequestEntry | undefined;

  /** `protocol`: the SDK server this transport connects, whose request handling it may enter directly (requestEntryOf). */
  constructor(protocol?: object) {
    this.entry = protocol === undefined ? undefined : requestEntryOf(protocol);
  }

  async start(): Promise<void> {}

  async close(): Promise<void> {
    for (const [id, call] of this.inFlight) {
      const closed: JsonRpcAnswer = {
        jsonrpc: '2.0',
        id: call.clientId,
        error: { code: INTERNAL_ERROR, message: 'Internal error: the server closed.' },
      };
      call.answer(answerJson(closed, undefined));
      this.inFlight.delete(id);
    }
    this.onclose?.();
  }

  /** The server's messages: answers go to the request that waits for them; anything else has no stream to go to. */
  async send(message: JSONRPCMessage): Promise<void> {
    if (!isAnswer(message)) return;
    const id = message.id;
    if (typeof id !== 'number') return;
    const call = this.inFlight.get(id);
    if (call === undefined) return;
    this.inFlight.delete(id);
    if ('error' in message && message.error.code === INTERNAL_ERROR) {
      const invalid = invalidParams(call.request);
      if (invalid !== undefined)
        return call.answer(answerJson({ jsonrpc: '2.0', id: call.clientId, error: { code: INVALID_PARAMS, message: invalid } }, undefined));
    }
    call.answer(answerJson({ ...message, id: call.clientId }, call.structuredJson));
  }

  /** Hands one request to the server; resolves with the JSON of its answer under the client's id. */
  request(message: JSONRPCRequest, context: C): Promise<string> {
    // The server sets onmessage when it connects; before that, its request handling is not ready either.
    const onmessage = this.onmessage;
    if (onmessage === undefined) return Promise.reject(new Error('the MCP server is not connected'));
    const enter = this.entry ?? onmessage;
    this.lastId = this.lastId >= Number.MAX_SAFE_INTEGER ? 1 : this.lastId + 1;
    const id = this.lastId;
    return new Promise((answer) => {
      this.inFlight.set(id, { request: message, clientId: message.id, context, answer });
      enter({ ...message, id });
    });
  }

  /**
   * Keeps the JSON a tool wrote of its structured content, to write the answer with (answer-json.ts). Only the
   * tool handler of that request calls it, with `JSON.stringify` of the very object it returns.
   */
  keepStructuredJson(id: RequestId, json: string): void {
    const call = typeof id === 'number' ? this.inFlight.get(id) : undefined;
    if (call !== undefined) call.structuredJson = json;
  }

  /** What the HTTP request behind a server-side request id carries (a tool handler's caller, site and log). */
  contextOf(id: RequestId): C | undefined {
    return typeof id === 'number' ? this.inFlight.get(id)?.context : undefined;
  }
}
