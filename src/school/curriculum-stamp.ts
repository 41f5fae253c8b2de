// An enrollment's next lecture (the first of its course, in curriculum order, it has not completed) is
// kept by migration 028's triggers on lecture_progress as lectures are completed, one enrollment at a
// time. A change of curriculum order only bumps the course's version (its triggers on lectures and
// sections), since a reorder renumbers lectures one statement at a time; the next lectures are brought to
// the new order here, once per change: only the enrollments the change moves, or the whole course.
import { type RawBuilder, sql } from 'kysely';
import { isSqlite } from '../storage/dialect.js';
import type { SiteScope } from './scope.js';

/**
 * Enrollments a statement moves or restamps at most on PostgreSQL, whose serving statements must end within
 * 5 s (storage/connect.ts): a moved enrollment costs 55-80 µs there (its row is written again with every index
 * of enrollments), so a statement of this many takes 0.3-0.4 s, with room for a box many times slower, and a
 * course whose learners mostly stop at one lecture can still be changed. There they are read first, then moved
 * by id (about a tenth more than one statement). SQLite has no such limit and moves them in one statement
 * (reading first cost it half again).
 */
export const MOVE_CHUNK = 5_000;

/** A course's curriculum order, over its lectures `l` and their sections `s` (migration 028's `next` reads it too). */
const CURRICULUM_ORDER = sql`order by s.position, l.position, l.id`;

/**
 * Every started enrollment's next lecture in the course's order now. The same rule as the triggers', by
 * another road: an enrollment's completed lectures ranked in course order, r, against their own row
 * numbers, rn, first differ at the first lecture it has not completed (rn); if they never differ it is the
 * one after the last. One pass over the course's completions (hash joins and one sort) instead of one
 * probe per enrollment and lecture. On PostgreSQL MOVE_CHUNK started enrollments a statement: one statement
 * over all 100,000 learners of a course fit its 5 s limit only while few of them moved (bench/RESULTS.md,
 * fourteenth and fortieth sessions).
 */
async function restamp(scope: SiteScope, courseId: string): Promise<void> {
  if (isSqlite(scope.db)) return restampSome(scope, courseId, undefined);
  for (const ids of await startedInChunks(scope, courseId, sql`true`)) await restampSome(scope, courseId, ids);
}

/** restamp's statement, for the course's started enrollments among `ids` (all of them without). */
async function restampSome(scope: SiteScope, courseId: string, ids: readonly string[] | undefined): Promise<void> {
  const site = scope.siteId;
  // Each started enrollment's completions through the (enrollment_id, lecture_id) key. PostgreSQL would
  // rather hash-join the whole table, every course's completions, so a lateral subquery it cannot pull up
  // (OFFSET 0) holds it to the key; SQLite joins through the key anyway.
  const completions = isSqlite(scope.db)
    ? sql`join lecture_progress p on p.enrollment_id = e.id`
    : sql`cross join lateral (select q.enrollment_id, q.lecture_id from lecture_progress q where q.enrollment_id = e.id offset 0) p`;
  await sql`
    with ranked as (
      select l.id, row_number() over (${CURRICULUM_ORDER}) as r
      from lectures l join course_sections s on s.id = l.section_id
      where l.site_id = ${site} and l.course_id = ${courseId}
    ),
    started as (
      select e.id from enrollments e
      where ${ids ? sql`e.id in (${sql.join(ids)}) and` : sql``} e.site_id = ${site} and e.course_id = ${courseId} and e.lectures_done > 0
    ),
    gaps as (
      select d.enrollment_id, coalesce(min(case when d.r <> d.rn then d.rn end), count(*) + 1) as g
      from (
        select p.enrollment_id, k.r, row_number() over (partition by p.enrollment_id order by k.r) as rn
        from started e ${completions} join ranked k on k.id = p.lecture_id
      ) d
      group by d.enrollment_id
    )
    update enrollments set next_lecture_id = fresh.next
    from (
      select e.id, k.id as next from started e
      left join gaps on gaps.enrollment_id = e.id
      left join ranked k on k.r = coalesce(gaps.g, 1)
    ) as fresh
    where enrollments.id = fresh.id and enrollments.next_lecture_id is distinct from fresh.next`.execute(scope.db);
}

/** The course's curriculum version and the one its next lectures follow; undefined for a course without one. */
function stampState(scope: SiteScope, courseId: string) {
  return scope.db
    .selectFrom('curriculum_versions')
    .select(['version', 'stamped'])
    .where('site_id', '=', scope.siteId)
    .where('course_id', '=', courseId)
    .executeTakeFirst();
}

/** Brings a course's next lectures up to its curriculum order; nothing to do when they already are. */
export async function stampCurriculum(scope: SiteScope, courseId: string): Promise<void> {
  const versions = await stampState(scope, courseId);
  if (versions === undefined || Number(versions.version) === Number(versions.stamped)) return;
  await restamp(scope, courseId);
  // Only the version restamped: a change that came in meanwhile leaves the course to be restamped again.
  await scope.db
    .updateTable('curriculum_versions')
    .set({ stamped: versions.version })
    .where('site_id', '=', scope.siteId)
    .where('course_id', '=', courseId)
    .where('version', '=', versions.version)
    .execute();
}

// A change made through the repository, whose effect on the next lectures is known, moves only the
// enrollments it changes, provided the next lectures followed the course's order before it: that is decided
// before the change, and what the change needs is run after it, in the same write transaction (the
// operation wrapper's), so every bump of the version in between is the change's own. The whole restamp is
// one pass over every completion of the course, which held SQLite's one writer 0.6-1 s for a course of
// 100,000 learners (bench/RESULTS.md, thirty-eighth session); otherwise the whole course is restamped.

/** Whether the course's next lectures follow its order now. */
async function stampedNow(scope: SiteScope, courseId: string): Promise<boolean> {
  const versions = await stampState(scope, courseId);
  return versions !== undefined && Number(versions.version) === Number(versions.stamped);
}

/** Every change since the stamp was this transaction's and has been followed. */
async function markStamped(scope: SiteScope, courseId: string): Promise<void> {
  await scope.db
    .updateTable('curriculum_versions')
    .set((eb) => ({ stamped: eb.ref('version') }))
    .where('site_id', '=', scope.siteId)
    .where('course_id', '=', courseId)
    .execute();
}

/** The course's lecture ids in curriculum order. */
async function lectureOrder(scope: SiteScope, courseId: string): Promise<string[]> {
  const order = await sql<{ id: string }>`
    select l.id from lectures l join course_sections s on s.id = l.section_id
    where l.site_id = ${scope.siteId} and l.course_id = ${courseId}
    ${CURRICULUM_ORDER}`.execute(scope.db);
  return order.rows.map((row) => row.id);
}

/**
 * For deleting `lectureId` and closing the gap it leaves. Only the enrollments whose next lecture it was
 * move: the lectures before it are all completed there, so theirs is the first lecture after it they have
 * not completed. Every other enrollment keeps its next lecture, since closing the gap keeps the order, or
 * had it moved by lecture_progress's triggers when its completion of the deleted lecture went with it.
 */
export async function restampForLectureDeletion(scope: SiteScope, courseId: string, lectureId: string): Promise<() => Promise<void>> {
  if (!(await stampedNow(scope, courseId))) return () => stampCurriculum(scope, courseId);
  const ids = await lectureOrder(scope, courseId);
  const after = ids.slice(ids.indexOf(lectureId) + 1);
  return async () => {
    await moveNextLectures(scope, courseId, lectureId, after);
    await markStamped(scope, courseId);
  };
}

/**
 * For adding a lecture, given its id once it is in place. Nobody has completed it, so it becomes the next
 * lecture of every started enrollment whose next lecture comes after it, or that had none left.
 */
export async function restampForLectureAddition(scope: SiteScope, courseId: string): Promise<(lectureId: string) => Promise<void>> {
  if (!(await stampedNow(scope, courseId))) return () => stampCurriculum(scope, courseId);
  return async (lectureId) => {
    const ids = await lectureOrder(scope, courseId);
    const after = ids.slice(ids.indexOf(lectureId) + 1);
    // Two reads, not one with an OR: each reads its rows through migration 052's index.
    await setNextLectures(scope, courseId, sql`next_lecture_id is null`, sql`${lectureId}`);
    if (after.length > 0) await setNextLectures(scope, courseId, sql`next_lecture_id in (${sql.join(after)})`, sql`${lectureId}`);
    await markStamped(scope, courseId);
  };
}

/** For a change that keeps the order of the course's lectures (a section added, empty): nobody's next lecture moves. */
export async function restampForOrderKept(scope: SiteScope, courseId: string): Promise<() => Promise<void>> {
  if (!(await stampedNow(scope, courseId))) return () => stampCurriculum(scope, courseId);
  return () => markStamped(scope, courseId);
}

/**
 * Past this many (stop, lecture moved ahead of it) pairs a reorder restamps the whole course: one pass over
 * its completions costs less than that many candidates tried for the enrollments at each stop.
 */
export const REORDER_PAIRS_MAX = 10_000;

/**
 * For putting the course's lectures in another order (the same lectures, in any of its sections). Before it,
 * every lecture ahead of a started enrollment's next lecture was completed there; after it, the lectures ahead
 * of that one are those, and those that moved ahead of it from behind. So its next lecture becomes the first
 * of the latter, in the new order, it has not completed, or stays. Only the enrollments stopped at a lecture
 * that another moved ahead of can move: moving one lecture later moves only those stopped at it, moving one
 * earlier only those stopped at the lectures it passed.
 */
export async function restampForReorder(scope: SiteScope, courseId: string): Promise<() => Promise<void>> {
  if (!(await stampedNow(scope, courseId))) return () => stampCurriculum(scope, courseId);
  const before = await lectureOrder(scope, courseId);
  return async () => {
    const overtaken = overtakenStops(before, await lectureOrder(scope, courseId));
    let pairs = 0;
    for (const ahead of overtaken.values()) pairs += ahead.length;
    if (pairs > REORDER_PAIRS_MAX) return stampCurriculum(scope, courseId);
    for (const [stop, ahead] of overtaken) await moveNextLectures(scope, courseId, stop, [...ahead, stop]);
    await markStamped(scope, courseId);
  };
}

/** Each lecture that others moved ahead of, with those others in their new order. */
function overtakenStops(before: readonly string[], after: readonly string[]): Map<string, string[]> {
  const was = new Map(before.map((id, rank) => [id, rank]));
  const overtaken = new Map<string, string[]>();
  after.forEach((stop, rank) => {
    const from = was.get(stop);
    if (from === undefined) return;
    const ahead = after.slice(0, rank).filter((id) => (was.get(id) ?? -1) > from);
    if (ahead.length > 0) overtaken.set(stop, ahead);
  });
  return overtaken;
}

/**
 * The started enrollments whose next lecture was `stop` move to the first of `candidates` (in that order) they
 * have not completed, or to none when they completed them all.
 */
async function moveNextLectures(scope: SiteScope, courseId: string, stop: string, candidates: readonly string[]): Promise<void> {
  // The candidates with their ranks, as a list of values (the column names both stores give them).
  const next =
    candidates.length === 0
      ? sql`null`
      : sql`(select c.column1 from (values ${sql.join(candidates.map((id, rank) => sql`(${id}, cast(${rank} as integer))`))}) c
          where not exists (select 1 from lecture_progress p where p.enrollment_id = enrollments.id and p.lecture_id = c.column1)
          order by c.column2 limit 1)`;
  await setNextLectures(scope, courseId, sql`next_lecture_id = ${stop}`, next);
}

/** The ids of the course's started enrollments that match `which`, MOVE_CHUNK a list (read through migration 052's index). */
async function startedInChunks(scope: SiteScope, courseId: string, which: RawBuilder<unknown>): Promise<string[][]> {
  const found = await sql<{ id: string }>`select id from enrollments where ${startedWhere(scope, courseId, which)}`.execute(scope.db);
  const chunks: string[][] = [];
  for (let from = 0; from < found.rows.length; from += MOVE_CHUNK)
    chunks.push(found.rows.slice(from, from + MOVE_CHUNK).map((row) => row.id));
  return chunks;
}

/**
 * Sets `next` (an expression over the row) as the next lecture of the course's started enrollments that match
 * `which` (startedWhere). On PostgreSQL MOVE_CHUNK a statement, each saying `which` again, so that a row
 * another writer moved in between stays as that writer left it.
 */
async function setNextLectures(scope: SiteScope, courseId: string, which: RawBuilder<unknown>, next: RawBuilder<unknown>): Promise<void> {
  if (isSqlite(scope.db)) {
    await sql`update enrollments set next_lecture_id = ${next} where ${startedWhere(scope, courseId, which)}`.execute(scope.db);
    return;
  }
  for (const ids of await startedInChunks(scope, courseId, which))
    await sql`update enrollments set next_lecture_id = ${next}
      where id in (${sql.join(ids)}) and ${startedWhere(scope, courseId, which)}`.execute(scope.db);
}

/**
 * The course's started enrollments that match `which`: only they have a next lecture, and saying so lets
 * both planners read migration 052's index.
 */
function startedWhere(scope: SiteScope, courseId: string, which: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`site_id = ${scope.siteId} and course_id = ${courseId} and lectures_done > 0 and ${which}`;
}
