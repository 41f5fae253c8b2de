// The registration endpoint (SPEC 4.2, CONTRACT 5): not open dynamic registration. The submitted
// client_name is matched against the platform's vendor integrations and that vendor's client_id is
// returned with its registered metadata; anything else is `invalid_client_metadata`. The request and
// response use RFC 7591's field names so registration-capable clients (the MCP SDK) understand them.
import type { VendorIntegration } from '../config/config.js';
import { redirectUriMatches } from '../clients/redirect-uris.js';
import { OAuthError } from './errors.js';
import { audienceScopes } from './scopes.js';

export interface RegistrationResponse {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  token_endpoint_auth_method: 'none';
  grant_types: string[];
  response_types: string[];
  scope: string;
}

export function handleRegistration(
  vendors: readonly VendorIntegration[],
  body: unknown,
  grantTypes: readonly string[],
): RegistrationResponse {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new OAuthError('invalid_client_metadata', 'the request body must be a JSON object');
  const metadata = body as Record<string, unknown>;
  const name = metadata.client_name;
  if (typeof name !== 'string' || name.trim() === '') throw new OAuthError('invalid_client_metadata', 'client_name is required');
  const wanted = name.trim().toLowerCase();
  const vendor = vendors.find((v) => v.client_name.toLowerCase() === wanted);
  if (!vendor) {
    throw new OAuthError(
      'invalid_client_metadata',
      `client_name "${name}" is not a known vendor integration; open registration is not offered. Publish a Client ID Metadata Document or contact support.`,
    );
  }
  const submitted = metadata.redirect_uris;
  let redirectUris = vendor.redirect_uris;
  if (submitted !== undefined) {
    if (!Array.isArray(submitted) || submitted.some((u) => typeof u !== 'string'))
      throw new OAuthError('invalid_client_metadata', 'redirect_uris must be an array of strings');
    const refused = (submitted as string[]).filter((u) => !redirectUriMatches(vendor.redirect_uris, u));
    if (refused.length > 0) {
      throw new OAuthError(
        'invalid_redirect_uri',
        `not registered for ${vendor.client_name}: ${refused.join(' ')}; allowed: ${vendor.redirect_uris.join(' ')} (loopback on any port)`,
      );
    }
    if (submitted.length > 0) redirectUris = submitted as string[];
  }
  const scopes = vendor.scopes ?? audienceScopes('operator');
  return {
    client_id: vendor.client_id,
    client_name: vendor.client_name,
    redirect_uris: redirectUris,
    token_endpoint_auth_method: 'none',
    grant_types: [...grantTypes],
    response_types: ['code'],
    scope: scopes.join(' '),
  };
}
