// The students list's total for a state with inactivity (GET /students?state=completed&inactiveDays=30: who
// finished a course and has not come back for a month?) was the students in the state less the active ones
// among them, each active student's enrollments asked: 20 ms on SQLite for a month at 100,000 students, 27,644
// lookups, and 85 ms for the active state (bench/RESULTS.md, twenty-first session). The triggers now keep per
// site and UTC day of the student's latest activity (migration 035; day -1: never active) how many students
// hold a completed, a revoked and an open-for-good enrollment, from the flags of migration 034's student
// figures. The total is then a sum over the days after the threshold's day, plus that day's own stretch from
// the index, as migrations 040 and 041 do. Completed and revoked do not depend on the time; the active state
// is the open-for-good students kept here plus those whose timed access has not ended, which are counted
// from 034's index of the timed access's end.
//
// The count is the students' flags at their day, so each side moves by what the other holds now: a student
// whose day moves takes their flags along (read from student_figures), and a flag that turns on or off is
// added or taken away at the student's day (read from student_activity). Either may change first within one
// statement or transaction; each reads the other as it stands, so the order does not matter.
//
// On PostgreSQL a change of figures reads the students' days under a share lock of their latest-activity
// rows, so a concurrent move of a student's day either waits for it and then takes the new flags along, or
// is seen by it (as migration 041 does for enrollments). Inserts and deletions are counted once per statement
// (transition tables); updates of figures only for the students whose flags changed, and only those are
// locked: a change that moves no flag (a timed access's end) moves no count and waits for no learner.
// Additions go to the connection's slot (process id modulo 16); removals take from the lowest slot, as a
// removal must not insert: during a site's deletion the counts may be gone already. A person's deletion
// takes their counts away first, before the cascades, whose triggers PostgreSQL fires when neither side can
// see the other any more.
import { type Kysely, sql } from 'kysely';
import { isSqlite } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

/** The UTC day of a latest activity since the epoch; -1 for never (stored as -1, migration 035). */
const day = (row: string) => `(case when ${row}.last_activity_at < 0 then -1 else ${row}.last_activity_at / 86400000 end)`;
const ADD_ON_CONFLICT = `on conflict (site_id, day, slot) do update set completed = student_state_days.completed + excluded.completed,
  revoked = student_state_days.revoked + excluded.revoked, open_for_good = student_state_days.open_for_good + excluded.open_for_good`;
/** A student's figures hold a flag this table counts. */
const FLAGGED = (row: string) => `(${row}.completed > 0 or ${row}.revoked > 0 or ${row}.open_for_good > 0)`;
/** The same flags of two rows of figures. */
const SAME_FLAGS = (a: string, b: string) =>
  `(${a}.completed > 0) = (${b}.completed > 0) and (${a}.revoked > 0) = (${b}.revoked > 0) and (${a}.open_for_good > 0) = (${b}.open_for_good > 0)`;

const SQLITE_TRIGGERS = [
  'student_activity_states_insert',
  'student_activity_states_delete',
  'student_activity_states_update',
  'student_figures_days_insert',
  'student_figures_days_delete',
  'student_figures_days_update',
];
const POSTGRES_TRIGGERS = [
  ['student_activity', 'student_activity_states_insert'],
  ['student_activity', 'student_activity_states_delete'],
  ['student_activity', 'student_activity_states_update'],
  ['student_figures', 'student_figures_days_insert'],
  ['student_figures', 'student_figures_days_delete'],
  ['student_figures', 'student_figures_days_update'],
  ['people', 'people_state_days_delete'],
] as const;
const POSTGRES_FUNCTIONS = ['state_days_by_student', 'state_days_student_moved', 'state_days_by_figures', 'state_days_person_gone'];

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('student_state_days')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('day', 'bigint', (c) => c.notNull())
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('completed', 'bigint', (c) => c.notNull())
    .addColumn('revoked', 'bigint', (c) => c.notNull())
    .addColumn('open_for_good', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('student_state_days_pk', ['site_id', 'day', 'slot'])
    .$call((table) => (isSqlite(db) ? table.modifyEnd(sql`without rowid`) : table))
    .execute();
  if (isSqlite(db)) await sqliteTriggers(db);
  else await postgresTriggers(db);
  // After the triggers: on PostgreSQL creating them locks out writers until this transaction commits.
  await sql`insert into student_state_days (site_id, day, slot, completed, revoked, open_for_good)
    select s.site_id, ${sql.raw(day('s'))}, 0, sum(case when f.completed > 0 then 1 else 0 end), sum(case when f.revoked > 0 then 1 else 0 end),
      sum(case when f.open_for_good > 0 then 1 else 0 end)
      from student_figures f
      join student_activity s on s.site_id = f.site_id and s.person_id = f.person_id
      where ${sql.raw(FLAGGED('f'))}
      group by 1, 2`.execute(db);
  if (!isSqlite(db)) await sql`analyze student_state_days`.execute(db);
}

async function sqliteTriggers(db: AnyDb): Promise<void> {
  const figuresOf = (row: string) => `from student_figures f where f.site_id = ${row}.site_id and f.person_id = ${row}.person_id`;
  const addStudent = (row: string) => `insert into student_state_days (site_id, day, slot, completed, revoked, open_for_good)
      select ${row}.site_id, ${day(row)}, 0, f.completed > 0, f.revoked > 0, f.open_for_good > 0 ${figuresOf(row)} and ${FLAGGED('f')}
      ${ADD_ON_CONFLICT};`;
  // An update, not an upsert, takes away: during a site's deletion its counts may already be gone.
  const removeStudent = (row: string) => `update student_state_days
      set completed = completed - coalesce((select f.completed > 0 ${figuresOf(row)}), 0),
        revoked = revoked - coalesce((select f.revoked > 0 ${figuresOf(row)}), 0),
        open_for_good = open_for_good - coalesce((select f.open_for_good > 0 ${figuresOf(row)}), 0)
      where site_id = ${row}.site_id and day = ${day(row)} and slot = 0;`;
  const activityOf = (row: string) => `from student_activity s where s.site_id = ${row}.site_id and s.person_id = ${row}.person_id`;
  const addFigures = (row: string) => `insert into student_state_days (site_id, day, slot, completed, revoked, open_for_good)
      select ${row}.site_id, ${day('s')}, 0, ${row}.completed > 0, ${row}.revoked > 0, ${row}.open_for_good > 0 ${activityOf(row)} and ${FLAGGED(row)}
      ${ADD_ON_CONFLICT};`;
  const removeFigures = (row: string) => `update student_state_days
      set completed = completed - (${row}.completed > 0), revoked = revoked - (${row}.revoked > 0),
        open_for_good = open_for_good - (${row}.open_for_good > 0)
      where site_id = ${row}.site_id and slot = 0 and day = (select ${day('s')} ${activityOf(row)});`;
  for (const statement of [
    `create trigger student_activity_states_insert after insert on student_activity begin ${addStudent('new')} end`,
    `create trigger student_activity_states_delete after delete on student_activity begin ${removeStudent('old')} end`,
    `create trigger student_activity_states_update after update of site_id, person_id, last_activity_at on student_activity
      when old.site_id is not new.site_id or old.person_id is not new.person_id or ${day('old')} <> ${day('new')}
      begin ${removeStudent('old')} ${addStudent('new')} end`,
    `create trigger student_figures_days_insert after insert on student_figures begin ${addFigures('new')} end`,
    `create trigger student_figures_days_delete after delete on student_figures begin ${removeFigures('old')} end`,
    `create trigger student_figures_days_update after update of site_id, person_id, completed, revoked, open_for_good on student_figures
      when old.site_id is not new.site_id or old.person_id is not new.person_id or not (${SAME_FLAGS('old', 'new')})
      begin ${removeFigures('old')} ${addFigures('new')} end`,
  ])
    await sql.raw(statement).execute(db);
}

async function postgresTriggers(db: AnyDb): Promise<void> {
  /** Adds the counted rows (site_id, day, completed, revoked, open_for_good) to this connection's slot, in key order. */
  const add = (rows: string) => `insert into student_state_days (site_id, day, slot, completed, revoked, open_for_good)
      select site_id, day, pg_backend_pid() % 16, sum(completed), sum(revoked), sum(open_for_good) from (${rows}) c
        group by site_id, day having sum(completed) <> 0 or sum(revoked) <> 0 or sum(open_for_good) <> 0 order by site_id, day
      ${ADD_ON_CONFLICT};`;
  /** Takes the counted rows (site_id, day, completed, revoked, open_for_good) from the lowest slot of each key. */
  const remove = (rows: string) => `update student_state_days c set completed = c.completed - d.completed, revoked = c.revoked - d.revoked,
        open_for_good = c.open_for_good - d.open_for_good
      from (select site_id, day, sum(completed) as completed, sum(revoked) as revoked, sum(open_for_good) as open_for_good
        from (${rows}) r group by site_id, day) d
      where c.site_id = d.site_id and c.day = d.day
        and c.slot = (select min(x.slot) from student_state_days x where x.site_id = d.site_id and x.day = d.day);`;
  /** The flags of the students among `students` (rows with site_id, person_id, last_activity_at), at their day. */
  const flagsOf = (students: string, sign = 1) => `select s.site_id, ${day('s')} as day,
      ${sign} * (f.completed > 0)::int as completed, ${sign} * (f.revoked > 0)::int as revoked,
      ${sign} * (f.open_for_good > 0)::int as open_for_good from ${students} s
      join student_figures f on f.site_id = s.site_id and f.person_id = s.person_id where ${FLAGGED('f')}`;
  /** The flags of `figures` (rows of student_figures), at their students' day. */
  const daysOf = (figures: string) => `select f.site_id, ${day('s')} as day, (f.completed > 0)::int as completed,
      (f.revoked > 0)::int as revoked, (f.open_for_good > 0)::int as open_for_good from ${figures} f
      join student_activity s on s.site_id = f.site_id and s.person_id = f.person_id where ${FLAGGED('f')}`;
  /**
   * An update's flags that changed, as rows (site_id, person_id, completed, revoked, open_for_good, sign): +1
   * for flags a student now holds and did not, -1 for flags they held and no longer do. Grouped, not joined:
   * PostgreSQL knows nothing of a transition table's size and may join two of 100,000 rows by nested loops.
   */
  const changedFlags = `(select site_id, person_id, completed, revoked, open_for_good, sum(sign) as sign from (
        select site_id, person_id, (completed > 0)::int as completed, (revoked > 0)::int as revoked,
          (open_for_good > 0)::int as open_for_good, 1 as sign from added
        union all
        select site_id, person_id, (completed > 0)::int, (revoked > 0)::int, (open_for_good > 0)::int, -1 from removed
      ) t group by site_id, person_id, completed, revoked, open_for_good having sum(sign) <> 0)`;
  /** Share-locks the latest-activity rows of the students of `figures`, from them by key, in key order. */
  const lockStudents = (figures: string) => `perform 1 from ${figures} f
      join student_activity s on s.site_id = f.site_id and s.person_id = f.person_id
      order by s.site_id, s.person_id for share of s;`;
  const functions = {
    state_days_by_student: `if tg_op = 'DELETE' then ${remove(flagsOf('removed'))}
        else ${add(flagsOf('added'))} end if; return null;`,
    state_days_student_moved: `${add(`${flagsOf('(select old.site_id, old.person_id, old.last_activity_at) as', -1)}
        union all ${flagsOf('(select new.site_id, new.person_id, new.last_activity_at) as')}`)} return null;`,
    state_days_by_figures: `if tg_op = 'DELETE' then ${lockStudents('removed')} ${remove(daysOf('removed'))}
        elsif tg_op = 'INSERT' then ${lockStudents('added')} ${add(daysOf('added'))}
        else
          ${lockStudents(`${changedFlags} as`)}
          ${remove(daysOf(`(select * from ${changedFlags} c where sign < 0) as`))}
          ${add(daysOf(`(select * from ${changedFlags} c where sign > 0) as`))}
        end if; return null;`,
    state_days_person_gone: `${remove(daysOf('(select * from student_figures g where g.person_id = old.id) as'))} return old;`,
  };
  for (const [name, body] of Object.entries(functions))
    await sql.raw(`create function ${name}() returns trigger language plpgsql as $$ begin ${body} end $$`).execute(db);
  for (const [table, fn, prefix] of [
    ['student_activity', 'state_days_by_student', 'student_activity_states'],
    ['student_figures', 'state_days_by_figures', 'student_figures_days'],
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
    .raw(`create trigger student_activity_states_update after update of site_id, person_id, last_activity_at on student_activity for each row
      when (old.site_id is distinct from new.site_id or old.person_id is distinct from new.person_id or ${day('old')} <> ${day('new')})
      execute function state_days_student_moved()`)
    .execute(db);
  await sql
    .raw(`create trigger student_figures_days_update after update on student_figures
      referencing old table as removed new table as added for each statement execute function state_days_by_figures()`)
    .execute(db);
  await sql
    .raw('create trigger people_state_days_delete before delete on people for each row execute function state_days_person_gone()')
    .execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  if (isSqlite(db)) for (const trigger of SQLITE_TRIGGERS) await sql.raw(`drop trigger if exists ${trigger}`).execute(db);
  else {
    for (const [table, trigger] of POSTGRES_TRIGGERS) await sql.raw(`drop trigger if exists ${trigger} on ${table}`).execute(db);
    for (const fn of POSTGRES_FUNCTIONS) await sql.raw(`drop function if exists ${fn}()`).execute(db);
  }
  await db.schema.dropTable('student_state_days').execute();
}
