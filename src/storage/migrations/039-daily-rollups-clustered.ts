// SQLite: the daily roll-ups are kept in their key's own b-tree (WITHOUT ROWID). Migration 005 made a
// rowid table with its key in a separate index, so every read of a range of days (an overview, a series)
// searched the index and then looked each day's value up in the table: a year of 19 products' revenue
// took 1.5 ms, the lookups about half of it (bench/RESULTS.md, nineteenth session). Keyed by their own
// key, a range is one walk over adjacent leaves, and a roll-up's upsert writes one b-tree instead of two.
// The rows are small and their keys grow by day, so the random-page cost that made the token tables
// leave this layout (migration 017) does not apply. PostgreSQL's heap and key index stay as they are.
import { type Kysely, sql } from 'kysely';
import { isSqlite } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

type Layout = 'rowid' | 'without rowid';

/** Copies daily_rollups into the layout, in one unit; the table has no index but its key. */
async function rebuild(db: AnyDb, layout: Layout): Promise<void> {
  // Kysely's migrator runs SQLite migrations outside a transaction; a savepoint makes this one a unit.
  await sql`savepoint rebuild_daily_rollups`.execute(db);
  try {
    await sql
      .raw(
        `create table "daily_rollups_rebuilt" ("site_id" text not null references "sites" ("id") on delete cascade, ` +
          `"metric" text not null, "dim" text not null, "day" text not null, "value" bigint not null, ` +
          `constraint "daily_rollups_pk" primary key ("site_id", "metric", "dim", "day"))${layout === 'rowid' ? '' : ' without rowid'}`,
      )
      .execute(db);
    await sql`insert into daily_rollups_rebuilt (site_id, metric, dim, day, value)
      select site_id, metric, dim, day, value from daily_rollups`.execute(db);
    await sql`drop table daily_rollups`.execute(db);
    await sql`alter table daily_rollups_rebuilt rename to daily_rollups`.execute(db);
    await sql`release rebuild_daily_rollups`.execute(db);
  } catch (error) {
    await sql`rollback to rebuild_daily_rollups`.execute(db);
    await sql`release rebuild_daily_rollups`.execute(db);
    throw error;
  }
}

export async function up(db: AnyDb): Promise<void> {
  if (isSqlite(db)) await rebuild(db, 'without rowid');
}

export async function down(db: AnyDb): Promise<void> {
  if (isSqlite(db)) await rebuild(db, 'rowid');
}
