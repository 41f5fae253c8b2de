// Token revocation (RFC 7009). Revoking an access token ends that token; revoking a refresh token ends
// its grant: the refresh token and every access token issued under it (RFC 7009 2.1). The person's
// consent and session are untouched (INTEROP, keycloak#12916). Unknown tokens answer 200 (2.2).
import { recordAudit } from '../audit/audit-log.js';
import type { Site } from '../sites/site.js';
import { OAuthError } from './errors.js';
import { type RawParams, required, single } from './parameters.js';
import { authenticateCaller, type Caller } from './token/client-authentication.js';
import { tokenKey } from './tokens/token-format.js';
import type { TokenContext } from './token/token-context.js';
import { endAccessToken, endGrant } from './tokens/token-revocation.js';
import { findAccessTokenByHash, findRefreshTokenByHash } from './tokens/tokens.repository.js';

export async function handleRevocation(ctx: TokenContext, site: Site, params: RawParams, caller: Caller): Promise<void> {
  const client = await authenticateCaller(ctx, site, params, caller);
  const token = required(params, 'token');
  const hint = single(params, 'token_type_hint');
  if (hint !== undefined && hint !== 'access_token' && hint !== 'refresh_token') {
    throw new OAuthError('unsupported_token_type', 'token_type_hint must be access_token or refresh_token');
  }
  const tokenHash = tokenKey(token);
  // Through the lookups that answer a grant's revocation as its tokens' (tokens.repository.ts).
  const [foundAccess, refresh] = await Promise.all([
    findAccessTokenByHash(ctx.db, tokenHash),
    findRefreshTokenByHash(ctx.db, site.id, tokenHash),
  ]);
  const access = foundAccess?.site_id === site.id ? foundAccess : undefined;
  const found = access ?? refresh;
  if (!found) return;
  // RFC 7009 2.1: only the client the token was issued to may revoke it.
  if (found.client_id !== client.clientId) throw new OAuthError('unauthorized_client', 'the token was issued to another client');
  if (found.revoked_at !== null) return;
  if (refresh) await endGrant(ctx, site.id, refresh.grant_id);
  else await endAccessToken(ctx, site.id, tokenHash);
  await recordAudit(
    ctx.db,
    {
      siteId: site.id,
      kind: 'token.revoked',
      personId: found.person_id,
      clientId: client.clientId,
      detail: { token_type: refresh ? 'refresh_token' : 'access_token' },
    },
    ctx.clock,
  );
}
