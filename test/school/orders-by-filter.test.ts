// The orders list filtered by status, student, coupon and time (GET /orders?status=&studentId=&couponCode=
// &from=&to=), alone and together: the matching orders newest first (ties by id) and the total. Pages and
// totals must equal what the orders say, on both stores; on SQLite each filter's page reads the filter's
// own index of migration 029 in the page's order, not every order of the site.
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countOrders, type OrderFilter, pageOrders } from '../../src/school/orders.repository.js';
import type { Database } from '../../src/storage/schema.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { pagedIds } from '../helpers/paging.js';
import { DAY, insertPerson, insertSite, openSchoolStore, type SchoolStore, TEST_NOW } from '../helpers/school-fixtures.js';

const STATUSES = ['paid', 'paid', 'partially_refunded', 'paid', 'refunded'] as const;

/** 120 orders of site_a over 60 days (two at each time), of three people, some with one of two coupons; five of site_b. */
async function seed(db: Kysely<Database>): Promise<void> {
  await insertSite(db, { id: 'site_a', name: 'A', origin: 'http://a.test', variant: 'A' });
  await insertSite(db, { id: 'site_b', name: 'B', origin: 'http://b.test', variant: 'A' });
  for (const n of [1, 2, 3]) await insertPerson(db, { id: `per_${n}`, email: `p${n}@a.test`, name: `P${n}` });
  for (const siteId of ['site_a', 'site_b']) {
    const orders = Array.from({ length: siteId === 'site_a' ? 120 : 5 }, (_, i) => ({
      id: `${siteId}_ord_${String(i).padStart(3, '0')}`,
      site_id: siteId,
      number: i + 1,
      person_id: `per_${(i % 7) % 3 === 0 ? 1 : i % 11 === 0 ? 3 : 2}`,
      status: STATUSES[i % 5] ?? 'paid',
      currency: 'EUR',
      subtotal_cents: 1000,
      discount_cents: 0,
      total_cents: 1000,
      refunded_cents: 0,
      coupon_code: i % 6 === 0 ? 'SPRING' : i % 13 === 0 ? 'RARE' : null,
      created_at: TEST_NOW - Math.floor(i / 2) * DAY,
      paid_at: TEST_NOW,
    }));
    await db.insertInto('orders').values(orders).execute();
  }
}

/** The filter's orders the slow way: every order of the site read here. */
async function expected(db: Kysely<Database>, filter: OrderFilter): Promise<string[]> {
  const orders = await db.selectFrom('orders').where('site_id', '=', 'site_a').selectAll().execute();
  return orders
    .filter((o) => filter.status === undefined || o.status === filter.status)
    .filter((o) => filter.studentId === undefined || o.person_id === filter.studentId)
    .filter((o) => filter.couponCode === undefined || o.coupon_code === filter.couponCode)
    .filter((o) => filter.from === undefined || Number(o.created_at) >= filter.from)
    .filter((o) => filter.to === undefined || Number(o.created_at) < filter.to)
    .sort((a, b) => Number(b.created_at) - Number(a.created_at) || (a.id < b.id ? 1 : -1))
    .map((o) => o.id);
}

const FILTERS: OrderFilter[] = [
  { studentId: 'per_3' },
  { studentId: 'per_nobody' },
  { couponCode: 'SPRING' },
  { couponCode: 'RARE' },
  { couponCode: 'NOBODY' },
  { status: 'refunded' },
  { status: 'partially_refunded', studentId: 'per_2' },
  { status: 'paid', couponCode: 'SPRING' },
  { studentId: 'per_1', from: TEST_NOW - 20 * DAY, to: TEST_NOW - 5 * DAY },
  { status: 'paid', from: TEST_NOW - 30 * DAY },
  { to: TEST_NOW - 40 * DAY },
];

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`orders by status, student, coupon and time (${dialect})`, () => {
    let s: SchoolStore;
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      await seed(s.db);
    });
    afterAll(() => s?.close());

    for (const filter of FILTERS) {
      it(`${JSON.stringify(filter)}: pages of seven, newest first, and the total`, async () => {
        const want = await expected(s.db, filter);
        const scope = { db: s.db, siteId: 'site_a' };
        const got = await pagedIds((after) => pageOrders(scope, filter, { first: 7, after }));
        expect(got).toEqual(want);
        expect(await countOrders(scope, filter)).toBe(want.length);
      });
    }

    it('the expected lists are not trivial: each kind of filter finds some orders and leaves out others', async () => {
      for (const filter of [{ studentId: 'per_3' }, { couponCode: 'RARE' }, { status: 'refunded' as const }]) {
        const n = (await expected(s.db, filter)).length;
        expect(n).toBeGreaterThan(1);
        expect(n).toBeLessThan(40);
      }
    });

    if (dialect === 'sqlite') {
      it("each filter's page reads that filter's index in the page's order, without sorting", async () => {
        for (const [column, index] of [
          ['person_id', 'orders_site_person_created'],
          ['coupon_code', 'orders_site_coupon_created'],
          ['status', 'orders_site_status_created'],
        ]) {
          const { rows } = await sql<{ detail: string }>`explain query plan
            select o.id from orders o join people p on p.id = o.person_id
            where o.site_id = 'site_a' and ${sql.ref(`o.${column}`)} = 'x'
            order by o.created_at desc, o.id desc limit 8`.execute(s.db);
          const plan = rows.map((r) => r.detail).join(' | ');
          expect(plan).toContain(index);
          expect(plan).not.toContain('TEMP B-TREE');
        }
      });
    }
  });
}
