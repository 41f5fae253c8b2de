// Migration 022: the audit log's totals by app come from counts its triggers keep per site, app and kind.
// They must agree with the events themselves for an app alone and with an action, whoever writes or deletes
// the events (the domain one at a time, a multi-row statement, the janitor, a site's deletion, concurrent
// connections on PostgreSQL), and an existing log is counted when the migration runs.
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuditFilter, type AuditKind, countAudit, pageAuditWithTotal, recordAudit } from '../../src/audit/audit-log.js';
import { Janitor } from '../../src/maintenance/janitor.js';
import * as m022 from '../../src/storage/migrations/022-audit-counts-by-app.js';
import type { Database } from '../../src/storage/schema.js';
import { auditTotals, countedAuditEvents } from '../helpers/audit-counting.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { DAY, insertSite, openSchoolStore, type SchoolStore, TEST_NOW } from '../helpers/school-fixtures.js';

const counted = countedAuditEvents;

const FILTERS: AuditFilter[] = [
  { clientId: 'app_0' },
  { clientId: 'app_1' },
  { clientId: 'app_2' },
  { clientId: 'app_2', action: 'token.' },
  { clientId: 'app_2', action: 'token.refreshed' },
  { clientId: 'app_2', action: 'consent.granted' },
  { clientId: 'app_2', action: 'operator.' },
  { clientId: 'app_2', actorId: 'per_1' },
  { clientId: 'no_such_app' },
  {},
];

/** Every filter's total, as GET /audit_events answers it and as the events say. */
const totals = (db: Kysely<Database>, siteId: string) =>
  auditTotals(db, siteId, FILTERS, async (filter) => (await pageAuditWithTotal(db, siteId, filter, { first: 1 })).total);

/** n events of a site in one multi-row statement, spread over four apps (every fifth without one). */
async function insertEvents(db: Kysely<Database>, siteId: string, n: number, at: number, kind = 'token.refreshed'): Promise<void> {
  await db
    .insertInto('audit_events')
    .values(
      Array.from({ length: n }, (_, i) => ({
        site_id: siteId,
        at: at + i,
        kind,
        person_id: `per_${i % 3}`,
        client_id: i % 5 === 4 ? null : `app_${i % 4}`,
        detail: '{}',
        target: null,
        request_id: null,
      })),
    )
    .execute();
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`audit log totals by app (${dialect})`, () => {
    let s: SchoolStore;
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      await insertSite(s.db, { id: 'site_a', name: 'A', origin: 'http://a.test', variant: 'A' });
      await insertSite(s.db, { id: 'site_b', name: 'B', origin: 'http://b.test', variant: 'A' });
    });
    afterAll(() => s?.close());

    it('a total by app, alone or with an action, agrees with the events after writes one at a time and many in one statement', async () => {
      let at = TEST_NOW - 200 * DAY;
      const clock = { now: () => at++ };
      for (const kind of ['consent.granted', 'token.issued', 'token.refreshed', 'client.revoked'] as AuditKind[])
        await recordAudit(s.db, { siteId: 'site_a', kind, personId: 'per_1', clientId: 'app_2' }, clock);
      await recordAudit(s.db, { siteId: 'site_a', kind: 'sign_in.succeeded', personId: 'per_1' }, clock);
      await insertEvents(s.db, 'site_a', 40, TEST_NOW - 200 * DAY);
      await insertEvents(s.db, 'site_a', 10, TEST_NOW, 'token.issued');
      await insertEvents(s.db, 'site_b', 7, TEST_NOW);
      const { answered, events } = await totals(s.db, 'site_a');
      expect(answered).toEqual(events);
      expect(answered.slice(0, 3)).toEqual([10, 10, 14]);
      expect(await countAudit(s.db, 'site_b', { clientId: 'app_2' })).toBe(2);
    });

    it('a total by app is read from the kept counts, not counted from the events', async () => {
      const before = await countAudit(s.db, 'site_a', { clientId: 'app_1' });
      const bump = (by: number) =>
        s.db
          .updateTable('audit_event_app_counts')
          .set({ n: sql`n + ${by}` })
          .where('site_id', '=', 'site_a')
          .where('client_id', '=', 'app_1')
          .where('kind', '=', 'token.refreshed')
          .execute();
      await bump(1000);
      expect(await countAudit(s.db, 'site_a', { clientId: 'app_1' })).toBe(before + 1000);
      await bump(-1000);
      expect(await countAudit(s.db, 'site_a', { clientId: 'app_1' })).toBe(before);
    });

    it('a total by app agrees with the events after the janitor purged old routine token events', async () => {
      const janitor = new Janitor(s.db, s.store.dialect, { now: () => TEST_NOW });
      const report = await janitor.runOnce();
      expect(report?.audit_events).toBe(42); // the 40 rotations and two of the four app_2 events, 200 days old
      const { answered, events } = await totals(s.db, 'site_a');
      expect(answered).toEqual(events);
      expect(answered.slice(0, 4)).toEqual([2, 2, 4, 2]);
    });

    it("a site's deletion takes its events and their counts by app; another site's stay", async () => {
      await insertSite(s.db, { id: 'site_c', name: 'C', origin: 'http://c.test', variant: 'A' });
      await insertEvents(s.db, 'site_c', 9, TEST_NOW);
      expect(await countAudit(s.db, 'site_c', { clientId: 'app_0' })).toBe(2);
      await s.db.deleteFrom('sites').where('id', '=', 'site_c').execute();
      expect(await countAudit(s.db, 'site_c', { clientId: 'app_0' })).toBe(0);
      expect(await s.db.selectFrom('audit_event_app_counts').where('site_id', '=', 'site_c').selectAll().execute()).toEqual([]);
      expect(await countAudit(s.db, 'site_b', { clientId: 'app_2' })).toBe(2);
    });

    it('the migration counts by app a log that existed before it', async () => {
      await m022.down(s.db);
      await insertEvents(s.db, 'site_a', 13, TEST_NOW, 'token.revoked');
      await m022.up(s.db);
      const { answered, events } = await totals(s.db, 'site_a');
      expect(answered).toEqual(events);
      // Counted from here on too.
      await insertEvents(s.db, 'site_a', 4, TEST_NOW);
      expect(await countAudit(s.db, 'site_a', { clientId: 'app_3' })).toBe(await counted(s.db, 'site_a', { clientId: 'app_3' }));
    });

    if (dialect === 'postgres') {
      it('concurrent writers on several connections each add to their own slot, and a total by app is every event', async () => {
        const before = await countAudit(s.db, 'site_b', { clientId: 'app_1' });
        await Promise.all(Array.from({ length: 8 }, (_, i) => insertEvents(s.db, 'site_b', 20, TEST_NOW + i * 100)));
        expect(await countAudit(s.db, 'site_b', { clientId: 'app_1' })).toBe(before + 8 * 4);
        const { answered, events } = await totals(s.db, 'site_b');
        expect(answered).toEqual(events);
        const slots = await s.db.selectFrom('audit_event_app_counts').where('site_id', '=', 'site_b').select('slot').execute();
        expect(new Set(slots.map((r) => r.slot)).size).toBeGreaterThan(1);
      });
    }
  });
}
