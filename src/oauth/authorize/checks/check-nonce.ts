// OIDC Core 3.1.2.1: the nonce is echoed in the ID token; bounded so it cannot bloat stored codes.
import { OAuthError } from '../../errors.js';
import { type RawParams, single } from '../../parameters.js';

export function checkNonce(params: RawParams): string | null {
  const nonce = single(params, 'nonce');
  if (nonce !== undefined && nonce.length > 512) throw new OAuthError('invalid_request', 'nonce must be at most 512 characters');
  return nonce ?? null;
}
