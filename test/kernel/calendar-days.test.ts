// Calendar days as numbers and ISO dates (src/kernel/calendar-days.ts): the integer conversion must give
// exactly what the JavaScript Date gives, on every day from 1600 to 2400 and at the edges of the years ISO
// writes with four digits.
import { describe, expect, it } from 'vitest';
import { DAY_MS, dayNumber, dayString, utcDayOf, weekdayOf } from '../../src/kernel/calendar-days.js';

const byDate = (n: number) => new Date(n * DAY_MS).toISOString().slice(0, 10);

describe('calendar days', () => {
  it('writes every day from 1600 to 2400 as Date writes it, and reads it back to its number', () => {
    let days = 0;
    for (let n = dayNumber('1600-01-01'); n <= dayNumber('2400-12-31'); n++) {
      const day = dayString(n);
      if (day !== byDate(n)) expect(day, `day ${n}`).toBe(byDate(n));
      if (dayNumber(day) !== n) expect(dayNumber(day), day).toBe(n);
      days += 1;
    }
    expect(days).toBe(292_560); // 801 years of 365.2425 days
  });

  it('writes the leap days of centuries and the first and last four-digit years as Date does', () => {
    for (const day of ['1700-02-28', '1700-03-01', '2000-02-29', '2100-02-28', '2100-03-01', '1969-12-31', '1970-01-01'])
      expect(dayString(dayNumber(day))).toBe(day);
    for (const n of [dayNumber('0000-01-01'), dayNumber('0000-01-01') - 1, dayNumber('9999-12-31'), dayNumber('9999-12-31') + 1])
      expect(dayString(n)).toBe(byDate(n));
  });

  it('gives the UTC date of a moment as Date does, at the edges of days, before and after 1970', () => {
    for (const day of ['1969-12-31', '1970-01-01', '2000-02-29', '2026-11-28'])
      for (const ms of [dayNumber(day) * DAY_MS, dayNumber(day) * DAY_MS + DAY_MS - 1, dayNumber(day) * DAY_MS + 12_345_678]) {
        expect(utcDayOf(ms)).toBe(day);
        expect(utcDayOf(ms)).toBe(new Date(ms).toISOString().slice(0, 10));
      }
  });

  it('names the day of the week, Monday 0, before and after 1970', () => {
    for (let n = dayNumber('1969-01-01'); n <= dayNumber('1971-12-31'); n++)
      expect(weekdayOf(n), byDate(n)).toBe((new Date(n * DAY_MS).getUTCDay() + 6) % 7);
  });
});
