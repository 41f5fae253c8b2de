// Migration 021: a range's orders summary adds the range's whole days and hours from sums that the orders'
// triggers keep per site, day, hour and status, and reads only its ragged ends from the orders; the orders
// list's total for a time range adds up the same. Every summary and total must equal one computed from the
// orders themselves, whoever writes them: orders placed one at a time or many in a
// statement, refunds, an order moved to another hour, deletions, a site's deletion, concurrent connections
// on PostgreSQL, and orders that existed before the migration.
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countOrders, type OrdersSummary, refundOrder, summarizeOrders } from '../../src/school/orders.repository.js';
import * as m021 from '../../src/storage/migrations/021-order-sums.js';
import type { Database } from '../../src/storage/schema.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { insertPerson, insertSite, openSchoolStore, type SchoolStore, TEST_NOW } from '../helpers/school-fixtures.js';

const HOUR = 3_600_000;
const MINUTE = 60_000;
const DAY = 24 * HOUR;
const START = TEST_NOW - 3 * DAY;
const STATUSES = ['paid', 'partially_refunded', 'refunded'] as const;
/** The first UTC midnight after START, inside the orders' span. */
const FIRST_DAY = Math.ceil(START / DAY) * DAY;

/** The summary the slow way: every order of the site read and summed here. */
async function expected(db: Kysely<Database>, siteId: string, from: number, to: number): Promise<OrdersSummary> {
  const rows = await db
    .selectFrom('orders')
    .where('site_id', '=', siteId)
    .select(['status', 'created_at', 'total_cents', 'discount_cents', 'refunded_cents'])
    .execute();
  const byStatus = { paid: 0, partially_refunded: 0, refunded: 0 };
  let gross = 0;
  let discount = 0;
  let refunded = 0;
  let orders = 0;
  for (const r of rows) {
    const at = Number(r.created_at);
    if (at < from || at >= to) continue;
    orders++;
    byStatus[r.status]++;
    gross += Number(r.total_cents);
    discount += Number(r.discount_cents);
    refunded += Number(r.refunded_cents);
  }
  return {
    orders,
    grossCents: gross,
    discountCents: discount,
    refundedCents: refunded,
    netCents: gross - refunded,
    averageOrderCents: orders === 0 ? 0 : Math.round(gross / orders),
    byStatus,
  };
}

/**
 * Ranges that start and end on hours, inside hours, across many hours, within one hour, over no
 * orders, and 40 more from a fixed pseudo-random sequence (the same every run).
 */
function ranges(): Array<[number, number]> {
  const fixed: Array<[number, number]> = [
    [0, 8_000_000_000_000],
    [START, START + 24 * HOUR],
    [START + 5 * HOUR, START + 6 * HOUR],
    [START + 5 * HOUR + 7 * MINUTE, START + 5 * HOUR + 49 * MINUTE],
    [START + 2 * HOUR + 59 * MINUTE, START + 3 * HOUR + MINUTE],
    [START + 30 * MINUTE, START + 70 * HOUR + 11 * MINUTE],
    [START - 10 * HOUR, START - HOUR],
    [FIRST_DAY, FIRST_DAY + DAY],
    [FIRST_DAY, FIRST_DAY + 3 * DAY],
    // From one midnight to another in UTC+1 and UTC+5:30: whole days inside, whole hours and minutes at the ends.
    [FIRST_DAY - HOUR, FIRST_DAY + 2 * DAY - HOUR],
    [FIRST_DAY - 5 * HOUR - 30 * MINUTE, FIRST_DAY + 2 * DAY - 5 * HOUR - 30 * MINUTE],
  ];
  let seed = 20261127;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  for (let i = 0; i < 40; i++) {
    const a = START - 2 * HOUR + Math.floor(next() * 80 * HOUR);
    fixed.push([a, a + 1 + Math.floor(next() * 72 * HOUR)]);
  }
  return fixed;
}

/**
 * Every range's summary, and the orders list's totals for it (GET /orders?from=&to=, with and without a
 * status, and open at either end), which add up the same sums.
 */
async function expectSummariesAgree(db: Kysely<Database>, siteId: string): Promise<void> {
  const scope = { db, siteId };
  const END = 8_000_000_000_000;
  for (const [from, to] of ranges()) {
    const want = await expected(db, siteId, from, to);
    const answered = await summarizeOrders(scope, from, to);
    expect({ from, to, ...answered }).toEqual({ from, to, ...want });
    const totals = {
      all: await countOrders(scope, { from, to }),
      ...Object.fromEntries(
        await Promise.all(STATUSES.map(async (status) => [status, await countOrders(scope, { from, to, status })] as const)),
      ),
      since: await countOrders(scope, { from }),
      until: await countOrders(scope, { to }),
    };
    expect({ from, to, ...totals }).toEqual({
      from,
      to,
      all: want.orders,
      ...want.byStatus,
      since: (await expected(db, siteId, from, END)).orders,
      until: (await expected(db, siteId, 0, to)).orders,
    });
  }
}

let numbers = 0;
/** n orders of a site in one statement, 13 minutes apart from `at`, with varied amounts and discounts. */
async function placeOrders(db: Kysely<Database>, siteId: string, n: number, at: number): Promise<string[]> {
  const rows = Array.from({ length: n }, (_, i) => {
    numbers++;
    const total = 1000 + ((numbers * 373) % 9000);
    return {
      id: `ord_${numbers}`,
      site_id: siteId,
      number: numbers,
      person_id: 'per_buyer',
      status: 'paid' as const,
      currency: 'EUR',
      subtotal_cents: total + (numbers % 3) * 100,
      discount_cents: (numbers % 3) * 100,
      total_cents: total,
      refunded_cents: 0,
      coupon_code: null,
      created_at: at + i * 13 * MINUTE,
      paid_at: at + i * 13 * MINUTE,
    };
  });
  await db.insertInto('orders').values(rows).execute();
  return rows.map((r) => r.id);
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`orders summary from hourly sums (${dialect})`, () => {
    let s: SchoolStore;
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      numbers = 0;
      await insertSite(s.db, { id: 'site_a', name: 'A', origin: 'http://a.test', variant: 'A' });
      await insertSite(s.db, { id: 'site_b', name: 'B', origin: 'http://b.test', variant: 'A' });
      await insertPerson(s.db, { id: 'per_buyer', email: 'buyer@a.test', name: 'Buyer' });
    });
    afterAll(() => s?.close());

    it('a summary of any range agrees with the orders after orders placed one at a time and many in one statement', async () => {
      for (let i = 0; i < 5; i++) await placeOrders(s.db, 'site_a', 1, START + i * 37 * MINUTE);
      await placeOrders(s.db, 'site_a', 300, START + 11 * MINUTE);
      await placeOrders(s.db, 'site_b', 40, FIRST_DAY - 2 * HOUR);
      await expectSummariesAgree(s.db, 'site_a');
      await expectSummariesAgree(s.db, 'site_b');
      const all = await summarizeOrders({ db: s.db, siteId: 'site_a' }, 0, 8_000_000_000_000);
      expect(all.orders).toBe(305);
      expect(all.byStatus).toEqual({ paid: 305, partially_refunded: 0, refunded: 0 });
    });

    it('whole days and hours are read from the kept sums: a range of them counts what the sums say', async () => {
      // A sum row changed behind the triggers' back shows in a range of whole days or hours, and not in a
      // range inside one hour (read from the orders): proof of what the summary reads.
      const scope = { db: s.db, siteId: 'site_b' };
      const hour = FIRST_DAY / HOUR - 2; // site_b's orders span midnight from 22:00
      const day = FIRST_DAY / DAY;
      const inside = await summarizeOrders(scope, hour * HOUR + 1, (hour + 1) * HOUR - 1);
      const wholeHour = await summarizeOrders(scope, hour * HOUR, (hour + 1) * HOUR);
      const wholeDay = await summarizeOrders(scope, FIRST_DAY, FIRST_DAY + DAY);
      const bump = (unit: 'hour' | 'day', bucket: number, by: number) =>
        s.db
          .updateTable('order_sums')
          .set({ n: sql`n + ${by}` })
          .where('site_id', '=', 'site_b')
          .where('unit', '=', unit)
          .where('bucket', '=', bucket)
          .execute();
      await bump('hour', hour, 1000);
      await bump('day', day, 100);
      expect((await summarizeOrders(scope, hour * HOUR, (hour + 1) * HOUR)).orders).toBe(wholeHour.orders + 1000);
      expect((await summarizeOrders(scope, FIRST_DAY, FIRST_DAY + DAY)).orders).toBe(wholeDay.orders + 100);
      // The orders list's total for a range adds the same sums.
      expect(await countOrders(scope, { from: FIRST_DAY, to: FIRST_DAY + DAY })).toBe(wholeDay.orders + 100);
      expect(await summarizeOrders(scope, hour * HOUR + 1, (hour + 1) * HOUR - 1)).toEqual(inside);
      await bump('hour', hour, -1000);
      await bump('day', day, -100);
      await expectSummariesAgree(s.db, 'site_b');
    });

    it('refunds, a new amount, an order moved to another hour and updates of other columns keep every summary right', async () => {
      const scope = { db: s.db, siteId: 'site_a' };
      expect((await refundOrder(scope, 'ord_1', 100, 'partial', START + HOUR)).kind).toBe('refunded');
      const full = await s.db.selectFrom('orders').select('total_cents').where('id', '=', 'ord_7').executeTakeFirstOrThrow();
      expect((await refundOrder(scope, 'ord_7', Number(full.total_cents), 'all', START + HOUR)).kind).toBe('refunded');
      await s.db
        .updateTable('orders')
        .set({ status: 'refunded', refunded_cents: sql`total_cents` })
        .where('id', 'in', ['ord_20', 'ord_21', 'ord_22'])
        .execute();
      await s.db.updateTable('orders').set({ total_cents: sql`total_cents + 5` }).where('id', '=', 'ord_30').execute();
      await s.db
        .updateTable('orders')
        .set({ created_at: START + 50 * HOUR })
        .where('id', 'in', ['ord_40', 'ord_41'])
        .execute();
      // PostgreSQL: an update that changes no summed column writes no sum row (xmin unchanged).
      const versions = async () =>
        dialect === 'postgres'
          ? (await sql<{ v: string }>`select xmin::text as v from order_sums order by site_id, unit, bucket, status, slot`.execute(s.db))
              .rows
          : [];
      const before = await versions();
      await s.db.updateTable('orders').set({ coupon_code: 'SPRING' }).where('site_id', '=', 'site_a').execute();
      expect(await versions()).toEqual(before);
      await expectSummariesAgree(s.db, 'site_a');
      const all = await summarizeOrders(scope, 0, 8_000_000_000_000);
      expect(all.byStatus).toEqual({ paid: 300, partially_refunded: 1, refunded: 4 });
    });

    it('a deleted order and a deleted site take their sums with them; another site’s stay', async () => {
      await s.db.deleteFrom('orders').where('id', 'in', ['ord_1', 'ord_2', 'ord_100']).execute();
      await expectSummariesAgree(s.db, 'site_a');
      await insertSite(s.db, { id: 'site_c', name: 'C', origin: 'http://c.test', variant: 'A' });
      await placeOrders(s.db, 'site_c', 30, START);
      await s.db.deleteFrom('sites').where('id', '=', 'site_c').execute();
      expect((await summarizeOrders({ db: s.db, siteId: 'site_c' }, 0, 8_000_000_000_000)).orders).toBe(0);
      expect(await s.db.selectFrom('order_sums').where('site_id', '=', 'site_c').selectAll().execute()).toEqual([]);
      await expectSummariesAgree(s.db, 'site_b');
    });

    it('the migration sums the orders that existed before it', async () => {
      await m021.down(s.db);
      await placeOrders(s.db, 'site_a', 50, START + 7 * MINUTE);
      await m021.up(s.db);
      await expectSummariesAgree(s.db, 'site_a');
    });

    if (dialect === 'postgres') {
      it('concurrent orders and refunds on several connections each write their own slot, and every summary agrees', async () => {
        await Promise.all(Array.from({ length: 8 }, (_, i) => placeOrders(s.db, 'site_b', 10, START + i * MINUTE)));
        await Promise.all(
          ['ord_306', 'ord_307', 'ord_308', 'ord_309'].map((id) => refundOrder({ db: s.db, siteId: 'site_b' }, id, 50, 'part', START)),
        );
        await expectSummariesAgree(s.db, 'site_b');
        const slots = await s.db.selectFrom('order_sums').where('site_id', '=', 'site_b').select('slot').execute();
        expect(new Set(slots.map((r) => r.slot)).size).toBeGreaterThan(1);
      });
    }
  });
}
