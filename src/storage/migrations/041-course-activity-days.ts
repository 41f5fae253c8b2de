// The students list's total for a course with inactivity (GET /students?courseId=&inactiveDays=: who in this
// course has not been active for a month?) was the course's students less the active students enrolled in
// it, each active student's enrollment looked up: 38 ms on PostgreSQL for a month at 100,000 students (a
// parallel hash join over 27,644 active students), 50 ms on SQLite (bench/RESULTS.md, twentieth session).
// The triggers now keep, per site, course and UTC day of the student's latest activity (migration 035; day
// -1: never active), how many students enrolled in the course there are, so the total is a sum over the
// days after the threshold's day, plus that day's own stretch from the index, as migration 040 does for
// the whole school.
//
// A student's count moves with them: when their latest activity reaches a new day, each of their courses'
// counts moves from the old day to the new one (once per student and day, not per activity). An enrollment
// counts at its student's day, a student at the days of their enrollments.
//
// Order matters where one statement changes both an enrollment and its student's latest activity (an
// enrollment added with activity, or deleted): the enrollment is counted or taken away at the student's
// day before migration 035's triggers move that day, which then moves the enrollment with the rest. SQLite
// fires the newest trigger first, PostgreSQL those of one kind by name: this migration's come before 035's
// on both.
//
// On PostgreSQL a change of enrollments reads their students' days under a share lock of the students'
// latest-activity rows, so that a concurrent move of a student's day, which updates that row, either
// waits for the change and then sees its enrollments, or is seen by it. Additions and moves go to the
// connection's slot (process id modulo 16; a slot's row may go negative, only the sum over slots counts);
// removals take from the lowest slot, as a removal must not insert: during a site's or course's deletion
// the counts may be gone already. A person's deletion takes their counts away first (before the cascades,
// whose triggers PostgreSQL fires when neither side can see the other any more), as migration 031 does.
import { type Kysely, sql } from 'kysely';
import { isSqlite } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

/** The UTC day of a latest activity since the epoch; -1 for never (stored as -1, migration 035). */
const day = (row: string) => `(case when ${row}.last_activity_at < 0 then -1 else ${row}.last_activity_at / 86400000 end)`;
const ADD_ON_CONFLICT = 'on conflict (site_id, course_id, day, slot) do update set n = course_activity_days.n + excluded.n';

const SQLITE_TRIGGERS = [
  'student_activity_courses_insert',
  'student_activity_courses_delete',
  'student_activity_courses_update',
  'enrollments_course_activity_insert',
  'enrollments_course_activity_delete',
  'enrollments_course_activity_update',
];
const POSTGRES_TRIGGERS = [
  ['student_activity', 'student_activity_courses_insert'],
  ['student_activity', 'student_activity_courses_delete'],
  ['student_activity', 'student_activity_courses_update'],
  ['enrollments', 'enrollments_course_activity_insert'],
  ['enrollments', 'enrollments_course_activity_delete'],
  ['enrollments', 'enrollments_course_activity_update'],
  ['people', 'people_course_activity_delete'],
] as const;
const POSTGRES_FUNCTIONS = [
  'course_activity_by_student',
  'course_activity_student_moved',
  'course_activity_by_enrollment',
  'course_activity_enrollment_moved',
  'course_activity_person_gone',
];

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('course_activity_days')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('course_id', 'text', (c) => c.notNull().references('courses.id').onDelete('cascade'))
    .addColumn('day', 'bigint', (c) => c.notNull())
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('course_activity_days_pk', ['site_id', 'course_id', 'day', 'slot'])
    .$call((table) => (isSqlite(db) ? table.modifyEnd(sql`without rowid`) : table))
    .execute();
  if (isSqlite(db)) await sqliteTriggers(db);
  else await postgresTriggers(db);
  // After the triggers: on PostgreSQL creating them locks out writers until this transaction commits.
  await sql`insert into course_activity_days (site_id, course_id, day, slot, n)
    select e.site_id, e.course_id, ${sql.raw(day('s'))}, 0, count(*) from enrollments e
      join student_activity s on s.site_id = e.site_id and s.person_id = e.person_id
      group by 1, 2, 3`.execute(db);
  if (!isSqlite(db)) await sql`analyze course_activity_days`.execute(db);
}

async function sqliteTriggers(db: AnyDb): Promise<void> {
  // A person holds one enrollment per course (002's unique key), so each course of theirs moves by one.
  const addStudent = (row: string) => `insert into course_activity_days (site_id, course_id, day, slot, n)
      select e.site_id, e.course_id, ${day(row)}, 0, 1 from enrollments e where e.site_id = ${row}.site_id and e.person_id = ${row}.person_id
      ${ADD_ON_CONFLICT};`;
  const removeStudent = (row: string) => `update course_activity_days set n = n - 1
      where site_id = ${row}.site_id and day = ${day(row)} and slot = 0
        and course_id in (select e.course_id from enrollments e where e.site_id = ${row}.site_id and e.person_id = ${row}.person_id);`;
  const addEnrollment = (row: string) => `insert into course_activity_days (site_id, course_id, day, slot, n)
      select ${row}.site_id, ${row}.course_id, ${day('s')}, 0, 1 from student_activity s
        where s.site_id = ${row}.site_id and s.person_id = ${row}.person_id
      ${ADD_ON_CONFLICT};`;
  const removeEnrollment = (row: string) => `update course_activity_days set n = n - 1
      where site_id = ${row}.site_id and course_id = ${row}.course_id and slot = 0
        and day = (select ${day('s')} from student_activity s where s.site_id = ${row}.site_id and s.person_id = ${row}.person_id);`;
  for (const statement of [
    `create trigger student_activity_courses_insert after insert on student_activity begin ${addStudent('new')} end`,
    `create trigger student_activity_courses_delete after delete on student_activity begin ${removeStudent('old')} end`,
    `create trigger student_activity_courses_update after update of site_id, person_id, last_activity_at on student_activity
      when old.site_id is not new.site_id or old.person_id is not new.person_id or ${day('old')} <> ${day('new')}
      begin ${removeStudent('old')} ${addStudent('new')} end`,
    `create trigger enrollments_course_activity_insert after insert on enrollments begin ${addEnrollment('new')} end`,
    `create trigger enrollments_course_activity_delete after delete on enrollments begin ${removeEnrollment('old')} end`,
    `create trigger enrollments_course_activity_update after update of site_id, person_id, course_id on enrollments
      when old.site_id is not new.site_id or old.person_id is not new.person_id or old.course_id is not new.course_id
      begin ${removeEnrollment('old')} ${addEnrollment('new')} end`,
  ])
    await sql.raw(statement).execute(db);
}

async function postgresTriggers(db: AnyDb): Promise<void> {
  /** Adds the counted rows (site_id, course_id, day, n) to this connection's slot, in key order. */
  const add = (rows: string) => `insert into course_activity_days (site_id, course_id, day, slot, n)
      select site_id, course_id, day, pg_backend_pid() % 16, sum(n) from (${rows}) c
        group by site_id, course_id, day having sum(n) <> 0 order by site_id, course_id, day
      ${ADD_ON_CONFLICT};`;
  /** Takes the counted rows (site_id, course_id, day, n) from the lowest slot of each key. */
  const remove = (rows: string) => `update course_activity_days c set n = c.n - d.n
      from (select site_id, course_id, day, sum(n) as n from (${rows}) r group by site_id, course_id, day) d
      where c.site_id = d.site_id and c.course_id = d.course_id and c.day = d.day
        and c.slot = (select min(x.slot) from course_activity_days x
          where x.site_id = d.site_id and x.course_id = d.course_id and x.day = d.day);`;
  const coursesOf = (students: string, n = 1) => `select s.site_id, e.course_id, ${day('s')} as day, ${n} as n from ${students} s
      join enrollments e on e.site_id = s.site_id and e.person_id = s.person_id`;
  const daysOf = (enrollments: string) => `select e.site_id, e.course_id, ${day('s')} as day, 1 as n from ${enrollments} e
      join student_activity s on s.site_id = e.site_id and s.person_id = e.person_id`;
  const lockStudents = (enrollments: string) => `perform 1 from student_activity s
      where (s.site_id, s.person_id) in (select e.site_id, e.person_id from ${enrollments} e)
      order by s.site_id, s.person_id for share;`;
  const functions = {
    course_activity_by_student: `if tg_op = 'DELETE' then ${remove(coursesOf('removed'))}
        else ${add(coursesOf('added'))} end if; return null;`,
    course_activity_student_moved: `${add(`${coursesOf('(select old.site_id, old.person_id, old.last_activity_at) as', -1)}
        union all ${coursesOf('(select new.site_id, new.person_id, new.last_activity_at) as')}`)} return null;`,
    course_activity_by_enrollment: `if tg_op = 'DELETE' then ${lockStudents('removed')} ${remove(daysOf('removed'))}
        else ${lockStudents('added')} ${add(daysOf('added'))} end if; return null;`,
    course_activity_enrollment_moved: `${lockStudents('(select old.site_id, old.person_id union all select new.site_id, new.person_id) as')}
        ${remove(daysOf('(select old.site_id, old.person_id, old.course_id) as'))}
        ${add(daysOf('(select new.site_id, new.person_id, new.course_id) as'))} return null;`,
    course_activity_person_gone: `${remove(daysOf('(select e.site_id, e.person_id, e.course_id from enrollments e where e.person_id = old.id) as'))}
        return old;`,
  };
  for (const [name, body] of Object.entries(functions))
    await sql.raw(`create function ${name}() returns trigger language plpgsql as $$ begin ${body} end $$`).execute(db);
  for (const [table, fn, prefix] of [
    ['student_activity', 'course_activity_by_student', 'student_activity_courses'],
    ['enrollments', 'course_activity_by_enrollment', 'enrollments_course_activity'],
  ] as const) {
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
    .raw(`create trigger student_activity_courses_update after update of site_id, person_id, last_activity_at on student_activity for each row
      when (old.site_id is distinct from new.site_id or old.person_id is distinct from new.person_id or ${day('old')} <> ${day('new')})
      execute function course_activity_student_moved()`)
    .execute(db);
  await sql
    .raw(`create trigger enrollments_course_activity_update after update of site_id, person_id, course_id on enrollments for each row
      when (old.site_id is distinct from new.site_id or old.person_id is distinct from new.person_id or old.course_id is distinct from new.course_id)
      execute function course_activity_enrollment_moved()`)
    .execute(db);
  await sql
    .raw('create trigger people_course_activity_delete before delete on people for each row execute function course_activity_person_gone()')
    .execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  if (isSqlite(db)) for (const trigger of SQLITE_TRIGGERS) await sql.raw(`drop trigger if exists ${trigger}`).execute(db);
  else {
    for (const [table, trigger] of POSTGRES_TRIGGERS) await sql.raw(`drop trigger if exists ${trigger} on ${table}`).execute(db);
    for (const fn of POSTGRES_FUNCTIONS) await sql.raw(`drop function if exists ${fn}()`).execute(db);
  }
  await db.schema.dropTable('course_activity_days').execute();
}
