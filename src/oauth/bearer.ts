// The protected-resource verdict (RFC 6750, SPEC 5.3, 5.4, 7): the one bearer check behind UserInfo,
// the member GraphQL API, /mcp and the operator API. It never renders; http/ turns verdicts into
// 401/403 with WWW-Authenticate, and `unavailable` into the caller's own fault answer (503 on /mcp A).
import { missingScopes } from './scopes.js';
import type { Kysely } from 'kysely';
import type { Clock } from '../kernel/clock.js';
import type { Site } from '../sites/site.js';
import type { Database } from '../storage/schema.js';
import { isWellFormedToken, tokenKey } from './tokens/token-format.js';
import type { AccessTokenCache } from './tokens/access-token-cache.js';
import { findAccessTokenByHash } from './tokens/tokens.repository.js';
import type { StandingCheck } from './standing.js';

export interface BearerToken {
  siteId: string;
  grantId: string;
  clientId: string;
  personId: string;
  scopes: string[];
  resource: string;
  expiresAt: number;
}

export type BearerVerdict =
  | { kind: 'valid'; token: BearerToken }
  /** No Authorization header at all (anonymous where a resource allows it). */
  | { kind: 'missing' }
  /** `scopes`: what a revoked or expired token of this site held, so a client can ask for them again. */
  | { kind: 'invalid_token'; description: string; scopes?: string[] }
  /**
   * A live token whose person no longer holds a role that allows its client here (standing.ts): the
   * token is sound but speaks for less than it did. CONTRACT 6: 403.
   */
  | { kind: 'forbidden'; description: string }
  /** The store gave no answer in time: a fault of ours, not of the token. */
  | { kind: 'unavailable' };

export type ScopeVerdict = { kind: 'valid'; token: BearerToken } | { kind: 'insufficient_scope'; scopes: string[]; description: string };

/** How long the store may take before the verdict is `unavailable`. */
export const BEARER_STORE_TIMEOUT_MS = 2000;

/** Reads `Authorization: Bearer <token>` (RFC 6750 2.1); the scheme is case-insensitive. */
export function parseAuthorizationHeader(
  header: string | undefined,
): { kind: 'missing' } | { kind: 'token'; token: string } | { kind: 'malformed' } {
  if (header === undefined || header === '') return { kind: 'missing' };
  const match = /^Bearer +(\S+) *$/i.exec(header);
  if (!match?.[1] || !isWellFormedToken(match[1])) return { kind: 'malformed' };
  return { kind: 'token', token: match[1] };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('bearer store timeout')), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The bearer check every protected resource uses; built once per application (services.ts). */
export interface BearerChecker {
  check(site: Site, authorization: string | undefined): Promise<BearerVerdict>;
}

export function createBearerChecker(db: Kysely<Database>, clock: Clock, cache: AccessTokenCache, standing: StandingCheck): BearerChecker {
  return { check: (site, authorization) => checkBearer(db, site, authorization, clock, cache, standing) };
}

async function checkBearer(
  db: Kysely<Database>,
  site: Site,
  authorization: string | undefined,
  clock: Clock,
  cache: AccessTokenCache,
  standing: StandingCheck,
): Promise<BearerVerdict> {
  const parsed = parseAuthorizationHeader(authorization);
  if (parsed.kind === 'missing') return { kind: 'missing' };
  if (parsed.kind === 'malformed')
    return { kind: 'invalid_token', description: 'the Authorization header must be "Bearer <access token>"' };

  const tokenHash = tokenKey(parsed.token);
  const found = cache.lookup(tokenHash, (hash) => withTimeout(findAccessTokenByHash(db, hash), BEARER_STORE_TIMEOUT_MS));
  let row: Awaited<typeof found>;
  if (found instanceof Promise) {
    try {
      row = await found;
    } catch {
      return { kind: 'unavailable' };
    }
  } else {
    row = found;
  }
  if (!row) return { kind: 'invalid_token', description: 'the access token is unknown' };
  // RFC 8707: a token is bound to the origin it was issued for and is refused anywhere else.
  if (row.site_id !== site.id || row.resource !== site.origin) {
    return { kind: 'invalid_token', description: `the access token was issued for another resource; this resource is ${site.origin}` };
  }
  if (row.revoked_at !== null) return { kind: 'invalid_token', description: 'the access token was revoked', scopes: row.scope.split(' ') };
  if (row.expires_at <= clock.now())
    return { kind: 'invalid_token', description: 'the access token expired', scopes: row.scope.split(' ') };
  // Decided on every call, not only at consent (issue 8): roles change while tokens live.
  // From memory when the person is cached (no promise, no timer); otherwise from the store, within the budget.
  let refusal = standing.knownRefusal(site, row.client_id, row.person_id);
  if (refusal === undefined) {
    try {
      refusal = await withTimeout(standing.refusal(site, row.client_id, row.person_id), BEARER_STORE_TIMEOUT_MS);
    } catch {
      return { kind: 'unavailable' };
    }
  }
  if (refusal !== null) return { kind: 'forbidden', description: refusal };
  return {
    kind: 'valid',
    token: {
      siteId: row.site_id,
      grantId: row.grant_id,
      clientId: row.client_id,
      personId: row.person_id,
      scopes: row.scope.split(' '),
      resource: row.resource,
      expiresAt: row.expires_at,
    },
  };
}

/** A valid token must hold every scope an operation needs; the 403 names all of them (MCP 2026-07-28). */
export function requireScopes(token: BearerToken, needed: readonly string[]): ScopeVerdict {
  const missing = missingScopes(token.scopes, needed);
  if (missing.length === 0) return { kind: 'valid', token };
  return { kind: 'insufficient_scope', scopes: [...needed], description: `this request needs the scope ${missing.join(' ')}` };
}
