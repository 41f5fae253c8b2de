// The names of a table's indexes as the database itself lists them, sorted, on either dialect (SQLite's
// automatic indexes for a key or a unique constraint included).
import { sql } from 'kysely';
import type { SchoolStore } from './school-fixtures.js';

export async function indexNames(s: SchoolStore, table: string): Promise<string[]> {
  if (s.store.dialect === 'sqlite') {
    const r = await sql<{
      name: string;
    }>`select name from sqlite_master where type = 'index' and tbl_name = ${table} order by name`.execute(s.db);
    return r.rows.map((row) => row.name);
  }
  const r = await sql<{ indexname: string }>`select indexname from pg_indexes where tablename = ${table} order by indexname`.execute(s.db);
  return r.rows.map((row) => row.indexname);
}
