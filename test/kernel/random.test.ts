// Tokens, ids and nonces come from a pool filled by the CSPRNG (kernel/random.ts): every value is fresh,
// of the length asked for, and the pool holds no byte it has handed out.
import { describe, expect, it } from 'vitest';
import { newId, randomBuffer, randomSecret } from '../../src/kernel/random.js';

describe('pooled randomness', () => {
  it('never repeats a secret, across many refills of the pool, and gives 256 bits as 43 base64url characters', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      const secret = randomSecret();
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      seen.add(secret);
    }
    expect(seen.size).toBe(20_000);
  });

  it('serves odd sizes across the pool boundary and large sizes directly, each exactly as long as asked', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2_000; i++) {
      const size = 1 + (i % 97);
      const bytes = randomBuffer(size);
      expect(bytes.length).toBe(size);
      seen.add(bytes.toString('hex'));
    }
    // Sizes of a few bytes may collide by chance; sizes of 8 bytes and more must not.
    expect(seen.size).toBeGreaterThan(2_000 - 200);
    expect(randomBuffer(100_000).length).toBe(100_000);
    expect(Buffer.from(randomSecret(64), 'base64url').length).toBe(64);
  });

  it('gives each buffer its own memory: changing one changes no other value', () => {
    const a = randomBuffer(16);
    const b = randomBuffer(16);
    const copyOfB = Buffer.from(b);
    a.fill(0);
    expect(b.equals(copyOfB)).toBe(true);
    expect(b.equals(Buffer.alloc(16))).toBe(false);
  });

  it('makes readable row ids with 96 random bits', () => {
    const id = newId('per');
    expect(id).toMatch(/^per_[A-Za-z0-9_-]{16}$/);
    expect(newId('per')).not.toBe(id);
  });
});
