// The students list filtered by an enrollment state alone (GET /students?state=) counted its total by
// asking each of the site's students about their enrollments: for a common state (most students hold an
// active enrollment) 142 ms on SQLite and 226 ms on PostgreSQL at 100,000 students (bench/RESULTS.md,
// fifteenth session). Each student's figures are now kept in student_figures by triggers; how many
// students have each figure that does not depend on the time is kept per site in student_state_counts,
// and the time-bound ones are ranges of partial indexes over the figures:
//   completed: enrollments completed > 0;         revoked: enrollments revoked > 0;
//   active: open for good > 0 (not revoked, for life or without an end), or else the latest end of their
//           open timed access is after now;
//   expired: the earliest end of their open timed access is at or before now.
// The figures are recomputed from the person's enrollments at the site (a handful of rows) whenever one
// of those is added, removed, completed, revoked or has its access changed; the learners' frequent
// activity updates change none of these and run no trigger. Only students (holders of the student role)
// have a row: the roles' triggers add and remove it.
//
// On PostgreSQL two transactions that change the same person's enrollments at once each recompute from
// their own snapshot, so the later commit can leave figures that miss the other's change until the
// person's next change; the service changes one person's enrollments one request at a time. Since migration
// 037 the second waits for the first and recomputes with its rows.
import { type Kysely, sql } from 'kysely';
import { isSqlite } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

const TRIGGERS = [
  ['enrollments', 'enrollments_figures_insert'],
  ['enrollments', 'enrollments_figures_delete'],
  ['enrollments', 'enrollments_figures_update'],
  ['site_roles', 'site_roles_figures_insert'],
  ['site_roles', 'site_roles_figures_delete'],
  ['site_roles', 'site_roles_figures_update'],
] as const;

/** A student's figures, from their enrollments `e` at the site (a student without any joins nulls). */
const FIGURES = `count(e.completed_at), count(e.revoked_at),
  count(case when e.id is not null and e.revoked_at is null and (e.lifetime_access = 1 or e.access_expires_at is null) then 1 end),
  min(case when e.revoked_at is null and e.lifetime_access = 0 then e.access_expires_at end),
  max(case when e.revoked_at is null and e.lifetime_access = 0 then e.access_expires_at end)`;

/** The figures of the students among `pairs` (a query of site_id, person_id), as an upsert: for new students. */
function recompute(pairs: string): string {
  return `insert into student_figures (site_id, person_id, completed, revoked, open_for_good, timed_first_end, timed_last_end)
      select r.site_id, r.person_id, ${FIGURES}
      from (${pairs}) k
        join site_roles r on r.site_id = k.site_id and r.person_id = k.person_id and r.role = 'student'
        left join enrollments e on e.site_id = r.site_id and e.person_id = r.person_id
      where true
      group by r.site_id, r.person_id
      order by r.site_id, r.person_id
      on conflict (site_id, person_id) do update set completed = excluded.completed, revoked = excluded.revoked,
        open_for_good = excluded.open_for_good, timed_first_end = excluded.timed_first_end, timed_last_end = excluded.timed_last_end;`;
}

/**
 * The figures of the students among `pairs` that have them, recomputed in place: for changed enrollments.
 * Never an insert, which during a site's or person's deletion would bring back a row the cascade removed.
 */
function refresh(pairs: string): string {
  return `update student_figures set (completed, revoked, open_for_good, timed_first_end, timed_last_end) =
      (select ${FIGURES} from enrollments e where e.site_id = student_figures.site_id and e.person_id = student_figures.person_id)
    where (site_id, person_id) in (${pairs});`;
}

/** What an update of an enrollment must change to move its person's figures. */
const FIGURES_CHANGED = `old.site_id is distinct from new.site_id or old.person_id is distinct from new.person_id
  or (old.completed_at is null) <> (new.completed_at is null) or (old.revoked_at is null) <> (new.revoked_at is null)
  or old.lifetime_access is distinct from new.lifetime_access or old.access_expires_at is distinct from new.access_expires_at`;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('student_figures')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('person_id', 'text', (c) => c.notNull().references('people.id').onDelete('cascade'))
    .addColumn('completed', 'integer', (c) => c.notNull())
    .addColumn('revoked', 'integer', (c) => c.notNull())
    .addColumn('open_for_good', 'integer', (c) => c.notNull())
    .addColumn('timed_first_end', 'bigint')
    .addColumn('timed_last_end', 'bigint')
    .addPrimaryKeyConstraint('student_figures_pk', ['site_id', 'person_id'])
    .$call((table) => (isSqlite(db) ? table.modifyEnd(sql`without rowid`) : table))
    .execute();
  await stateCounts(db);
  // Each figure is in its index's key as well as its condition: an index keyed by site_id alone ties, for
  // SQLite without statistics, with the primary key's range of the site, which it then reads instead.
  await sql`create index student_figures_timed_last on student_figures (site_id, timed_last_end) where open_for_good = 0`.execute(db);
  await sql`create index student_figures_timed_first on student_figures (site_id, timed_first_end) where timed_first_end is not null`.execute(
    db,
  );
  if (isSqlite(db)) {
    const of = (row: 'new' | 'old') => `select ${row}.site_id as site_id, ${row}.person_id as person_id`;
    const removeStudent = `delete from student_figures where old.role = 'student' and site_id = old.site_id and person_id = old.person_id;`;
    const addStudent = recompute(`${of('new')} where new.role = 'student'`);
    for (const statement of [
      `create trigger enrollments_figures_insert after insert on enrollments begin ${refresh(of('new'))} end`,
      `create trigger enrollments_figures_delete after delete on enrollments begin ${refresh(of('old'))} end`,
      `create trigger enrollments_figures_update after update of site_id, person_id, completed_at, revoked_at, lifetime_access, access_expires_at
        on enrollments when ${FIGURES_CHANGED.replaceAll('is distinct from', 'is not')}
        begin ${refresh(of('old'))} ${refresh(of('new'))} end`,
      `create trigger site_roles_figures_insert after insert on site_roles when new.role = 'student' begin ${addStudent} end`,
      `create trigger site_roles_figures_delete after delete on site_roles when old.role = 'student' begin ${removeStudent} end`,
      `create trigger site_roles_figures_update after update of site_id, person_id, role on site_roles
        when old.site_id is not new.site_id or old.person_id is not new.person_id or old.role is not new.role
        begin ${removeStudent} ${addStudent} end`,
    ])
      await sql.raw(statement).execute(db);
  } else {
    // Insert and delete: once per statement over the rows it changed (transition tables); updates, which
    // rarely touch these columns, by a row trigger that fires only when they change.
    const functions = {
      student_figures_by_enrollment: `if tg_op = 'DELETE' then ${refresh('select site_id, person_id from removed')}
        else ${refresh('select site_id, person_id from added')} end if; return null;`,
      student_figures_enrollment_changed: `${refresh('select old.site_id, old.person_id union select new.site_id, new.person_id')} return null;`,
      student_figures_by_role: `if tg_op = 'DELETE' then
          delete from student_figures f using removed t where t.role = 'student' and f.site_id = t.site_id and f.person_id = t.person_id;
        else ${recompute("select distinct site_id, person_id from added where role = 'student'")} end if; return null;`,
      student_figures_role_changed: `if old.role = 'student' then
          delete from student_figures where site_id = old.site_id and person_id = old.person_id;
        end if;
        ${recompute("select new.site_id, new.person_id where new.role = 'student'")} return null;`,
    };
    for (const [name, body] of Object.entries(functions))
      await sql.raw(`create function ${name}() returns trigger language plpgsql as $$ begin ${body} end $$`).execute(db);
    for (const [table, fn] of [
      ['enrollments', 'student_figures_by_enrollment'],
      ['site_roles', 'student_figures_by_role'],
    ] as const) {
      const prefix = table === 'enrollments' ? 'enrollments_figures' : 'site_roles_figures';
      await sql
        .raw(
          `create trigger ${prefix}_insert after insert on ${table} referencing new table as added for each statement execute function ${fn}()`,
        )
        .execute(db);
      await sql
        .raw(
          `create trigger ${prefix}_delete after delete on ${table} referencing old table as removed for each statement execute function ${fn}()`,
        )
        .execute(db);
    }
    await sql
      .raw(`create trigger enrollments_figures_update after update of site_id, person_id, completed_at, revoked_at, lifetime_access, access_expires_at
        on enrollments for each row when (${FIGURES_CHANGED}) execute function student_figures_enrollment_changed()`)
      .execute(db);
    await sql`create trigger site_roles_figures_update after update of site_id, person_id, role on site_roles for each row
      when (old.site_id is distinct from new.site_id or old.person_id is distinct from new.person_id or old.role is distinct from new.role)
      execute function student_figures_role_changed()`.execute(db);
  }
  // After the triggers: on PostgreSQL creating them locks out writers until this transaction commits.
  await sql.raw(recompute("select site_id, person_id from site_roles where role = 'student'")).execute(db);
}

/**
 * Per site, how many students have completed, revoked and open-for-good enrollments, kept by triggers on
 * student_figures: the states that do not depend on the time are then a few rows. (On PostgreSQL each
 * connection adds to its own slot, its process id modulo 16, as in migration 023.)
 */
async function stateCounts(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('student_state_counts')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('completed', 'bigint', (c) => c.notNull())
    .addColumn('revoked', 'bigint', (c) => c.notNull())
    .addColumn('open_for_good', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('student_state_counts_pk', ['site_id', 'slot'])
    .$call((table) => (isSqlite(db) ? table.modifyEnd(sql`without rowid`) : table))
    .execute();
  if (isSqlite(db)) {
    // Updates, not upserts, take away: during a site's deletion its counts may already be gone.
    const add = `insert into student_state_counts (site_id, slot, completed, revoked, open_for_good)
        values (new.site_id, 0, new.completed > 0, new.revoked > 0, new.open_for_good > 0)
        on conflict (site_id, slot) do update set completed = completed + excluded.completed, revoked = revoked + excluded.revoked,
          open_for_good = open_for_good + excluded.open_for_good;`;
    const remove = `update student_state_counts set completed = completed - (old.completed > 0), revoked = revoked - (old.revoked > 0),
        open_for_good = open_for_good - (old.open_for_good > 0) where site_id = old.site_id and slot = 0;`;
    await sql.raw(`create trigger student_figures_counted_insert after insert on student_figures begin ${add} end`).execute(db);
    await sql.raw(`create trigger student_figures_counted_delete after delete on student_figures begin ${remove} end`).execute(db);
    await sql
      .raw(`create trigger student_figures_counted_update after update on student_figures
        when (old.completed > 0) <> (new.completed > 0) or (old.revoked > 0) <> (new.revoked > 0)
          or (old.open_for_good > 0) <> (new.open_for_good > 0) or old.site_id <> new.site_id
        begin ${remove} ${add} end`)
      .execute(db);
    return;
  }
  const tally = (rows: string) => `select site_id, count(*) filter (where completed > 0) as completed,
      count(*) filter (where revoked > 0) as revoked, count(*) filter (where open_for_good > 0) as open_for_good
      from ${rows} group by site_id`;
  const add = `insert into student_state_counts (site_id, slot, completed, revoked, open_for_good)
      select site_id, pg_backend_pid() % 16, completed, revoked, open_for_good from (${tally('added')}) t order by site_id
      on conflict (site_id, slot) do update set completed = student_state_counts.completed + excluded.completed,
        revoked = student_state_counts.revoked + excluded.revoked, open_for_good = student_state_counts.open_for_good + excluded.open_for_good;`;
  const remove = `update student_state_counts c set completed = c.completed - d.completed, revoked = c.revoked - d.revoked,
      open_for_good = c.open_for_good - d.open_for_good
      from (${tally('removed')}) d
      where c.site_id = d.site_id and c.slot = (select min(x.slot) from student_state_counts x where x.site_id = d.site_id);`;
  // Once per statement over the rows it changed (transition tables): an update takes its old rows away
  // and adds its new ones, which the recomputing upserts of the figures make one statement each.
  await sql
    .raw(`create function student_state_counts_kept() returns trigger language plpgsql as $$
      begin
        if tg_op in ('DELETE', 'UPDATE') then ${remove} end if;
        if tg_op in ('INSERT', 'UPDATE') then ${add} end if;
        return null;
      end $$`)
    .execute(db);
  await sql`create trigger student_figures_counted_insert after insert on student_figures
    referencing new table as added for each statement execute function student_state_counts_kept()`.execute(db);
  await sql`create trigger student_figures_counted_delete after delete on student_figures
    referencing old table as removed for each statement execute function student_state_counts_kept()`.execute(db);
  await sql`create trigger student_figures_counted_update after update on student_figures
    referencing old table as removed new table as added for each statement execute function student_state_counts_kept()`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  for (const [table, trigger] of TRIGGERS)
    await sql.raw(isSqlite(db) ? `drop trigger if exists ${trigger}` : `drop trigger if exists ${trigger} on ${table}`).execute(db);
  if (!isSqlite(db))
    for (const fn of [
      'student_figures_by_enrollment',
      'student_figures_enrollment_changed',
      'student_figures_by_role',
      'student_figures_role_changed',
    ])
      await sql.raw(`drop function if exists ${fn}()`).execute(db);
  // Dropping the figures drops their triggers, and with them the last user of the counts' function.
  await db.schema.dropTable('student_figures').execute();
  if (!isSqlite(db)) await sql`drop function if exists student_state_counts_kept()`.execute(db);
  await db.schema.dropTable('student_state_counts').execute();
}
