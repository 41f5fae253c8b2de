// Opaque tokens: a recognisable prefix (so secret scanners and people can tell them apart) and 256 bits
// no one can predict: random, or, for the pair a refresh rotation issues, computed under the server's key
// (successorTokens). Stored only as SHA-256 hashes, looked up by the key `tokenKey` makes of the hash.
//
// Access and refresh tokens also carry the millisecond they were minted, as 12 hex digits after the prefix,
// and their key starts with those digits. A key that is only a hash is random, so every new token's index
// entry lands on a page of its own, written to the log at each group commit: the served refresh grant wrote
// 4.8 pages of log a rotation, against 2.1 with keys in time order (47 µs of commit a rotation against 12,
// better-sqlite3 alone with 50,000 tokens stored). Keys in time order append: new tokens share the index's
// last pages. The time tells a token's holder nothing they did not know; the 256 bits after it are unchanged.
import { createHmac, type KeyObject } from 'node:crypto';
import { hashToken } from '../../kernel/hashing.js';
import { randomSecret } from '../../kernel/random.js';

export const TOKEN_PREFIX = {
  accessToken: 'sga_',
  refreshToken: 'sgr_',
  authorizationCode: 'sgc_',
} as const;

/** Hex digits of the minting time (milliseconds since the epoch, zero-padded: fixed width keeps their order). */
const MINTED_DIGITS = 12;
/** Both prefixes of time-keyed tokens have this length. */
const PREFIX_LENGTH = TOKEN_PREFIX.accessToken.length;
/** A time-keyed token: its prefix, the minting time, and 43 characters of base64url (32 bytes). */
const TIME_KEYED = new RegExp(`^(${TOKEN_PREFIX.accessToken}|${TOKEN_PREFIX.refreshToken})[0-9a-f]{${MINTED_DIGITS}}[A-Za-z0-9_-]{43}$`);

function mintedDigits(at: number): string {
  return at.toString(16).padStart(MINTED_DIGITS, '0');
}

function mintedNow(): string {
  return mintedDigits(Date.now());
}

export function newAccessToken(): string {
  return TOKEN_PREFIX.accessToken + mintedNow() + randomSecret();
}
export function newRefreshToken(): string {
  return TOKEN_PREFIX.refreshToken + mintedNow() + randomSecret();
}

/**
 * The access and refresh tokens that succeed a refresh token when it is rotated at `mintedAt`: their 256-bit
 * bodies are the two halves of HMAC-SHA512 of the used token under a key of the server's secret. Only the
 * server can compute them, and only from the used token itself, so a retry of a rotation (a lost race, a
 * client retrying within the grace window) is answered by computing them again: nothing of the answer is
 * stored, not even sealed. Sealing the answer into the used token's row cost the served refresh grant
 * about a fifth of its CPU a rotation, most of it SQLite writing the longer row (bench/RESULTS.md,
 * thirty-seventh session). The holder of the used token could always get these tokens within the window
 * by presenting it; without the key, the used token tells nothing about them.
 */
export function successorTokens(key: KeyObject, usedRefreshToken: string, mintedAt: number): { accessToken: string; refreshToken: string } {
  const bits = createHmac('sha512', key).update(usedRefreshToken).digest();
  const minted = mintedDigits(mintedAt);
  return {
    accessToken: TOKEN_PREFIX.accessToken + minted + bits.toString('base64url', 0, 32),
    refreshToken: TOKEN_PREFIX.refreshToken + minted + bits.toString('base64url', 32, 64),
  };
}

export function newAuthorizationCode(): string {
  return TOKEN_PREFIX.authorizationCode + randomSecret();
}

/**
 * The key under which an access or refresh token is stored and looked up (the token tables' `token_hash`):
 * the minting time followed by the SHA-256 of the whole token, so the time cannot be changed without
 * changing the hash. Tokens minted before keys carried the time (no digits after the prefix) keep their
 * bare hash, and any other value is hashed the same way: it matches no stored key.
 */
export function tokenKey(token: string): string {
  if (!TIME_KEYED.test(token)) return hashToken(token);
  return token.slice(PREFIX_LENGTH, PREFIX_LENGTH + MINTED_DIGITS) + hashToken(token);
}

/** RFC 6750 2.1 token68 characters, bounded so a giant header costs nothing. */
export function isWellFormedToken(value: string): boolean {
  return value.length <= 256 && /^[A-Za-z0-9\-._~+/]+=*$/.test(value);
}
