// RFC 7636 and SPEC 5.1: PKCE is required, and only with S256 (RFC 9700 2.1.1).
import { OAuthError } from '../../errors.js';
import { type RawParams, single } from '../../parameters.js';

export function checkPkce(params: RawParams): string {
  const challenge = single(params, 'code_challenge');
  const method = single(params, 'code_challenge_method');
  if (!challenge) throw new OAuthError('invalid_request', 'code_challenge is required (PKCE with S256)');
  if (method !== 'S256') throw new OAuthError('invalid_request', 'code_challenge_method must be S256');
  // base64url of a SHA-256 digest, no padding: exactly 43 characters.
  if (!/^[A-Za-z0-9_-]{43}$/.test(challenge))
    throw new OAuthError('invalid_request', 'code_challenge must be the base64url SHA-256 of the code_verifier (43 characters)');
  return challenge;
}
