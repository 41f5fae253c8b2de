// Migration 019: the audit log's totals come from counts its triggers keep per site and kind, and its actor
// and app filters from their own indexes. The totals must agree with the events themselves whoever writes
// or deletes them (the domain, a multi-row statement, the janitor, a site's deletion, concurrent
// connections on PostgreSQL), and an existing log is counted when the migration runs.
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuditFilter, type AuditKind, countAudit, pageAudit, recordAudit } from '../../src/audit/audit-log.js';
import { Janitor } from '../../src/maintenance/janitor.js';
import * as m019 from '../../src/storage/migrations/019-audit-log-by-actor-and-app.js';
import type { Database } from '../../src/storage/schema.js';
import { auditTotals, countedAuditEvents } from '../helpers/audit-counting.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { DAY, insertSite, openSchoolStore, type SchoolStore, TEST_NOW } from '../helpers/school-fixtures.js';

const counted = countedAuditEvents;

const FILTERS: AuditFilter[] = [
  {},
  { action: 'token.refreshed' },
  { action: 'token.' },
  { action: 'operator.' },
  { action: 'sign_in.succeeded' },
  { actorId: 'per_1' },
  { clientId: 'app_2' },
  { action: 'token.', actorId: 'per_2' },
];

/** Every filter's total, as GET /audit_events answers it and as the events say. */
const totals = (db: Kysely<Database>, siteId: string) => auditTotals(db, siteId, FILTERS, (filter) => countAudit(db, siteId, filter));

/** n events of a site, in one multi-row statement (as the PostgreSQL rotation batch and the bench write them). */
async function insertEvents(db: Kysely<Database>, siteId: string, n: number, at: number, kind = 'token.refreshed'): Promise<void> {
  await db
    .insertInto('audit_events')
    .values(
      Array.from({ length: n }, (_, i) => ({
        site_id: siteId,
        at: at + i,
        kind,
        person_id: `per_${i % 3}`,
        client_id: `app_${i % 4}`,
        detail: '{}',
        target: null,
        request_id: null,
      })),
    )
    .execute();
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`audit log totals and actor and app filters (${dialect})`, () => {
    let s: SchoolStore;
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      await insertSite(s.db, { id: 'site_a', name: 'A', origin: 'http://a.test', variant: 'A' });
      await insertSite(s.db, { id: 'site_b', name: 'B', origin: 'http://b.test', variant: 'A' });
    });
    afterAll(() => s?.close());

    it('a total agrees with the events, for every filter, after writes one at a time and many in one statement', async () => {
      let at = TEST_NOW - 200 * DAY;
      const clock = { now: () => at++ };
      for (const kind of ['sign_in.succeeded', 'operator.create_course', 'token.issued', 'operator.publish_course'] as AuditKind[])
        await recordAudit(s.db, { siteId: 'site_a', kind, personId: 'per_1', clientId: 'app_2' }, clock);
      await insertEvents(s.db, 'site_a', 30, TEST_NOW - 200 * DAY);
      await insertEvents(s.db, 'site_b', 7, TEST_NOW);
      const { answered, events } = await totals(s.db, 'site_a');
      expect(answered).toEqual(events);
      expect(answered[0]).toBe(34);
      expect(await countAudit(s.db, 'site_b', {})).toBe(7);
      expect(await countAudit(s.db, 'site_a', { action: 'nothing.' })).toBe(0);
    });

    it('a total agrees with the events after the janitor purged old routine token events (the counts go down with them)', async () => {
      const janitor = new Janitor(s.db, s.store.dialect, { now: () => TEST_NOW });
      const report = await janitor.runOnce();
      expect(report?.audit_events).toBe(31); // the 30 rotations and the token issuance, 200 days old
      const { answered, events } = await totals(s.db, 'site_a');
      expect(answered).toEqual(events);
      expect(answered[0]).toBe(3);
      expect(await countAudit(s.db, 'site_a', { action: 'token.' })).toBe(0);
      expect(await countAudit(s.db, 'site_b', {})).toBe(7);
    });

    it("a site's deletion takes its events and their counts; another site's stay", async () => {
      await insertSite(s.db, { id: 'site_c', name: 'C', origin: 'http://c.test', variant: 'A' });
      await insertEvents(s.db, 'site_c', 5, TEST_NOW);
      expect(await countAudit(s.db, 'site_c', {})).toBe(5);
      await s.db.deleteFrom('sites').where('id', '=', 'site_c').execute();
      expect(await countAudit(s.db, 'site_c', {})).toBe(0);
      expect(await s.db.selectFrom('audit_event_counts').where('site_id', '=', 'site_c').selectAll().execute()).toEqual([]);
      expect(await countAudit(s.db, 'site_b', {})).toBe(7);
    });

    it('the migration counts a log that existed before it, and its down step leaves the log as it was', async () => {
      await m019.down(s.db);
      await insertEvents(s.db, 'site_a', 11, TEST_NOW, 'token.issued');
      await m019.up(s.db);
      const { answered, events } = await totals(s.db, 'site_a');
      expect(answered).toEqual(events);
      expect(answered[0]).toBe(14);
      // Counted from here on too.
      await insertEvents(s.db, 'site_a', 2, TEST_NOW);
      expect(await countAudit(s.db, 'site_a', {})).toBe(16);
    });

    it('the migration keeps the actor and app indexes an operator built beforehand (concurrently, on PostgreSQL)', async () => {
      const indexes = async () =>
        dialect === 'sqlite'
          ? (await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'audit_events'`.execute(s.db))
              .rows
          : (await sql<{ name: string }>`select indexname as name from pg_indexes where tablename = 'audit_events'`.execute(s.db)).rows;
      const names = async () => (await indexes()).map((r) => r.name).filter((n) => n.startsWith('audit_events_site_'));
      expect((await names()).sort()).toEqual([
        'audit_events_site_client',
        'audit_events_site_id',
        'audit_events_site_kind',
        'audit_events_site_person',
      ]);
      await m019.down(s.db);
      const concurrently = dialect === 'postgres' ? sql.raw('concurrently') : sql.raw('');
      await sql`create index ${concurrently} if not exists audit_events_site_person on audit_events (site_id, person_id, id)`.execute(s.db);
      await sql`create index ${concurrently} if not exists audit_events_site_client on audit_events (site_id, client_id, id)`.execute(s.db);
      await m019.up(s.db);
      expect((await names()).sort()).toEqual([
        'audit_events_site_client',
        'audit_events_site_id',
        'audit_events_site_kind',
        'audit_events_site_person',
      ]);
      expect(await countAudit(s.db, 'site_a', {})).toBe(await counted(s.db, 'site_a', {}));
    });

    it('an actor or app filter pages newest first from its own index, with the matching total', async () => {
      const page = await pageAudit(s.db, 'site_a', { actorId: 'per_1' }, { first: 3 });
      const ids = page.edges.map((e) => e.node.id);
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
      expect(page.edges.every((e) => e.node.personId === 'per_1')).toBe(true);
      const app = await pageAudit(s.db, 'site_a', { clientId: 'app_2' }, { first: 100 });
      expect(app.edges.length).toBe(await countAudit(s.db, 'site_a', { clientId: 'app_2' }));
      if (dialect === 'sqlite') {
        const plan = async (column: 'person_id' | 'client_id', index: string) => {
          const { rows } = await sql<{ detail: string }>`explain query plan
            select * from audit_events where site_id = 'site_a' and ${sql.ref(column)} = 'x' order by id desc limit 21`.execute(s.db);
          expect(rows.map((r) => r.detail).join(' ')).toContain(index);
        };
        await plan('person_id', 'audit_events_site_person');
        await plan('client_id', 'audit_events_site_client');
      }
    });

    if (dialect === 'postgres') {
      it('concurrent writers on several connections each add to their own slot, and the total is every event', async () => {
        const before = await countAudit(s.db, 'site_b', {});
        await Promise.all(Array.from({ length: 8 }, (_, i) => insertEvents(s.db, 'site_b', 25, TEST_NOW + i * 100)));
        expect(await countAudit(s.db, 'site_b', {})).toBe(before + 200);
        expect(await counted(s.db, 'site_b', {})).toBe(before + 200);
        const slots = await s.db.selectFrom('audit_event_counts').where('site_id', '=', 'site_b').select('slot').execute();
        expect(new Set(slots.map((r) => r.slot)).size).toBeGreaterThan(1);
      });
    }
  });
}
