// CONTRACT 6 digital_products (issue 10): every product in any state with purchase counts from the
// purchases, create (a draft), edit under If-Match, publish, archive (buyers keep it: their own list at the
// member API still has it), purchasers paged. Scope and site checks, audit. Real HTTP, both dialects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { connectMcp, demoSiteIds, structured } from '../helpers/mcp.js';
import { ALL_REST_SCOPES, call, expectProblem, VENDOR } from '../helpers/operator-api.js';
import { person } from '../helpers/person.js';
import { DEMO_CLIENTS, getTokens } from '../helpers/token-flow.js';

interface Product {
  id: string;
  slug: string;
  title: string;
  state: 'draft' | 'published' | 'archived';
  priceCents: number;
  currency: string;
  purchaseCount: number;
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`operator API: digital products (${dialect})`, () => {
    let server: DemoServer;
    let operator: string;
    let reader: string;
    let studioOperator: string;
    let academyId: string;

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      operator = (await getTokens(server, VENDOR('academy'), { scope: ALL_REST_SCOPES, who: person('owner') })).access_token;
      reader = (await getTokens(server, VENDOR('academy'), { scope: 'digital_products:read', who: person('owner') })).access_token;
      studioOperator = (await getTokens(server, VENDOR('studio'), { scope: ALL_REST_SCOPES, who: person('owner') })).access_token;
      academyId = (await demoSiteIds(server)).academy;
    });
    afterAll(() => server?.close());

    it('lists every product with purchase counts equal to the stored purchases, and pages a product’s purchasers', async () => {
      const listed = (await call(server.academy, 'GET', '/digital_products?limit=100', reader)).body.items as Product[];
      expect(listed.length).toBeGreaterThan(0);
      const rows = await server.store.db
        .selectFrom('digital_product_purchases')
        .select(['product_id'])
        .where('site_id', '=', academyId)
        .execute();
      for (const p of listed) expect(p.purchaseCount, p.slug).toBe(rows.filter((r) => r.product_id === p.id).length);
      const bought = listed.find((p) => p.purchaseCount > 0) as Product;
      const first = await call(server.academy, 'GET', `/digital_products/${bought.id}/purchasers?limit=1`, reader);
      expect(first.body).toMatchObject({ productId: bought.id, total: bought.purchaseCount });
      expect((first.body.items as Array<{ email: string }>)[0]?.email).toMatch(/@/);
    });

    it('creates a draft in the school’s currency, edits it under If-Match (stale: 412), publishes and archives it, auditing each', async () => {
      const created = await call(server.academy, 'POST', '/digital_products', operator, {
        title: 'SQL Cheat Sheet',
        kind: 'template',
        priceCents: 900,
      });
      expect(created.status).toBe(201);
      const product = created.body.product as Product;
      expect(product).toMatchObject({ slug: 'sql-cheat-sheet', state: 'draft', currency: 'EUR', purchaseCount: 0 });
      const tag = (await call(server.academy, 'GET', `/digital_products/${product.id}`, reader)).headers.get('etag') ?? '';
      const edited = await call(
        server.academy,
        'PATCH',
        `/digital_products/${product.id}`,
        operator,
        { priceCents: 1200 },
        { 'if-match': tag },
      );
      expect((edited.body.product as Product).priceCents).toBe(1200);
      expectProblem(
        await call(server.academy, 'PATCH', `/digital_products/${product.id}`, operator, { priceCents: 1 }, { 'if-match': tag }),
        412,
        'precondition_failed',
      );
      expect(
        ((await call(server.academy, 'POST', `/digital_products/${product.id}/publish`, operator, {})).body.product as Product).state,
      ).toBe('published');
      expect(
        ((await call(server.academy, 'POST', `/digital_products/${product.id}/archive`, operator, {})).body.product as Product).state,
      ).toBe('archived');
      expectProblem(
        await call(server.academy, 'POST', '/digital_products', operator, { title: 'SQL Cheat Sheet', kind: 'template', priceCents: 1 }),
        409,
        'conflict',
      );
      const log = await call(server.academy, 'GET', '/audit_events?limit=100', operator);
      const actions = (log.body.items as Array<{ action: string; target: string | null }>)
        .filter((e) => e.target === `digital_product:${product.id}`)
        .map((e) => e.action)
        .sort();
      expect(actions).toEqual([
        'operator.archive_digital_product',
        'operator.create_digital_product',
        'operator.publish_digital_product',
        'operator.update_digital_product',
      ]);
    });

    it('archives a bought product and its buyers still have it in their own purchases (member API)', async () => {
      const purchase = await server.store.db
        .selectFrom('digital_product_purchases as u')
        .innerJoin('people as p', 'p.id', 'u.person_id')
        .select(['u.product_id', 'p.email'])
        .where('u.site_id', '=', academyId)
        .where('p.email', '=', 'student@demo.test')
        .executeTakeFirstOrThrow();
      await call(server.academy, 'POST', `/digital_products/${purchase.product_id}/archive`, operator, {});
      const member = (await getTokens(server, DEMO_CLIENTS.academyApp, { who: person('student') })).access_token;
      const client = await connectMcp(server.academy, member);
      try {
        const mine = structured<{ digitalProducts: { items: Array<{ productId: string }> } }>(
          await client.callTool({ name: 'list_my_purchases', arguments: { kind: 'digital_products', limit: 100 } }),
        );
        expect(mine.digitalProducts.items.map((i) => i.productId)).toContain(purchase.product_id);
      } finally {
        await client.close();
      }
    });

    it('answers another school’s product like none (404), refuses bad input naming the field, and needs the write scope', async () => {
      const any = ((await call(server.academy, 'GET', '/digital_products?limit=1', reader)).body.items as Product[])[0] as Product;
      expectProblem(await call(server.studio, 'GET', `/digital_products/${any.id}`, studioOperator), 404, 'not_found');
      expectProblem(await call(server.studio, 'GET', `/digital_products/${any.id}/purchasers`, studioOperator), 404, 'not_found');
      const bad = await call(server.academy, 'POST', '/digital_products', operator, { title: 'X', kind: 'ebook', priceCents: -5 });
      expectProblem(bad, 400, 'invalid_argument');
      expect(bad.body.errors).toEqual([expect.objectContaining({ pointer: '/priceCents' })]);
      const denied = await call(server.academy, 'POST', '/digital_products', reader, { title: 'X', kind: 'ebook', priceCents: 5 });
      expect(denied.status).toBe(403);
      expect(denied.headers.get('www-authenticate')).toContain('scope="digital_products:write"');
    });
  });
}
