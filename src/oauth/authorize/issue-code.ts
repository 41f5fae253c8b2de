// RFC 6749 4.1.2: the code, bound to everything the token request must repeat, and the redirect that
// carries it with `state` and `iss` (RFC 9207).
import type { Kysely } from 'kysely';
import type { Clock } from '../../kernel/clock.js';
import { hashToken } from '../../kernel/hashing.js';
import type { Site } from '../../sites/site.js';
import type { Database } from '../../storage/schema.js';
import { newAuthorizationCode } from '../tokens/token-format.js';
import type { AuthorizationRequest } from './authorization-request.js';

export async function issueAuthorizationCode(
  db: Kysely<Database>,
  site: Site,
  req: AuthorizationRequest,
  personId: string,
  authTime: number,
  lifetimeSeconds: number,
  clock: Clock,
): Promise<string> {
  const code = newAuthorizationCode();
  const now = clock.now();
  await db
    .insertInto('authorization_codes')
    .values({
      code_hash: hashToken(code),
      site_id: site.id,
      client_id: req.client.clientId,
      person_id: personId,
      redirect_uri: req.redirectUri,
      scope: req.scopes.join(' '),
      resource: req.resource,
      code_challenge: req.codeChallenge,
      nonce: req.nonce,
      auth_time: authTime,
      created_at: now,
      expires_at: now + lifetimeSeconds * 1000,
      consumed_at: null,
      grant_id: null,
    })
    .execute();
  return code;
}

/** The redirect URI with response parameters added to its query (RFC 6749 4.1.2, RFC 9207 2). */
export function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url.href;
}
