// Client metadata rules of the OAuth Client ID Metadata Document draft (-00 and -02, section 4), SPEC 4.2.
import { hasOnlyUriCharacters, quoteForMessage } from './client-id-url.js';
import { type CimdDocument, CimdError } from './types.js';

/** Methods built on a secret shared with the authorization server, which a published document cannot hold. */
export const SHARED_SECRET_AUTH_METHODS: readonly string[] = ['client_secret_post', 'client_secret_basic', 'client_secret_jwt'];

const LOOPBACK_REDIRECT_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

function refuse(field: string, problem: string): never {
  throw new CimdError('invalid_document', `The client metadata document is invalid: ${field} ${problem}.`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalString(document: Record<string, unknown>, field: string): string | null {
  const value = document[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') refuse(field, 'must be a string');
  return value === '' ? null : value;
}

function checkRedirectUri(value: unknown, index: number, documentHost: string): string {
  const field = `redirect_uris[${index}]`;
  if (typeof value !== 'string') refuse(field, 'must be a string');
  // Redirects are sent to the raw string, so it must parse the same way everywhere (no `\`, spaces or tabs).
  if (!hasOnlyUriCharacters(value)) refuse(field, `${quoteForMessage(value)} contains characters that are not allowed in a URL`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    refuse(field, `${quoteForMessage(value)} is not an absolute URL`);
  }
  if (value.includes('#')) refuse(field, `${quoteForMessage(value)} must not contain a fragment`);
  if (url.username !== '' || url.password !== '' || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(value)) {
    refuse(field, `${quoteForMessage(value)} must not contain a username or password`);
  }
  if (url.protocol === 'https:' && url.hostname === documentHost) return value;
  if (url.protocol === 'http:' && LOOPBACK_REDIRECT_HOSTS.has(url.hostname)) return value;
  return refuse(
    field,
    `${quoteForMessage(value)} must be an https URL on the document's host ${documentHost} or a loopback URL (http://127.0.0.1, http://[::1] or http://localhost)`,
  );
}

/**
 * Validates a fetched document against the URL it came from and returns what the resolver keeps;
 * throws CimdError('invalid_document') naming the first offending field.
 */
export function parseCimdDocument(body: string, source: { clientId: string; host: string }): Omit<CimdDocument, 'reviewed'> {
  let document: unknown;
  try {
    document = JSON.parse(body);
  } catch {
    refuse('the body', 'is not valid JSON');
  }
  if (!isRecord(document)) refuse('the body', 'must be a JSON object');

  const clientId = document['client_id'];
  if (typeof clientId !== 'string') refuse('client_id', 'is missing or not a string');
  // Exact string comparison (RFC 3986 6.2.1), as the draft demands: no normalisation on either side.
  if (clientId !== source.clientId) {
    refuse(
      'client_id',
      `${quoteForMessage(clientId)} does not equal the URL the document was fetched from, ${quoteForMessage(source.clientId)}`,
    );
  }

  if ('client_secret' in document) refuse('client_secret', 'must not be present: a published document cannot hold a secret');
  if ('client_secret_expires_at' in document) refuse('client_secret_expires_at', 'must not be present');

  const authMethod = document['token_endpoint_auth_method'] ?? 'none';
  if (typeof authMethod !== 'string' || authMethod === '') refuse('token_endpoint_auth_method', 'must be a non-empty string');
  if (SHARED_SECRET_AUTH_METHODS.includes(authMethod)) {
    refuse('token_endpoint_auth_method', `must not be ${authMethod}: shared-secret methods cannot be used with a published document`);
  }

  const redirectUris = document['redirect_uris'];
  if (!Array.isArray(redirectUris) || redirectUris.length === 0) refuse('redirect_uris', 'must be a non-empty array of URLs');
  const checked = redirectUris.map((value: unknown, index) => checkRedirectUri(value, index, source.host));

  return {
    clientId,
    host: source.host,
    clientName: optionalString(document, 'client_name'),
    redirectUris: checked,
    tokenEndpointAuthMethod: authMethod,
    scope: optionalString(document, 'scope'),
  };
}
