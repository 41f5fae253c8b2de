// The successors of a rotated refresh token are computed again for a retry within the grace window, also by a
// process of a later release: their derivation must not change with how the key is held in memory.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { secretKeyObjects, secretKeys } from '../../src/keys/secret-keys.js';
import { successorTokens } from '../../src/oauth/tokens/token-format.js';

describe('refresh successor derivation', () => {
  const config = { secret: 'a-secret-of-this-deployment-with-enough-length', previousSecret: 'the-secret-it-had-before-the-change' };
  const used = `sgr_0192f3a4b5c6${'x'.repeat(43)}`;
  const mintedAt = 0x0192f3a4b5c7;

  it('is HMAC-SHA512 of the used token under the refresh-successors key of each secret, halves as the two new tokens', () => {
    const objects = secretKeyObjects(config, 'refresh-successors');
    const buffers = secretKeys(config, 'refresh-successors');
    expect(objects).toHaveLength(2);
    objects.forEach((key, i) => {
      const bits = createHmac('sha512', buffers[i] as Buffer)
        .update(used)
        .digest();
      expect(successorTokens(key, used, mintedAt)).toEqual({
        accessToken: `sga_0192f3a4b5c7${bits.toString('base64url', 0, 32)}`,
        refreshToken: `sgr_0192f3a4b5c7${bits.toString('base64url', 32, 64)}`,
      });
    });
  });

  it('gives different successors under the previous secret, and for another used token', () => {
    const [current, previous] = secretKeyObjects(config, 'refresh-successors');
    const mine = successorTokens(current, used, mintedAt);
    expect(successorTokens(previous as NonNullable<typeof previous>, used, mintedAt)).not.toEqual(mine);
    expect(successorTokens(current, `${used.slice(0, -1)}y`, mintedAt).refreshToken).not.toBe(mine.refreshToken);
  });
});
