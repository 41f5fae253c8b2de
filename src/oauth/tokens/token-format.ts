// Opaque tokens: a recognisable prefix (so secret scanners and people can tell them apart) and 256
// random bits. Stored only as SHA-256 hashes, looked up by that hash (the primary key).
import { randomSecret } from '../../kernel/random.js';

export const TOKEN_PREFIX = {
  accessToken: 'sga_',
  refreshToken: 'sgr_',
  authorizationCode: 'sgc_',
} as const;

export function newAccessToken(): string {
  return TOKEN_PREFIX.accessToken + randomSecret();
}
export function newRefreshToken(): string {
  return TOKEN_PREFIX.refreshToken + randomSecret();
}
export function newAuthorizationCode(): string {
  return TOKEN_PREFIX.authorizationCode + randomSecret();
}

/** RFC 6750 2.1 token68 characters, bounded so a giant header costs nothing. */
export function isWellFormedToken(value: string): boolean {
  return value.length <= 256 && /^[A-Za-z0-9\-._~+/]+=*$/.test(value);
}
