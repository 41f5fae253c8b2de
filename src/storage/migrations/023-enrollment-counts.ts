// A course's roster (GET /courses/{id}/enrollments) counted every enrollment of the course for its total:
// 4.7 ms on SQLite and 36 ms on PostgreSQL for a course of 100,000 learners (bench/RESULTS.md, thirteenth
// session), so the list served 116 requests a second on PostgreSQL. The number of enrollments per site and
// course is now kept in enrollment_counts by triggers, as order_counts keeps the orders (migration 020), so
// every writer keeps it in step and a roster's total is a few rows.
//
// On PostgreSQL each connection adds to its own slot (its process id modulo 16) and a total sums the
// slots, so concurrent enrollments in one course do not queue on one row. An enrollment's course or site
// never changes in the service; should a statement change them, a row trigger that fires only then moves
// the count, so the frequent activity updates of enrollments run no trigger at all.
import { type Kysely, sql } from 'kysely';
import { isSqlite } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('enrollment_counts')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('course_id', 'text', (c) => c.notNull().references('courses.id').onDelete('cascade'))
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('enrollment_counts_pk', ['site_id', 'course_id', 'slot'])
    .$call((table) => (isSqlite(db) ? table.modifyEnd(sql`without rowid`) : table))
    .execute();
  if (isSqlite(db)) {
    const add = sql`insert into enrollment_counts (site_id, course_id, slot, n) values (new.site_id, new.course_id, 0, 1)
        on conflict (site_id, course_id, slot) do update set n = n + 1;`;
    // An update, not an upsert: during a site's deletion its counts may already be gone.
    const remove = sql`update enrollment_counts set n = n - 1 where site_id = old.site_id and course_id = old.course_id and slot = 0;`;
    await sql`create trigger enrollments_counted_insert after insert on enrollments begin ${add} end`.execute(db);
    await sql`create trigger enrollments_counted_delete after delete on enrollments begin ${remove} end`.execute(db);
    await sql`create trigger enrollments_counted_update after update of site_id, course_id on enrollments
      when old.site_id is not new.site_id or old.course_id is not new.course_id begin ${remove} ${add} end`.execute(db);
  } else {
    // Insert and delete: once per statement over the rows it changed (transition tables). Additions are
    // ordered by key, so two statements that share a slot lock rows in one order; a removal takes from the
    // lowest slot of its key, which exists since the enrollment was counted.
    await sql`create function enrollment_counts_kept() returns trigger language plpgsql as $$
      begin
        if tg_op = 'DELETE' then
          update enrollment_counts c set n = c.n - d.n
            from (select site_id, course_id, count(*) as n from removed group by site_id, course_id) d
            where c.site_id = d.site_id and c.course_id = d.course_id
              and c.slot = (select min(x.slot) from enrollment_counts x where x.site_id = d.site_id and x.course_id = d.course_id);
        else
          insert into enrollment_counts (site_id, course_id, slot, n)
            select site_id, course_id, pg_backend_pid() % 16, count(*) from added group by site_id, course_id order by site_id, course_id
            on conflict (site_id, course_id, slot) do update set n = enrollment_counts.n + excluded.n;
        end if;
        return null;
      end $$`.execute(db);
    await sql`create function enrollment_counts_moved() returns trigger language plpgsql as $$
      begin
        update enrollment_counts c set n = c.n - 1
          where c.site_id = old.site_id and c.course_id = old.course_id
            and c.slot = (select min(x.slot) from enrollment_counts x where x.site_id = old.site_id and x.course_id = old.course_id);
        insert into enrollment_counts (site_id, course_id, slot, n) values (new.site_id, new.course_id, pg_backend_pid() % 16, 1)
          on conflict (site_id, course_id, slot) do update set n = enrollment_counts.n + 1;
        return null;
      end $$`.execute(db);
    await sql`create trigger enrollments_counted_insert after insert on enrollments
      referencing new table as added for each statement execute function enrollment_counts_kept()`.execute(db);
    await sql`create trigger enrollments_counted_delete after delete on enrollments
      referencing old table as removed for each statement execute function enrollment_counts_kept()`.execute(db);
    await sql`create trigger enrollments_counted_update after update of site_id, course_id on enrollments for each row
      when (old.site_id is distinct from new.site_id or old.course_id is distinct from new.course_id)
      execute function enrollment_counts_moved()`.execute(db);
  }
  // After the triggers: on PostgreSQL creating them locks out writers until this transaction commits.
  await sql`insert into enrollment_counts (site_id, course_id, slot, n)
    select site_id, course_id, 0, count(*) from enrollments group by site_id, course_id`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  for (const t of ['insert', 'delete', 'update'])
    await sql
      .raw(
        isSqlite(db) ? `drop trigger if exists enrollments_counted_${t}` : `drop trigger if exists enrollments_counted_${t} on enrollments`,
      )
      .execute(db);
  if (!isSqlite(db)) {
    await sql`drop function if exists enrollment_counts_kept()`.execute(db);
    await sql`drop function if exists enrollment_counts_moved()`.execute(db);
  }
  await db.schema.dropTable('enrollment_counts').execute();
}
