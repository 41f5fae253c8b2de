// On PostgreSQL, migration 028 counted an update of enrollments into the course's figures one row at a time:
// a row trigger upserting the course's row of course_learning_counts and course_stops for each enrollment
// whose figures moved. A curriculum change that moves a thousand learners' next lectures (a lecture deleted
// or moved, src/school/curriculum-stamp.ts) updated the same few rows a thousand times in one transaction,
// each update a new version of the row to step over in the next (bench/RESULTS.md, fortieth session). Now
// an update is counted once per statement, from its transition tables, as insertions and deletions already
// were: the rows' figures before are taken off and after are added, per course and per stop.
//
// A statement trigger cannot name the columns it fires on when it reads transition tables, so it fires on
// every update of enrollments; one whose figures did not move sums to nothing and writes no row. SQLite's
// row triggers stay: they run inside the statement, without a row version per update.
import { type Kysely, sql } from 'kysely';
import { isSqlite } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

// Migration 028's rules, restated here: a migration must not import another's text, which may change.
const started = (r: string) =>
  `(case when ${r}.completed_at is not null or ${r}.last_activity_at is not null or ${r}.lectures_done > 0 then 1 else 0 end)`;
const completed = (r: string) => `(case when ${r}.completed_at is not null then 1 else 0 end)`;
const stopped = (r: string) => `(${r}.completed_at is null and ${r}.next_lecture_id is not null)`;
const FIGURES_ON_CONFLICT = `on conflict (site_id, course_id, slot) do update set started = course_learning_counts.started + excluded.started,
  completed = course_learning_counts.completed + excluded.completed, lectures_done = course_learning_counts.lectures_done + excluded.lectures_done`;
const STOPS_ON_CONFLICT = 'on conflict (site_id, course_id, lecture_id, slot) do update set n = course_stops.n + excluded.n';
const SLOT = 'pg_backend_pid() % 16';

/**
 * The figures' change of updated rows, those of `before` taken off and those of `after` added (transition
 * tables, or one row's `old` and `new` as a subquery); in key order, so two statements sharing a slot lock
 * the rows in one order.
 */
function moved(before: string, after: string): string {
  return `insert into course_learning_counts (site_id, course_id, slot, started, completed, lectures_done)
      select site_id, course_id, ${SLOT}, sum(started), sum(completed), sum(lectures_done) from (
        select o.site_id, o.course_id, -${started('o')} as started, -${completed('o')} as completed, -o.lectures_done as lectures_done
          from ${before} o
        union all
        select n.site_id, n.course_id, ${started('n')}, ${completed('n')}, n.lectures_done from ${after} n
      ) c group by 1, 2 having sum(started) <> 0 or sum(completed) <> 0 or sum(lectures_done) <> 0 order by 1, 2
      ${FIGURES_ON_CONFLICT};
    insert into course_stops (site_id, course_id, lecture_id, slot, n)
      select site_id, course_id, lecture_id, ${SLOT}, sum(n) from (
        select o.site_id, o.course_id, o.next_lecture_id as lecture_id, -1 as n from ${before} o where ${stopped('o')}
        union all
        select n.site_id, n.course_id, n.next_lecture_id, 1 from ${after} n where ${stopped('n')}
      ) c group by 1, 2, 3 having sum(n) <> 0 order by 1, 2, 3
      ${STOPS_ON_CONFLICT};`;
}

/** Migration 028's row trigger, as it was: an enrollment counted by itself, its function reading the row's old and new values. */
const ROW_TRIGGER = `create trigger enrollments_learning_update
  after update of site_id, course_id, completed_at, last_activity_at, lectures_done, next_lecture_id on enrollments for each row
  when (old.site_id is distinct from new.site_id or old.course_id is distinct from new.course_id
    or ${started('old')} <> ${started('new')} or ${completed('old')} <> ${completed('new')}
    or old.lectures_done <> new.lectures_done or ${stopped('old')} is distinct from ${stopped('new')}
    or (${stopped('new')} and old.next_lecture_id is distinct from new.next_lecture_id))
  execute function course_learning_moved()`;

/** Once per statement, from its transition tables. */
const STATEMENT_TRIGGER = `create trigger enrollments_learning_update after update on enrollments
  referencing old table as removed new table as added for each statement execute function course_learning_moved()`;

/** The counting function, counting from `before` and `after`, and `trigger` to run it; under 028's name, which 028's down drops. */
function countedBy(before: string, after: string, trigger: string): string[] {
  return [
    'drop trigger if exists enrollments_learning_update on enrollments',
    `create or replace function course_learning_moved() returns trigger language plpgsql as $$
      begin
        ${moved(before, after)}
        return null;
      end $$`,
    trigger,
  ];
}

export async function up(db: AnyDb): Promise<void> {
  if (isSqlite(db)) return;
  for (const statement of countedBy('removed', 'added', STATEMENT_TRIGGER)) await sql.raw(statement).execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  if (isSqlite(db)) return;
  for (const statement of countedBy('(select old.*)', '(select new.*)', ROW_TRIGGER)) await sql.raw(statement).execute(db);
}
