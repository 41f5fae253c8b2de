// Instants written as ISO 8601 in UTC (`2026-03-01T17:00:00.000Z`), the form the member API's DateTime and
// the tools' dates use. `Date#toISOString` costs about 1 µs a call on this machine and a member's page writes
// a few per row; this writes the same text in a tenth of that: the date part of a day is kept (a page's
// instants fall on few days), the time of day is arithmetic.

import { DAY_MS, dayString, twoDigits as two } from './calendar-days.js';

/** 10000-01-01T00:00:00Z: from there on the year has five digits and a sign, which toISOString writes. */
const YEAR_10000_MS = 253_402_300_800_000;
/** Days whose date part is kept; past it the cache starts over. */
const DAYS_KEPT = 4096;

const dateParts = new Map<number, string>();

function datePart(day: number): string {
  let text = dateParts.get(day);
  if (text === undefined) {
    text = `${dayString(day)}T`;
    if (dateParts.size >= DAYS_KEPT) dateParts.clear();
    dateParts.set(day, text);
  }
  return text;
}

const three = (n: number): string => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/** The instant `ms` (milliseconds since the epoch) as `YYYY-MM-DDTHH:mm:ss.sssZ`, exactly as toISOString writes it. */
export function isoInstant(ms: number): string {
  // Before 1970, at year 10000 and after, and fractions: toISOString itself (and its RangeError for NaN).
  if (!Number.isSafeInteger(ms) || ms < 0 || ms >= YEAR_10000_MS) return new Date(ms).toISOString();
  const day = Math.floor(ms / DAY_MS);
  let rest = ms - day * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  return `${datePart(day)}${two(hours)}:${two(minutes)}:${two(seconds)}.${three(rest - seconds * 1000)}Z`;
}
