// The students list filtered by an enrollment state alone (GET /students?state=) counted its total by
// asking each of the site's students about their enrollments: for a common state (most students hold an
// active enrollment) 142 ms on SQLite and 226 ms on PostgreSQL at 100,000 students (bench/RESULTS.md,
// fifteenth session). Each student's figures are now kept in student_figures by triggers, and each
// state's students are a range of a partial index over them:
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
// person's next change; the service changes one person's enrollments one request at a time.
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

/**
 * The figures of the students among `pairs` (a query of site_id, person_id), as an upsert. A student
 * without enrollments joins one row of nulls, which `e.id is not null` keeps out of the open count.
 */
function recompute(pairs: string): string {
  return `insert into student_figures (site_id, person_id, completed, revoked, open_for_good, timed_first_end, timed_last_end)
      select r.site_id, r.person_id, count(e.completed_at), count(e.revoked_at),
        count(case when e.id is not null and e.revoked_at is null and (e.lifetime_access = 1 or e.access_expires_at is null) then 1 end),
        min(case when e.revoked_at is null and e.lifetime_access = 0 then e.access_expires_at end),
        max(case when e.revoked_at is null and e.lifetime_access = 0 then e.access_expires_at end)
      from (${pairs}) k
        join site_roles r on r.site_id = k.site_id and r.person_id = k.person_id and r.role = 'student'
        left join enrollments e on e.site_id = r.site_id and e.person_id = r.person_id
      where true
      group by r.site_id, r.person_id
      order by r.site_id, r.person_id
      on conflict (site_id, person_id) do update set completed = excluded.completed, revoked = excluded.revoked,
        open_for_good = excluded.open_for_good, timed_first_end = excluded.timed_first_end, timed_last_end = excluded.timed_last_end;`;
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
  // Each figure is in its index's key as well as its condition: an index keyed by site_id alone ties, for
  // SQLite without statistics, with the primary key's range of the site, which it then reads instead.
  await sql`create index student_figures_completed on student_figures (site_id, completed) where completed > 0`.execute(db);
  await sql`create index student_figures_revoked on student_figures (site_id, revoked) where revoked > 0`.execute(db);
  await sql`create index student_figures_open on student_figures (site_id, open_for_good) where open_for_good > 0`.execute(db);
  await sql`create index student_figures_timed_last on student_figures (site_id, timed_last_end) where open_for_good = 0`.execute(db);
  await sql`create index student_figures_timed_first on student_figures (site_id, timed_first_end) where timed_first_end is not null`.execute(
    db,
  );
  if (isSqlite(db)) {
    const of = (row: 'new' | 'old') => `select ${row}.site_id as site_id, ${row}.person_id as person_id`;
    const removeStudent = `delete from student_figures where old.role = 'student' and site_id = old.site_id and person_id = old.person_id;`;
    const addStudent = recompute(`${of('new')} where new.role = 'student'`);
    for (const statement of [
      `create trigger enrollments_figures_insert after insert on enrollments begin ${recompute(of('new'))} end`,
      `create trigger enrollments_figures_delete after delete on enrollments begin ${recompute(of('old'))} end`,
      `create trigger enrollments_figures_update after update of site_id, person_id, completed_at, revoked_at, lifetime_access, access_expires_at
        on enrollments when ${FIGURES_CHANGED.replaceAll('is distinct from', 'is not')}
        begin ${recompute(of('old'))} ${recompute(of('new'))} end`,
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
      student_figures_by_enrollment: `if tg_op = 'DELETE' then ${recompute('select distinct site_id, person_id from removed')}
        else ${recompute('select distinct site_id, person_id from added')} end if; return null;`,
      student_figures_enrollment_changed: `${recompute('select old.site_id, old.person_id union select new.site_id, new.person_id')} return null;`,
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
  await db.schema.dropTable('student_figures').execute();
}
