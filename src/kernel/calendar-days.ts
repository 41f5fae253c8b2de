// Calendar days as numbers (days since 1970-01-01, so ranges can be shifted and stepped) and as ISO
// dates (YYYY-MM-DD), the one conversion the analytics' buckets and the learners' activity periods share.
export const DAY_MS = 86_400_000;

/** The day number of an ISO date (UTC midnight of that calendar date). */
export function dayNumber(day: string): number {
  return Date.parse(`${day}T00:00:00Z`) / DAY_MS;
}

/** A number under 100 in two digits, as dates and times write it. */
export const twoDigits = (n: number): string => (n < 10 ? `0${n}` : `${n}`);

/**
 * The ISO date of a day number. Worked out with integers (the proleptic Gregorian calendar in 400-year
 * eras, as in H. Hinnant's `civil_from_days`): a year of daily buckets converts 366 days per request, and
 * `Date#toISOString` took 0.8 µs a day. Years outside 0-9999, which ISO writes with a sign, go through `Date`.
 */
export function dayString(n: number): string {
  const z = n + 719_468; // days from 0000-03-01
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  if (year < 0 || year > 9999) return new Date(n * DAY_MS).toISOString().slice(0, 10);
  return `${String(year).padStart(4, '0')}-${twoDigits(month)}-${twoDigits(day)}`;
}

/** The UTC calendar date of a moment (milliseconds since 1970). */
export function utcDayOf(ms: number): string {
  return dayString(Math.floor(ms / DAY_MS));
}

/** The day of the week of a day number, Monday 0 to Sunday 6 (day 0, 1970-01-01, was a Thursday). */
export function weekdayOf(n: number): number {
  return (((n + 3) % 7) + 7) % 7;
}
