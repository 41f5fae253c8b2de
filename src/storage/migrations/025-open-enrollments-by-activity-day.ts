// Learners at risk for inactivity: the total counted every matching entry of the open enrollments' index
// (migration 024), 108 ms on SQLite for 833,516 inactive learners of a million (bench/RESULTS.md,
// thirteenth session). Most open enrollments have access for good (lifetime, or no end date); for those
// the triggers now keep how many there are per site and UTC day of last activity (day -1: never active)
// in open_enrollment_activity, so "inactive since X" among them is a sum over the days before X's day plus
// X's own day read from the index. Enrollments whose access ends are counted from the expiry index, as
// only those whose access has not ended yet count.
//
// On PostgreSQL inserts and deletions are counted once per statement (transition tables). An update is
// counted by a row trigger that fires only when a column the count depends on changed, and adds its
// difference to the connection's slot (process id modulo 16; a slot's row may go negative, only the sum
// over slots counts), so concurrent updates do not queue on one row.
import { type Kysely, sql } from 'kysely';
import { isSqlite } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

/** Counted: open (not revoked, not completed) with access for good. */
const counted = (row: string) =>
  `(${row}.revoked_at is null and ${row}.completed_at is null and (${row}.lifetime_access = 1 or ${row}.access_expires_at is null))`;
/** The UTC day of the last activity since the epoch, -1 for never. */
const day = (row: string) => `coalesce(${row}.last_activity_at / 86400000, -1)`;
const ADD_ON_CONFLICT = 'on conflict (site_id, day, slot) do update set n = open_enrollment_activity.n + excluded.n';

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('open_enrollment_activity')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('day', 'bigint', (c) => c.notNull())
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('open_enrollment_activity_pk', ['site_id', 'day', 'slot'])
    .$call((table) => (isSqlite(db) ? table.modifyEnd(sql`without rowid`) : table))
    .execute();
  const moved = `old.site_id is not new.site_id or ${day('old')} is not ${day('new')}`;
  const columns = 'site_id, revoked_at, completed_at, lifetime_access, access_expires_at, last_activity_at';
  if (isSqlite(db)) {
    // A removal is an update, not an upsert: during a site's deletion its counts may already be gone.
    const add = sql.raw(`insert into open_enrollment_activity (site_id, day, slot, n) values (new.site_id, ${day('new')}, 0, 1)
      ${ADD_ON_CONFLICT};`);
    const remove = sql.raw(
      `update open_enrollment_activity set n = n - 1 where site_id = old.site_id and day = ${day('old')} and slot = 0;`,
    );
    await sql`create trigger enrollments_activity_insert after insert on enrollments when ${sql.raw(counted('new'))}
      begin ${add} end`.execute(db);
    await sql`create trigger enrollments_activity_delete after delete on enrollments when ${sql.raw(counted('old'))}
      begin ${remove} end`.execute(db);
    await sql`create trigger enrollments_activity_update_out after update of ${sql.raw(columns)} on enrollments
      when ${sql.raw(counted('old'))} and (not ${sql.raw(counted('new'))} or ${sql.raw(moved)}) begin ${remove} end`.execute(db);
    await sql`create trigger enrollments_activity_update_in after update of ${sql.raw(columns)} on enrollments
      when ${sql.raw(counted('new'))} and (not ${sql.raw(counted('old'))} or ${sql.raw(moved)}) begin ${add} end`.execute(db);
  } else {
    await sql`create function open_enrollment_activity_kept() returns trigger language plpgsql as $$
      begin
        if tg_op = 'DELETE' then
          update open_enrollment_activity c set n = c.n - d.n
            from (select r.site_id, ${sql.raw(day('r'))} as day, count(*) as n from removed r where ${sql.raw(counted('r'))} group by 1, 2) d
            where c.site_id = d.site_id and c.day = d.day
              and c.slot = (select min(x.slot) from open_enrollment_activity x where x.site_id = d.site_id and x.day = d.day);
        else
          insert into open_enrollment_activity (site_id, day, slot, n)
            select a.site_id, ${sql.raw(day('a'))}, pg_backend_pid() % 16, count(*) from added a where ${sql.raw(counted('a'))}
              group by 1, 2 order by 1, 2
            ${sql.raw(ADD_ON_CONFLICT)};
        end if;
        return null;
      end $$`.execute(db);
    await sql`create function open_enrollment_activity_moved() returns trigger language plpgsql as $$
      begin
        insert into open_enrollment_activity (site_id, day, slot, n)
          select site_id, day, pg_backend_pid() % 16, sum(n) from (
            select old.site_id, ${sql.raw(day('old'))} as day, -1 as n where ${sql.raw(counted('old'))}
            union all
            select new.site_id, ${sql.raw(day('new'))}, 1 where ${sql.raw(counted('new'))}
          ) c group by 1, 2 having sum(n) <> 0 order by 1, 2
          ${sql.raw(ADD_ON_CONFLICT)};
        return null;
      end $$`.execute(db);
    await sql`create trigger enrollments_activity_insert after insert on enrollments
      referencing new table as added for each statement execute function open_enrollment_activity_kept()`.execute(db);
    await sql`create trigger enrollments_activity_delete after delete on enrollments
      referencing old table as removed for each statement execute function open_enrollment_activity_kept()`.execute(db);
    await sql`create trigger enrollments_activity_update after update of ${sql.raw(columns)} on enrollments for each row
      when (${sql.raw(counted('old'))} is distinct from ${sql.raw(counted('new'))}
        or (${sql.raw(counted('new'))} and (old.site_id is distinct from new.site_id or ${sql.raw(day('old'))} is distinct from ${sql.raw(day('new'))})))
      execute function open_enrollment_activity_moved()`.execute(db);
  }
  // After the triggers: on PostgreSQL creating them locks out writers until this transaction commits.
  await sql`insert into open_enrollment_activity (site_id, day, slot, n)
    select site_id, ${sql.raw(day('e'))}, 0, count(*) from enrollments e where ${sql.raw(counted('e'))}
    group by 1, 2`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  for (const t of ['insert', 'delete', 'update', 'update_out', 'update_in'])
    await sql
      .raw(
        isSqlite(db)
          ? `drop trigger if exists enrollments_activity_${t}`
          : `drop trigger if exists enrollments_activity_${t} on enrollments`,
      )
      .execute(db);
  if (!isSqlite(db)) {
    await sql`drop function if exists open_enrollment_activity_kept()`.execute(db);
    await sql`drop function if exists open_enrollment_activity_moved()`.execute(db);
  }
  await db.schema.dropTable('open_enrollment_activity').execute();
}
