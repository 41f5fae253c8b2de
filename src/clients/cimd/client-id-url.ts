// Client ID URL rules of the OAuth Client ID Metadata Document draft (-00 and -02, section 3), SPEC 4.2.
import { CimdError } from './types.js';

export interface CimdClientIdUrl {
  /** The client_id exactly as the client sent it; the document must repeat it byte for byte. */
  raw: string;
  url: URL;
  /** Lowercased hostname, IPv6 literals in brackets, as the host policy compares it. */
  host: string;
}

// Longer than any real document URL; keeps hostile ids out of logs, messages and cache keys.
const MAX_CLIENT_ID_LENGTH = 2048;

// RFC 3986 characters only. WHATWG URL parsing silently drops tabs and newlines and turns `\` into `/`,
// so anything outside this set would make the URL we fetch differ from the string the client sent.
const URI_CHARACTERS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/;

/** Whether a string is made only of characters RFC 3986 allows in a URI. */
export function hasOnlyUriCharacters(value: string): boolean {
  return URI_CHARACTERS.test(value);
}

/**
 * Makes an outside value safe to quote in an error message: error_description (RFC 6749 5.2) allows only
 * printable ASCII without `"` and `\`, and a hostile value must not make the message unreadable.
 */
export function quoteForMessage(value: string, max = 120): string {
  const cut = value.length > max ? `${value.slice(0, max)}...` : value;
  return `'${cut.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '?')}'`;
}

/** True when the client_id is meant as a CIMD URL; anything else is a registered client id. */
export function looksLikeCimdClientId(clientId: string): boolean {
  return clientId.startsWith('https://');
}

function refuse(reason: string): never {
  throw new CimdError('invalid_client_id_url', `The client_id is not a valid Client ID Metadata Document URL: ${reason}.`);
}

// WHATWG URL treats percent-encoded dots as dots in path segments, so `%2e%2E` is as much a `..` as `..`.
function isDotSegment(segment: string): boolean {
  const decoded = segment.replace(/%2e/gi, '.');
  return decoded === '.' || decoded === '..';
}

/** Validates a CIMD client_id URL; throws CimdError('invalid_client_id_url') naming the broken rule. */
export function parseCimdClientIdUrl(clientId: string): CimdClientIdUrl {
  // Callers pass request parameters, which can arrive as arrays or be missing despite the type.
  if (typeof clientId !== 'string') refuse('it must be a single string');
  if (clientId.length > MAX_CLIENT_ID_LENGTH) refuse(`it is longer than ${MAX_CLIENT_ID_LENGTH} characters`);
  if (!clientId.startsWith('https://')) refuse('it must start with https:// (the https scheme is required)');
  if (!hasOnlyUriCharacters(clientId)) refuse('it contains characters that are not allowed in a URL (spaces, backslashes, non-ASCII)');
  // The raw string is checked because `new URL` drops an empty fragment, an empty userinfo and dot segments.
  if (clientId.includes('#')) refuse('it must not contain a fragment (#)');
  if (clientId.includes('?')) refuse('it must not contain a query string (?)');

  const afterScheme = clientId.slice('https://'.length);
  const slash = afterScheme.indexOf('/');
  const authority = slash === -1 ? afterScheme : afterScheme.slice(0, slash);
  const path = slash === -1 ? '' : afterScheme.slice(slash);
  if (authority.includes('@')) refuse('it must not contain a username or password');
  if (path === '' || path === '/') refuse('it must have a path, such as https://example.com/client.json');
  if (path.split('/').some(isDotSegment)) refuse('its path must not contain . or .. segments');

  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    refuse('it cannot be parsed as a URL');
  }
  if (url.protocol !== 'https:') refuse('it must use the https scheme');
  if (url.username !== '' || url.password !== '') refuse('it must not contain a username or password');
  if (url.hostname === '') refuse('it has no host');

  // A host written in a non-canonical form (percent-encoded, `127.1`, upper case is fine) would be
  // compared with the allowlist under one spelling and connected to under another.
  const portMatch = /:(\d*)$/.exec(authority.startsWith('[') ? authority.slice(authority.indexOf(']')) : authority);
  const rawHost = (portMatch ? authority.slice(0, authority.length - portMatch[0].length) : authority).toLowerCase();
  if (rawHost !== url.hostname) refuse('its host must be written in canonical form');

  return { raw: clientId, url, host: url.hostname };
}
