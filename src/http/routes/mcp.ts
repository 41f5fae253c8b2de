// `/mcp` (SPEC 1, 4.4, 5.3, 5.4, 7; MCP 2025-06-18 / 2025-11-25 "Streamable HTTP" and "Authorization"):
// a stateless Streamable HTTP endpoint: nothing of a conversation outlives its POST, so any node can answer
// any request. The servers themselves are kept (mcp/server-pool.ts), one per site and caller kind. What
// the SDK cannot know is settled here first: the Origin (DNS rebinding), the bearer verdict, and whether a
// `tools/call` needs a token or scopes the caller lacks.
import { STORE_RETRY_AFTER_SECONDS } from '../../storage/store-faults.js';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { INTERNAL_ERROR, jsonRpcError, PARSE_ERROR, requestIdOf, SERVER_ERROR, toolCallsIn } from '../../mcp/json-rpc.js';
import type { ToolCallContext } from '../../mcp/mcp-server.js';
import { readPost } from '../../mcp/post-messages.js';
import { McpServerPool } from '../../mcp/server-pool.js';
import { PATHS } from '../../oauth/discovery.js';
import type { BearerToken } from '../../oauth/bearer.js';
import type { OperationContext } from '../../operations/operation.js';
import { ANONYMOUS, accessFor, availableOn, type Caller, findTool } from '../../operations/registry.js';
import type { Services } from '../../services.js';
import { type Site, variantCapabilities } from '../../sites/site.js';
import { answerBody } from '../answer-bytes.js';
import { browserOriginAllowed } from '../browser-origins.js';
import { sendInsufficientScope, sendInvalidToken, sendLostStanding, wwwAuthenticate } from '../bearer-guard.js';
import { handleError } from '../error-handler.js';

/** How long a client should wait before retrying when the token store gave no verdict. */
const RETRY_AFTER_SECONDS = String(STORE_RETRY_AFTER_SECONDS);

function sendJsonRpc(reply: FastifyReply, status: number, body: ReturnType<typeof jsonRpcError>): FastifyReply {
  return reply.code(status).header('cache-control', 'no-store').type('application/json').send(body);
}

/** MCP "Streamable HTTP", security warning: a present Origin that is not allowed is 403 (browser-origins.ts). */
function originCheck(allowed: readonly string[] | undefined) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const origin = request.headers.origin;
    if (origin === undefined || browserOriginAllowed(origin, request.site, allowed)) return undefined;
    // Returning the reply ends the request here (Fastify: an async hook that answered must return it).
    return sendJsonRpc(reply, 403, jsonRpcError(SERVER_ERROR, `Forbidden: requests from the origin ${origin} are not accepted here.`));
  };
}

/** Body errors as JSON-RPC answers, as the SDK itself would give them, instead of OAuth-style JSON. */
function bodyErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return sendJsonRpc(reply, 415, jsonRpcError(SERVER_ERROR, 'Unsupported Media Type: Content-Type must be application/json'));
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return sendJsonRpc(reply, 400, jsonRpcError(PARSE_ERROR, 'Parse error: the body is not valid JSON'));
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return sendJsonRpc(reply, 413, jsonRpcError(SERVER_ERROR, 'Payload Too Large: the body exceeds the size limit'));
    default:
      return handleError(error, request, reply);
  }
}

/**
 * The bearer check could not reach a verdict (store down or slower than 2 s). It is our fault, not the
 * token's, so neither answer carries WWW-Authenticate or a 401: a client must retry, not re-authorize.
 * Variant A answers 503 temporarily_unavailable (SPEC 7); variant B has no 503 (SPEC 1), so it answers 500
 * with a JSON-RPC internal error.
 */
function sendUnavailable(reply: FastifyReply, site: Site, body: unknown): FastifyReply {
  if (variantCapabilities(site.variant).mcpUnavailable503) {
    return reply.code(503).header('retry-after', RETRY_AFTER_SECONDS).header('cache-control', 'no-store').type('application/json').send({
      error: 'temporarily_unavailable',
      error_description:
        'the service cannot check access tokens right now; retry after the time in Retry-After. Your token may well be valid: do not re-authorize.',
    });
  }
  return sendJsonRpc(
    reply,
    500,
    jsonRpcError(
      INTERNAL_ERROR,
      'Internal error: the service cannot check access tokens right now; retry shortly. Your token may well be valid: do not re-authorize.',
      requestIdOf(body),
    ),
  );
}

/**
 * An anonymous `tools/call` of a tool that needs a token. 401 rather than 403: insufficient_scope
 * (RFC 6750 3.1) presumes a token, and MCP clients start authorization on a 401 (MCP "Authorization",
 * 2025-06-18 and later), reading `resource_metadata` and `scope` from WWW-Authenticate to ask for the
 * right scopes at once. `error="invalid_token"` follows SPEC 7, which uses it for a missing token too.
 */
function sendNeedsToken(reply: FastifyReply, site: Site, tool: string, scopes: readonly string[]): FastifyReply {
  const description = `the tool ${tool} needs an access token with the scope ${scopes.join(' ')}; authorize and send it as Authorization: Bearer <token>`;
  return reply
    .code(401)
    .header('www-authenticate', wwwAuthenticate(site, 'invalid_token', description, scopes))
    .header('cache-control', 'no-store')
    .type('application/json')
    .send({ error: 'invalid_token', error_description: description });
}

/** The scopes the tools called need, or undefined when none of them needs any. */
function scopesNeededBy(called: readonly string[], site: Site): string[] | undefined {
  const needed = new Set<string>();
  for (const name of called) {
    const operation = findTool(name);
    if (operation && availableOn(operation, site)) for (const scope of operation.scopes) needed.add(scope);
  }
  return needed.size > 0 ? [...needed] : undefined;
}

/** A member's access log names the tools an app called; any other message counts as the app being connected. */
function recordMcpUse(services: Services, token: BearerToken, called: readonly string[]): void {
  // Only tools that exist are named: a client's made-up names never reach the log.
  const tools = called.flatMap((name) => findTool(name) ?? []);
  if (tools.length === 0) {
    services.usage.record(token, MCP_CONNECTED, false);
    return;
  }
  services.usage.record(
    token,
    tools.map((tool) => `mcp:${tool.name}`),
    tools.some((tool) => !tool.annotations.readOnlyHint),
  );
}
const MCP_CONNECTED = ['mcp'] as const;

async function handlePost(
  services: Services,
  pool: McpServerPool,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply | string | Buffer | undefined> {
  const site = request.site;
  // Every request with a token is checked, `initialize` and `tools/list` included: a bad token is refused,
  // never served as anonymous (issue 4, section 2).
  const verdict = await services.bearer.check(site, request.headers.authorization);
  // The tools this body calls, read once for the scope hint, the access log and the scope check.
  const called = toolCallsIn(request.body);
  let caller: Caller = ANONYMOUS;
  let personId: string | null = null;
  let clientId: string | null = null;
  switch (verdict.kind) {
    case 'missing':
      break;
    case 'invalid_token':
      // The MCP SDK asks for the challenge's scope when it authorizes again, and otherwise for every scope
      // in the protected resource metadata, which mixes both audiences and would be invalid_scope. So hint
      // what the call needs (a tool's scopes) or what the expired or revoked token held.
      return sendInvalidToken(reply, site, verdict.description, scopesNeededBy(called, site) ?? verdict.scopes);
    case 'forbidden':
      return sendLostStanding(reply, site, verdict.description);
    case 'unavailable':
      return sendUnavailable(reply, site, request.body);
    case 'valid':
      recordMcpUse(services, verdict.token, called);
      caller = { authenticated: true, scopes: verdict.token.scopes };
      personId = verdict.token.personId;
      clientId = verdict.token.clientId;
      break;
  }

  // A call of a tool the caller may not use is refused at the HTTP level, so the client can authorize or
  // step up (MCP 2025-11-25 "Scope challenge handling"). Unknown tools, and tools this variant lacks, are
  // left to the SDK, which answers that no such tool exists.
  for (const name of called) {
    const operation = findTool(name);
    if (!operation || !availableOn(operation, site)) continue;
    const access = accessFor(operation, caller);
    if (access.kind === 'needs_token') return sendNeedsToken(reply, site, name, access.scopes);
    if (access.kind === 'insufficient_scope') {
      return sendInsufficientScope(
        reply,
        site,
        access.scopes,
        `the tool ${name} needs the scope ${access.missing.join(' ')}; authorize again asking for ${access.scopes.join(' ')}`,
      );
    }
  }

  // The framing rules come after the bearer check, as with the SDK's transport behind an auth middleware.
  const post = readPost(request.headers, request.body);
  if (post.kind === 'refused') return sendJsonRpc(reply, post.status, post.body);
  if (post.kind === 'accepted') return reply.code(202).header('cache-control', 'no-store').send();

  // Handlers see the token's site and person and nothing else (SPEC 5.2: one person's data at one site).
  const ctx: OperationContext = {
    db: services.db,
    site,
    clock: services.clock,
    personId,
    scopes: caller.scopes,
    clientId,
    requestId: request.id,
    flushPeople: () => services.signals.publish({ kind: 'flush' }),
    assets: services.assets,
    catalogue: services.catalogue,
    learning: services.learning,
  };
  const logFault = (err: unknown, tool: string) => request.log.error({ err, tool }, 'mcp tool fault');
  const call: ToolCallContext = { ctx, logFault };
  let answers: string[];
  try {
    const server = await pool.serverFor(site, caller);
    answers = await Promise.all(post.requests.map((message) => server.transport.request(message, call)));
  } catch (err) {
    // Tools turn their own faults into results; this is the server failing to answer at all.
    request.log.error({ err }, 'mcp request failed');
    return sendJsonRpc(reply, 500, jsonRpcError(INTERNAL_ERROR, 'Internal error: try again in a moment.', requestIdOf(request.body)));
  }
  // Answers are per caller and may hold a member's data: no cache may keep them. The payload is returned,
  // not the reply (http/turn-end-writes.ts says why).
  reply.code(200).header('cache-control', 'no-store').type('application/json');
  return answerBody(post.batch ? `[${answers.join(',')}]` : (answers[0] ?? ''));
}

export function registerMcpRoutes(app: FastifyInstance, services: Services): void {
  const schema = {
    summary: 'Model Context Protocol endpoint (Streamable HTTP, stateless, JSON responses)',
    description:
      'Public tools without a token; member or operator tools with a bearer token. Send each JSON-RPC message as a POST with ' +
      'Accept: application/json, text/event-stream.',
    tags: ['mcp'],
  };
  const checkOrigin = originCheck(services.config.platform.mcp.allowed_origins);
  const pool = new McpServerPool({ confirmations: services.confirmations });
  app.post(PATHS.mcp, { schema, onRequest: checkOrigin, errorHandler: bodyErrorHandler }, (request, reply) =>
    handlePost(services, pool, request, reply),
  );
  // A stateless server offers no SSE stream (GET) and no session to end (DELETE): MCP "Streamable HTTP"
  // lets it answer both with 405 Method Not Allowed.
  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
    sendJsonRpc(
      reply.header('allow', 'POST'),
      405,
      jsonRpcError(SERVER_ERROR, 'Method Not Allowed: this MCP endpoint is stateless; send every JSON-RPC message as a POST.'),
    );
  app.get(PATHS.mcp, { schema, onRequest: checkOrigin }, notAllowed);
  app.delete(PATHS.mcp, { schema, onRequest: checkOrigin }, notAllowed);
}
