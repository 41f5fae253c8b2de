// OIDC Core 3.1.2.1: login_hint, how the person may be known (we take an e-mail address), only ever used
// to fill in the sign-in form; bounded like the form's own field.
import { OAuthError } from '../../errors.js';
import { type RawParams, single } from '../../parameters.js';

export function checkLoginHint(params: RawParams): string | null {
  const hint = single(params, 'login_hint');
  if (hint === undefined) return null;
  if (hint.length > 320) throw new OAuthError('invalid_request', 'login_hint must be at most 320 characters');
  return hint;
}
