// Hashes for high-entropy secrets (tokens, codes, sessions) and constant-time comparison.
// High-entropy values need no slow KDF: SHA-256 is preimage-resistant and keeps lookups indexable.
import { createHash, hash, timingSafeEqual } from 'node:crypto';

/**
 * SHA-256 of a token, base64url: the only form in which tokens are stored (access and refresh tokens with
 * their minting time before it, oauth/tokens/token-format.ts). The one-shot `hash` (Node
 * 20.12+) builds no Hash object: a third of createHash's time, on every request.
 */
export function hashToken(token: string): string {
  return hash('sha256', token, 'base64url');
}

/** Compares two strings in time independent of where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    // Compare against itself so the call still costs the same work; the lengths already differ.
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}

/** base64url(SHA-256(ascii)): the PKCE S256 transform (RFC 7636 4.2). */
export function s256(value: string): string {
  return createHash('sha256').update(value, 'ascii').digest('base64url');
}
