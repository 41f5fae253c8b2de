// RFC 6749 3.1.2 and RFC 9700 2.1: the redirect URI must be registered (exact match; loopback any
// port, RFC 8252 7.3). Until it is, no error may be redirected.
import type { Client } from '../../../clients/client.js';
import { redirectUriMatches } from '../../../clients/redirect-uris.js';
import { AuthorizationPageError, OAuthError } from '../../errors.js';
import { type RawParams, single } from '../../parameters.js';

export function checkRedirectUri(params: RawParams, client: Client): string {
  let redirectUri: string | undefined;
  try {
    redirectUri = single(params, 'redirect_uri');
  } catch (err) {
    if (err instanceof OAuthError) throw new AuthorizationPageError('invalid_request', err.description);
    throw err;
  }
  if (!redirectUri) throw new AuthorizationPageError('invalid_request', 'redirect_uri is required');
  if (!redirectUriMatches(client.redirectUris, redirectUri)) {
    throw new AuthorizationPageError('invalid_request', `redirect_uri ${redirectUri} is not registered for ${client.name}`);
  }
  return redirectUri;
}
