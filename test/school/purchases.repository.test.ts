// What a member bought and the events they registered for (SPEC 2.1; SPEC 2.2 rule: not order records).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countEventRegistrations, listEventRegistrations } from '../../src/school/event-registrations.repository.js';
import {
  countConsultingPurchases,
  countDigitalProductPurchases,
  listConsultingPurchases,
  listDigitalProductPurchases,
} from '../../src/school/purchases.repository.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { createDemoWorld, type DemoWorld, openSchoolStore, type SchoolStore } from '../helpers/school-fixtures.js';

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`purchases and event registrations repositories (${dialect})`, () => {
    let s: SchoolStore;
    let world: DemoWorld;
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      world = await createDemoWorld(s.db);
    });
    afterAll(() => s?.close());

    const student = () => ({ db: s.db, siteId: world.academySiteId, personId: world.studentId });

    it('lists digital products most recent purchase first and pages one by one', async () => {
      const first = await listDigitalProductPurchases(student(), { first: 1 });
      expect(first.hasNextPage).toBe(true);
      const second = await listDigitalProductPurchases(student(), { first: 1, after: first.endCursor });
      expect(second.hasNextPage).toBe(false);
      const [a, b] = [first.edges[0]!.node, second.edges[0]!.node];
      expect(a.purchasedAt).toBeGreaterThan(b.purchasedAt);
      expect([a.title, b.title]).toEqual(['Accessible Component Templates', 'TypeScript Cheat Sheet']);
      expect(await countDigitalProductPurchases(student())).toBe(2);
    });

    it('returns what was bought and when, with no order fields', async () => {
      const [product] = (await listDigitalProductPurchases(student(), {})).edges.map((e) => e.node);
      expect(Object.keys(product!).sort()).toEqual(['id', 'kind', 'productId', 'purchasedAt', 'title']);
      const [service] = (await listConsultingPurchases(student(), {})).edges.map((e) => e.node);
      expect(Object.keys(service!).sort()).toEqual(['durationMinutes', 'id', 'kind', 'purchasedAt', 'serviceId', 'title']);
      expect(await countConsultingPurchases(student())).toBe(1);
    });

    it('lists event registrations by start, soonest first, with the join link for the registered member', async () => {
      const registrations = (await listEventRegistrations(student(), {})).edges.map((e) => e.node);
      expect(registrations.map((r) => r.title)).toEqual(['Live Q&A: Migrating to TypeScript 6', 'Demo Academy Meetup Berlin']);
      expect(registrations[0]?.joinUrl).toMatch(/^https:\/\//);
      expect(registrations[1]?.location).toContain('Berlin');
      expect(await countEventRegistrations(student())).toBe(2);
    });

    it('never lists another person’s or another site’s purchases and registrations', async () => {
      const ids = [
        ...(await listDigitalProductPurchases(student(), { first: 100 })).edges,
        ...(await listConsultingPurchases(student(), { first: 100 })).edges,
        ...(await listEventRegistrations(student(), { first: 100 })).edges,
      ].map((e) => e.node.id);
      expect(ids).not.toContain('dpp_other');
      expect(ids).not.toContain('csp_other');
      expect(ids).not.toContain('reg_other');
      const studio = { db: s.db, siteId: world.studioSiteId, personId: world.studentId };
      expect((await listDigitalProductPurchases(studio, {})).edges).toEqual([]);
      expect((await listEventRegistrations(studio, {})).edges.map((e) => e.node.title)).toEqual(['Open Studio Night']);
    });
  });
}
