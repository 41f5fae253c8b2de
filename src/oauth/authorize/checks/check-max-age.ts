// OIDC Core 3.1.2.1: max_age, the longest time in seconds since the person last signed in that the client
// accepts; older sign-ins are made again (3.1.2.3), and the ID token then carries auth_time (we always do).
import { OAuthError } from '../../errors.js';
import { type RawParams, single } from '../../parameters.js';

export function checkMaxAge(params: RawParams): number | null {
  const value = single(params, 'max_age');
  if (value === undefined) return null;
  if (!/^\d{1,10}$/.test(value)) throw new OAuthError('invalid_request', 'max_age must be a non-negative integer number of seconds');
  return Number(value);
}
