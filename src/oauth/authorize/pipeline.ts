// The authorization endpoint's validation (SPEC 4.2, RFC 6749 4.1.1, RFC 7636, RFC 8707, OIDC Core
// 3.1.2), as an ordered list of one-rule checks. The client and redirect URI come first: until both
// are known good, errors are pages; after, they go back to the client (RFC 6749 4.1.2.1).
import type { CimdError } from '../../clients/cimd/types.js';
import type { ClientResolver } from '../../clients/resolve-client.js';
import type { Site } from '../../sites/site.js';
import { OAuthError, RedirectableAuthorizationError } from '../errors.js';
import type { RawParams } from '../parameters.js';
import type { AuthorizationRequest } from './authorization-request.js';
import type { KeyCache } from '../../keys/key-cache.js';
import { checkClient } from './checks/check-client.js';
import { checkIdTokenHint } from './checks/check-id-token-hint.js';
import { checkLoginHint } from './checks/check-login-hint.js';
import { checkMaxAge } from './checks/check-max-age.js';
import { checkNonce } from './checks/check-nonce.js';
import { checkPkce } from './checks/check-pkce.js';
import { checkPrompt } from './checks/check-prompt.js';
import { checkRedirectUri } from './checks/check-redirect-uri.js';
import { checkNoRequestObject } from './checks/check-request-object.js';
import { checkResourceParameter } from './checks/check-resource.js';
import { checkResponseType } from './checks/check-response-type.js';
import { checkScope } from './checks/check-scope.js';

export interface AuthorizePipelineDeps {
  clients: ClientResolver;
  /** The site's published keys, against which an id_token_hint is verified. */
  keys: KeyCache;
  onCimdRefused: (site: Site, clientId: string, error: CimdError) => Promise<void>;
}

function firstState(params: RawParams): string | undefined {
  const state = params.state;
  return Array.isArray(state) ? state[0] : state || undefined;
}

export async function validateAuthorizationRequest(
  deps: AuthorizePipelineDeps,
  site: Site,
  params: RawParams,
): Promise<AuthorizationRequest> {
  const client = await checkClient(params, site, deps.clients, (clientId, error) => deps.onCimdRefused(site, clientId, error));
  const redirectUri = checkRedirectUri(params, client);
  const state = firstState(params);
  try {
    if (Array.isArray(params.state)) throw new OAuthError('invalid_request', 'state must not be repeated');
    checkResponseType(params);
    checkNoRequestObject(params);
    const codeChallenge = checkPkce(params);
    const resource = checkResourceParameter(params, site);
    const scopes = checkScope(params, client);
    const nonce = checkNonce(params);
    const prompt = checkPrompt(params);
    const maxAge = checkMaxAge(params);
    const loginHint = checkLoginHint(params);
    const hintedSubject = await checkIdTokenHint(params, site, client, deps.keys);
    return { client, redirectUri, state, scopes, resource, codeChallenge, nonce, prompt, maxAge, loginHint, hintedSubject };
  } catch (err) {
    if (err instanceof OAuthError) throw new RedirectableAuthorizationError(err.code, err.description, redirectUri, state);
    throw err;
  }
}
