// Migration 051: every foreign key that refers to a table whose rows are deleted (by the application's own
// statements, or by a cascade from one) has an index that leads with its columns, on both dialects, so a
// delete finds the rows that refer to it without scanning their table.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as m051 from '../../src/storage/migrations/051-references-of-deleted-rows.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import {
  enrollmentRow,
  insertCourse,
  insertPerson,
  insertSite,
  openSchoolStore,
  type SchoolStore,
  TEST_NOW,
} from '../helpers/school-fixtures.js';

interface ForeignKey {
  child: string;
  columns: string[];
  parent: string;
  cascades: boolean;
}

/** A foreign key as the failures name it: `child(columns) -> parent`. */
const named = (key: ForeignKey) => `${key.child}(${key.columns.join(', ')}) -> ${key.parent}`;

const SOURCE = join(import.meta.dirname, '../../src');

/** Every .ts file under src, migrations left out (they delete while reshaping, never while serving). */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The tables the application's statements delete from: Kysely's deleteFrom('t') and raw `delete from t`. */
function tablesDeletedFrom(): Set<string> {
  const tables = new Set<string>();
  for (const file of sourceFiles(SOURCE)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/deleteFrom\('([a-z_]+)'\)|delete from ([a-z_]+)/gi)) tables.add((match[1] ?? match[2]) as string);
  }
  return tables;
}

async function foreignKeys(s: SchoolStore): Promise<ForeignKey[]> {
  if (s.store.dialect === 'sqlite') {
    const r = await sql<{ child: string; id: number; seq: number; table: string; from: string; on_delete: string }>`
      select m.name as child, f.id, f.seq, f."table", f."from", f.on_delete
      from sqlite_master m, pragma_foreign_key_list(m.name) f where m.type = 'table' order by m.name, f.id, f.seq`.execute(s.db);
    const keys = new Map<string, ForeignKey>();
    for (const row of r.rows) {
      const key = `${row.child}/${row.id}`;
      const known = keys.get(key) ?? { child: row.child, columns: [], parent: row.table, cascades: row.on_delete === 'CASCADE' };
      known.columns.push(row.from);
      keys.set(key, known);
    }
    return [...keys.values()];
  }
  const r = await sql<{ child: string; parent: string; deletion: string; columns: string[] }>`
    select child.relname as child, parent.relname as parent, c.confdeltype as deletion,
      array(select a.attname::text from unnest(c.conkey) with ordinality k(n, i)
            join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.n order by k.i) as columns
    from pg_constraint c
    join pg_class child on child.oid = c.conrelid
    join pg_class parent on parent.oid = c.confrelid
    join pg_namespace ns on ns.oid = child.relnamespace
    where c.contype = 'f' and ns.nspname = current_schema()`.execute(s.db);
  return r.rows.map((row) => ({ child: row.child, columns: row.columns, parent: row.parent, cascades: row.deletion === 'c' }));
}

/** Each table's indexes as their columns in order (keys and unique constraints included). */
async function indexColumns(s: SchoolStore): Promise<Map<string, string[][]>> {
  const rows =
    s.store.dialect === 'sqlite'
      ? (
          await sql<{ table: string; name: string; column: string }>`
            select m.name as "table", il.name as name, ii.name as "column"
            from sqlite_master m, pragma_index_list(m.name) il, pragma_index_info(il.name) ii
            where m.type = 'table' order by m.name, il.name, ii.seqno`.execute(s.db)
        ).rows
      : (
          await sql<{ table: string; name: string; column: string }>`
            select t.relname as "table", ix.relname as name, a.attname::text as "column"
            from pg_index i
            join pg_class t on t.oid = i.indrelid
            join pg_class ix on ix.oid = i.indexrelid
            join pg_namespace ns on ns.oid = t.relnamespace
            cross join lateral unnest(i.indkey::int2[]) with ordinality k(n, o)
            join pg_attribute a on a.attrelid = t.oid and a.attnum = k.n
            where ns.nspname = current_schema() order by t.relname, ix.relname, k.o`.execute(s.db)
        ).rows;
  const byIndex = new Map<string, { table: string; columns: string[] }>();
  for (const row of rows) {
    const key = `${row.table}/${row.name}`;
    const index = byIndex.get(key) ?? { table: row.table, columns: [] };
    index.columns.push(row.column);
    byIndex.set(key, index);
  }
  const byTable = new Map<string, string[][]>();
  for (const { table, columns } of byIndex.values()) byTable.set(table, [...(byTable.get(table) ?? []), columns]);
  return byTable;
}

/**
 * The plan of a query as text. PostgreSQL is told not to scan tables whole, so that on the test's few rows
 * it still shows whether an index can serve the query.
 */
async function planOf(s: SchoolStore, query: string): Promise<string> {
  if (s.store.dialect === 'sqlite') {
    const r = await sql<{ detail: string }>`explain query plan ${sql.raw(query)}`.execute(s.db);
    return r.rows.map((row) => row.detail).join(' | ');
  }
  return s.db.transaction().execute(async (tx) => {
    await sql`set local enable_seqscan = off`.execute(tx);
    const r = await sql<{ 'QUERY PLAN': string }>`explain ${sql.raw(query)}`.execute(tx);
    return r.rows.map((row) => row['QUERY PLAN']).join(' | ');
  });
}

/** The deleted tables and, by cascade, the tables whose rows go with theirs. */
function deletedTables(keys: ForeignKey[], deletedFrom: Set<string>): Set<string> {
  const deleted = new Set(deletedFrom);
  for (let grew = true; grew; ) {
    grew = false;
    for (const key of keys) {
      if (key.cascades && deleted.has(key.parent) && !deleted.has(key.child)) {
        deleted.add(key.child);
        grew = true;
      }
    }
  }
  return deleted;
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`references of deleted rows are indexed (${dialect})`, () => {
    let s: SchoolStore;
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
    });
    afterAll(() => s?.close());

    it('every foreign key to a table whose rows are deleted has an index leading with its columns', async () => {
      const keys = await foreignKeys(s);
      const indexes = await indexColumns(s);
      const deleted = deletedTables(keys, tablesDeletedFrom());
      // The statements this rule is about are found: it cannot pass by finding none.
      for (const table of ['lectures', 'posts', 'assets', 'comments']) expect(deleted).toContain(table);
      const checked = keys.filter((key) => deleted.has(key.parent));
      expect(checked.map(named)).toEqual(
        expect.arrayContaining(['enrollments(last_lecture_id) -> lectures', 'comments(post_id) -> posts', 'comments(root_id) -> comments']),
      );
      const unindexed = checked
        .filter(
          (key) =>
            !(indexes.get(key.child) ?? []).some((columns) => key.columns.every((c) => columns.slice(0, key.columns.length).includes(c))),
        )
        .map(named);
      expect(unindexed).toEqual([]);
    });

    it("each index of migration 051 serves an equality on its column, as the delete's look for referring rows is", async () => {
      expect(m051.INDEXES.length).toBe(4);
      for (const [index, table, column] of m051.INDEXES) {
        expect(await planOf(s, `select 1 from ${table} where ${column} = 'x'`)).toContain(index);
      }
    });

    it('deleting a lecture still clears the enrolments that last watched it and deletes its comments', async () => {
      const db = s.db;
      await insertSite(db, { id: 'site_a', name: 'A', origin: 'http://a.test', variant: 'A' });
      await insertPerson(db, { id: 'per_1', email: 'p@a.test', name: 'P' });
      await insertCourse(db, 'site_a', 'crs_1');
      await db
        .insertInto('course_sections')
        .values({ id: 'sec_1', site_id: 'site_a', course_id: 'crs_1', title: 'S', position: 0 })
        .execute();
      for (const id of ['lec_1', 'lec_2']) {
        await db
          .insertInto('lectures')
          .values({
            id,
            site_id: 'site_a',
            course_id: 'crs_1',
            section_id: 'sec_1',
            title: id,
            position: id === 'lec_1' ? 0 : 1,
            duration_seconds: 60,
          })
          .execute();
      }
      await db
        .insertInto('enrollments')
        .values(enrollmentRow({ id: 'enr_1', site_id: 'site_a', person_id: 'per_1', course_id: 'crs_1', last_lecture_id: 'lec_1' }))
        .execute();
      for (const [id, lecture] of [
        ['cmt_1', 'lec_1'],
        ['cmt_2', 'lec_2'],
      ] as const) {
        await db
          .insertInto('comments')
          .values({ id, site_id: 'site_a', person_id: 'per_1', course_id: 'crs_1', lecture_id: lecture, body: 'b', created_at: TEST_NOW })
          .execute();
      }
      await db.deleteFrom('lectures').where('id', '=', 'lec_1').execute();
      const enrollment = await db.selectFrom('enrollments').select('last_lecture_id').where('id', '=', 'enr_1').executeTakeFirstOrThrow();
      expect(enrollment.last_lecture_id).toBeNull();
      const comments = await db.selectFrom('comments').select('id').orderBy('id').execute();
      expect(comments.map((c) => c.id)).toEqual(['cmt_2']);
    });
  });
}
