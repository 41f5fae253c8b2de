// Renders bearer verdicts (RFC 6750 3, RFC 9728 5.1, CONTRACT 5): 401 invalid_token or 403
// insufficient_scope with `WWW-Authenticate` pointing at the protected resource metadata. SPEC 7 asks
// for error="invalid_token" even when no token was sent. `unavailable` is left to the caller.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type BearerChecker, type BearerToken, requireScopes } from '../oauth/bearer.js';
import { protectedResourceUrl } from '../oauth/discovery.js';
import type { Site } from '../sites/site.js';

function quote(value: string): string {
  return value.replace(/[\\"]/g, '');
}

export function wwwAuthenticate(
  site: Site,
  error: 'invalid_token' | 'insufficient_scope',
  description: string,
  scopes?: readonly string[],
): string {
  const parts = [`error="${error}"`, `error_description="${quote(description)}"`];
  if (scopes && scopes.length > 0) parts.push(`scope="${scopes.join(' ')}"`);
  parts.push(`resource_metadata="${protectedResourceUrl(site)}"`);
  return `Bearer ${parts.join(', ')}`;
}

/** `scopes`, when known, tell the client what to ask for when it authorizes again (RFC 6750 3). */
export function sendInvalidToken(reply: FastifyReply, site: Site, description: string, scopes?: readonly string[]): FastifyReply {
  return reply
    .code(401)
    .header('www-authenticate', wwwAuthenticate(site, 'invalid_token', description, scopes))
    .header('cache-control', 'no-store')
    .type('application/json')
    .send({ error: 'invalid_token', error_description: description });
}

export function sendInsufficientScope(reply: FastifyReply, site: Site, scopes: readonly string[], description: string): FastifyReply {
  return reply
    .code(403)
    .header('www-authenticate', wwwAuthenticate(site, 'insufficient_scope', description, scopes))
    .header('cache-control', 'no-store')
    .type('application/json')
    .send({ error: 'insufficient_scope', error_description: description, scope: scopes.join(' ') });
}

/**
 * A sound token whose person lost the role its client needs (CONTRACT 6: 403). RFC 6750 3.1's
 * insufficient_scope is the nearest code ("requires higher privileges than provided by the access
 * token"); no `scope` is named, because asking for other scopes would not help.
 */
export function sendLostStanding(reply: FastifyReply, site: Site, description: string): FastifyReply {
  return reply
    .code(403)
    .header('www-authenticate', wwwAuthenticate(site, 'insufficient_scope', description))
    .header('cache-control', 'no-store')
    .type('application/json')
    .send({ error: 'insufficient_scope', error_description: description });
}

export type GuardResult = { ok: true; token: BearerToken } | { ok: false; unavailable: boolean };

/**
 * Checks the bearer token and the scopes an operation needs. Writes the 401/403 itself; on
 * `unavailable` writes nothing, so each resource answers its own fault (500 here, 503 on /mcp A).
 */
export async function guardBearer(
  bearer: BearerChecker,
  request: FastifyRequest,
  reply: FastifyReply,
  needed: readonly string[],
): Promise<GuardResult> {
  const site = request.site;
  const verdict = await bearer.check(site, request.headers.authorization);
  switch (verdict.kind) {
    case 'missing':
      sendInvalidToken(reply, site, 'an access token is required: send Authorization: Bearer <token>');
      return { ok: false, unavailable: false };
    case 'invalid_token':
      sendInvalidToken(reply, site, verdict.description);
      return { ok: false, unavailable: false };
    case 'forbidden':
      sendLostStanding(reply, site, verdict.description);
      return { ok: false, unavailable: false };
    case 'unavailable':
      return { ok: false, unavailable: true };
    case 'valid': {
      const scoped = requireScopes(verdict.token, needed);
      if (scoped.kind === 'insufficient_scope') {
        sendInsufficientScope(reply, site, scoped.scopes, scoped.description);
        return { ok: false, unavailable: false };
      }
      return { ok: true, token: verdict.token };
    }
  }
}
