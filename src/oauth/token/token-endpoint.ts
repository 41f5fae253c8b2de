// The token endpoint (RFC 6749 3.2, SPEC 4.2): authenticate the client, then dispatch by grant type.
import type { Site } from '../../sites/site.js';
import { OAuthError } from '../errors.js';
import { type RawParams, single } from '../parameters.js';
import { authenticateCaller, type Caller } from './client-authentication.js';
import { authorizationCodeGrant } from './grant-types/authorization-code.js';
import { refreshTokenGrant } from './grant-types/refresh-token.js';
import type { GrantType, TokenContext, TokenResponse } from './token-context.js';

const GRANTS: ReadonlyMap<string, GrantType> = new Map([authorizationCodeGrant, refreshTokenGrant].map((g) => [g.grantType, g]));

/** The grant types this server supports, for discovery: the same map the endpoint dispatches through. */
export const SUPPORTED_GRANT_TYPES: readonly string[] = [...GRANTS.keys()];

export async function handleTokenRequest(ctx: TokenContext, site: Site, params: RawParams, caller: Caller): Promise<TokenResponse> {
  const grantType = single(params, 'grant_type');
  if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required');
  const grant = GRANTS.get(grantType);
  if (!grant)
    throw new OAuthError('unsupported_grant_type', `grant_type ${grantType} is not supported; use ${SUPPORTED_GRANT_TYPES.join(' or ')}`);
  const client = await authenticateCaller(ctx, site, params, caller);
  const response = await grant.handle(ctx, { site, client, params });
  ctx.observer.issued(grantType);
  return response;
}
