// The students list filtered by course (GET /students?courseId=) counted its total by asking each of the
// site's students whether they hold an enrollment in the course: 139-302 ms on SQLite at 100,000 students
// (bench/RESULTS.md, fourteenth session), so the list served 10 requests a second. The number of students
// enrolled per site and course is now kept in course_student_counts by triggers.
//
// A student is a person holding the student role at the site, and an enrollment does not imply the role
// (an operator may take it away and leave the enrollments), so the count is of enrollments whose person
// holds the role: the enrollments' triggers add or take one when the person is a student, and the roles'
// triggers add or take one for each of the person's enrollments at the site when the student role comes
// or goes. Within one transaction each side sees the other's rows, so a person deleted with both (a
// cascade) is taken away exactly once, whichever goes first (on PostgreSQL by a trigger on the person). (Two transactions that concurrently grant
// the role and enroll the same person each miss the other's row on PostgreSQL; the service's writers
// grant the role before enrolling in the same transaction, so that takes two separate writers at once. Since
// migration 037 the second of them waits for the first and reads its rows.)
//
// Beside the students, it keeps how many of those enrollments are completed and how many revoked, so the
// list's total for a course with either state (who completed this course?) is read the same way.
//
// On PostgreSQL each connection adds to its own slot (its process id modulo 16), as in migration 023.
import { type Kysely, sql } from 'kysely';
import { isSqlite } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

const TRIGGERS = [
  ['enrollments', 'enrollments_students_insert'],
  ['enrollments', 'enrollments_students_delete'],
  ['enrollments', 'enrollments_students_update'],
  ['site_roles', 'site_roles_students_insert'],
  ['site_roles', 'site_roles_students_delete'],
  ['site_roles', 'site_roles_students_update'],
  ['people', 'people_students_delete'],
] as const;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('course_student_counts')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('course_id', 'text', (c) => c.notNull().references('courses.id').onDelete('cascade'))
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addColumn('completed', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('revoked', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('course_student_counts_pk', ['site_id', 'course_id', 'slot'])
    .$call((table) => (isSqlite(db) ? table.modifyEnd(sql`without rowid`) : table))
    .execute();
  if (isSqlite(db)) await sqliteTriggers(db);
  else await postgresTriggers(db);
  // After the triggers: on PostgreSQL creating them locks out writers until this transaction commits.
  await sql`insert into course_student_counts (site_id, course_id, slot, n, completed, revoked)
    select e.site_id, e.course_id, 0, count(*), count(e.completed_at), count(e.revoked_at) from enrollments e
      join site_roles r on r.site_id = e.site_id and r.person_id = e.person_id and r.role = 'student'
      group by e.site_id, e.course_id`.execute(db);
}

async function sqliteTriggers(db: AnyDb): Promise<void> {
  const student = (row: 'new' | 'old') =>
    sql.raw(
      `exists (select 1 from site_roles r where r.site_id = ${row}.site_id and r.person_id = ${row}.person_id and r.role = 'student')`,
    );
  // Updates, not upserts, take away: during a site's or course's deletion its counts may already be gone.
  const more = sql.raw(
    'on conflict (site_id, course_id, slot) do update set n = n + 1, completed = completed + excluded.completed, revoked = revoked + excluded.revoked',
  );
  const addEnrollment = sql`insert into course_student_counts (site_id, course_id, slot, n, completed, revoked)
      select new.site_id, new.course_id, 0, 1, new.completed_at is not null, new.revoked_at is not null where ${student('new')} ${more};`;
  const removeEnrollment = sql`update course_student_counts
      set n = n - 1, completed = completed - (old.completed_at is not null), revoked = revoked - (old.revoked_at is not null)
      where site_id = old.site_id and course_id = old.course_id and slot = 0 and ${student('old')};`;
  await sql`create trigger enrollments_students_insert after insert on enrollments begin ${addEnrollment} end`.execute(db);
  await sql`create trigger enrollments_students_delete after delete on enrollments begin ${removeEnrollment} end`.execute(db);
  // Completing or revoking moves the figures; the frequent activity updates run nothing.
  await sql`create trigger enrollments_students_update after update of site_id, person_id, course_id, completed_at, revoked_at on enrollments
    when old.site_id is not new.site_id or old.person_id is not new.person_id or old.course_id is not new.course_id
      or (old.completed_at is null) <> (new.completed_at is null) or (old.revoked_at is null) <> (new.revoked_at is null)
    begin ${removeEnrollment} ${addEnrollment} end`.execute(db);
  const addRole = sql`insert into course_student_counts (site_id, course_id, slot, n, completed, revoked)
      select e.site_id, e.course_id, 0, 1, e.completed_at is not null, e.revoked_at is not null
        from enrollments e where new.role = 'student' and e.site_id = new.site_id and e.person_id = new.person_id ${more};`;
  const theirs = (column: 'completed_at' | 'revoked_at') =>
    sql.raw(`(select count(e.${column}) from enrollments e
      where e.site_id = old.site_id and e.person_id = old.person_id and e.course_id = course_student_counts.course_id)`);
  const removeRole = sql`update course_student_counts
      set n = n - 1, completed = completed - ${theirs('completed_at')}, revoked = revoked - ${theirs('revoked_at')}
      where old.role = 'student' and site_id = old.site_id and slot = 0
        and course_id in (select e.course_id from enrollments e where e.site_id = old.site_id and e.person_id = old.person_id);`;
  await sql`create trigger site_roles_students_insert after insert on site_roles when new.role = 'student' begin ${addRole} end`.execute(
    db,
  );
  await sql`create trigger site_roles_students_delete after delete on site_roles when old.role = 'student' begin ${removeRole} end`.execute(
    db,
  );
  await sql`create trigger site_roles_students_update after update of site_id, person_id, role on site_roles
    when old.site_id is not new.site_id or old.person_id is not new.person_id or old.role is not new.role
    begin ${removeRole} ${addRole} end`.execute(db);
}

async function postgresTriggers(db: AnyDb): Promise<void> {
  // Additions are ordered by key, so two statements that share a slot lock rows in one order; a removal
  // takes from the lowest slot of its key, which exists since what it removes was counted.
  const add = (rows: string) => `insert into course_student_counts (site_id, course_id, slot, n, completed, revoked)
      select site_id, course_id, pg_backend_pid() % 16, count(*), count(completed_at), count(revoked_at) from (${rows}) a
        group by site_id, course_id order by site_id, course_id
      on conflict (site_id, course_id, slot) do update set n = course_student_counts.n + excluded.n,
        completed = course_student_counts.completed + excluded.completed, revoked = course_student_counts.revoked + excluded.revoked;`;
  const remove = (
    rows: string,
  ) => `update course_student_counts c set n = c.n - d.n, completed = c.completed - d.completed, revoked = c.revoked - d.revoked
      from (select site_id, course_id, count(*) as n, count(completed_at) as completed, count(revoked_at) as revoked
        from (${rows}) a group by site_id, course_id) d
      where c.site_id = d.site_id and c.course_id = d.course_id
        and c.slot = (select min(x.slot) from course_student_counts x where x.site_id = d.site_id and x.course_id = d.course_id);`;
  const studentEnrollments = (table: string) => `select t.site_id, t.course_id, t.completed_at, t.revoked_at from ${table} t
      where exists (select 1 from site_roles r where r.site_id = t.site_id and r.person_id = t.person_id and r.role = 'student')`;
  const enrollmentsOfStudents = (table: string) => `select e.site_id, e.course_id, e.completed_at, e.revoked_at from ${table} t
      join enrollments e on e.site_id = t.site_id and e.person_id = t.person_id where t.role = 'student'`;
  // Insert and delete: once per statement over the rows it changed (transition tables).
  await sql
    .raw(`create function course_student_counts_by_enrollment() returns trigger language plpgsql as $$
      begin
        if tg_op = 'DELETE' then ${remove(studentEnrollments('removed'))}
        else ${add(studentEnrollments('added'))}
        end if;
        return null;
      end $$`)
    .execute(db);
  await sql
    .raw(`create function course_student_counts_by_role() returns trigger language plpgsql as $$
      begin
        if tg_op = 'DELETE' then ${remove(enrollmentsOfStudents('removed'))}
        else ${add(enrollmentsOfStudents('added'))}
        end if;
        return null;
      end $$`)
    .execute(db);
  // Updates of the keys never happen in the service, completing or revoking an enrollment rarely: a row
  // trigger that fires only then moves the figures, so the frequent activity updates run no trigger.
  await sql
    .raw(`create function course_student_counts_enrollment_moved() returns trigger language plpgsql as $$
      begin
        ${remove(studentEnrollments('(select old.site_id, old.person_id, old.course_id, old.completed_at, old.revoked_at) as'))}
        ${add(studentEnrollments('(select new.site_id, new.person_id, new.course_id, new.completed_at, new.revoked_at) as'))}
        return null;
      end $$`)
    .execute(db);
  await sql
    .raw(`create function course_student_counts_role_moved() returns trigger language plpgsql as $$
      begin
        ${remove(enrollmentsOfStudents('(select old.site_id, old.person_id, old.role) as'))}
        ${add(enrollmentsOfStudents('(select new.site_id, new.person_id, new.role) as'))}
        return null;
      end $$`)
    .execute(db);
  // A person's deletion removes their roles and enrollments by cascade, and PostgreSQL fires the triggers of
  // both cascades after both are done, when neither side can see the other any more: the person's counted
  // enrollments are taken away before the deletion instead.
  await sql
    .raw(`create function course_student_counts_person_gone() returns trigger language plpgsql as $$
      begin
        ${remove(studentEnrollments('(select e.site_id, e.person_id, e.course_id, e.completed_at, e.revoked_at from enrollments e where e.person_id = old.id) as'))}
        return old;
      end $$`)
    .execute(db);
  await sql`create trigger people_students_delete before delete on people for each row
    execute function course_student_counts_person_gone()`.execute(db);
  for (const table of ['enrollments', 'site_roles'] as const) {
    const fn = table === 'enrollments' ? 'course_student_counts_by_enrollment' : 'course_student_counts_by_role';
    const prefix = table === 'enrollments' ? 'enrollments_students' : 'site_roles_students';
    await sql
      .raw(`create trigger ${prefix}_insert after insert on ${table}
        referencing new table as added for each statement execute function ${fn}()`)
      .execute(db);
    await sql
      .raw(`create trigger ${prefix}_delete after delete on ${table}
        referencing old table as removed for each statement execute function ${fn}()`)
      .execute(db);
  }
  await sql`create trigger enrollments_students_update after update of site_id, person_id, course_id, completed_at, revoked_at on enrollments
    for each row when (old.site_id is distinct from new.site_id or old.person_id is distinct from new.person_id
      or old.course_id is distinct from new.course_id
      or (old.completed_at is null) <> (new.completed_at is null) or (old.revoked_at is null) <> (new.revoked_at is null))
    execute function course_student_counts_enrollment_moved()`.execute(db);
  await sql`create trigger site_roles_students_update after update of site_id, person_id, role on site_roles for each row
    when (old.site_id is distinct from new.site_id or old.person_id is distinct from new.person_id or old.role is distinct from new.role)
    execute function course_student_counts_role_moved()`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  for (const [table, trigger] of TRIGGERS)
    await sql.raw(isSqlite(db) ? `drop trigger if exists ${trigger}` : `drop trigger if exists ${trigger} on ${table}`).execute(db);
  if (!isSqlite(db))
    for (const fn of [
      'course_student_counts_by_enrollment',
      'course_student_counts_by_role',
      'course_student_counts_enrollment_moved',
      'course_student_counts_role_moved',
      'course_student_counts_person_gone',
    ])
      await sql.raw(`drop function if exists ${fn}()`).execute(db);
  await db.schema.dropTable('course_student_counts').execute();
}
