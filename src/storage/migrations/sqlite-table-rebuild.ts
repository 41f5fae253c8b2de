// SQLite cannot alter a column's constraints or a table's layout in place: the table is built anew under
// another name, the rows copied, the old table dropped and the new one renamed, its indexes created again.
// Migrations 017 and 050 do this to the token tables. Kysely's migrator runs SQLite migrations outside a
// transaction, so a savepoint makes each rebuild a unit: a failure leaves the table as it was.
import { type Kysely, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export interface TableRebuild {
  /**
   * The new CREATE statement, from the one SQLite stored, already renamed to the table being built. Throws
   * when the stored statement is not the one the migration expects.
   */
  create(stored: string): string;
  /** Whether an index of the old table is created again (default: every one). */
  keepIndex?(name: string): boolean;
}

export async function rebuildSqliteTable(db: AnyDb, table: string, rebuild: TableRebuild): Promise<void> {
  const building = `${table}_rebuilt`;
  const stored = await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = ${table}`.execute(db);
  const indexes = await sql<{
    name: string;
    sql: string;
  }>`select name, sql from sqlite_master where type = 'index' and tbl_name = ${table} and sql is not null`.execute(db);
  // SQLite keeps the statement as written, but for its first words, which it stores as CREATE TABLE.
  const head = new RegExp(`^create table "${table}" `, 'i');
  const statement = stored.rows[0]?.sql ?? '';
  if (!head.test(statement)) throw new Error(`${table} is not a table this migration knows: ${statement}`);
  const create = rebuild.create(statement.replace(head, `create table "${building}" `));
  const kept = indexes.rows.filter((index) => rebuild.keepIndex?.(index.name) ?? true);
  await sql`savepoint rebuild_table`.execute(db);
  try {
    await sql.raw(create).execute(db);
    await sql.raw(`insert into "${building}" select * from "${table}"`).execute(db);
    await sql.raw(`drop table "${table}"`).execute(db);
    await sql.raw(`alter table "${building}" rename to "${table}"`).execute(db);
    for (const index of kept) await sql.raw(index.sql).execute(db);
    await sql`release rebuild_table`.execute(db);
  } catch (error) {
    await sql`rollback to rebuild_table`.execute(db);
    await sql`release rebuild_table`.execute(db);
    throw error;
  }
}
