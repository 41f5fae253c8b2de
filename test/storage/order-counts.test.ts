// Migration 020: the orders list's total comes from counts that the orders' triggers keep per site and
// status. They must agree with the orders themselves whoever writes them: inserts one at a time or many
// in a statement, a status changed by a refund, a deletion, a site's deletion, concurrent connections on
// PostgreSQL, and orders that existed before the migration.
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countOrders, type OrderFilter } from '../../src/school/orders.repository.js';
import * as m020 from '../../src/storage/migrations/020-order-counts.js';
import type { Database } from '../../src/storage/schema.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { insertPerson, insertSite, openSchoolStore, type SchoolStore, TEST_NOW } from '../helpers/school-fixtures.js';

type Status = 'paid' | 'partially_refunded' | 'refunded';
const FILTERS: OrderFilter[] = [{}, { status: 'paid' }, { status: 'refunded' }, { status: 'partially_refunded' }];

/** Counts each filter the slow way, from the orders. */
async function counted(db: Kysely<Database>, siteId: string, filter: OrderFilter): Promise<number> {
  const row = await db
    .selectFrom('orders')
    .where('site_id', '=', siteId)
    .$if(filter.status !== undefined, (qb) => qb.where('status', '=', filter.status ?? 'paid'))
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function totals(db: Kysely<Database>, siteId: string): Promise<{ answered: number[]; orders: number[] }> {
  const answered: number[] = [];
  const orders: number[] = [];
  for (const filter of FILTERS) {
    answered.push(await countOrders({ db, siteId }, filter));
    orders.push(await counted(db, siteId, filter));
  }
  return { answered, orders };
}

let numbers = 0;
/** n orders of a site in one statement. */
async function placeOrders(db: Kysely<Database>, siteId: string, n: number, status: Status = 'paid'): Promise<string[]> {
  const rows = Array.from({ length: n }, () => {
    numbers++;
    return {
      id: `ord_${numbers}`,
      site_id: siteId,
      number: numbers,
      person_id: 'per_buyer',
      status,
      currency: 'EUR',
      subtotal_cents: 4900,
      discount_cents: 0,
      total_cents: 4900,
      refunded_cents: 0,
      coupon_code: null,
      created_at: TEST_NOW + numbers,
      paid_at: TEST_NOW + numbers,
    };
  });
  await db.insertInto('orders').values(rows).execute();
  return rows.map((r) => r.id);
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`orders list totals (${dialect})`, () => {
    let s: SchoolStore;
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      numbers = 0;
      await insertSite(s.db, { id: 'site_a', name: 'A', origin: 'http://a.test', variant: 'A' });
      await insertSite(s.db, { id: 'site_b', name: 'B', origin: 'http://b.test', variant: 'A' });
      await insertPerson(s.db, { id: 'per_buyer', email: 'buyer@a.test', name: 'Buyer' });
    });
    afterAll(() => s?.close());

    it('a total agrees with the orders, with and without a status, after orders placed one at a time and many in one statement', async () => {
      for (let i = 0; i < 3; i++) await placeOrders(s.db, 'site_a', 1);
      await placeOrders(s.db, 'site_a', 20);
      await placeOrders(s.db, 'site_b', 4);
      const { answered, orders } = await totals(s.db, 'site_a');
      expect(answered).toEqual(orders);
      expect(answered).toEqual([23, 23, 0, 0]);
      expect(await countOrders({ db: s.db, siteId: 'site_b' }, {})).toBe(4);
      // Other filters count the orders themselves.
      expect(await countOrders({ db: s.db, siteId: 'site_a' }, { studentId: 'per_buyer' })).toBe(23);
    });

    it('a refund that changes an order’s status moves it between the status totals; other updates leave them', async () => {
      await s.db.updateTable('orders').set({ status: 'refunded' }).where('id', 'in', ['ord_1', 'ord_2']).execute();
      await s.db.updateTable('orders').set({ status: 'partially_refunded' }).where('id', '=', 'ord_3').execute();
      // PostgreSQL: an update that changes no order's site or status writes no count row (xmin unchanged).
      const versions = async () =>
        dialect === 'postgres'
          ? (await sql<{ v: string }>`select xmin::text as v from order_counts order by site_id, status, slot`.execute(s.db)).rows
          : [];
      const before = await versions();
      await s.db.updateTable('orders').set({ refunded_cents: 100 }).where('site_id', '=', 'site_a').execute();
      expect(await versions()).toEqual(before);
      const { answered, orders } = await totals(s.db, 'site_a');
      expect(answered).toEqual(orders);
      expect(answered).toEqual([23, 20, 2, 1]);
    });

    it('a deleted order and a deleted site take their counts with them; another site’s stay', async () => {
      await s.db.deleteFrom('orders').where('id', '=', 'ord_1').execute();
      expect((await totals(s.db, 'site_a')).answered).toEqual([22, 20, 1, 1]);
      await insertSite(s.db, { id: 'site_c', name: 'C', origin: 'http://c.test', variant: 'A' });
      await placeOrders(s.db, 'site_c', 3);
      await s.db.deleteFrom('sites').where('id', '=', 'site_c').execute();
      expect(await countOrders({ db: s.db, siteId: 'site_c' }, {})).toBe(0);
      expect(await s.db.selectFrom('order_counts').where('site_id', '=', 'site_c').selectAll().execute()).toEqual([]);
      expect(await countOrders({ db: s.db, siteId: 'site_b' }, {})).toBe(4);
    });

    it('the migration counts the orders that existed before it', async () => {
      await m020.down(s.db);
      await placeOrders(s.db, 'site_a', 5, 'refunded');
      await m020.up(s.db);
      const { answered, orders } = await totals(s.db, 'site_a');
      expect(answered).toEqual(orders);
      expect(answered).toEqual([27, 20, 6, 1]);
    });

    if (dialect === 'postgres') {
      it('concurrent orders on several connections each add to their own slot, and the total is every order', async () => {
        const before = await countOrders({ db: s.db, siteId: 'site_b' }, {});
        await Promise.all(Array.from({ length: 8 }, () => placeOrders(s.db, 'site_b', 10)));
        expect(await countOrders({ db: s.db, siteId: 'site_b' }, {})).toBe(before + 80);
        expect(await counted(s.db, 'site_b', {})).toBe(before + 80);
        const slots = await s.db.selectFrom('order_counts').where('site_id', '=', 'site_b').select('slot').execute();
        expect(new Set(slots.map((r) => r.slot)).size).toBeGreaterThan(1);
      });
    }
  });
}
