// Discovery documents (SPEC 4.1): RFC 8414, OpenID Connect Discovery 1.0 and RFC 9728, built from the
// same capabilities the endpoints enforce. Every URL starts with the site's configured origin.
import type { PlatformConfig } from '../config/config.js';
import { type Site, variantCapabilities } from '../sites/site.js';
import { SIGNING_ALG } from '../keys/signing-keys.js';
import { ALL_SCOPES } from './scopes.js';
import { SUPPORTED_GRANT_TYPES } from './token/token-endpoint.js';

export const PATHS = {
  authorization: '/oauth/authorize',
  token: '/api/oauth/token',
  userinfo: '/api/oauth/userinfo',
  revocation: '/api/oauth/revoke',
  introspection: '/api/oauth/introspect',
  registration: '/api/oauth/register',
  jwks: '/.well-known/jwks.json',
  protectedResource: '/.well-known/oauth-protected-resource',
  authorizationServer: '/.well-known/oauth-authorization-server',
  openidConfiguration: '/.well-known/openid-configuration',
  authMd: '/auth.md',
  openapi: '/openapi.json',
  mcp: '/mcp',
} as const;

export const TOKEN_ENDPOINT_AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'] as const;

export function protectedResourceUrl(site: Site): string {
  return site.origin + PATHS.protectedResource;
}

export function authorizationServerMetadata(site: Site, platform: PlatformConfig) {
  const o = site.origin;
  return {
    issuer: o,
    authorization_endpoint: o + PATHS.authorization,
    token_endpoint: o + PATHS.token,
    userinfo_endpoint: o + PATHS.userinfo,
    revocation_endpoint: o + PATHS.revocation,
    introspection_endpoint: o + PATHS.introspection,
    registration_endpoint: o + PATHS.registration,
    jwks_uri: o + PATHS.jwks,
    scopes_supported: [...ALL_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: [...SUPPORTED_GRANT_TYPES],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: [...TOKEN_ENDPOINT_AUTH_METHODS],
    revocation_endpoint_auth_methods_supported: [...TOKEN_ENDPOINT_AUTH_METHODS],
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: platform.cimd.open_registration || platform.cimd.allowlist.length > 0,
    id_token_signing_alg_values_supported: [SIGNING_ALG],
    subject_types_supported: ['public'],
    claims_supported: [
      'sub',
      'iss',
      'aud',
      'exp',
      'iat',
      'auth_time',
      'nonce',
      'name',
      'email',
      'email_verified',
      'org_id',
      'roles',
      ...(variantCapabilities(site.variant).pictureClaim ? ['picture'] : []),
    ],
    prompt_values_supported: ['none', 'login', 'consent'],
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    service_documentation: o + PATHS.authMd,
  };
}

/** OpenID Connect Discovery: the same document; every field it requires is already there. */
export function openidConfiguration(site: Site, platform: PlatformConfig) {
  return authorizationServerMetadata(site, platform);
}

/** RFC 9728. The resource is the origin itself (SPEC 4.1); no offline_access (MCP 2026-07-28). */
export function protectedResourceMetadata(site: Site) {
  return {
    resource: site.origin,
    authorization_servers: [site.origin],
    scopes_supported: [...ALL_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: site.name,
    resource_documentation: site.origin + PATHS.authMd,
  };
}
