// UserInfo (OIDC Core 5.3, SPEC 2.3): the same claims as the ID token, for a valid access token that
// holds `openid`.
import type { PersonLookup } from '../people/people.repository.js';
import type { Site } from '../sites/site.js';
import type { BearerToken } from './bearer.js';
import { OAuthError } from './errors.js';
import { type IdentityClaims, identityClaims } from './tokens/identity-claims.js';

export const USERINFO_SCOPES = ['openid'] as const;

export async function userInfo(people: PersonLookup, site: Site, token: BearerToken): Promise<IdentityClaims> {
  const claims = await identityClaims(people, site, token.personId, token.scopes);
  if (!claims) throw new OAuthError('invalid_grant', 'the person no longer exists');
  return claims;
}
