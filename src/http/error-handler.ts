// The one error handler. OAuth errors are rendered by oauth-errors.ts; framework errors (bad body,
// wrong content type, too large, rate limited) become the standard error of the route's kind; anything
// unexpected is logged and answered with a generic server_error, never a stack trace.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { OAuthError } from '../oauth/errors.js';
import { sendOAuthError, sendOAuthJsonError } from './oauth-errors.js';
import { messagePage } from './pages/message-page.js';
import { frameworkProblem, sendProblem } from './problem.js';
import { sendPage } from './security-headers.js';
import { RateLimitExceeded, rateLimitHeaders } from '../throttle/throttle.js';
import { isStoreUnavailable, STORE_RETRY_AFTER_SECONDS } from '../storage/store-faults.js';

export type RouteKind = 'oauth' | 'page' | 'resource' | 'json' | 'problem';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How errors of this route are rendered. */
    kind?: RouteKind;
  }
}

function routeKind(request: FastifyRequest): RouteKind {
  return request.routeOptions?.config?.kind ?? 'json';
}

function clientErrorDescription(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'the request body is too large';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'unsupported Content-Type; OAuth endpoints take application/x-www-form-urlencoded';
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'the body is not valid JSON';
    default:
      return error.validation ? 'the request parameters are malformed' : error.message;
  }
}

/** A store that cannot answer right now: 503 with Retry-After in the route's own error shape, no challenge. */
function sendStoreUnavailable(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  request.log.warn('the store did not answer; answered 503');
  reply.header('retry-after', String(STORE_RETRY_AFTER_SECONDS));
  const kind = routeKind(request);
  if (kind === 'problem')
    return sendProblem(reply, { code: 'unavailable', status: 503, detail: 'The service cannot reach its database. Retry in a moment.' });
  if (kind === 'page' && request.site)
    return sendPage(reply, 503, messagePage(request.site.name, 'Temporarily unavailable', 'Please try again in a moment.'));
  return reply.code(503).header('cache-control', 'no-store').type('application/json').send({
    error: 'temporarily_unavailable',
    error_description: 'the service cannot reach its database; retry after the time in Retry-After',
  });
}

export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (isStoreUnavailable(error)) return sendStoreUnavailable(request, reply);
  if (error instanceof RateLimitExceeded) {
    reply.headers(rateLimitHeaders(error.tally)).header('retry-after', String(error.tally.resetSeconds));
  }
  if (routeKind(request) === 'problem') return sendProblem(reply, frameworkProblem(error, request));
  if (error instanceof OAuthError) {
    if (error.status >= 500) request.log.error({ err: error }, 'oauth server error');
    return sendOAuthError(request, reply, error);
  }
  const status = error.statusCode ?? 500;
  const kind = routeKind(request);
  if (status === 429) {
    const description = 'too many requests; retry after the time in Retry-After';
    if (kind === 'page' && request.site) return sendPage(reply, 429, messagePage(request.site.name, 'Too many attempts', description));
    return reply.code(429).header('cache-control', 'no-store').send({ error: 'temporarily_unavailable', error_description: description });
  }
  if (status >= 400 && status < 500) {
    const description = clientErrorDescription(error);
    if (kind === 'page' && request.site)
      return sendPage(reply, status, messagePage(request.site.name, 'This request cannot be used', description));
    if (kind === 'oauth' || kind === 'resource') return sendOAuthJsonError(reply, new OAuthError('invalid_request', description, status));
    return reply.code(status).send({ error: 'invalid_request', error_description: description });
  }
  request.log.error({ err: error }, 'unexpected error');
  // The request id lets an operator find this request's log lines; nothing else of the fault is told.
  if (kind === 'page' && request.site)
    return sendPage(
      reply,
      500,
      messagePage(request.site.name, 'Something went wrong', `Please try again in a moment. (Reference: ${request.id})`),
    );
  return reply
    .code(500)
    .header('cache-control', 'no-store')
    .send({ error: 'server_error', error_description: `the server could not complete the request (request id ${request.id})` });
}
