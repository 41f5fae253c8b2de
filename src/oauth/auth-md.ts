// /auth.md (SPEC 1, 4.1): how an agent or client authenticates at this origin, step by step (SPEC 5.1),
// written from the live metadata so every URL and scope is this site's own.
import type { PlatformConfig } from '../config/config.js';
import { type Site, variantCapabilities } from '../sites/site.js';
import { authorizationServerMetadata, PATHS, protectedResourceMetadata } from './discovery.js';
import { IDENTITY_SCOPES, MEMBER_SCOPES, OPERATOR_SCOPES, UNREVIEWED_CIMD_SCOPES } from './scopes.js';

export function authMarkdown(site: Site, platform: PlatformConfig): string {
  const as = authorizationServerMetadata(site, platform);
  const pr = protectedResourceMetadata(site);
  const caps = variantCapabilities(site.variant);
  const o = site.origin;
  const vendors = platform.vendors.map((v) => `\`${v.client_name}\``).join(', ') || 'none configured';
  return `# Authenticating with ${site.name}

This file tells an agent or a client developer how to get and use an access token at \`${o}\`.
Everything below comes from this site's live metadata.

## 1. Discover

- Authorization server metadata (RFC 8414): \`${o}${PATHS.authorizationServer}\` (the source of truth)
- OpenID Connect discovery: \`${o}${PATHS.openidConfiguration}\`
- Protected resource metadata (RFC 9728): \`${o}${PATHS.protectedResource}\`; its \`resource\` is \`${pr.resource}\`
- Signing keys: \`${as.jwks_uri}\` (ID tokens are ${as.id_token_signing_alg_values_supported.join(', ')})

Read these documents first; do not rely on provoking a 401 challenge.

## 2. Get a client_id

- **Vendor platforms** (${vendors}): \`POST ${as.registration_endpoint}\` with a JSON body \`{"client_name": "<your vendor name>", "redirect_uris": [...]}\`. The answer (201) carries your \`client_id\`. This is not open dynamic registration: an unknown \`client_name\` gets \`invalid_client_metadata\`.
- **CLIs, local agents, hosted web clients**: publish a Client ID Metadata Document over HTTPS and use its URL as \`client_id\` (${as.client_id_metadata_document_supported ? 'supported here' : 'not enabled on this deployment'}). Its \`redirect_uris\` must be on the document's host or loopback. Until reviewed, such a client may request only: \`${UNREVIEWED_CIMD_SCOPES.join(' ')}\`. A host that is not allowed is refused: contact support or use a vendor platform.
- **Member applications** (apps that read one member's own data) get their \`client_id\` from the school's operator, who creates them in the admin area.

## 3. Authorize (Authorization Code + PKCE S256)

Send the person's browser to:

\`\`\`
${as.authorization_endpoint}?response_type=code&client_id=CLIENT_ID&redirect_uri=REDIRECT_URI
  &scope=SCOPES&resource=${encodeURIComponent(o)}&code_challenge=CHALLENGE&code_challenge_method=S256&state=STATE[&nonce=NONCE]
\`\`\`

- \`resource\` is required and must be this origin, \`${o}\` (a trailing slash is accepted). Anything else is \`invalid_target\`.
- The redirect back carries \`code\`, \`state\` and \`iss\` (RFC 9207): check that \`iss\` is \`${as.issuer}\`.
- Errors after the redirect URI is validated come back the same way, with \`error\`, \`error_description\`, \`state\` and \`iss\`.

## 4. Exchange the code

\`POST ${as.token_endpoint}\` (\`application/x-www-form-urlencoded\`): \`grant_type=authorization_code\`, \`code\`, \`redirect_uri\`, \`client_id\`, \`code_verifier\`, \`resource=${o}\` (confidential clients authenticate with HTTP Basic, \`client_secret_basic\`, or add \`client_secret\`, \`client_secret_post\`).

The answer has \`access_token\`, \`token_type\` (Bearer), \`expires_in\`, \`refresh_token\`, \`scope\`, and an \`id_token\` when \`openid\` was granted. Verify the ID token: \`iss\` = \`${as.issuer}\`, \`aud\` = your client_id, \`exp\` in the future, \`nonce\` as sent, ES256 signature by the key named by \`kid\` at \`${as.jwks_uri}\`. A verified ID token needs no UserInfo call.

## 5. Call the APIs

Send \`Authorization: Bearer ACCESS_TOKEN\`. The token works only at \`${o}\`.

- UserInfo: \`GET ${as.userinfo_endpoint}\` (scope \`openid\`)
- ${caps.apiName}: \`POST ${o}${caps.graphqlPath}\` (scope \`account:read\`; mutations \`account:write\`)
- MCP: \`${o}${PATHS.mcp}\` (public tools without a token; more with one)
- Operator API (operator clients, the operator scopes of each operation): \`${o}/api/admin/v1/…\`, every operation with its method, path, scopes and schemas in \`${o}/openapi.json\`. Errors are RFC 9457 \`application/problem+json\` with a stable \`code\`; lists take \`limit\` and \`cursor\`; send \`Idempotency-Key\` with a POST and \`If-Match\` (from the \`ETag\` of a GET) with a PATCH or DELETE.

A 401 carries \`WWW-Authenticate: Bearer error="invalid_token", resource_metadata="${o}${PATHS.protectedResource}"\`; a 403 \`insufficient_scope\` names the scopes needed.

## 6. Refresh and revoke

- Refresh without prompting the person: \`grant_type=refresh_token\`, \`refresh_token\`, \`client_id\` at \`${as.token_endpoint}\`. Every refresh returns a new refresh token; use the newest. Refresh answers never carry an \`id_token\`.
- Revoke: \`POST ${as.revocation_endpoint}\` with \`token\` and \`client_id\`. Revoking a refresh token ends every token of that authorization.
- Introspection (RFC 7662, confidential clients): \`POST ${as.introspection_endpoint}\`.

## Scopes

- Identity: \`${IDENTITY_SCOPES.join(' ')}\`
- Member audience only (member applications): \`${MEMBER_SCOPES.join(' ')}\`
- Operator audience (vendor and metadata-document clients, authorized by an owner or admin): \`${OPERATOR_SCOPES.join(' ')}\`

Operator clients can never hold \`account:read\` or \`account:write\` (\`invalid_scope\`).

## Not supported

The \`agent_auth\` extension (ID-JAG identity assertions, \`service_auth\`, anonymous claim ceremonies, \`identity_endpoint\`, \`register_uri\`) is not supported; do not use it.
`;
}
