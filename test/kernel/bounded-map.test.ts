import { describe, expect, it } from 'vitest';
import { setBounded } from '../../src/kernel/bounded-map.js';

describe('setBounded: a bounded cache forgets the key set longest ago, never all of them', () => {
  it('keeps at most max keys, dropping the oldest when a new key comes to a full map', () => {
    const map = new Map<string, number>();
    for (const [i, key] of ['a', 'b', 'c'].entries()) setBounded(map, key, i, 3);
    setBounded(map, 'd', 3, 3);
    expect([...map.keys()]).toEqual(['b', 'c', 'd']);
  });

  it('a key set again moves to the end and evicts nothing', () => {
    const map = new Map<string, number>();
    for (const [i, key] of ['a', 'b', 'c'].entries()) setBounded(map, key, i, 3);
    setBounded(map, 'a', 10, 3);
    expect([...map.entries()]).toEqual([
      ['b', 1],
      ['c', 2],
      ['a', 10],
    ]);
    setBounded(map, 'd', 3, 3);
    expect([...map.keys()]).toEqual(['c', 'a', 'd']);
  });
});
