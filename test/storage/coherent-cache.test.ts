// The coherent cache's synchronous read (issue 12: hot paths answer from memory without a promise or a
// timer): `peek` gives only what `get` would give from memory: nothing before a load, the value after it,
// nothing once a flush signal arrived, and nothing while the signals cannot be relied on (PostgreSQL
// without Redis).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/kernel/clock.js';
import { CoherentCache } from '../../src/storage/coherent-cache.js';
import { openStore, type Store } from '../../src/storage/connect.js';
import { createRevocationSignals, type RevocationSignals } from '../../src/storage/revocation-signals.js';

describe('coherent cache peek', () => {
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

  it('answers from memory only what a load put there, and forgets it on a flush', async () => {
    const cache = new CoherentCache<{ name: string }>(signals, systemClock);
    expect(cache.peek('p1')).toBeUndefined();
    expect(await cache.get('p1', async () => ({ name: 'Ada' }))).toEqual({ name: 'Ada' });
    expect(cache.peek('p1')).toEqual({ name: 'Ada' });
    await signals.publish({ kind: 'flush' });
    expect(cache.peek('p1')).toBeUndefined();
  });

  it('when full, forgets the entry it has kept longest, not every entry', async () => {
    const cache = new CoherentCache<number>(signals, systemClock, 60_000, 3);
    for (const [i, key] of ['a', 'b', 'c', 'd'].entries()) await cache.get(key, async () => i);
    expect(['a', 'b', 'c', 'd'].map((key) => cache.peek(key))).toEqual([undefined, 1, 2, 3]);
  });

  it('keeps nothing while the signals cannot be relied on', async () => {
    // What a PostgreSQL deployment without Redis gets: signals that cannot reach other processes.
    const unreliable = createRevocationSignals({ ...store, externalWriteVersion: undefined }, undefined);
    expect(unreliable.reliable()).toBe(false);
    const cache = new CoherentCache<{ name: string }>(unreliable, systemClock);
    expect(await cache.get('p2', async () => ({ name: 'Bo' }))).toEqual({ name: 'Bo' });
    expect(cache.peek('p2')).toBeUndefined();
  });
});
