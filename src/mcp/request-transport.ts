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
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type JSONRPCMessage,
  type JSONRPCRequest,
  type JSONRPCResultResponse,
  RELATED_TASK_META_KEY,
  type RequestId,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
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

type HandlerExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;
/** A handler as the SDK keeps it: the method's params already parsed by its schema inside (`Protocol.setRequestHandler`). */
type StoredHandler = (request: JSONRPCRequest, extra: HandlerExtra) => Promise<unknown>;

/** What of an SDK server (`Protocol`, SDK 1.x) its request handling is made of; its own fields are private. */
interface ProtocolInternals {
  _onrequest?: unknown;
  _requestHandlers?: unknown;
  _onerror?: unknown;
  notification(notification: ServerNotification, options?: { relatedRequestId?: RequestId }): Promise<void>;
  request: HandlerExtra['sendRequest'];
}

/**
 * The signal every request's handler is given: one for all, never aborted. A stateless server is never told to
 * cancel: a client's `notifications/cancelled` would come in a POST of its own, and this transport hands on
 * requests only (post-messages.ts), so no signal here could ever abort. The SDK's entry (`Protocol._onrequest`)
 * makes an AbortController per request, and on Node 20 that is costly out of all proportion: each signal gets
 * a hidden class of its own (`createAbortSignal` swaps the prototype of an EventTarget, then adds fields;
 * nodejs/node#52408 changed that in Node 22), and the signals outlive the young generation. In a loop that
 * keeps 50 alive, objects holding one made every scavenge pause 4 ms and promote 3.5 MB, against 0.1 ms and
 * nothing without; under MCP anonymous load, one shared controller in the SDK's entry served 17.9k req/s at
 * 56 µs a request against 12.5k at 89 (bench/RESULTS.md, thirty-fifth session). No handler of ours reads the signal; one
 * that listened to it would wait for nothing, as it would on any signal of a stateless request.
 */
const NEVER_ABORTED = new AbortController().signal;

/** The error answer the SDK writes for a handler that threw (`Protocol._onrequest`, SDK 1.x). */
function errorAnswer(id: RequestId, error: unknown): JsonRpcAnswer {
  const { code, message, data } = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>;
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: typeof code === 'number' && Number.isSafeInteger(code) ? code : INTERNAL_ERROR,
      message: typeof message === 'string' ? message : 'Internal error',
      ...(data !== undefined && { data }),
    },
  };
}

/** Where a handler's `extra` carries the call it belongs to, on the direct entry (RequestTransport.contextOf). */
const CALL = Symbol('the call of this request');

/** The two ways into an SDK server's request handling, past its `onmessage` dispatch. */
export interface RequestEntries {
  /**
   * Calls the handler the SDK stored for the request's method, with `carried` on its `extra`, and hands its
   * answer to `answered`; false (and nothing done) when the request must take `throughSdk` instead.
   */
  direct(request: JSONRPCRequest, carried: object, answered: (answer: JsonRpcAnswer) => void): boolean;
  /** `Protocol._onrequest`, which answers through the transport's `send`. */
  throughSdk(request: JSONRPCRequest): void;
}

/**
 * The request handling of an SDK server, bound to it; undefined if a later SDK lacks what it is made of, and
 * then requests go through `onmessage`.
 *
 * Past the SDK's dispatch: its `onmessage` (set by `Protocol.connect`) first tells a message's kind with the
 * SDK's guards, which parse it with zod as a result response, then as an error response (each failing, and
 * building a ZodError, for a request), then as a request. They decide nothing here: every message this transport
 * hands on is a request that the SDK's own JSONRPCMessageSchema has already parsed (post-messages.ts). Skipping
 * them took 10% (anonymous) to 14% (member) off a tool call (bench/RESULTS.md, thirty-first session).
 *
 * Past `_onrequest` too, for a method the server handles: the handler the SDK stored for it is called with
 * what `_onrequest` would give it for a request of this transport (no session, no task store, no auth info),
 * but the one signal above instead of a new AbortController, and its result or error is answered as
 * `_onrequest` answers it. The handlers stay the SDK's, with their schemas (params, tool input and output,
 * result). Unknown methods, and requests that ask for a task or name a related one, still go through
 * `_onrequest`, which answers them as it always has.
 */
export function requestEntryOf(protocol: object): RequestEntries | undefined {
  const sdk = protocol as ProtocolInternals;
  const { _onrequest: onrequest, _requestHandlers: handlers, _onerror: onerror } = sdk;
  if (typeof onrequest !== 'function' || !(handlers instanceof Map) || typeof onerror !== 'function') return undefined;
  const failedToAnswer = (error: unknown) => onerror.call(protocol, new Error(`Failed to send response: ${error}`));
  return {
    throughSdk: (request) => onrequest.call(protocol, request, undefined),
    direct(request, carried, answered) {
      const handler: unknown = handlers.get(request.method);
      const params = request.params;
      if (typeof handler !== 'function' || params?.task !== undefined || params?._meta?.[RELATED_TASK_META_KEY] !== undefined) return false;
      const id = request.id;
      const extra: HandlerExtra & { [CALL]: object } = {
        signal: NEVER_ABORTED,
        _meta: params?._meta,
        requestId: id,
        sendNotification: (notification) => sdk.notification(notification, { relatedRequestId: id }),
        sendRequest: (message, resultSchema, options) => sdk.request(message, resultSchema, { ...options, relatedRequestId: id }),
        [CALL]: carried,
      };
      // As in `_onrequest`: a handler that throws at once is answered like one whose promise rejects.
      Promise.resolve()
        .then(() => (handler as StoredHandler)(request, extra))
        .then(
          (result) => answered({ result: result as JSONRPCResultResponse['result'], jsonrpc: '2.0', id }),
          (error: unknown) => answered(errorAnswer(id, error)),
        )
        .catch(failedToAnswer);
      return true;
    },
  };
}

/** One request on its way through the server. */
interface Call<C> {
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
  /**
   * The calls that went through the SDK's own entry, by the id they have there. Calls on the direct entry are
   * not kept here: each answer finds its call by closure, and a handler finds it on its `extra`. A map of every
   * call reallocates its table as it grows and shrinks with each turn's load, and those tables were the largest
   * allocations that outlived the young generation in MCP tool calls (4.9 of 18.6 MB sampled in 10 s;
   * bench/RESULTS.md, thirty-fifth session).
   */
  private readonly inFlight = new Map<number, Call<C>>();
  private lastId = 0;
  private readonly entries: RequestEntries | undefined;

  /** `protocol`: the SDK server this transport connects, whose request handling it may enter directly (requestEntryOf). */
  constructor(protocol?: object) {
    this.entries = protocol === undefined ? undefined : requestEntryOf(protocol);
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
    answerCall(call, message);
  }

  /** Hands one request to the server; resolves with the JSON of its answer under the client's id. */
  request(message: JSONRPCRequest, context: C): Promise<string> {
    // The server sets onmessage when it connects; before that, its request handling is not ready either.
    const onmessage = this.onmessage;
    if (onmessage === undefined) return Promise.reject(new Error('the MCP server is not connected'));
    this.lastId = this.lastId >= Number.MAX_SAFE_INTEGER ? 1 : this.lastId + 1;
    const id = this.lastId;
    const entered: JSONRPCRequest = { ...message, id };
    return new Promise((answer) => {
      const call: Call<C> = { request: message, clientId: message.id, context, answer };
      if (this.entries?.direct(entered, call, (reply) => answerCall(call, reply))) return;
      this.inFlight.set(id, call);
      if (this.entries) this.entries.throughSdk(entered);
      else onmessage(entered);
    });
  }

  /** The call a handler's `extra` belongs to: carried on it (direct entry), or found by its id (the SDK's entry). */
  private callOf(extra: Pick<HandlerExtra, 'requestId'>): Call<C> | undefined {
    const carried = (extra as { [CALL]?: Call<C> })[CALL];
    if (carried !== undefined) return carried;
    return typeof extra.requestId === 'number' ? this.inFlight.get(extra.requestId) : undefined;
  }

  /**
   * Keeps the JSON a tool wrote of its structured content, to write the answer with (answer-json.ts). Only the
   * tool handler of that request calls it, with `JSON.stringify` of the very object it returns.
   */
  keepStructuredJson(extra: Pick<HandlerExtra, 'requestId'>, json: string): void {
    const call = this.callOf(extra);
    if (call !== undefined) call.structuredJson = json;
  }

  /** What the HTTP request behind a handler's `extra` carries (a tool handler's caller, site and log). */
  contextOf(extra: Pick<HandlerExtra, 'requestId'>): C | undefined {
    return this.callOf(extra)?.context;
  }
}

/** Writes a call's answer under the client's id; an internal error for params that do not fit their method is -32602. */
function answerCall<C>(call: Call<C>, message: JsonRpcAnswer): void {
  const invalid = 'error' in message && message.error.code === INTERNAL_ERROR ? invalidParams(call.request) : undefined;
  if (invalid !== undefined) {
    call.answer(answerJson({ jsonrpc: '2.0', id: call.clientId, error: { code: INVALID_PARAMS, message: invalid } }, undefined));
  } else {
    call.answer(answerJson({ ...message, id: call.clientId }, call.structuredJson));
  }
}
