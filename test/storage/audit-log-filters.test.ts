// The audit log's action filter (GET /audit_events, /admin/audit): an exact kind, or a prefix ending in
// "." that matches the kinds starting with it, literally and case-sensitively on both stores, newest
// first across kinds, paged by cursor, with a total that agrees with the pages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuditFilter, type AuditKind, countAudit, pageAudit, pageAuditWithTotal, recordAudit } from '../../src/audit/audit-log.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { insertSite, openSchoolStore, type SchoolStore, TEST_NOW } from '../helpers/school-fixtures.js';

// In the order written; ids grow with it. `operatorx.` and `legacy.` stand for kinds no prefix should catch.
const KINDS = [
  'operator.create_course',
  'token.refreshed',
  'operator.publish_course',
  'operatorx.other',
  'sign_in.succeeded',
  'operator.publish_course',
  'legacy.thing',
  'operator.create_course',
] as const;

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`audit log action filter (${dialect})`, () => {
    let s: SchoolStore;
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      await insertSite(s.db, { id: 'site_a', name: 'A', origin: 'http://a.test', variant: 'A' });
      await insertSite(s.db, { id: 'site_b', name: 'B', origin: 'http://b.test', variant: 'A' });
      let at = TEST_NOW;
      for (const kind of KINDS) await recordAudit(s.db, { siteId: 'site_a', kind: kind as AuditKind }, { now: () => at++ });
      // Another site's events never show.
      await recordAudit(s.db, { siteId: 'site_b', kind: 'operator.create_course' }, { now: () => at++ });
    });
    afterAll(() => s?.close());

    /** Every page of a filter, two at a time, as kinds; and its total. */
    async function walk(filter: AuditFilter): Promise<{ kinds: string[]; ids: number[]; total: number }> {
      const kinds: string[] = [];
      const ids: number[] = [];
      let after: string | null = null;
      for (let pages = 0; pages < 10; pages++) {
        const page = await pageAudit(s.db, 'site_a', filter, { first: 2, after });
        for (const edge of page.edges) {
          kinds.push(edge.node.kind);
          ids.push(edge.node.id);
        }
        if (!page.hasNextPage) break;
        after = page.endCursor;
      }
      return { kinds, ids, total: await countAudit(s.db, 'site_a', filter) };
    }

    it('a prefix ending in "." matches every kind that starts with it, newest first across kinds, page by page', async () => {
      const { kinds, ids, total } = await walk({ action: 'operator.' });
      expect(kinds).toEqual(['operator.create_course', 'operator.publish_course', 'operator.publish_course', 'operator.create_course']);
      expect([...ids].sort((a, b) => b - a)).toEqual(ids);
      expect(total).toBe(4);
      // GET /audit_events reads the page and the total together, the prefix's kinds once.
      const both = await pageAuditWithTotal(s.db, 'site_a', { action: 'operator.' }, { first: 2 });
      expect(both.total).toBe(4);
      expect(both.page.edges.map((e) => e.node.id)).toEqual(ids.slice(0, 2));
    });

    it('an exact action matches that kind alone; no filter matches all of the site', async () => {
      const exact = await walk({ action: 'operator.publish_course' });
      expect(exact.kinds).toEqual(['operator.publish_course', 'operator.publish_course']);
      expect(exact.total).toBe(2);
      const all = await walk({});
      expect(all.kinds).toEqual([...KINDS].reverse());
      expect(all.total).toBe(KINDS.length);
    });

    it('a prefix is matched literally and case-sensitively: no wildcards, nothing for a prefix no kind has', async () => {
      for (const action of ['OPERATOR.', 'op%.', 'operator_.', 'nothing.']) {
        const { kinds, total } = await walk({ action });
        expect(kinds, action).toEqual([]);
        expect(total, action).toBe(0);
      }
      expect((await walk({ action: 'operatorx.' })).kinds).toEqual(['operatorx.other']);
    });

    it('combines the action with an actor or app filter', async () => {
      expect((await walk({ action: 'operator.', actorId: 'per_nobody' })).total).toBe(0);
      expect((await walk({ action: 'operator.', clientId: 'no-app' })).kinds).toEqual([]);
    });
  });
}
