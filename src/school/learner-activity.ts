// Distinct active learners over any range of days, exactly and fast (issue 9: analytics "stays fast as
// the school grows"). Distinct counts do not add up over days, and counting distinct people in a year of
// activity rows means touching every row. Instead each learner of a site gets a small number, and each
// local day and month keeps a bitmap of the numbers active in it: a range is the OR of a few month
// bitmaps and the day bitmaps at its ragged ends, and the answer is the count of bits set. A school of
// 100,000 learners needs 12.5 KB per bitmap; a year is at most 12 month, 8 week and 24 day bitmaps.
import { createHash } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { setBounded } from '../kernel/bounded-map.js';
import { DAY_MS, dayNumber, dayString, weekdayOf } from '../kernel/calendar-days.js';
import type { Database } from '../storage/schema.js';

export const monthOf = (day: string) => day.slice(0, 7);

/** 32-bit words of a bitmap, zero-padded (stored blobs may start at any byte offset). */
function words(map: Uint8Array): Uint32Array {
  if (map.byteOffset % 4 === 0 && map.length % 4 === 0) return new Uint32Array(map.buffer, map.byteOffset, map.length / 4);
  const padded = new Uint8Array(Math.ceil(map.length / 4) * 4);
  padded.set(map);
  return new Uint32Array(padded.buffer);
}

/** Bitwise OR of bitmaps of any lengths, a word at a time. */
export function orBitmaps(maps: readonly Uint8Array[]): Uint8Array {
  const length = Math.ceil(Math.max(0, ...maps.map((m) => m.length)) / 4);
  const out = new Uint32Array(length);
  for (const m of maps) {
    const w = words(m);
    for (let i = 0; i < w.length; i++) out[i] = (out[i] ?? 0) | (w[i] ?? 0);
  }
  return new Uint8Array(out.buffer);
}

/** Set bits, counted a word at a time (SWAR popcount). */
export function countBits(map: Uint8Array): number {
  const w = words(map);
  let n = 0;
  for (let i = 0; i < w.length; i++) {
    let v = w[i] ?? 0;
    v = v - ((v >>> 1) & 0x55555555);
    v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
    n += (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
  }
  return n;
}

export function withBit(map: Uint8Array, bit: number): Uint8Array {
  const byte = bit >> 3;
  const out = map.length > byte ? map : Uint8Array.from({ length: byte + 1 }, (_, i) => map[i] ?? 0);
  out[byte] = (out[byte] ?? 0) | (1 << (bit & 7));
  return out;
}

/** The week a day falls in, named by its Monday: `W2026-11-23`. */
export function weekOf(day: string): string {
  const n = dayNumber(day);
  return `W${dayString(n - weekdayOf(n))}`;
}

/**
 * The periods whose bitmaps cover [from, to] exactly, as few as fit: whole months inside the range by
 * their month bitmap, whole weeks (Monday to Sunday) that do not hold the start of such a month by their
 * week bitmap, the other days by their own. A year is at most 12 months, 8 weeks and 24 days.
 */
export function coveringPeriods(from: string, to: string): readonly string[] {
  const key = `${from}/${to}`;
  const known = coverings.get(key);
  if (known) return known;
  const periods = periodsCovering(from, to);
  setBounded(coverings, key, periods, COVERINGS_KEPT);
  return periods;
}

/** The same ranges come back request after request (this year, the year before), and working one out takes 80 µs. */
const COVERINGS_KEPT = 1_000;
const coverings = new Map<string, readonly string[]>();

function periodsCovering(from: string, to: string): string[] {
  const periods: string[] = [];
  let n = dayNumber(from);
  const last = dayNumber(to);
  const monthEnd = (m: number) => {
    const d = new Date(m * DAY_MS);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / DAY_MS - 1;
  };
  while (n <= last) {
    const day = dayString(n);
    const monday = weekdayOf(n) === 0;
    if (day.endsWith('-01') && monthEnd(n) <= last) {
      periods.push(monthOf(day));
      n = monthEnd(n) + 1;
      continue;
    }
    // A week is taken only when no whole month starts inside it, so months stay aligned.
    const monthStartsInside = [1, 2, 3, 4, 5, 6].some((k) => dayString(n + k).endsWith('-01') && monthEnd(n + k) <= last);
    if (monday && n + 6 <= last && !monthStartsInside) {
      periods.push(weekOf(day));
      n += 7;
      continue;
    }
    periods.push(day);
    n++;
  }
  return periods;
}

/** The digest stored beside a bitmap: equal digests, equal bits. */
export function bitmapDigest(bits: Uint8Array): string {
  return createHash('sha256').update(bits).digest('base64url').slice(0, 22);
}

/**
 * Bitmaps this process has read, by site and period, least recently used first. A past period's bitmap
 * rarely changes, so the store is asked for bits only where its digest differs from the copy here: every
 * answer is the stored truth (no invalidation to miss across nodes), and a year's overview moves a few
 * hundred bytes instead of 550 KB at 100,000 learners. Bounded by bytes, per store.
 */
const CACHE_BYTES = 64 * 1024 * 1024;
interface CachedBitmap {
  digest: string;
  bits: Uint8Array;
}
/** Distinct counts kept, by the digests of the bitmaps they were counted from. */
const COUNTS_KEPT = 1_000;
class BitmapCache {
  private readonly entries = new Map<string, CachedBitmap>();
  private bytes = 0;
  /**
   * A range's count by its bitmaps' digests: equal digests, equal bits, so the same count, and a past
   * year's overview need not OR half a megabyte again each time (0.35 ms at 100,000 learners).
   */
  readonly counts = new Map<string, number>();
  get(key: string): CachedBitmap | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }
  set(key: string, entry: CachedBitmap): void {
    const before = this.entries.get(key);
    if (before) this.bytes -= before.bits.length;
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.bytes += entry.bits.length;
    for (const [oldest, value] of this.entries) {
      if (this.bytes <= CACHE_BYTES) break;
      this.entries.delete(oldest);
      this.bytes -= value.bits.length;
    }
  }
}
const caches = new WeakMap<Kysely<Database>, BitmapCache>();

function cacheOf(db: Kysely<Database>): BitmapCache {
  let cache = caches.get(db);
  if (!cache) {
    cache = new BitmapCache();
    caches.set(db, cache);
  }
  return cache;
}

async function bitmaps(db: Kysely<Database>, siteId: string, periods: readonly string[]): Promise<Map<string, CachedBitmap>> {
  if (periods.length === 0) return new Map();
  const cache = cacheOf(db);
  const key = (period: string) => `${siteId}\n${period}`;
  // The copies named in the query, kept here so an eviction while it runs cannot lose one.
  const held = new Map<string, CachedBitmap>();
  for (const period of periods) {
    const entry = cache.get(key(period));
    if (entry) held.set(period, entry);
  }
  const same = [...held].map(([period, entry]) => sql`(period = ${period} and digest = ${entry.digest})`);
  const bits =
    same.length === 0 ? sql<Buffer | null>`bits` : sql<Buffer | null>`case when ${sql.join(same, sql` or `)} then null else bits end`;
  const rows = await db
    .selectFrom('activity_bitmaps')
    .select(['period', 'digest', bits.as('bits')])
    .where('site_id', '=', siteId)
    .where('period', 'in', [...periods])
    .execute();
  const found = new Map<string, CachedBitmap>();
  for (const row of rows) {
    const copy = held.get(row.period);
    if (row.bits === null && copy) {
      found.set(row.period, copy);
      continue;
    }
    if (row.bits === null) throw new Error(`bitmap ${row.period} was withheld without a copy here`);
    const fresh = { digest: row.digest, bits: new Uint8Array(row.bits) };
    cache.set(key(row.period), fresh);
    found.set(row.period, fresh);
  }
  return found;
}

/** Distinct learners active in each of the ranges (inclusive local days), reading each bitmap once. */
export async function distinctActiveBy(
  db: Kysely<Database>,
  siteId: string,
  ranges: ReadonlyArray<{ from: string; to: string }>,
): Promise<number[]> {
  const covering = ranges.map((r) => coveringPeriods(r.from, r.to));
  const found = await bitmaps(db, siteId, [...new Set(covering.flat())]);
  const { counts } = cacheOf(db);
  return covering.map((periods) => {
    const present = periods.flatMap((p) => found.get(p) ?? []);
    if (present.length === 0) return 0;
    const key = `${siteId}\n${present.map((b) => b.digest).join(',')}`;
    const known = counts.get(key);
    if (known !== undefined) return known;
    const n = countBits(orBitmaps(present.map((b) => b.bits)));
    setBounded(counts, key, n, COUNTS_KEPT);
    return n;
  });
}

/** The learner numbers of a site, assigned in a fixed order of person ids (rebuilds give the same). */
export async function writeActivity(db: Kysely<Database>, siteId: string, active: ReadonlyMap<string, ReadonlySet<string>>): Promise<void> {
  const people = [...new Set([...active.values()].flatMap((s) => [...s]))].sort();
  const number = new Map(people.map((p, i) => [p, i]));
  const maps = new Map<string, Uint8Array>();
  for (const [day, persons] of active) {
    for (const period of [day, weekOf(day), monthOf(day)]) {
      let map = maps.get(period) ?? new Uint8Array(0);
      for (const p of persons) map = withBit(map, number.get(p) ?? 0);
      maps.set(period, map);
    }
  }
  await db.deleteFrom('learner_numbers').where('site_id', '=', siteId).execute();
  await db.deleteFrom('activity_bitmaps').where('site_id', '=', siteId).execute();
  const numbered = people.map((person_id, no) => ({ site_id: siteId, person_id, no }));
  for (let i = 0; i < numbered.length; i += 500)
    await db
      .insertInto('learner_numbers')
      .values(numbered.slice(i, i + 500))
      .execute();
  const rows = [...maps].map(([period, bits]) => ({ site_id: siteId, period, bits: Buffer.from(bits), digest: bitmapDigest(bits) }));
  for (let i = 0; i < rows.length; i += 100)
    await db
      .insertInto('activity_bitmaps')
      .values(rows.slice(i, i + 100))
      .execute();
}
