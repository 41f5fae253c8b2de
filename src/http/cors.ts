// CORS (issue 8): browser-based clients (an MCP client in a web page, a single-page app) call the
// discovery documents, JWKS, the token, revocation, introspection, UserInfo and registration endpoints,
// /mcp, the member GraphQL API and the operator API from other origins, with bearer tokens or client
// credentials in the request, never cookies: so any origin, no credentials. The pages a person drives
// (sign-in, consent, account, admin) never answer CORS, preflight included: they act on the session cookie.
import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
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

const OPEN: FastifyCorsOptions = {
  origin: '*',
  credentials: false,
  methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
  allowedHeaders: [
    'Authorization',
    'Content-Type',
    'Accept',
    'Mcp-Session-Id',
    'Mcp-Protocol-Version',
    'Last-Event-ID',
    'Idempotency-Key',
    'If-Match',
    'X-Request-Id',
  ],
  exposedHeaders: [
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
  ],
  // Preflights are cached by the browser for ten minutes.
  maxAge: 600,
};
const CLOSED: FastifyCorsOptions = { origin: false };

function pathOf(request: FastifyRequest): string {
  const q = request.url.indexOf('?');
  return q < 0 ? request.url : request.url.slice(0, q);
}

export async function registerCors(app: FastifyInstance): Promise<void> {
  await app.register(cors, {
    hideOptionsRoute: true,
    delegator: (request, callback) => callback(null, corsAllowed(pathOf(request)) ? OPEN : CLOSED),
  });
}
