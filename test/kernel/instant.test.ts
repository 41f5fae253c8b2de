import { describe, expect, it } from 'vitest';
import { isoInstant } from '../../src/kernel/instant.js';

describe('isoInstant writes an instant exactly as Date#toISOString does', () => {
  it('at the edges of a day, a second and a millisecond, and of the range it computes itself', () => {
    const edges = [
      0,
      1,
      9,
      10,
      99,
      100,
      999,
      1000,
      59_999,
      60_000,
      3_599_999,
      3_600_000,
      86_399_999,
      86_400_000,
      Date.UTC(2024, 1, 29, 23, 59, 59, 999),
      Date.UTC(2026, 2, 1, 17, 0, 0, 0),
      Date.UTC(2100, 0, 1),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    ];
    for (const ms of edges) expect(isoInstant(ms), String(ms)).toBe(new Date(ms).toISOString());
  });

  it('outside that range (before 1970, year 10000 on, fractions of a millisecond) by toISOString itself', () => {
    for (const ms of [-1, -86_400_001, Date.UTC(10000, 0, 1), 8.64e15, 1.5, 1_700_000_000_000.25])
      expect(isoInstant(ms), String(ms)).toBe(new Date(ms).toISOString());
    expect(() => isoInstant(Number.NaN)).toThrow(RangeError);
  });

  it('for many instants spread over centuries', () => {
    // A fixed linear congruential sequence: the same instants on every run.
    let x = 12_345;
    for (let i = 0; i < 20_000; i++) {
      x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
      const ms = Math.floor((x / 2_147_483_648) * 7_000_000_000_000) + (i % 1000);
      expect(isoInstant(ms)).toBe(new Date(ms).toISOString());
    }
  });
});
