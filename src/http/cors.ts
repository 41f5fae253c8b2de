// CORS (issue 8): browser-based clients (an MCP client in a web page, a single-page app) call the
// discovery documents, JWKS, the token, revocation, introspection, UserInfo and registration endpoints,
// /mcp, the member GraphQL API and the operator API from other origins, with bearer tokens or client
// credentials in the request, never cookies: so any origin, no credentials. The pages a person drives
// (sign-in, consent, account, admin) never answer CORS, preflight included: they act on the session cookie.
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { PATHS } from '../oauth/discovery.js';
import { ADMIN_API_BASE } from './routes/admin-api.js';

const EXACT = new Set<string>([
  PATHS.token,
  PATHS.revocation,
  PATHS.introspection,
  PATHS.userinfo,
  PATHS.registration,
  PATHS.mcp,
  PATHS.authMd,
  PATHS.openapi,
  '/member/graphql',
  '/account/graphql',
]);
const PREFIXES = ['/.well-known/', `${ADMIN_API_BASE}/`];

/** True for the paths browser-based clients call cross-origin. */
export function corsAllowed(path: string): boolean {
  return EXACT.has(path) || PREFIXES.some((prefix) => path.startsWith(prefix));
}

// The answers are the same for every request, so they are built once. @fastify/cors served this before; its
// per-request option handling (a delegator choosing open or closed by path) cost about 20 µs of a UserInfo
// call's 88, measured with inject, for headers that never change: the few lines below replace it.
const METHODS = 'GET, POST, PUT, PATCH, DELETE';
const ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Accept',
  'Mcp-Session-Id',
  'Mcp-Protocol-Version',
  'Last-Event-ID',
  'Idempotency-Key',
  'If-Match',
  'X-Request-Id',
].join(', ');
const EXPOSED_HEADERS = [
  'WWW-Authenticate',
  'Mcp-Session-Id',
  'Mcp-Protocol-Version',
  'Retry-After',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'ETag',
  'Location',
  'X-Request-Id',
].join(', ');
/** Preflights are cached by the browser for ten minutes. */
const MAX_AGE_SECONDS = '600';

function pathOf(request: FastifyRequest): string {
  const q = request.url.indexOf('?');
  return q < 0 ? request.url : request.url.slice(0, q);
}

/**
 * Any origin, no credentials, on the paths browser-based clients call; a preflight there is answered at
 * once with 204. Everything else (the pages) gets no CORS header, and its preflight the 404 of the
 * catch-all OPTIONS route.
 */
function corsHook(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (!corsAllowed(pathOf(request))) {
    done();
    return;
  }
  reply.header('access-control-allow-origin', '*');
  if (request.method === 'OPTIONS') {
    reply
      .code(204)
      .header('access-control-allow-methods', METHODS)
      .header('access-control-allow-headers', ALLOWED_HEADERS)
      .header('access-control-max-age', MAX_AGE_SECONDS)
      .send();
    return;
  }
  reply.header('access-control-expose-headers', EXPOSED_HEADERS);
  done();
}

export async function registerCors(app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', corsHook);
  // OPTIONS reaches the hook on every path only if some route takes it; paths without CORS answer 404.
  app.options('*', { schema: { hide: true } }, (_request, reply) => {
    reply.callNotFound();
  });
}
