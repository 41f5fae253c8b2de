// RFC 8707 resource indicators, compared as origins (CONTRACT 5): `https://school.example` and
// `https://school.example/` are the same resource; a path, query, fragment or other origin is not.
import { OAuthError } from './errors.js';

/** The accepted resource for a site, or an `invalid_target` error naming it. */
export function checkResource(values: readonly string[], siteOrigin: string): string {
  const accepted = `the only accepted resource is ${siteOrigin}`;
  if (values.length === 0) throw new OAuthError('invalid_target', `resource is required; ${accepted}`);
  if (values.length > 1) throw new OAuthError('invalid_target', `exactly one resource may be requested; ${accepted}`);
  const value = values[0] as string;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new OAuthError('invalid_target', `resource must be an absolute URI; ${accepted}`);
  }
  if (
    url.origin !== siteOrigin ||
    (url.pathname !== '/' && url.pathname !== '') ||
    url.search !== '' ||
    url.hash !== '' ||
    value.includes('#') ||
    value.includes('?')
  ) {
    throw new OAuthError('invalid_target', `resource ${value} is not served here; ${accepted}`);
  }
  return siteOrigin;
}
