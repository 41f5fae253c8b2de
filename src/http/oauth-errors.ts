// The one renderer of OAuth errors: RFC 6749 5.2 JSON at OAuth endpoints, a redirect with `error`,
// `state` and `iss` (RFC 9207) once the redirect URI is validated, or a 400 page when it is not.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthorizationPageError, type OAuthError, RedirectableAuthorizationError } from '../oauth/errors.js';
import { redirectWith } from '../oauth/authorize/issue-code.js';
import { messagePage } from './pages/message-page.js';
import { sendPage } from './security-headers.js';

/** RFC 6749 5.2: JSON body, `Cache-Control: no-store`. */
export function sendOAuthJsonError(reply: FastifyReply, error: OAuthError): FastifyReply {
  if (error.challenge) reply.header('www-authenticate', error.challenge);
  return reply
    .code(error.status)
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .type('application/json')
    .send({ error: error.code, error_description: error.description });
}

export function sendOAuthError(request: FastifyRequest, reply: FastifyReply, error: OAuthError): FastifyReply {
  if (error instanceof RedirectableAuthorizationError) {
    const location = redirectWith(error.redirectUri, {
      error: error.code,
      error_description: error.description,
      state: error.state,
      iss: request.site.origin,
    });
    return reply.code(303).header('cache-control', 'no-store').header('location', location).send();
  }
  if (error instanceof AuthorizationPageError) {
    return sendPage(reply, 400, messagePage(request.site.name, 'This sign-in link cannot be used', error.description, error.code));
  }
  return sendOAuthJsonError(reply, error);
}
