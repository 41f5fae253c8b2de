// CONTRACT 6 coupons (issue 10): percent or fixed amount, cap, expiry, products, redemption counts from the
// real orders, bulk creation of unique codes (up to 1,000, replayed with the same Idempotency-Key), edit
// under If-Match, disable. Scope, site and input checks, audit; the MCP tools list_coupons and
// create_coupon. Over real HTTP with real operator tokens, on SQLite and PostgreSQL.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { placeOrder } from '../../src/school/orders.repository.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { connectMcp, demoSiteIds, personId, structured } from '../helpers/mcp.js';
import { ALL_REST_SCOPES, call, expectProblem, VENDOR } from '../helpers/operator-api.js';
import { person } from '../helpers/person.js';
import { getTokens } from '../helpers/token-flow.js';

interface Coupon {
  id: string;
  code: string;
  percentOff: number | null;
  amountOffCents: number | null;
  currency: string | null;
  maxRedemptions: number | null;
  expiresAt: string | null;
  products: Array<{ type: string; id: string }>;
  redemptionCount: number;
  state: string;
  batchId: string | null;
}

const DAY = 86_400_000;

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`operator API: coupons (${dialect})`, () => {
    let server: DemoServer;
    let operator: string;
    let reader: string;
    let studioOperator: string;
    let academyId: string;

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      operator = (await getTokens(server, VENDOR('academy'), { scope: ALL_REST_SCOPES, who: person('owner') })).access_token;
      reader = (await getTokens(server, VENDOR('academy'), { scope: 'coupons:read', who: person('owner') })).access_token;
      studioOperator = (await getTokens(server, VENDOR('studio'), { scope: ALL_REST_SCOPES, who: person('owner') })).access_token;
      academyId = (await demoSiteIds(server)).academy;
    });
    afterAll(() => server?.close());

    const firstCourse = async () =>
      (
        await server.store.db
          .selectFrom('courses')
          .select('id')
          .where('site_id', '=', academyId)
          .where('published', '=', 1)
          .orderBy('slug')
          .executeTakeFirstOrThrow()
      ).id;

    it('lists the demo’s coupons with redemption counts equal to the orders that used each code', async () => {
      const listed = await call(server.academy, 'GET', '/coupons?limit=100', reader);
      expect(listed.status).toBe(200);
      const byCode = new Map((listed.body.items as Coupon[]).map((c) => [c.code, c]));
      const used = await server.store.db
        .selectFrom('orders')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('site_id', '=', academyId)
        .where('coupon_code', '=', 'SPRING20')
        .executeTakeFirstOrThrow();
      expect(Number(used.n)).toBeGreaterThan(10);
      expect(byCode.get('SPRING20')).toMatchObject({ percentOff: 20, redemptionCount: Number(used.n), state: 'active' });
      expect(byCode.get('WELCOME10')).toMatchObject({ maxRedemptions: 200, redemptionCount: 0, state: 'active' });
      expect(byCode.get('LAUNCH15')).toMatchObject({ amountOffCents: 1500, currency: 'EUR', state: 'disabled' });
      expect(byCode.get('LAUNCH15')?.products).toEqual([{ type: 'course', id: await firstCourse() }]);
    });

    it('creates a coupon (code stored upper case), counts a new order that uses it, and marks it used up at its cap', async () => {
      const course = await firstCourse();
      const created = await call(server.academy, 'POST', '/coupons', operator, {
        code: 'summer-5',
        amountOffCents: 500,
        currency: 'EUR',
        maxRedemptions: 1,
        expiresAt: new Date(Date.now() + 30 * DAY).toISOString(),
        products: [{ type: 'course', id: course }],
      });
      expect(created.status).toBe(201);
      const coupon = created.body.coupon as Coupon;
      expect(coupon).toMatchObject({ code: 'SUMMER-5', amountOffCents: 500, percentOff: null, redemptionCount: 0, state: 'active' });
      await placeOrder(
        { db: server.store.db, siteId: academyId },
        {
          personId: await personId(server, 'student@demo.test'),
          currency: 'EUR',
          lines: [{ productType: 'course', productId: course, title: 'Course', quantity: 1, unitPriceCents: 4900 }],
          discountCents: 500,
          couponCode: 'SUMMER-5',
          method: 'card',
          at: Date.now(),
        },
      );
      const read = (await call(server.academy, 'GET', `/coupons/${coupon.id}`, reader)).body.coupon as Coupon;
      expect(read).toMatchObject({ redemptionCount: 1, state: 'used_up' });
      expectProblem(await call(server.academy, 'POST', '/coupons', operator, { code: 'SUMMER-5', percentOff: 5 }), 409, 'conflict');
      const found = await call(server.academy, 'GET', '/coupons?code=summer-5', reader);
      expect(found.body).toMatchObject({ total: 1, items: [{ id: coupon.id }] });
    });

    it('creates 1,000 unique codes in one call, replays the same codes for the same Idempotency-Key, and lists the batch', async () => {
      const key = randomUUID();
      const body = { count: 1000, prefix: 'VIP-', percentOff: 15 };
      const first = await call(server.academy, 'POST', '/coupons/bulk', operator, body, { 'idempotency-key': key });
      expect(first.status).toBe(201);
      const codes = first.body.codes as string[];
      expect(codes).toHaveLength(1000);
      expect(new Set(codes).size).toBe(1000);
      for (const code of codes) expect(code).toMatch(/^VIP-[A-HJKMNP-Z2-9]{8}$/);
      const again = await call(server.academy, 'POST', '/coupons/bulk', operator, body, { 'idempotency-key': key });
      expect(again.body).toEqual(first.body);
      const batch = await call(server.academy, 'GET', `/coupons?batchId=${first.body.batchId}&limit=100`, reader);
      expect(batch.body.total).toBe(1000);
      expect((batch.body.items as Coupon[])[0]).toMatchObject({ percentOff: 15, batchId: first.body.batchId, state: 'active' });
      expectProblem(await call(server.academy, 'POST', '/coupons/bulk', operator, { ...body, count: 1001 }), 400, 'invalid_argument');
    });

    it('changes cap, expiry and products under If-Match (stale: 412), disables for good, and audits each write', async () => {
      const created = (await call(server.academy, 'POST', '/coupons', operator, { code: 'EDITME', percentOff: 30 })).body.coupon as Coupon;
      const tag = (await call(server.academy, 'GET', `/coupons/${created.id}`, reader)).headers.get('etag') ?? '';
      const edited = await call(
        server.academy,
        'PATCH',
        `/coupons/${created.id}`,
        operator,
        { maxRedemptions: 50, products: [{ type: 'course', id: await firstCourse() }] },
        { 'if-match': tag },
      );
      expect(edited.status).toBe(200);
      expect(edited.body.coupon).toMatchObject({ maxRedemptions: 50, products: [{ type: 'course' }] });
      expectProblem(
        await call(server.academy, 'PATCH', `/coupons/${created.id}`, operator, { maxRedemptions: null }, { 'if-match': tag }),
        412,
        'precondition_failed',
      );
      const cleared = await call(server.academy, 'PATCH', `/coupons/${created.id}`, operator, { maxRedemptions: null, products: [] });
      expect(cleared.body.coupon).toMatchObject({ maxRedemptions: null, products: [] });
      const disabled = await call(server.academy, 'POST', `/coupons/${created.id}/disable`, operator, {});
      expect(disabled.body.coupon).toMatchObject({ state: 'disabled' });
      const log = await call(server.academy, 'GET', '/audit_events?limit=100', operator);
      const actions = (log.body.items as Array<{ action: string; target: string | null }>)
        .filter((e) => e.target === `coupon:${created.id}`)
        .map((e) => e.action)
        .sort();
      expect(actions).toEqual(['operator.create_coupon', 'operator.disable_coupon', 'operator.update_coupon', 'operator.update_coupon']);
    });

    it('refuses bad terms with 400 naming the field: two discounts, an amount without currency, a past expiry, another school’s product, a bad code', async () => {
      const studioCourse = (
        await server.store.db.selectFrom('courses').select('id').where('site_id', '!=', academyId).executeTakeFirstOrThrow()
      ).id;
      for (const [body, pointer] of [
        [{ code: 'TWO', percentOff: 10, amountOffCents: 100, currency: 'EUR' }, '/amountOffCents'],
        [{ code: 'NOCUR', amountOffCents: 100 }, '/percentOff'],
        [{ code: 'NONE' }, '/percentOff'],
        [{ code: 'PAST', percentOff: 5, expiresAt: new Date(Date.now() - DAY).toISOString() }, '/expiresAt'],
        [{ code: 'FOREIGN', percentOff: 5, products: [{ type: 'course', id: studioCourse }] }, '/products/0/id'],
        [{ code: 'a', percentOff: 5 }, '/code'],
        [{ code: 'BIG', percentOff: 101 }, '/percentOff'],
      ] as const) {
        const answer = await call(server.academy, 'POST', '/coupons', operator, body);
        expectProblem(answer, 400, 'invalid_argument');
        expect(
          (answer.body.errors as Array<{ pointer: string }>).map((e) => e.pointer),
          JSON.stringify(body),
        ).toContain(pointer);
      }
    });

    it('answers another school’s coupon id like no coupon (404) and needs coupons:write to write', async () => {
      const listed = (await call(server.academy, 'GET', '/coupons?limit=1', reader)).body.items as Coupon[];
      const id = listed[0]?.id ?? '';
      expectProblem(await call(server.studio, 'GET', `/coupons/${id}`, studioOperator), 404, 'not_found');
      expectProblem(await call(server.studio, 'POST', `/coupons/${id}/disable`, studioOperator, {}), 404, 'not_found');
      const denied = await call(server.academy, 'POST', '/coupons', reader, { code: 'NOPE', percentOff: 5 });
      expect(denied.status).toBe(403);
      expect(denied.headers.get('www-authenticate')).toContain('scope="coupons:write"');
    });

    it('offers list_coupons and create_coupon as MCP tools over the same records', async () => {
      const mcp = await connectMcp(server.academy, operator);
      try {
        const made = structured<{ coupon: Coupon }>(
          await mcp.callTool({ name: 'create_coupon', arguments: { code: 'AGENT25', percentOff: 25 } }),
        );
        expect(made.coupon).toMatchObject({ code: 'AGENT25', state: 'active' });
        const listed = structured<{ items: Coupon[] }>(await mcp.callTool({ name: 'list_coupons', arguments: { code: 'agent25' } }));
        expect(listed.items.map((c) => c.id)).toEqual([made.coupon.id]);
      } finally {
        await mcp.close();
      }
    });
  });
}
