// The daily roll-ups behind analytics (ARCHITECTURE: "Analytics reads from roll-ups kept in step by the
// writes that change them", one module). Each sum is booked on the site's local day of the event; the
// learner-days set answers distinct active learners. `rebuildRollups` computes the same rows from the
// source records (orders, refunds, enrollments, progress): the demo seed uses it, and a test proves the
// incremental bookings equal it.
import { type Kysely, sql } from 'kysely';
import type { Database } from '../storage/schema.js';
import { writeActivity } from './learner-activity.js';
import { DEFAULT_SETTINGS } from './settings.repository.js';

export const SUM_METRICS = ['revenue', 'refunds', 'orders', 'new_enrollments', 'completions'] as const;
export type SumMetric = (typeof SUM_METRICS)[number];

const formatters = new Map<string, Intl.DateTimeFormat>();

/** YYYY-MM-DD of an instant in a time zone. */
export function localDay(ms: number, timeZone: string): string {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    formatters.set(timeZone, f);
  }
  return f.format(ms);
}

export async function siteTimeZone(db: Kysely<Database>, siteId: string): Promise<string> {
  const row = await db.selectFrom('site_settings').select('time_zone').where('site_id', '=', siteId).executeTakeFirst();
  return row?.time_zone ?? DEFAULT_SETTINGS.timeZone;
}

export const productDim = (type: string, id: string) => `product:${type}:${id}`;
export const courseDim = (id: string) => `course:${id}`;

/** The dimension of the whole school. */
export const SCHOOL = '';

/** Adds `by` to a metric on a day for each of `dims` (SCHOOL for the whole school). */
export async function book(
  db: Kysely<Database>,
  siteId: string,
  metric: SumMetric,
  day: string,
  by: number,
  dims: readonly string[],
): Promise<void> {
  if (by === 0) return;
  for (const dim of dims) {
    await db
      .insertInto('daily_rollups')
      .values({ site_id: siteId, metric, dim, day, value: by })
      .onConflict((oc) => oc.columns(['site_id', 'metric', 'dim', 'day']).doUpdateSet({ value: sql`daily_rollups.value + ${by}` }))
      .execute();
  }
}

/** Splits a discount over lines in proportion to their amounts; the last line takes the rounding rest. */
export function lineRevenue(amounts: readonly number[], total: number): number[] {
  const subtotal = amounts.reduce((a, b) => a + b, 0);
  if (subtotal === 0) return amounts.map(() => 0);
  const shares = amounts.map((a) => Math.floor((a * total) / subtotal));
  const rest = total - shares.reduce((a, b) => a + b, 0);
  if (shares.length > 0) shares[shares.length - 1] = (shares.at(-1) ?? 0) + rest;
  return shares;
}

type Key = string;
const keyOf = (metric: string, dim: string, day: string): Key => `${metric}\u0000${dim}\u0000${day}`;

/** Every roll-up row of a site, computed from the source records; replaces what is stored. */
export async function rebuildRollups(db: Kysely<Database>, siteId: string): Promise<void> {
  const zone = await siteTimeZone(db, siteId);
  const sums = new Map<Key, number>();
  const add = (metric: SumMetric, day: string, by: number, dims: readonly string[] = []) => {
    for (const dim of ['', ...dims]) sums.set(keyOf(metric, dim, day), (sums.get(keyOf(metric, dim, day)) ?? 0) + by);
  };
  const active = new Map<string, Set<string>>();
  const activeOn = (day: string, person: string) => active.set(day, (active.get(day) ?? new Set()).add(person));

  // Orders a chunk at a time, so a million of them never sit in memory at once.
  let after = '';
  for (;;) {
    const orders = await db
      .selectFrom('orders')
      .select(['id', 'total_cents', 'paid_at'])
      .where('site_id', '=', siteId)
      .where('id', '>', after)
      .where('paid_at', 'is not', null)
      .orderBy('id')
      .limit(5000)
      .execute();
    if (orders.length === 0) break;
    after = orders.at(-1)?.id ?? after;
    const lines = await db
      .selectFrom('order_lines')
      .select(['order_id', 'product_type', 'product_id', 'amount_cents'])
      .where(
        'order_id',
        'in',
        orders.map((o) => o.id),
      )
      .orderBy('order_id')
      .orderBy('id')
      .execute();
    const byOrder = new Map<string, typeof lines>();
    for (const l of lines) byOrder.set(l.order_id, [...(byOrder.get(l.order_id) ?? []), l]);
    for (const o of orders) {
      const day = localDay(Number(o.paid_at), zone);
      const own = byOrder.get(o.id) ?? [];
      const shares = lineRevenue(
        own.map((l) => Number(l.amount_cents)),
        Number(o.total_cents),
      );
      add('revenue', day, Number(o.total_cents));
      add('orders', day, 1);
      own.forEach((l, i) => {
        const dim = productDim(l.product_type, l.product_id);
        sums.set(keyOf('revenue', dim, day), (sums.get(keyOf('revenue', dim, day)) ?? 0) + (shares[i] ?? 0));
        sums.set(keyOf('orders', dim, day), (sums.get(keyOf('orders', dim, day)) ?? 0) + 1);
      });
    }
  }
  for (const r of await db.selectFrom('refunds').select(['amount_cents', 'at']).where('site_id', '=', siteId).execute())
    add('refunds', localDay(Number(r.at), zone), Number(r.amount_cents));
  for (const e of await db
    .selectFrom('enrollments')
    .select(['course_id', 'started_at', 'completed_at', 'person_id', 'last_activity_at'])
    .where('site_id', '=', siteId)
    .execute()) {
    add('new_enrollments', localDay(Number(e.started_at), zone), 1, [courseDim(e.course_id)]);
    if (e.completed_at !== null) add('completions', localDay(Number(e.completed_at), zone), 1, [courseDim(e.course_id)]);
    if (e.last_activity_at !== null) activeOn(localDay(Number(e.last_activity_at), zone), e.person_id);
  }
  const progress = await db
    .selectFrom('lecture_progress as p')
    .innerJoin('enrollments as e', 'e.id', 'p.enrollment_id')
    .select(['p.completed_at', 'e.person_id'])
    .where('p.site_id', '=', siteId)
    .execute();
  for (const p of progress) activeOn(localDay(Number(p.completed_at), zone), p.person_id);

  await db.deleteFrom('daily_rollups').where('site_id', '=', siteId).execute();
  const rows = [...sums].map(([key, value]) => {
    const [metric, dim, day] = key.split('\u0000') as [string, string, string];
    return { site_id: siteId, metric, dim, day, value };
  });
  for (let i = 0; i < rows.length; i += 500)
    await db
      .insertInto('daily_rollups')
      .values(rows.slice(i, i + 500))
      .execute();
  await writeActivity(db, siteId, active);
}

/** The instant a local day starts in a time zone (daylight-saving aware). */
export function localMidnight(day: string, timeZone: string): number {
  const utc = Date.parse(`${day}T00:00:00Z`);
  // The zone's offset at that moment, read back through the formatter; once more at the corrected instant.
  const offsetAt = (ms: number) => {
    const parts = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    }).formatToParts(ms);
    const get = (t: string) => Number(parts.find((p) => p.type === t)?.value);
    return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) - ms;
  };
  const first = utc - offsetAt(utc);
  return utc - offsetAt(first);
}
