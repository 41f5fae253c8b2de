// Token introspection (RFC 7662, CONTRACT 5): a confidential client asks about its own tokens only;
// everything else is `active: false`. The bound resource is visible as `aud` (SPEC 5.1).
import type { Site } from '../sites/site.js';
import { OAuthError } from './errors.js';
import { type RawParams, required, single } from './parameters.js';
import { authenticateCaller, type Caller } from './token/client-authentication.js';
import { tokenKey } from './tokens/token-format.js';
import type { TokenContext } from './token/token-context.js';
import { findAccessTokenByHash, findRefreshTokenByHash } from './tokens/tokens.repository.js';

export type IntrospectionResponse =
  | { active: false }
  | {
      active: true;
      iss: string;
      aud: string;
      client_id: string;
      scope: string;
      sub: string;
      exp: number;
      iat: number;
      token_type: 'Bearer' | 'refresh_token';
    };

export async function handleIntrospection(
  ctx: TokenContext,
  site: Site,
  params: RawParams,
  caller: Caller,
): Promise<IntrospectionResponse> {
  const client = await authenticateCaller(ctx, site, params, caller);
  if (client.authMethod === 'none')
    throw new OAuthError(
      'invalid_client',
      'introspection is for confidential clients; authenticate with client_secret_basic or client_secret_post',
    );
  const token = required(params, 'token');
  const hint = single(params, 'token_type_hint');
  const tokenHash = tokenKey(token);
  const now = ctx.clock.now();
  // The row beside its kind, not spread into a new object: V8 builds an object spread with added fields on a
  // slow path (about 2.6 µs for a token row here, against 0.02 µs for a literal).
  const access = async () => {
    const row = await ctx.accessTokens.lookup(tokenHash, (hash) => findAccessTokenByHash(ctx.db, hash));
    return row && row.site_id === site.id ? { row, tokenType: 'Bearer' as const, rotated: false } : undefined;
  };
  const refresh = async () => {
    const row = await findRefreshTokenByHash(ctx.db, site.id, tokenHash);
    return row && { row, tokenType: 'refresh_token' as const, rotated: row.rotated_at !== null };
  };
  const [first, second] = hint === 'refresh_token' ? [refresh, access] : [access, refresh];
  const found = (await first()) ?? (await second());
  if (!found) return { active: false };
  const { row, tokenType, rotated } = found;
  if (row.client_id !== client.clientId || row.revoked_at !== null || rotated || row.expires_at <= now) return { active: false };
  // RFC 7662 2.2: active means the resource would accept it, and resources check standing on every call.
  // From memory when the person is cached; null (allowed) is a verdict too, so only undefined asks the store.
  let refusal = ctx.standing.knownRefusal(site, row.client_id, row.person_id);
  if (refusal === undefined) refusal = await ctx.standing.refusal(site, row.client_id, row.person_id);
  if (refusal !== null) return { active: false };
  return {
    active: true,
    iss: site.origin,
    aud: row.resource,
    client_id: row.client_id,
    scope: row.scope,
    sub: row.person_id,
    exp: Math.floor(row.expires_at / 1000),
    iat: Math.floor(row.created_at / 1000),
    token_type: tokenType,
  };
}
