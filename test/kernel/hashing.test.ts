// Tokens are stored as base64url(SHA-256(UTF-8 text)) (kernel/hashing.ts): rows written by earlier
// versions must still be found, so the form is pinned by the FIPS 180-2 vector and a non-ASCII text.
import { describe, expect, it } from 'vitest';
import { constantTimeEqual, hashToken } from '../../src/kernel/hashing.js';

describe('token hashing', () => {
  it('stores a token as base64url SHA-256 of its UTF-8 bytes, without padding', () => {
    expect(hashToken('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
    expect(hashToken('é✓')).toBe('HnfLcZIK1SiF-rBkZaX88uX5jAOCqrNiAmiUMbk7n7M');
    expect(hashToken('')).toBe('47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU');
  });

  it('compares equal strings as equal and strings of other content or length as different', () => {
    expect(constantTimeEqual(hashToken('a'), hashToken('a'))).toBe(true);
    expect(constantTimeEqual(hashToken('a'), hashToken('b'))).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
  });
});
