// Migration 018: the (kind, at) index through which the janitor purges the audit log's routine token
// events. A PostgreSQL deployment with a large log may build it beforehand with CREATE INDEX CONCURRENTLY
// (README "Running on PostgreSQL"); the migration then keeps that index instead of failing or building a second one.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTINE_TOKEN_EVENTS } from '../../src/maintenance/janitor.js';
import * as m018 from '../../src/storage/migrations/018-audit-token-event-expiry.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { openSchoolStore, type SchoolStore } from '../helpers/school-fixtures.js';

async function kindAtIndexes(s: SchoolStore): Promise<string[]> {
  if (s.store.dialect === 'sqlite') {
    const r = await sql<{ name: string }>`select name from sqlite_master where type = 'index' and name = 'audit_events_kind_at'`.execute(
      s.db,
    );
    return r.rows.map((row) => row.name);
  }
  const r = await sql<{
    indexdef: string;
  }>`select indexdef from pg_indexes where tablename = 'audit_events' and indexname = 'audit_events_kind_at'`.execute(s.db);
  return r.rows.map((row) => row.indexdef);
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`migration 018, the audit log's (kind, at) index (${dialect})`, () => {
    let s: SchoolStore;
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
    });
    afterAll(() => s?.close());

    it('builds the index, and keeps one an operator built beforehand (concurrently, on PostgreSQL)', async () => {
      expect(await kindAtIndexes(s)).toHaveLength(1);
      await m018.down(s.db);
      expect(await kindAtIndexes(s)).toHaveLength(0);
      const concurrently = dialect === 'postgres' ? sql.raw('concurrently') : sql.raw('');
      await sql`create index ${concurrently} if not exists audit_events_kind_at on audit_events (kind, at)`.execute(s.db);
      await m018.up(s.db);
      expect(await kindAtIndexes(s)).toHaveLength(1);
    });

    if (dialect === 'sqlite')
      it('lets the purge find routine token events by kind and age through that index', async () => {
        const kinds = sql.join(ROUTINE_TOKEN_EVENTS.map((kind) => sql.lit(kind)));
        const plan = await sql<{ detail: string }>`explain query plan
          select id from audit_events where kind in (${kinds}) and at < 1 limit 200`.execute(s.db);
        expect(plan.rows.map((row) => row.detail).join('\n')).toContain('audit_events_kind_at');
      });
  });
}
