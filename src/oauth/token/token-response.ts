// RFC 6749 5.1 token responses, shared by both grants.
import type { IssuedPair } from '../tokens/tokens.repository.js';
import type { TokenResponse } from './token-context.js';

export function tokenResponse(pair: IssuedPair, lifetimeSeconds: number, scope: string, idToken?: string): TokenResponse {
  const body: TokenResponse = {
    access_token: pair.accessToken,
    token_type: 'Bearer',
    expires_in: lifetimeSeconds,
    refresh_token: pair.refreshToken,
    scope,
  };
  if (idToken !== undefined) body.id_token = idToken;
  return body;
}
