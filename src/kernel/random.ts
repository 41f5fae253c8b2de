// Random identifiers and secrets. Tokens carry 256 bits of entropy (RFC 6749 10.10, RFC 9700 4.x).
import { randomBytes } from 'node:crypto';

/** 32 random bytes, base64url: the body of every token, code and session id. */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** A short, readable, unique id for rows (`site_…`, `per_…`). */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url')}`;
}
