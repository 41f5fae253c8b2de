// Request parameters as parsed from a query string or form body. RFC 6749 3.1 and 3.2: a parameter
// sent more than once is an error (except `resource`, which RFC 8707 lets repeat).
import { OAuthError } from './errors.js';

export type RawParams = Record<string, string | string[] | undefined>;

/** Reads a single-valued parameter; repeated -> invalid_request; empty string counts as absent. */
export function single(params: RawParams, name: string): string | undefined {
  const value = params[name];
  if (Array.isArray(value)) throw new OAuthError('invalid_request', `${name} must not be repeated`);
  if (value === undefined || value === '') return undefined;
  if (value.length > 4096) throw new OAuthError('invalid_request', `${name} is too long`);
  return value;
}

export function required(params: RawParams, name: string): string {
  const value = single(params, name);
  if (value === undefined) throw new OAuthError('invalid_request', `${name} is required`);
  return value;
}

/** Every value of a parameter that may repeat. */
export function multiple(params: RawParams, name: string): string[] {
  const value = params[name];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).filter((v) => v !== '');
}
