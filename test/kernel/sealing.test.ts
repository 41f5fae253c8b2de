// Keys derived per purpose (kernel/sealing.ts) are HKDF-SHA256 with no salt and the info
// `schoolgate:<purpose>` (RFC 5869): values sealed by earlier versions, and the signing keys encrypted at
// rest, must still open, so the derivation is pinned to Node's own HKDF and to RFC 5869's test case 3.
import { hkdfSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashToken } from '../../src/kernel/hashing.js';
import { deriveKey, deriveTokenKey, seal, unseal, unsealWithAny } from '../../src/kernel/sealing.js';

const nodeHkdf = (secret: string | Buffer, info: string | Buffer, length = 32) =>
  Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), info, length));

describe('key derivation and sealing', () => {
  it('derives the same key as HKDF-SHA256 with no salt, for text, non-ASCII text and bytes', () => {
    for (const secret of ['sgr_refresh-token-value', 'é✓ master', Buffer.from([0, 1, 2, 255])]) {
      for (const purpose of ['refresh-replay', 'signing-keys', 'csrf']) {
        expect(deriveKey(secret, purpose).equals(nodeHkdf(secret, `schoolgate:${purpose}`))).toBe(true);
      }
    }
    expect(deriveKey('a', 'csrf').equals(deriveKey('a', 'signing-keys'))).toBe(false);
    expect(deriveKey('a', 'csrf')).toHaveLength(32);
  });

  it('rests on HKDF as RFC 5869 test case 3 gives it (no salt), and gives that HKDF for an empty purpose too', () => {
    const ikm = Buffer.alloc(22, 0x0b);
    const okm = '8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8';
    expect(nodeHkdf(ikm, Buffer.alloc(0), 42).toString('hex')).toBe(okm);
    // deriveKey adds its info, so compare the construction itself: HMAC(PRK, info || 0x01) with an empty info.
    expect(deriveKey(ikm, '').equals(nodeHkdf(ikm, 'schoolgate:'))).toBe(true);
  });

  it("derives a token's key by SP 800-56C's one-step KDF with SHA-256: counter 1, the token's UTF-8, then the purpose", () => {
    // The value from Python's hashlib over the same bytes, so a change of the construction cannot pass.
    expect(deriveTokenKey('sgr_0123456789abé', 'refresh-replay').toString('hex')).toBe(
      '57361fd37f29720443b306434c615a3c011e259c457c650204393770b7f6e5f4',
    );
    const token = 'sgr_019ad0c0ffee0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNO';
    expect(deriveTokenKey(token, 'refresh-replay')).toHaveLength(32);
    expect(deriveTokenKey(token, 'refresh-replay').equals(deriveTokenKey(token, 'other'))).toBe(false);
    // Never the token's stored hash, nor the key deriveKey gives the same token.
    expect(deriveTokenKey(token, 'refresh-replay').toString('base64url')).not.toBe(hashToken(token));
    expect(deriveTokenKey(token, 'refresh-replay').equals(deriveKey(token, 'refresh-replay'))).toBe(false);
  });

  it('opens what it sealed, and nothing with another key or other associated data', () => {
    const key = deriveKey('secret', 'test');
    const sealed = seal(key, 'hello ✓', 'aad');
    expect(unseal(key, sealed, 'aad')).toBe('hello ✓');
    expect(() => unseal(deriveKey('secret', 'other'), sealed, 'aad')).toThrow();
    expect(() => unseal(key, sealed, 'other')).toThrow();
  });

  it('opens with whichever of several keys sealed it (a secret and the one before), and answers undefined when none did or the value is not sealed', () => {
    const [current, previous, other] = ['new', 'old', 'other'].map((secret) => deriveKey(secret, 'test')) as [Buffer, Buffer, Buffer];
    expect(unsealWithAny([current, previous], seal(previous, 'made before', 'aad'), 'aad')).toBe('made before');
    expect(unsealWithAny([current, previous], seal(current, 'made now', 'aad'), 'aad')).toBe('made now');
    expect(unsealWithAny([current, previous], seal(other, 'made elsewhere', 'aad'), 'aad')).toBeUndefined();
    expect(unsealWithAny([current, previous], seal(previous, 'bound elsewhere', 'other'), 'aad')).toBeUndefined();
    expect(unsealWithAny([current], 'not.a.sealed.value')).toBeUndefined();
  });
});
