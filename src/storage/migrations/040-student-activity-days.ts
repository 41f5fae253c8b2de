// The students list's total for inactivity alone (GET /students?inactiveDays=) was the site's students
// less those active since the threshold, counted entry by entry from the students' latest activity (migration
// 035): 27,644 entries and 5 ms on PostgreSQL for a month at 100,000 students, the largest part of the
// request (bench/RESULTS.md, twentieth session). The triggers now keep how many students there are per site
// and UTC day of their latest activity (day -1: never active) in student_activity_days, so "active since X"
// is a sum over the days after X's day plus X's own day read from the index, as migration 025 does for the
// open enrollments. A student's row moves only when their latest activity reaches a new day: a learner's
// every later activity that day changes nothing here.
//
// On PostgreSQL inserts and deletions are counted once per statement (transition tables). An update is
// counted by a row trigger that fires only when the day moved, and adds its difference to the connection's
// slot (process id modulo 16; a slot's row may go negative, only the sum over slots counts), so concurrent
// learners' first activities of a day do not queue on one row.
import { type Kysely, sql } from 'kysely';
import { isSqlite } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

/** The UTC day of a row's latest activity since the epoch; -1 for never (stored as -1, migration 035). */
const day = (row: string) => `(case when ${row}.last_activity_at < 0 then -1 else ${row}.last_activity_at / 86400000 end)`;
const ADD_ON_CONFLICT = 'on conflict (site_id, day, slot) do update set n = student_activity_days.n + excluded.n';

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('student_activity_days')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('day', 'bigint', (c) => c.notNull())
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('student_activity_days_pk', ['site_id', 'day', 'slot'])
    .$call((table) => (isSqlite(db) ? table.modifyEnd(sql`without rowid`) : table))
    .execute();
  const moved = `old.site_id is not new.site_id or ${day('old')} <> ${day('new')}`;
  if (isSqlite(db)) {
    // A removal is an update, not an upsert: during a site's deletion its counts may already be gone.
    const add = sql.raw(`insert into student_activity_days (site_id, day, slot, n) values (new.site_id, ${day('new')}, 0, 1)
      ${ADD_ON_CONFLICT};`);
    const remove = sql.raw(`update student_activity_days set n = n - 1 where site_id = old.site_id and day = ${day('old')} and slot = 0;`);
    await sql`create trigger student_activity_days_insert after insert on student_activity begin ${add} end`.execute(db);
    await sql`create trigger student_activity_days_delete after delete on student_activity begin ${remove} end`.execute(db);
    await sql`create trigger student_activity_days_update after update of site_id, last_activity_at on student_activity
      when ${sql.raw(moved)} begin ${remove} ${add} end`.execute(db);
  } else {
    await sql`create function student_activity_days_kept() returns trigger language plpgsql as $$
      begin
        if tg_op = 'DELETE' then
          update student_activity_days c set n = c.n - d.n
            from (select r.site_id, ${sql.raw(day('r'))} as day, count(*) as n from removed r group by 1, 2) d
            where c.site_id = d.site_id and c.day = d.day
              and c.slot = (select min(x.slot) from student_activity_days x where x.site_id = d.site_id and x.day = d.day);
        else
          insert into student_activity_days (site_id, day, slot, n)
            select a.site_id, ${sql.raw(day('a'))}, pg_backend_pid() % 16, count(*) from added a group by 1, 2 order by 1, 2
            ${sql.raw(ADD_ON_CONFLICT)};
        end if;
        return null;
      end $$`.execute(db);
    await sql`create function student_activity_days_moved() returns trigger language plpgsql as $$
      begin
        insert into student_activity_days (site_id, day, slot, n)
          select site_id, day, pg_backend_pid() % 16, sum(n) from (
            select old.site_id, ${sql.raw(day('old'))} as day, -1 as n
            union all
            select new.site_id, ${sql.raw(day('new'))}, 1
          ) c group by 1, 2 order by 1, 2
          ${sql.raw(ADD_ON_CONFLICT)};
        return null;
      end $$`.execute(db);
    await sql`create trigger student_activity_days_insert after insert on student_activity
      referencing new table as added for each statement execute function student_activity_days_kept()`.execute(db);
    await sql`create trigger student_activity_days_delete after delete on student_activity
      referencing old table as removed for each statement execute function student_activity_days_kept()`.execute(db);
    await sql`create trigger student_activity_days_update after update of site_id, last_activity_at on student_activity for each row
      when (old.site_id is distinct from new.site_id or ${sql.raw(day('old'))} <> ${sql.raw(day('new'))})
      execute function student_activity_days_moved()`.execute(db);
  }
  // After the triggers: on PostgreSQL creating them locks out writers until this transaction commits.
  await sql`insert into student_activity_days (site_id, day, slot, n)
    select a.site_id, ${sql.raw(day('a'))}, 0, count(*) from student_activity a group by 1, 2`.execute(db);
  if (!isSqlite(db)) await sql`analyze student_activity_days`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  for (const t of ['insert', 'delete', 'update'])
    await sql
      .raw(
        isSqlite(db)
          ? `drop trigger if exists student_activity_days_${t}`
          : `drop trigger if exists student_activity_days_${t} on student_activity`,
      )
      .execute(db);
  if (!isSqlite(db)) {
    await sql`drop function if exists student_activity_days_kept()`.execute(db);
    await sql`drop function if exists student_activity_days_moved()`.execute(db);
  }
  await db.schema.dropTable('student_activity_days').execute();
}
