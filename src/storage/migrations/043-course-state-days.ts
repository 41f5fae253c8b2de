// The students list's total for a course with a state and inactivity (GET /students?courseId=&state=
// completed&inactiveDays=30: who finished this course and has not come back for a month?) was the course's
// students in the state less the active students among them, each of the 27,562 students active in the
// month asked for such an enrollment: 60 ms on SQLite at 100,000 students, 16 requests a second over HTTP
// with a p99 of 1.9 s (bench/RESULTS.md, twenty-second session). Migration 041 keeps per site, course and
// UTC day of the student's latest activity how many students are enrolled in the course; the same rows now
// also count how many of those enrollments are completed, revoked, and open for good (not revoked, for life
// or without an end), so the total is a sum over the days after the threshold's day, as for a course alone.
// The active state is the open-for-good enrollments plus the timed ones that have not ended, which depend on
// the time and are counted from migration 036's index of the course's timed enrollments by their end.
//
// A student holds one enrollment per course (002's unique key), so a course's row at a day counts each
// enrollment's own flags: nothing per student needs to be kept apart, as migration 042 must. 041's triggers
// are replaced by ones that move the flags with the count: a student's day move takes each enrollment's
// flags along, an enrollment added or deleted adds or takes its flags at its student's day, and an
// enrollment whose completion, revocation or access for good turns on or off is taken away with its old
// flags and added with its new ones, at its student's day.
//
// Order within a statement that changes an enrollment's flags and its student's latest activity (a lecture
// finished that completes the course): the flags are moved at the student's day before migration 035's
// triggers move that day, which then moves the enrollment with its new flags. The replacements keep 041's
// names, so PostgreSQL fires them before 035's as it did; SQLite fires the newest trigger first, and these
// are newer than 035's. PostgreSQL's locking is 041's: a change of enrollments share-locks their students'
// latest-activity rows, so a concurrent move of a student's day either waits for it and then reads the new
// flags, or is seen by it.
import { type Kysely, sql } from 'kysely';
import { isSqlite } from '../dialect.js';
import * as m041 from './041-course-activity-days.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

/** The UTC day of a latest activity since the epoch; -1 for never (stored as -1, migration 035). */
const day = (row: string) => `(case when ${row}.last_activity_at < 0 then -1 else ${row}.last_activity_at / 86400000 end)`;
const ADD_ON_CONFLICT = `on conflict (site_id, course_id, day, slot) do update set n = course_activity_days.n + excluded.n,
  completed = course_activity_days.completed + excluded.completed, revoked = course_activity_days.revoked + excluded.revoked,
  open_for_good = course_activity_days.open_for_good + excluded.open_for_good`;
/** An enrollment's access is open for good: not revoked, for life or without an end (as migration 034 has it). */
const OPEN_FOR_GOOD = (row: string) => `(${row}.revoked_at is null and (${row}.lifetime_access = 1 or ${row}.access_expires_at is null))`;
/** The columns whose change may move a count: the keys and what the three flags are made of. */
const COUNTED_COLUMNS = 'site_id, person_id, course_id, completed_at, revoked_at, lifetime_access, access_expires_at';

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

/** The enrollment changes that move a count: another student or course, or a flag turned on or off. */
const MOVES_COUNTS = (same: (a: string, b: string) => string) =>
  `not (${same('old.site_id', 'new.site_id')} and ${same('old.person_id', 'new.person_id')} and ${same('old.course_id', 'new.course_id')}
    and (old.completed_at is null) = (new.completed_at is null) and (old.revoked_at is null) = (new.revoked_at is null)
    and ${OPEN_FOR_GOOD('old')} = ${OPEN_FOR_GOOD('new')})`;

async function dropTriggers(db: AnyDb): Promise<void> {
  if (isSqlite(db)) for (const trigger of SQLITE_TRIGGERS) await sql.raw(`drop trigger if exists ${trigger}`).execute(db);
  else {
    for (const [table, trigger] of POSTGRES_TRIGGERS) await sql.raw(`drop trigger if exists ${trigger} on ${table}`).execute(db);
    for (const fn of POSTGRES_FUNCTIONS) await sql.raw(`drop function if exists ${fn}()`).execute(db);
  }
}

export async function up(db: AnyDb): Promise<void> {
  await dropTriggers(db);
  for (const column of ['completed', 'revoked', 'open_for_good'])
    await db.schema
      .alterTable('course_activity_days')
      .addColumn(column, 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
  if (isSqlite(db)) await sqliteTriggers(db);
  else await postgresTriggers(db);
  // After the triggers: on PostgreSQL creating them locks out writers until this transaction commits.
  await sql`delete from course_activity_days`.execute(db);
  await sql`insert into course_activity_days (site_id, course_id, day, slot, n, completed, revoked, open_for_good)
    select e.site_id, e.course_id, ${sql.raw(day('s'))}, 0, count(*), count(e.completed_at), count(e.revoked_at),
      count(case when ${sql.raw(OPEN_FOR_GOOD('e'))} then 1 end) from enrollments e
      join student_activity s on s.site_id = e.site_id and s.person_id = e.person_id
      group by 1, 2, 3`.execute(db);
  if (!isSqlite(db)) await sql`analyze course_activity_days`.execute(db);
}

async function sqliteTriggers(db: AnyDb): Promise<void> {
  const flags = (row: string) => `${row}.completed_at is not null, ${row}.revoked_at is not null, ${OPEN_FOR_GOOD(row)}`;
  const addStudent = (
    row: string,
  ) => `insert into course_activity_days (site_id, course_id, day, slot, n, completed, revoked, open_for_good)
      select e.site_id, e.course_id, ${day(row)}, 0, 1, ${flags('e')} from enrollments e
        where e.site_id = ${row}.site_id and e.person_id = ${row}.person_id
      ${ADD_ON_CONFLICT};`;
  const removeStudent = (row: string) => `update course_activity_days
      set n = n - 1, completed = completed - (e.completed_at is not null), revoked = revoked - (e.revoked_at is not null),
        open_for_good = open_for_good - ${OPEN_FOR_GOOD('e')}
      from enrollments e
      where e.site_id = ${row}.site_id and e.person_id = ${row}.person_id
        and course_activity_days.site_id = ${row}.site_id and course_activity_days.course_id = e.course_id
        and course_activity_days.day = ${day(row)} and course_activity_days.slot = 0;`;
  const addEnrollment = (
    row: string,
  ) => `insert into course_activity_days (site_id, course_id, day, slot, n, completed, revoked, open_for_good)
      select ${row}.site_id, ${row}.course_id, ${day('s')}, 0, 1, ${flags(row)} from student_activity s
        where s.site_id = ${row}.site_id and s.person_id = ${row}.person_id
      ${ADD_ON_CONFLICT};`;
  const removeEnrollment = (row: string) => `update course_activity_days
      set n = n - 1, completed = completed - (${row}.completed_at is not null), revoked = revoked - (${row}.revoked_at is not null),
        open_for_good = open_for_good - ${OPEN_FOR_GOOD(row)}
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
    `create trigger enrollments_course_activity_update after update of ${COUNTED_COLUMNS} on enrollments
      when ${MOVES_COUNTS((a, b) => `${a} is ${b}`)}
      begin ${removeEnrollment('old')} ${addEnrollment('new')} end`,
  ])
    await sql.raw(statement).execute(db);
}

async function postgresTriggers(db: AnyDb): Promise<void> {
  /** Adds the counted rows (site_id, course_id, day, n and the flags) to this connection's slot, in key order. */
  const add = (rows: string) => `insert into course_activity_days (site_id, course_id, day, slot, n, completed, revoked, open_for_good)
      select site_id, course_id, day, pg_backend_pid() % 16, sum(n), sum(completed), sum(revoked), sum(open_for_good) from (${rows}) c
        group by site_id, course_id, day having sum(n) <> 0 or sum(completed) <> 0 or sum(revoked) <> 0 or sum(open_for_good) <> 0
        order by site_id, course_id, day
      ${ADD_ON_CONFLICT};`;
  /** Takes the counted rows (site_id, course_id, day, n and the flags) from the lowest slot of each key. */
  const remove = (rows: string) => `update course_activity_days c
      set n = c.n - d.n, completed = c.completed - d.completed, revoked = c.revoked - d.revoked, open_for_good = c.open_for_good - d.open_for_good
      from (select site_id, course_id, day, sum(n) as n, sum(completed) as completed, sum(revoked) as revoked,
          sum(open_for_good) as open_for_good from (${rows}) r
        group by site_id, course_id, day) d
      where c.site_id = d.site_id and c.course_id = d.course_id and c.day = d.day
        and c.slot = (select min(x.slot) from course_activity_days x
          where x.site_id = d.site_id and x.course_id = d.course_id and x.day = d.day);`;
  const flags = (row: string, n: number | string = 1) =>
    `${n} as n, ${n} * (${row}.completed_at is not null)::int as completed, ${n} * (${row}.revoked_at is not null)::int as revoked,
      ${n} * ${OPEN_FOR_GOOD(row)}::int as open_for_good`;
  const coursesOf = (students: string, n = 1) => `select s.site_id, e.course_id, ${day('s')} as day, ${flags('e', n)} from ${students} s
      join enrollments e on e.site_id = s.site_id and e.person_id = s.person_id`;
  const daysOf = (enrollments: string) => `select e.site_id, e.course_id, ${day('s')} as day, ${flags('e')} from ${enrollments} e
      join student_activity s on s.site_id = e.site_id and s.person_id = e.person_id`;
  const lockStudents = (enrollments: string) => `perform 1 from student_activity s
      where (s.site_id, s.person_id) in (select e.site_id, e.person_id from ${enrollments} e)
      order by s.site_id, s.person_id for share;`;
  const enrollment = (row: string) =>
    `(select ${row}.site_id, ${row}.person_id, ${row}.course_id, ${row}.completed_at, ${row}.revoked_at, ${row}.lifetime_access,
      ${row}.access_expires_at) as`;
  const functions = {
    course_activity_by_student: `if tg_op = 'DELETE' then ${remove(coursesOf('removed'))}
        else ${add(coursesOf('added'))} end if; return null;`,
    course_activity_student_moved: `${add(`${coursesOf('(select old.site_id, old.person_id, old.last_activity_at) as', -1)}
        union all ${coursesOf('(select new.site_id, new.person_id, new.last_activity_at) as')}`)} return null;`,
    course_activity_by_enrollment: `if tg_op = 'DELETE' then ${lockStudents('removed')} ${remove(daysOf('removed'))}
        else ${lockStudents('added')} ${add(daysOf('added'))} end if; return null;`,
    course_activity_enrollment_moved: `${lockStudents('(select old.site_id, old.person_id union all select new.site_id, new.person_id) as')}
        ${remove(daysOf(enrollment('old')))}
        ${add(daysOf(enrollment('new')))} return null;`,
    course_activity_person_gone: `${remove(
      daysOf(`(select e.site_id, e.person_id, e.course_id, e.completed_at, e.revoked_at, e.lifetime_access, e.access_expires_at
        from enrollments e where e.person_id = old.id) as`),
    )}
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
    .raw(`create trigger enrollments_course_activity_update after update of ${COUNTED_COLUMNS}
      on enrollments for each row when (${MOVES_COUNTS((a, b) => `${a} is not distinct from ${b}`)})
      execute function course_activity_enrollment_moved()`)
    .execute(db);
  await sql
    .raw('create trigger people_course_activity_delete before delete on people for each row execute function course_activity_person_gone()')
    .execute(db);
}

/** Back to migration 041 as it was: its triggers and its counts, recounted. */
export async function down(db: AnyDb): Promise<void> {
  await dropTriggers(db);
  await m041.down(db);
  await m041.up(db);
}
