// The bearer check's cache of access-token rows (oauth/tokens/access-token-cache.ts): bounded, and when
// full it forgets the row it kept longest, never every row at once; a revocation signal still reaches
// every row of a grant that is kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/kernel/clock.js';
import { AccessTokenCache } from '../../src/oauth/tokens/access-token-cache.js';
import { openStore, type Store } from '../../src/storage/connect.js';
import { createRevocationSignals, type RevocationSignals } from '../../src/storage/revocation-signals.js';
import type { AccessTokensTable } from '../../src/storage/schema.js';

function row(tokenHash: string, grantId: string): AccessTokensTable {
  const now = Date.now();
  return {
    token_hash: tokenHash,
    site_id: 'site',
    grant_id: grantId,
    client_id: 'client',
    person_id: 'person',
    scope: 'openid',
    resource: 'http://localhost',
    created_at: now,
    expires_at: now + 600_000,
    revoked_at: null,
  };
}

describe('access-token cache bound', () => {
  let store: Store;
  let signals: RevocationSignals;
  beforeAll(() => {
    store = openStore('sqlite::memory:');
    signals = createRevocationSignals(store, undefined);
  });
  afterAll(async () => {
    await signals?.close();
    await store?.close();
  });

  it('when full, forgets the row it has kept longest, not every row', () => {
    const cache = new AccessTokenCache(signals, systemClock, 3);
    for (const [hash, grant] of [
      ['a', 'g1'],
      ['b', 'g1'],
      ['c', 'g2'],
    ] as const)
      cache.set(hash, row(hash, grant));
    // Kept again while full: nothing is forgotten for a row already held.
    cache.set('b', row('b', 'g1'));
    expect(['a', 'b', 'c'].map((hash) => cache.get(hash)?.token_hash)).toEqual(['a', 'b', 'c']);
    cache.set('d', row('d', 'g3'));
    expect(['a', 'b', 'c', 'd'].map((hash) => cache.get(hash)?.token_hash)).toEqual([undefined, 'b', 'c', 'd']);
  });

  it('still forgets every kept row of a revoked grant after rows of it were forgotten for room', async () => {
    const cache = new AccessTokenCache(signals, systemClock, 2);
    cache.set('a', row('a', 'g1'));
    cache.set('b', row('b', 'g1'));
    cache.set('c', row('c', 'g2'));
    await signals.publish({ kind: 'grant', grantId: 'g1' });
    expect(['a', 'b', 'c'].map((hash) => cache.get(hash)?.token_hash)).toEqual([undefined, undefined, 'c']);
  });
});
