// The orders list filtered by product (GET /orders?productId=): the orders with at least one line of the
// product, newest first, alone or with the other filters, and its total (each order once, however many of
// its lines are of the product). Pages and totals must equal what the orders and lines say, on both stores,
// through the lines' (site, product, time, order) index of migration 026.
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countOrders, type OrderFilter, pageOrders } from '../../src/school/orders.repository.js';
import * as m027 from '../../src/storage/migrations/027-order-product-counts.js';
import type { Database } from '../../src/storage/schema.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { pagedIds } from '../helpers/paging.js';
import { DAY, insertPerson, insertSite, openSchoolStore, type SchoolStore, TEST_NOW } from '../helpers/school-fixtures.js';

const PRODUCTS = ['crs_x', 'crs_y', 'dp_z'];

/** 90 orders over 90 days; order i has a line of PRODUCTS[i % 3], every fifth a second line of crs_y, every seventh two lines of crs_x. */
async function seed(db: Kysely<Database>): Promise<void> {
  await insertSite(db, { id: 'site_a', name: 'A', origin: 'http://a.test', variant: 'A' });
  await insertSite(db, { id: 'site_b', name: 'B', origin: 'http://b.test', variant: 'A' });
  await insertPerson(db, { id: 'per_1', email: 'one@a.test', name: 'One' });
  await insertPerson(db, { id: 'per_2', email: 'two@a.test', name: 'Two' });
  for (const siteId of ['site_a', 'site_b']) {
    const orders = Array.from({ length: siteId === 'site_a' ? 90 : 5 }, (_, i) => ({
      id: `${siteId}_ord_${i}`,
      site_id: siteId,
      number: i + 1,
      person_id: i % 2 === 0 ? 'per_1' : 'per_2',
      status: (i % 4 === 0 ? 'refunded' : 'paid') as 'refunded' | 'paid',
      currency: 'EUR',
      subtotal_cents: 1000,
      discount_cents: 0,
      total_cents: 1000,
      refunded_cents: i % 4 === 0 ? 1000 : 0,
      coupon_code: null,
      // Two orders share each time, so the id breaks the tie.
      created_at: TEST_NOW - Math.floor(i / 2) * DAY,
      paid_at: TEST_NOW,
    }));
    await db.insertInto('orders').values(orders).execute();
    const lines = orders.flatMap((o, i) =>
      [
        { product: PRODUCTS[i % 3] ?? 'crs_x', n: 1 },
        ...(i % 5 === 0 ? [{ product: 'crs_y', n: 2 }] : []),
        ...(i % 7 === 0
          ? [
              { product: 'crs_x', n: 3 },
              { product: 'crs_x', n: 4 },
            ]
          : []),
      ].map((l) => ({
        id: `${o.id}-${l.n}`,
        site_id: siteId,
        order_id: o.id,
        product_type: 'course' as const,
        product_id: l.product,
        title: l.product,
        quantity: 1,
        unit_price_cents: 1000,
        amount_cents: 1000,
      })),
    );
    await db.insertInto('order_lines').values(lines).execute();
  }
}

/** The filter's orders the slow way: every order and line of the site read here. */
async function expected(db: Kysely<Database>, filter: OrderFilter): Promise<string[]> {
  const orders = await db.selectFrom('orders').where('site_id', '=', 'site_a').selectAll().execute();
  const lines = await db.selectFrom('order_lines').where('site_id', '=', 'site_a').select(['order_id', 'product_id']).execute();
  return orders
    .filter((o) => lines.some((l) => l.order_id === o.id && l.product_id === filter.productId))
    .filter((o) => filter.status === undefined || o.status === filter.status)
    .filter((o) => filter.from === undefined || Number(o.created_at) >= filter.from)
    .filter((o) => filter.studentId === undefined || o.person_id === filter.studentId)
    .filter((o) => filter.couponCode === undefined || o.coupon_code === filter.couponCode)
    .sort((a, b) => Number(b.created_at) - Number(a.created_at) || (a.id < b.id ? 1 : -1))
    .map((o) => o.id);
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`orders by product (${dialect})`, () => {
    let s: SchoolStore;
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      await seed(s.db);
    });
    afterAll(() => s?.close());

    const filters: OrderFilter[] = [
      { productId: 'crs_x' },
      { productId: 'crs_y' },
      { productId: 'dp_z' },
      { productId: 'nothing' },
      { productId: 'crs_x', status: 'refunded' },
      { productId: 'crs_y', from: TEST_NOW - 20 * DAY },
      { productId: 'crs_x', studentId: 'per_2', status: 'paid' },
      // A product with a status alone is counted from the kept counts: the status's orders directly, or
      // the product's orders less those of the other statuses, whichever reads less.
      { productId: 'crs_x', status: 'paid' },
      { productId: 'dp_z', status: 'refunded' },
      { productId: 'crs_y', status: 'partially_refunded' },
      { productId: 'nothing', status: 'paid' },
      { productId: 'crs_y', studentId: 'per_1' },
      { productId: 'crs_x', couponCode: 'NONE' },
    ];
    for (const filter of filters) {
      it(`${JSON.stringify(filter)}: pages of seven, newest first, each order once, and the total`, async () => {
        const want = await expected(s.db, filter);
        const scope = { db: s.db, siteId: 'site_a' };
        const got = await pagedIds((after) => pageOrders(scope, filter, { first: 7, after }));
        expect(got).toEqual(want);
        expect(await countOrders(scope, filter)).toBe(want.length);
      });
    }

    it('the expected lists are not trivial: orders with several lines of the product are in them', async () => {
      expect((await expected(s.db, { productId: 'crs_x' })).length).toBeGreaterThan(30);
      expect(await expected(s.db, { productId: 'crs_x' })).toContain('site_a_ord_7');
    });

    it("a line carries its order's time: given by the trigger when written without it, and moved with the order", async () => {
      const times = async () =>
        (
          await s.db
            .selectFrom('order_lines as l')
            .innerJoin('orders as o', 'o.id', 'l.order_id')
            .select(['l.created_at as line', 'o.created_at as order'])
            .execute()
        ).map((r) => [Number(r.line), Number(r.order)]);
      expect((await times()).every(([line, order]) => line === order)).toBe(true);
      await s.db
        .updateTable('orders')
        .set({ created_at: TEST_NOW + DAY })
        .where('id', '=', 'site_a_ord_88')
        .execute();
      expect((await times()).every(([line, order]) => line === order)).toBe(true);
      const page = await pageOrders({ db: s.db, siteId: 'site_a' }, { productId: 'crs_y' }, { first: 1 });
      expect(page.edges[0]?.node.id).toBe('site_a_ord_88');
      expect(page.edges[0]?.node.id).toBe((await expected(s.db, { productId: 'crs_y' }))[0]);
    });

    it("a product's total follows its lines: two lines of one order count once, removed lines, a moved line, a deleted order, the migration", async () => {
      const scope = { db: s.db, siteId: 'site_a' };
      const agree = async () => {
        for (const productId of [...PRODUCTS, 'crs_w'])
          for (const status of [undefined, 'paid', 'partially_refunded', 'refunded'] as const) {
            const filter = status === undefined ? { productId } : { productId, status };
            expect({ ...filter, n: await countOrders(scope, filter) }).toEqual({ ...filter, n: (await expected(s.db, filter)).length });
          }
      };
      const linesOf7 = await s.db
        .selectFrom('order_lines')
        .where('order_id', '=', 'site_a_ord_7')
        .where('product_id', '=', 'crs_x')
        .select('id')
        .execute();
      expect(linesOf7.length).toBe(2);
      await s.db
        .deleteFrom('order_lines')
        .where('id', '=', linesOf7[0]?.id ?? '')
        .execute();
      await agree();
      await s.db
        .deleteFrom('order_lines')
        .where('id', '=', linesOf7[1]?.id ?? '')
        .execute();
      await agree();
      await s.db
        .updateTable('order_lines')
        .set({ product_id: 'crs_w' })
        .where('order_id', 'in', ['site_a_ord_1', 'site_a_ord_10'])
        .execute();
      await s.db.updateTable('order_lines').set({ title: 'renamed' }).where('site_id', '=', 'site_a').execute();
      await agree();
      // Refunds move orders between statuses; most stay paid.
      await s.db
        .updateTable('orders')
        .set({ status: 'partially_refunded' })
        .where('id', 'in', ['site_a_ord_2', 'site_a_ord_9', 'site_a_ord_14'])
        .execute();
      await s.db.updateTable('orders').set({ status: 'refunded' }).where('id', '=', 'site_a_ord_21').execute();
      await agree();
      await s.db.deleteFrom('orders').where('id', 'in', ['site_a_ord_3', 'site_a_ord_4']).execute();
      await agree();
      await s.db
        .insertInto('order_lines')
        .values(
          ['a', 'b', 'c'].map((n) => ({
            id: `site_a_ord_5-extra-${n}`,
            site_id: 'site_a',
            order_id: 'site_a_ord_5',
            product_type: 'course' as const,
            product_id: 'crs_w',
            title: 'w',
            quantity: 1,
            unit_price_cents: 1,
            amount_cents: 1,
          })),
        )
        .execute();
      await agree();
      await m027.down(s.db);
      await m027.up(s.db);
      await agree();
    });

    if (dialect === 'postgres') {
      it("concurrent orders of one product on several connections each add to their own slot, and the product's total is every order", async () => {
        const before = await countOrders({ db: s.db, siteId: 'site_a' }, { productId: 'crs_v' });
        await Promise.all(
          Array.from({ length: 8 }, (_, c) =>
            s.db.transaction().execute(async (trx) => {
              const ids = Array.from({ length: 5 }, (_, i) => `site_a_conc_${c}_${i}`);
              await trx
                .insertInto('orders')
                .values(
                  ids.map((id, i) => ({
                    id,
                    site_id: 'site_a',
                    number: 1000 + c * 10 + i,
                    person_id: 'per_1',
                    status: 'paid' as const,
                    currency: 'EUR',
                    subtotal_cents: 1,
                    discount_cents: 0,
                    total_cents: 1,
                    refunded_cents: 0,
                    coupon_code: null,
                    created_at: TEST_NOW + c,
                    paid_at: TEST_NOW,
                  })),
                )
                .execute();
              await trx
                .insertInto('order_lines')
                .values(
                  ids.flatMap((id) =>
                    [1, 2].map((n) => ({
                      id: `${id}-${n}`,
                      site_id: 'site_a',
                      order_id: id,
                      product_type: 'course' as const,
                      product_id: 'crs_v',
                      title: 'v',
                      quantity: 1,
                      unit_price_cents: 1,
                      amount_cents: 1,
                    })),
                  ),
                )
                .execute();
            }),
          ),
        );
        expect(await countOrders({ db: s.db, siteId: 'site_a' }, { productId: 'crs_v' })).toBe(before + 40);
        expect((await expected(s.db, { productId: 'crs_v' })).length).toBe(before + 40);
        const slots = await s.db.selectFrom('order_product_counts').where('product_id', '=', 'crs_v').select('slot').execute();
        expect(new Set(slots.map((r) => r.slot)).size).toBeGreaterThan(1);
      });
    }

    if (dialect === 'sqlite') {
      it("a product's page walks its lines' (site, product, time, order) index newest first, without sorting", async () => {
        const { rows } = await sql<{ detail: string }>`explain query plan
          select o.id from order_lines l join orders o on o.id = l.order_id
          where l.site_id = 'site_a' and l.product_id = 'crs_x' and o.site_id = 'site_a'
          order by l.created_at desc, l.order_id desc limit 8`.execute(s.db);
        const plan = rows.map((r) => r.detail).join(' | ');
        expect(plan).toContain('order_lines_product_time');
        expect(plan).not.toContain('TEMP B-TREE');
      });
    }
  });
}
