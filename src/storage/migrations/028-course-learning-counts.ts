// Course analytics (GET /analytics/courses/{id}) read every enrollment of the course and every lecture
// completion of those enrollments into the process: 472 ms for a course of 100,000 learners with about a
// million completions, so the request served 2 a second on SQLite and hit PostgreSQL's 5 s statement limit
// (bench/RESULTS.md, thirteenth session). Its figures are now kept as they change:
//
// - each enrollment carries how many lectures it has completed (lectures_done) and, once it has completed
//   one, the first lecture of its course in curriculum order (section position, lecture position, id) it
//   has not completed (next_lecture_id; null when every lecture is done), kept by lecture_progress's
//   triggers;
// - course_learning_counts keeps, per site and course, how many enrollments have started (completed,
//   active or with a completed lecture), how many have completed, and the sum of their completed lectures;
// - course_stops keeps, per course and lecture, how many enrollments not yet completed stopped there
//   (their next lecture), so "the lecture where most stop" is a few rows;
// - a change of curriculum order (a lecture added, moved or deleted, a section moved or deleted) bumps the
//   course's row in curriculum_versions. The next lectures of the course's started enrollments are then
//   recomputed once for the whole change, set-based, and `stamped` set to the version they follow
//   (src/school/curriculum-stamp.ts; the curriculum's writes and course analytics call it): a reorder
//   renumbers lectures one statement at a time, and recomputing on each would repeat the work per lecture.
//
// On PostgreSQL insertions and
// deletions are counted once per statement (transition tables) into the writing connection's slot
// (process id modulo 16; a slot's row may go negative, only the sum over slots counts), and an update by a
// row trigger that fires only when a column the figures depend on changed, so the frequent activity
// updates of an active learner fire none.
import { type Kysely, sql } from 'kysely';
import { isSqlite } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

/** The first lecture of enrollment `e`'s course, in curriculum order, that `e` has not completed. */
const next = (e: string) => `(select l.id from lectures l join course_sections s on s.id = l.section_id
    where l.site_id = ${e}.site_id and l.course_id = ${e}.course_id
      and not exists (select 1 from lecture_progress p where p.enrollment_id = ${e}.id and p.lecture_id = l.id)
    order by s.position, l.position, l.id limit 1)`;
const started = (r: string) =>
  `(case when ${r}.completed_at is not null or ${r}.last_activity_at is not null or ${r}.lectures_done > 0 then 1 else 0 end)`;
const completed = (r: string) => `(case when ${r}.completed_at is not null then 1 else 0 end)`;
/** Counted among a course's stops: not completed, and stopped at a lecture. */
const stopped = (r: string) => `(${r}.completed_at is null and ${r}.next_lecture_id is not null)`;
const FIGURES_ON_CONFLICT = `on conflict (site_id, course_id, slot) do update set started = course_learning_counts.started + excluded.started,
  completed = course_learning_counts.completed + excluded.completed, lectures_done = course_learning_counts.lectures_done + excluded.lectures_done`;
const STOPS_ON_CONFLICT = 'on conflict (site_id, course_id, lecture_id, slot) do update set n = course_stops.n + excluded.n';
/** A course's curriculum changed: its version moves on (its row is made by its first lecture, or by this migration). */
const VERSION_BUMP = `insert into curriculum_versions (site_id, course_id, version, stamped)
  values (new.site_id, new.course_id, 1, 0) on conflict (site_id, course_id) do update set version = curriculum_versions.version + 1`;
/** A removal bumps without making a row: while a course or site is deleted, its row may already be gone. */
const VERSION_BUMP_OLD = `update curriculum_versions set version = version + 1 where site_id = old.site_id and course_id = old.course_id`;

export async function up(db: AnyDb): Promise<void> {
  const sqlite = isSqlite(db);
  // First the columns and every trigger that writes them, so on PostgreSQL the tables they read are locked
  // against writers until this transaction commits; then the columns are filled, then the counts.
  await db.schema
    .alterTable('enrollments')
    .addColumn('lectures_done', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('enrollments').addColumn('next_lecture_id', 'text').execute();
  await db.schema
    .createTable('course_learning_counts')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('course_id', 'text', (c) => c.notNull().references('courses.id').onDelete('cascade'))
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('started', 'bigint', (c) => c.notNull())
    .addColumn('completed', 'bigint', (c) => c.notNull())
    .addColumn('lectures_done', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('course_learning_counts_pk', ['site_id', 'course_id', 'slot'])
    .$call((t) => (sqlite ? t.modifyEnd(sql`without rowid`) : t))
    .execute();
  await db.schema
    .createTable('course_stops')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('course_id', 'text', (c) => c.notNull().references('courses.id').onDelete('cascade'))
    // No reference: a deleted lecture's stops move when its course is restamped, and until then they count nowhere.
    .addColumn('lecture_id', 'text', (c) => c.notNull())
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('course_stops_pk', ['site_id', 'course_id', 'lecture_id', 'slot'])
    .$call((t) => (sqlite ? t.modifyEnd(sql`without rowid`) : t))
    .execute();
  await db.schema
    .createTable('curriculum_versions')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('course_id', 'text', (c) => c.notNull().references('courses.id').onDelete('cascade'))
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addColumn('stamped', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('curriculum_versions_pk', ['site_id', 'course_id'])
    .$call((t) => (sqlite ? t.modifyEnd(sql`without rowid`) : t))
    .execute();

  if (sqlite) {
    for (const statement of [
      // A lecture completed: counted, and the enrollment's next lecture moves on when it was this one.
      `create trigger lecture_progress_learning_insert after insert on lecture_progress begin
        update enrollments set lectures_done = lectures_done + 1,
          next_lecture_id = case when next_lecture_id is null or next_lecture_id = new.lecture_id then ${next('enrollments')} else next_lecture_id end
        where id = new.enrollment_id;
      end`,
      `create trigger lecture_progress_learning_delete after delete on lecture_progress begin
        update enrollments set lectures_done = lectures_done - 1,
          next_lecture_id = case when lectures_done > 1 then ${next('enrollments')} end
        where id = old.enrollment_id;
      end`,
      `create trigger lecture_progress_learning_update after update of enrollment_id, lecture_id on lecture_progress
        when old.enrollment_id is not new.enrollment_id or old.lecture_id is not new.lecture_id begin
        update enrollments set lectures_done = lectures_done - 1,
          next_lecture_id = case when lectures_done > 1 then ${next('enrollments')} end
        where id = old.enrollment_id;
        update enrollments set lectures_done = lectures_done + 1, next_lecture_id = ${next('enrollments')} where id = new.enrollment_id;
      end`,
      `create trigger lectures_curriculum_insert after insert on lectures begin ${VERSION_BUMP}; end`,
      `create trigger lectures_curriculum_delete after delete on lectures begin ${VERSION_BUMP_OLD}; end`,
      `create trigger lectures_curriculum_update after update of site_id, course_id, section_id, position on lectures begin
        ${VERSION_BUMP_OLD}; ${VERSION_BUMP};
      end`,
      `create trigger course_sections_curriculum_update after update of site_id, course_id, position on course_sections begin
        ${VERSION_BUMP_OLD}; ${VERSION_BUMP};
      end`,
      `create trigger course_sections_curriculum_delete after delete on course_sections begin ${VERSION_BUMP_OLD}; end`,
    ])
      await sql.raw(statement).execute(db);
  } else {
    const uncount = (rows: string) => `update enrollments e set lectures_done = e.lectures_done - d.n,
        next_lecture_id = case when e.lectures_done - d.n > 0 then ${next('e')} end
      from (select enrollment_id, count(*) as n from (${rows}) r group by 1) d where e.id = d.enrollment_id`;
    const count = (rows: string) => `update enrollments e set lectures_done = e.lectures_done + a.n, next_lecture_id = ${next('e')}
      from (select enrollment_id, count(*) as n from (${rows}) r group by 1) a where e.id = a.enrollment_id`;
    for (const statement of [
      // An update that moves a completion is its old row removed and its new one added (EXCEPT ALL leaves
      // out the rows it did not move).
      `create function lecture_progress_learning() returns trigger language plpgsql as $$
        begin
          if tg_op = 'DELETE' then ${uncount('select enrollment_id from removed')};
          elsif tg_op = 'INSERT' then ${count('select enrollment_id from added')};
          else
            ${uncount('select enrollment_id from (select enrollment_id, lecture_id from removed except all select enrollment_id, lecture_id from added) x')};
            ${count('select enrollment_id from (select enrollment_id, lecture_id from added except all select enrollment_id, lecture_id from removed) x')};
          end if;
          return null;
        end $$`,
      `create trigger lecture_progress_learning_insert after insert on lecture_progress
        referencing new table as added for each statement execute function lecture_progress_learning()`,
      `create trigger lecture_progress_learning_delete after delete on lecture_progress
        referencing old table as removed for each statement execute function lecture_progress_learning()`,
      `create trigger lecture_progress_learning_update after update on lecture_progress
        referencing old table as removed new table as added for each statement execute function lecture_progress_learning()`,
      `create function curriculum_version_bumped() returns trigger language plpgsql as $$
        begin
          if tg_op in ('DELETE', 'UPDATE') then ${VERSION_BUMP_OLD}; end if;
          if tg_op in ('INSERT', 'UPDATE') then ${VERSION_BUMP}; end if;
          return null;
        end $$`,
      `create trigger lectures_curriculum_insert after insert on lectures for each row execute function curriculum_version_bumped()`,
      `create trigger lectures_curriculum_delete after delete on lectures for each row execute function curriculum_version_bumped()`,
      `create trigger lectures_curriculum_update after update of site_id, course_id, section_id, position on lectures for each row
        when (old.site_id is distinct from new.site_id or old.course_id is distinct from new.course_id
          or old.section_id is distinct from new.section_id or old.position is distinct from new.position)
        execute function curriculum_version_bumped()`,
      `create trigger course_sections_curriculum_update after update of site_id, course_id, position on course_sections for each row
        when (old.site_id is distinct from new.site_id or old.course_id is distinct from new.course_id or old.position is distinct from new.position)
        execute function curriculum_version_bumped()`,
      `create trigger course_sections_curriculum_delete after delete on course_sections for each row execute function curriculum_version_bumped()`,
    ])
      await sql.raw(statement).execute(db);
  }

  // Every enrollment's completed lectures and next lecture as they are now, before the enrollments' own
  // triggers (no row-by-row counting of the fill; on PostgreSQL the new columns keep writers of enrollments
  // out until commit), then those triggers and the counts from the rows.
  await sql`update enrollments set lectures_done = (select count(*) from lecture_progress p where p.enrollment_id = enrollments.id)
    where exists (select 1 from lecture_progress p where p.enrollment_id = enrollments.id)`.execute(db);
  await sql.raw(`update enrollments set next_lecture_id = ${next('enrollments')} where lectures_done > 0`).execute(db);
  if (sqlite) {
    const add = (r: string) => `insert into course_learning_counts (site_id, course_id, slot, started, completed, lectures_done)
      values (${r}.site_id, ${r}.course_id, 0, ${started(r)}, ${completed(r)}, ${r}.lectures_done) ${FIGURES_ON_CONFLICT};`;
    const remove = (r: string) => `update course_learning_counts set started = started - ${started(r)},
      completed = completed - ${completed(r)}, lectures_done = lectures_done - ${r}.lectures_done
      where site_id = ${r}.site_id and course_id = ${r}.course_id and slot = 0;`;
    const stop = (r: string) => `insert into course_stops (site_id, course_id, lecture_id, slot, n)
      values (${r}.site_id, ${r}.course_id, ${r}.next_lecture_id, 0, 1) ${STOPS_ON_CONFLICT};`;
    const unstop = (r: string) => `update course_stops set n = n - 1
      where site_id = ${r}.site_id and course_id = ${r}.course_id and lecture_id = ${r}.next_lecture_id and slot = 0;`;
    const figuresMoved = `old.site_id is not new.site_id or old.course_id is not new.course_id or ${started('old')} <> ${started('new')}
      or ${completed('old')} <> ${completed('new')} or old.lectures_done <> new.lectures_done`;
    const stopMoved = `old.site_id is not new.site_id or old.course_id is not new.course_id or old.next_lecture_id is not new.next_lecture_id`;
    for (const statement of [
      `create trigger enrollments_learning_insert after insert on enrollments when ${started('new')} = 1 begin ${add('new')} end`,
      `create trigger enrollments_learning_delete after delete on enrollments when ${started('old')} = 1 begin ${remove('old')} end`,
      `create trigger enrollments_learning_update after update of site_id, course_id, completed_at, last_activity_at, lectures_done on enrollments
        when ${figuresMoved} begin ${remove('old')} ${add('new')} end`,
      `create trigger enrollments_stops_insert after insert on enrollments when ${stopped('new')} begin ${stop('new')} end`,
      `create trigger enrollments_stops_delete after delete on enrollments when ${stopped('old')} begin ${unstop('old')} end`,
      `create trigger enrollments_stops_update_out after update of site_id, course_id, completed_at, next_lecture_id on enrollments
        when ${stopped('old')} and (not ${stopped('new')} or ${stopMoved}) begin ${unstop('old')} end`,
      `create trigger enrollments_stops_update_in after update of site_id, course_id, completed_at, next_lecture_id on enrollments
        when ${stopped('new')} and (not ${stopped('old')} or ${stopMoved}) begin ${stop('new')} end`,
    ])
      await sql.raw(statement).execute(db);
  } else {
    const bySlot = 'pg_backend_pid() % 16';
    const sums = `sum(${started('r')}), sum(${completed('r')}), sum(r.lectures_done)`;
    for (const statement of [
      // Insert and delete of enrollments: once per statement. Additions are ordered by key, so two
      // statements that share a slot lock rows in one order; a removal takes from the lowest slot of its key.
      `create function course_learning_kept() returns trigger language plpgsql as $$
        begin
          if tg_op = 'DELETE' then
            update course_learning_counts c set started = c.started - d.started, completed = c.completed - d.completed,
                lectures_done = c.lectures_done - d.lectures_done
              from (select r.site_id, r.course_id, ${sums} from removed r group by 1, 2) as d(site_id, course_id, started, completed, lectures_done)
              where c.site_id = d.site_id and c.course_id = d.course_id
                and c.slot = (select min(x.slot) from course_learning_counts x where x.site_id = d.site_id and x.course_id = d.course_id);
            update course_stops c set n = c.n - d.n
              from (select r.site_id, r.course_id, r.next_lecture_id, count(*) as n from removed r where ${stopped('r')} group by 1, 2, 3) d
              where c.site_id = d.site_id and c.course_id = d.course_id and c.lecture_id = d.next_lecture_id
                and c.slot = (select min(x.slot) from course_stops x
                  where x.site_id = d.site_id and x.course_id = d.course_id and x.lecture_id = d.next_lecture_id);
          else
            insert into course_learning_counts (site_id, course_id, slot, started, completed, lectures_done)
              select r.site_id, r.course_id, ${bySlot}, ${sums} from added r
              group by 1, 2 having sum(${started('r')}) > 0 order by 1, 2
              ${FIGURES_ON_CONFLICT};
            insert into course_stops (site_id, course_id, lecture_id, slot, n)
              select r.site_id, r.course_id, r.next_lecture_id, ${bySlot}, count(*) from added r where ${stopped('r')}
              group by 1, 2, 3 order by 1, 2, 3
              ${STOPS_ON_CONFLICT};
          end if;
          return null;
        end $$`,
      `create function course_learning_moved() returns trigger language plpgsql as $$
        begin
          insert into course_learning_counts (site_id, course_id, slot, started, completed, lectures_done)
            select site_id, course_id, ${bySlot}, sum(started), sum(completed), sum(lectures_done) from (
              select old.site_id, old.course_id, -${started('old')} as started, -${completed('old')} as completed, -old.lectures_done as lectures_done
              union all
              select new.site_id, new.course_id, ${started('new')}, ${completed('new')}, new.lectures_done
            ) c group by 1, 2 having sum(started) <> 0 or sum(completed) <> 0 or sum(lectures_done) <> 0 order by 1, 2
            ${FIGURES_ON_CONFLICT};
          insert into course_stops (site_id, course_id, lecture_id, slot, n)
            select site_id, course_id, lecture_id, ${bySlot}, sum(n) from (
              select old.site_id, old.course_id, old.next_lecture_id as lecture_id, -1 as n where ${stopped('old')}
              union all
              select new.site_id, new.course_id, new.next_lecture_id, 1 where ${stopped('new')}
            ) c group by 1, 2, 3 having sum(n) <> 0 order by 1, 2, 3
            ${STOPS_ON_CONFLICT};
          return null;
        end $$`,
      `create trigger enrollments_learning_insert after insert on enrollments
        referencing new table as added for each statement execute function course_learning_kept()`,
      `create trigger enrollments_learning_delete after delete on enrollments
        referencing old table as removed for each statement execute function course_learning_kept()`,
      `create trigger enrollments_learning_update
        after update of site_id, course_id, completed_at, last_activity_at, lectures_done, next_lecture_id on enrollments for each row
        when (old.site_id is distinct from new.site_id or old.course_id is distinct from new.course_id
          or ${started('old')} <> ${started('new')} or ${completed('old')} <> ${completed('new')}
          or old.lectures_done <> new.lectures_done or ${stopped('old')} is distinct from ${stopped('new')}
          or (${stopped('new')} and old.next_lecture_id is distinct from new.next_lecture_id))
        execute function course_learning_moved()`,
    ])
      await sql.raw(statement).execute(db);
  }
  await sql
    .raw(`insert into course_learning_counts (site_id, course_id, slot, started, completed, lectures_done)
    select r.site_id, r.course_id, 0, sum(${started('r')}), sum(${completed('r')}), sum(r.lectures_done) from enrollments r
    group by 1, 2 having sum(${started('r')}) > 0`)
    .execute(db);
  await sql
    .raw(`insert into course_stops (site_id, course_id, lecture_id, slot, n)
    select r.site_id, r.course_id, r.next_lecture_id, 0, count(*) from enrollments r where ${stopped('r')} group by 1, 2, 3`)
    .execute(db);
  await sql`insert into curriculum_versions (site_id, course_id, version, stamped) select site_id, id, 0, 0 from courses`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  const triggers: Array<[string, string]> = [
    ['lecture_progress_learning_insert', 'lecture_progress'],
    ['lecture_progress_learning_delete', 'lecture_progress'],
    ['lecture_progress_learning_update', 'lecture_progress'],
    ['lectures_curriculum_insert', 'lectures'],
    ['lectures_curriculum_delete', 'lectures'],
    ['lectures_curriculum_update', 'lectures'],
    ['course_sections_curriculum_update', 'course_sections'],
    ['course_sections_curriculum_delete', 'course_sections'],
    ['enrollments_learning_insert', 'enrollments'],
    ['enrollments_learning_delete', 'enrollments'],
    ['enrollments_learning_update', 'enrollments'],
    ['enrollments_stops_insert', 'enrollments'],
    ['enrollments_stops_delete', 'enrollments'],
    ['enrollments_stops_update_out', 'enrollments'],
    ['enrollments_stops_update_in', 'enrollments'],
  ];
  for (const [name, on] of triggers)
    await sql.raw(isSqlite(db) ? `drop trigger if exists ${name}` : `drop trigger if exists ${name} on ${on}`).execute(db);
  if (!isSqlite(db))
    for (const fn of ['lecture_progress_learning', 'curriculum_version_bumped', 'course_learning_kept', 'course_learning_moved'])
      await sql.raw(`drop function if exists ${fn}()`).execute(db);
  for (const t of ['curriculum_versions', 'course_stops', 'course_learning_counts']) await db.schema.dropTable(t).execute();
  await db.schema.alterTable('enrollments').dropColumn('next_lecture_id').execute();
  await db.schema.alterTable('enrollments').dropColumn('lectures_done').execute();
}
