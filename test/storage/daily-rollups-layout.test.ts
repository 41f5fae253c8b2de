// Migration 039: on SQLite the daily roll-ups live in their key's own b-tree (WITHOUT ROWID), so a range of
// days is read from the key alone; the rebuild keeps every row, the key and the site's cascade. A series
// grouped by course or product selects its keys by prefix (storage/dialect.ts `startsWith`): exactly the
// keys that start with it, as a search of the key on SQLite. On PostgreSQL the migration changes nothing.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeseries } from '../../src/school/analytics.repository.js';
import { startsWith } from '../../src/storage/dialect.js';
import * as m039 from '../../src/storage/migrations/039-daily-rollups-clustered.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { insertSite, openSchoolStore, type SchoolStore } from '../helpers/school-fixtures.js';
import { plansOf } from '../helpers/sqlite-plans.js';

/** SQLite's own word on a table: 1 when it keeps its rows WITHOUT ROWID. */
async function withoutRowid(s: SchoolStore): Promise<number | undefined> {
  const r = await sql<{ wr: number }>`select wr from pragma_table_list where name = 'daily_rollups'`.execute(s.db);
  return r.rows[0]?.wr;
}

const rollups = (s: SchoolStore) =>
  s.db.selectFrom('daily_rollups').selectAll().orderBy('site_id').orderBy('metric').orderBy('dim').orderBy('day').execute();

// Keys beside the prefix `course:` in byte order and in case: only the first three start with it.
const DIMS = ['course:a', 'course:b', 'course:é', 'course', 'course;x', 'courses:x', 'Course:y', 'coursf', ''];

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`migration 039 and prefix selection, the daily roll-ups (${dialect})`, () => {
    let s: SchoolStore;

    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      for (const id of ['site_a', 'site_b'])
        await insertSite(s.db, { id, name: id, origin: `http://${id.replace('_', '-')}.test`, variant: 'A' });
      const rows = ['site_a', 'site_b'].flatMap((siteId, n) =>
        DIMS.flatMap((dim, i) =>
          ['2026-02-27', '2026-02-28'].map((day, d) => ({ site_id: siteId, metric: 'revenue', dim, day, value: 100 * n + 10 * i + d })),
        ),
      );
      await s.db.insertInto('daily_rollups').values(rows).execute();
    });
    afterAll(() => s?.close());

    if (dialect === 'sqlite') {
      it('keeps the roll-ups WITHOUT ROWID, and a grouped series searches the key by its prefix instead of filtering every key of the metric', async () => {
        expect(await withoutRowid(s)).toBe(1);
        const plans = await plansOf(s.db, 'daily_rollups', (db) =>
          timeseries({ db, siteId: 'site_a' }, 'revenue', '2026-02-27', '2026-02-28', 'day', 'course'),
        );
        expect(plans).toHaveLength(1);
        expect(plans[0]).toMatch(/USING PRIMARY KEY \(site_id=\? AND metric=\? AND dim>\? AND dim<\?\)/);
      });
    }

    it('selects exactly the keys that start with the prefix (case and the characters beside ":" told apart)', async () => {
      const read = (prefix: string) =>
        s.db
          .selectFrom('daily_rollups')
          .select('dim')
          .distinct()
          .where('site_id', '=', 'site_a')
          .where('metric', '=', 'revenue')
          .where(startsWith(s.db, 'dim', prefix))
          .orderBy('dim')
          .execute();
      expect((await read('course:')).map((r) => r.dim).sort()).toEqual(['course:a', 'course:b', 'course:é']);
      expect((await read('courses:')).map((r) => r.dim)).toEqual(['courses:x']);
      // The series grouped by course are those keys' own, day by day.
      const series = await timeseries({ db: s.db, siteId: 'site_a' }, 'revenue', '2026-02-27', '2026-02-28', 'day', 'course');
      expect(series.map((x) => [x.key, x.points.map((p) => p.value)]).sort()).toEqual([
        ['course:a', [0, 1]],
        ['course:b', [10, 11]],
        ['course:é', [20, 21]],
      ]);
      expect(() => startsWith(s.db, 'dim', 'course_')).toThrow(/plain, non-empty prefix/);
      expect(() => startsWith(s.db, 'dim', '')).toThrow(/plain, non-empty prefix/);
    });

    it('keeps every roll-up, the key and the cascade from the site across the migration down and up again', async () => {
      const before = await rollups(s);
      expect(before).toHaveLength(2 * DIMS.length * 2);
      await m039.down(s.db);
      if (dialect === 'sqlite') expect(await withoutRowid(s)).toBe(0);
      expect(await rollups(s)).toEqual(before);
      await m039.up(s.db);
      if (dialect === 'sqlite') expect(await withoutRowid(s)).toBe(1);
      expect(await rollups(s)).toEqual(before);

      // The key stays unique: a second roll-up of one site, metric, key and day is refused.
      const first = before[0];
      if (!first) throw new Error('no roll-up');
      await expect(s.db.insertInto('daily_rollups').values(first).execute()).rejects.toThrow();
      // The site's roll-ups go with it, and only its own.
      await s.db.deleteFrom('sites').where('id', '=', 'site_b').execute();
      expect(await rollups(s)).toEqual(before.filter((r) => r.site_id === 'site_a'));
    });
  });
}
