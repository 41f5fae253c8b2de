// The OAuth error family (RFC 6749 4.1.2.1 and 5.2, RFC 6750 3.1, RFC 8707, RFC 7591). Cores throw
// these; one renderer in http/ writes them. Whether an error may be redirected is part of the type:
// only the authorization pipeline, after it validated the redirect URI, creates redirectable ones.
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'login_required'
  | 'consent_required'
  | 'interaction_required'
  | 'server_error'
  | 'temporarily_unavailable'
  | 'invalid_client_metadata'
  | 'invalid_redirect_uri'
  | 'unsupported_token_type';

const DEFAULT_STATUS: Record<OAuthErrorCode, number> = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  unsupported_response_type: 400,
  invalid_scope: 400,
  invalid_target: 400,
  access_denied: 403,
  login_required: 400,
  consent_required: 400,
  interaction_required: 400,
  server_error: 500,
  temporarily_unavailable: 503,
  invalid_client_metadata: 400,
  invalid_redirect_uri: 400,
  unsupported_token_type: 400,
};

export class OAuthError extends Error {
  override name = 'OAuthError';
  readonly status: number;

  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
    status?: number,
    /** A `WWW-Authenticate` challenge to send with it (RFC 6749 5.2 for HTTP Basic failures). */
    readonly challenge?: string,
  ) {
    super(`${code}: ${description}`);
    this.status = status ?? DEFAULT_STATUS[code];
  }
}

/**
 * An error of the authorization endpoint found after the client and redirect URI were validated: it
 * goes back to the client's redirect URI (RFC 6749 4.1.2.1) with `state` and `iss` (RFC 9207).
 */
export class RedirectableAuthorizationError extends OAuthError {
  override name = 'RedirectableAuthorizationError';
  constructor(
    code: OAuthErrorCode,
    description: string,
    readonly redirectUri: string,
    readonly state: string | undefined,
  ) {
    super(code, description);
  }
}

/** An error shown to the person as a page (unknown client, unregistered redirect URI): never redirected. */
export class AuthorizationPageError extends OAuthError {
  override name = 'AuthorizationPageError';
}
