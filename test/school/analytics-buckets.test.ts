// The buckets of a time series (school/analytics.repository.ts): every bucket start from the one holding
// `from` to the one holding `to`, and each day's place among them, as worked out day by day from the
// definition of a bucket (the day itself, the Monday of its week, the 1st of its month).
import { describe, expect, it } from 'vitest';
import { dayNumber, dayString } from '../../src/kernel/calendar-days.js';
import { bucketOf, buckets } from '../../src/school/analytics.repository.js';

describe('time series buckets', () => {
  it('starts each bucket where the definition does and places every day of the range in its own bucket, across weeks, months, years and 1970', () => {
    let ranges = 0;
    for (const interval of ['day', 'week', 'month'] as const) {
      // From before day 0 (a Thursday) to two years after, in steps that land on every weekday.
      for (let first = dayNumber('1969-11-20'); first < dayNumber('1972-01-01'); first += 37) {
        for (const length of [0, 1, 6, 7, 30, 31, 200, 400]) {
          const days = Array.from({ length: length + 1 }, (_, i) => dayString(first + i));
          const expected: string[] = [];
          for (const day of days) if (expected.at(-1) !== bucketOf(day, interval)) expected.push(bucketOf(day, interval));
          const { starts, placeOf } = buckets(days[0] ?? '', days.at(-1) ?? '', interval);
          expect(starts, `${interval} from ${days[0]}, ${length + 1} days`).toEqual(expected);
          for (const day of days) expect(starts[placeOf.get(day) ?? -1], `${interval} ${day}`).toBe(bucketOf(day, interval));
          expect(placeOf.size).toBe(days.length);
          ranges += 1;
        }
      }
    }
    expect(ranges).toBe(3 * 21 * 8);
  });

  it('knows the Monday of a week and the 1st of a month', () => {
    expect(bucketOf('1970-01-01', 'week')).toBe('1969-12-29');
    expect(bucketOf('2026-11-29', 'week')).toBe('2026-11-23');
    expect(bucketOf('2026-11-30', 'week')).toBe('2026-11-30');
    expect(bucketOf('2026-11-28', 'month')).toBe('2026-11-01');
    expect(bucketOf('2026-11-28', 'day')).toBe('2026-11-28');
  });
});
