// A site's students as its operators see them (SPEC 5.5 `students:read`): people holding the student role
// at this site, with how many courses they are enrolled in here. Never password hashes, never other sites.
import { randomBytes } from 'node:crypto';
import { type AliasedSelectQueryBuilder, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import { DAY_MS } from '../kernel/calendar-days.js';
import { hashPassword } from '../kernel/password.js';
import { newId } from '../kernel/random.js';
import { isSqlite } from '../storage/dialect.js';
import { type Page, type PageRequest, pageQuery, toPage } from './paging.js';
import type { SiteScope } from './scope.js';

export interface StudentRecord {
  id: string;
  name: string;
  email: string;
  /** When the person became a student of this site. */
  studentSince: number;
  enrollmentCount: number;
}

/** The site's students, from the count the role triggers keep (migration 004). */
export async function countStudents(scope: SiteScope): Promise<number> {
  const row = await studentsCounted(scope).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The count of the site's students that the role triggers keep, as a query (alone, or a subquery). */
function studentsCounted(scope: SiteScope) {
  return scope.db.selectFrom('site_role_counts').select('n').where('site_id', '=', scope.siteId).where('role', '=', 'student');
}

/** A course's students, and those of them with an enrollment completed or revoked. */
interface CourseStudentCounts {
  n: number;
  completed: number;
  revoked: number;
}

/**
 * The reads of a course's kept counts made within one search (searchStudentsWithTotal), by course: its start
 * weighs the course by them and its total reads them again, as do the course's active students (those enrolled
 * less those revoked and expired). Held only for a scope that search makes for itself, so no count outlives it.
 */
const courseCountsOfSearch = new WeakMap<SiteScope, Map<string, Promise<CourseStudentCounts>>>();

/**
 * The site's students enrolled in a course, with an enrollment completed and revoked, from the counts the
 * triggers of migration 031 keep, in one statement. A person has one enrollment per course, so they count
 * students.
 */
function courseStudentCounts(scope: SiteScope, courseId: string): Promise<CourseStudentCounts> {
  const known = courseCountsOfSearch.get(scope);
  const kept = known?.get(courseId);
  if (kept !== undefined) return kept;
  const read = scope.db
    .selectFrom('course_student_counts')
    .where('site_id', '=', scope.siteId)
    .where('course_id', '=', courseId)
    .select((eb) => [
      eb.fn.coalesce(eb.fn.sum<number | string>('n'), eb.lit(0)).as('n'),
      eb.fn.coalesce(eb.fn.sum<number | string>('completed'), eb.lit(0)).as('completed'),
      eb.fn.coalesce(eb.fn.sum<number | string>('revoked'), eb.lit(0)).as('revoked'),
    ])
    .executeTakeFirstOrThrow()
    .then((row) => ({ n: Number(row.n), completed: Number(row.completed), revoked: Number(row.revoked) }));
  known?.set(courseId, read);
  return read;
}

async function countCourseStudents(scope: SiteScope, courseId: string, column: keyof CourseStudentCounts): Promise<number> {
  return (await courseStudentCounts(scope, courseId))[column];
}

/**
 * The site's students enrolled in a course with access in a time-bound state. A person has one enrollment
 * per course: expired is the course's enrollments with timed access, not revoked, ended by now (a range of
 * migration 036's index, each one's student role looked up by key), and active the course's students less
 * those revoked and expired.
 */
async function countCourseStudentsByAccess(scope: SiteScope, courseId: string, state: 'active' | 'expired', now: number): Promise<number> {
  const expired = async () => {
    // The literals are the partial index's condition, written as it is so SQLite matches it; a CROSS JOIN
    // keeps SQLite from walking the students instead.
    const row = await scope.db
      .selectFrom('enrollments as e')
      .crossJoin('site_roles as r')
      .where('e.site_id', '=', scope.siteId)
      .where('e.course_id', '=', courseId)
      .where(sql<boolean>`e.revoked_at is null and e.lifetime_access = 0`)
      .where('e.access_expires_at', '<=', now)
      .where('r.site_id', '=', scope.siteId)
      .whereRef('r.person_id', '=', 'e.person_id')
      .where('r.role', '=', 'student')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
  if (state === 'expired') return expired();
  const [{ n, revoked }, ended] = await Promise.all([courseStudentCounts(scope, courseId), expired()]);
  return n - revoked - ended;
}

/**
 * The site's students holding an enrollment in a state, from what the triggers of migration 034 keep:
 * per site, the students with completed, revoked and open-for-good enrollments; per student, when their
 * timed access ends, so the time-bound states are ranges of partial indexes.
 */
async function countStudentsInState(scope: SiteScope, state: StudentStateFilter, now: number): Promise<number> {
  const kept = async (column: 'completed' | 'revoked' | 'open_for_good') =>
    Number(
      (
        await scope.db
          .selectFrom('student_state_counts')
          .where('site_id', '=', scope.siteId)
          .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>(column), eb.lit(0)).as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const figures = scope.db.selectFrom('student_figures').where('site_id', '=', scope.siteId);
  const count = async (qb: typeof figures) => Number((await qb.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  if (state === 'completed' || state === 'revoked') return kept(state);
  // The literals are the partial indexes' conditions, written as they are so SQLite matches them.
  if (state === 'expired') return count(figures.where(sql<boolean>`timed_first_end is not null`).where('timed_first_end', '<=', now));
  const [forGood, timed] = await Promise.all([
    kept('open_for_good'),
    count(figures.where(sql<boolean>`open_for_good = 0`).where('timed_last_end', '>', now)),
  ]);
  return forGood + timed;
}

export type StudentStateFilter = 'active' | 'expired' | 'revoked' | 'completed';

export interface StudentFilter {
  /** Part of the name or e-mail, any case. */
  q?: string;
  /** Enrolled in this course. */
  courseId?: string;
  /** Holding an enrollment in this state (in courseId, when given). */
  state?: StudentStateFilter;
  /** No learning activity in this many days (or never). */
  inactiveDays?: number;
}

const SEARCH = 'operator_student_search';

/** `%text%` for LIKE with the wildcards of the text itself escaped. */
function contains(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The site's enrollments a course or state filter asks about (none of the two: all of them). The state
 * terms are written as the partial indexes of migrations 024 and 032 are, so the planners can use them.
 */
function enrollmentsAsked(scope: SiteScope, filter: Pick<StudentFilter, 'courseId' | 'state'>, now: number) {
  return (
    scope.db
      .selectFrom('enrollments as e')
      .where('e.site_id', '=', scope.siteId)
      .$if(filter.courseId !== undefined, (sub) => sub.where('e.course_id', '=', filter.courseId ?? ''))
      .$if(filter.state === 'active', (sub) =>
        sub
          .where('e.revoked_at', 'is', null)
          .where((eb) =>
            eb.or([eb('e.lifetime_access', '=', 1), eb('e.access_expires_at', 'is', null), eb('e.access_expires_at', '>', now)]),
          ),
      )
      // Expired, as two ranges: not completed (migration 024's open enrollments by expiry) and completed
      // (migration 032's).
      .$if(filter.state === 'expired', (sub) =>
        sub.where((eb) =>
          eb.or(
            [eb('e.completed_at', 'is', null), eb('e.completed_at', 'is not', null)].map((completion) =>
              eb.and([eb('e.revoked_at', 'is', null), completion, eb('e.lifetime_access', '=', 0), eb('e.access_expires_at', '<=', now)]),
            ),
          ),
        ),
      )
      .$if(filter.state === 'revoked', (sub) => sub.where('e.revoked_at', 'is not', null))
      .$if(filter.state === 'completed', (sub) => sub.where('e.completed_at', 'is not', null))
  );
}

/**
 * Up to this many matches (enrollments asked about, or people named), a page starts from them: reading
 * them all and sorting their students costs less than walking the students newest first until a page of
 * matches is found, which for a rare match reads every student (0.4-3.5 s at 100,000 students). Beyond
 * it matches are common enough that the walk finds a page soon.
 */
export const FEW_MATCHES = 2_000;

/** A query of people as `person_id`, run or read as a subquery. */
type PeopleQuery = { execute(): Promise<Array<{ person_id: string }>>; as(alias: 'm'): AliasedSelectQueryBuilder<object, 'm'> };

/**
 * Whether the people the text names are at most FEW_MATCHES, read up to that bound (null when more). On
 * PostgreSQL with the people themselves, which the page and the count start from (fewPeople), so a few named
 * are read once rather than counted and then read (a rare text's page and total 7.2 → 4.3 ms in-process).
 */
async function fewNamed(scope: SiteScope, text: string): Promise<{ people: string[] | undefined } | null> {
  // Either store's query, seen as what both have (a union of the two builders offers no common limit()).
  const named: { limit(n: number): PeopleQuery } = peopleNamed(scope, text);
  const bounded = named.limit(FEW_MATCHES + 1);
  if (isSqlite(scope.db)) return (await atMostFew(scope, bounded)) ? { people: undefined } : null;
  const rows = await bounded.execute();
  return rows.length <= FEW_MATCHES ? { people: [...new Set(rows.map((row) => row.person_id))] } : null;
}

/** Whether a query has at most FEW_MATCHES rows, read up to that bound. */
async function atMostFew(scope: SiteScope, rows: { as(alias: 'm'): AliasedSelectQueryBuilder<object, 'm'> }): Promise<boolean> {
  const row = await scope.db
    .selectFrom(rows.as('m'))
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n) <= FEW_MATCHES;
}

/**
 * The people whose name or e-mail address contains the text, any case, as `person_id`. From the trigram
 * index of migration 033 when the text has the three characters a trigram needs: on SQLite its FTS5 table
 * (a quoted phrase, matched as a substring), on PostgreSQL LIKE, which pg_trgm's indexes answer. Shorter
 * texts are compared with every person.
 */
function peopleNamed(scope: SiteScope, text: string) {
  if (namedFromIndex(scope, text))
    return scope.db
      .selectFrom('people_search')
      .select('people_search.person_id')
      .where(sql<boolean>`people_search match ${`"${text.replaceAll('"', '""')}"`}`);
  return scope.db.selectFrom('people as q').select('q.id as person_id').where(nameOrAddressContains(text));
}

/**
 * Whether the name search reads an index of the matches (SQLite's FTS5 table, for a text of a trigram or
 * more) rather than comparing each person's row (LIKE, which on PostgreSQL pg_trgm's indexes answer too).
 * Only a rule that compares rows can be asked of one person cheaply: asked of one row, FTS5 evaluates the
 * whole phrase again (0.3 ms a person at 100,000 people, where LIKE takes under a microsecond).
 */
function namedFromIndex(scope: SiteScope, text: string): boolean {
  return isSqlite(scope.db) && holdsTrigram(text);
}

/** Whether a text has the three characters a trigram index needs to find it; shorter ones are compared with every person. */
function holdsTrigram(text: string): boolean {
  return [...text].length >= 3;
}

/** The rule that compares rows: the name of the person `q` in any case, or the address, contains the text. */
function nameOrAddressContains(text: string) {
  const like = contains(text);
  return sql<SqlBool>`(lower(q.name) like ${like} escape '\\' or q.email like ${like} escape '\\')`;
}

/**
 * Whether the person a role names is named by the text, asked of that person's row by key where the rule
 * compares rows (namedFromIndex false). A scalar subquery: as a join or EXISTS, PostgreSQL may read every
 * match through the trigram index first, which for a common text is what asking each row avoids.
 */
function namedByRow(scope: SiteScope, text: string) {
  const row = scope.db
    .selectFrom('people as q')
    .select(nameOrAddressContains(text).as('named'))
    .where('q.id', '=', sql.ref<string>('r.person_id'));
  return sql<SqlBool>`(${row})`;
}

/**
 * Where a page and a count start: from the students in the list's order (`students`), or from the few
 * people named by `q`, the few enrollments asked about or the few students inactive since the span
 * (`named`, `enrolled`, `inactive`), each then looked up as a student by key.
 */
type Start = 'students' | 'named' | 'enrolled' | 'inactive';

/**
 * The start for a filter, the inactive students when they were counted, and on PostgreSQL the few named
 * when the probe read them (fewNamed). The few named are read up to the bound through the trigram index
 * (texts shorter than a trigram are taken as common). The few enrollments: a course's, or its completed or
 * revoked ones, from the counts per course (migration 031), which is where a
 * course and a state both common may still be few together; a rare state's through its partial index
 * (migration 032), read up to the bound; active has none and is taken as common. The few inactive: with
 * inactivity alone, the students less the active from the counts per day (040), which are then the total as
 * well; with other filters, a range of the students' latest activity (035) read up to the bound, one
 * statement where the count would take three.
 */
async function startOf(
  scope: SiteScope,
  filter: StudentFilter,
  now: number,
): Promise<{ start: Start; inactive?: number; people?: string[] | undefined }> {
  if (filter.q !== undefined && holdsTrigram(filter.q)) {
    const named = await fewNamed(scope, filter.q);
    if (named !== null) return { start: 'named', people: named.people };
  }
  const probes: Array<Pick<StudentFilter, 'courseId' | 'state'>> = [];
  if (filter.courseId !== undefined && (filter.state === 'completed' || filter.state === 'revoked')) {
    probes.push({ courseId: filter.courseId, state: filter.state });
  } else {
    if (filter.courseId !== undefined) probes.push({ courseId: filter.courseId });
    if (filter.state !== undefined && filter.state !== 'active') probes.push({ state: filter.state });
  }
  // One after the other, as the first that finds few decides: a busy server has no core to spare for the rest.
  for (const probe of probes) if (await fewEnrolled(scope, probe, now)) return { start: 'enrolled' };
  const days = filter.inactiveDays;
  if (days === undefined) return { start: 'students' };
  // Counted, not read: with a LIMIT of its own PostgreSQL may scan the activity expecting to stop early, and
  // for a year's 13 inactive with a state it read 6 ms where counting them read 0.5.
  if (!inactivityAlone(filter))
    return { start: (await atMostFew(scope, inactiveStudents(scope, now, days).limit(FEW_MATCHES + 1))) ? 'inactive' : 'students' };
  const inactive = await countInactiveStudents(scope, now, days);
  return { start: inactive <= FEW_MATCHES ? 'inactive' : 'students', inactive };
}

/**
 * Inactivity with no other filter: the one case whose inactive students are counted from the kept counts,
 * by the page's start and for the total alike.
 */
function inactivityAlone(filter: StudentFilter): filter is StudentFilter & { inactiveDays: number } {
  return (
    filter.inactiveDays !== undefined && Object.entries(filter).every(([name, value]) => name === 'inactiveDays' || value === undefined)
  );
}

/** Whether the enrollments a probe asks about (of a course, in a state, or both) are at most FEW_MATCHES. */
async function fewEnrolled(scope: SiteScope, probe: Pick<StudentFilter, 'courseId' | 'state'>, now: number): Promise<boolean> {
  // One enrollment per student and course: the course's students count its enrollments (those of students).
  if (probe.courseId !== undefined && (probe.state === undefined || probe.state === 'completed' || probe.state === 'revoked'))
    return (await countCourseStudents(scope, probe.courseId, probe.state ?? 'n')) <= FEW_MATCHES;
  return atMostFew(
    scope,
    enrollmentsAsked(scope, probe, now)
      .select(sql.lit(1).as('one'))
      .limit(FEW_MATCHES + 1),
  );
}

/**
 * The site's students without learning activity since the span began (never active included): the students
 * less the active (migrations 004 and 040). Every student has a row of latest activity (035), so they are the
 * rows inactiveStudents reads.
 */
async function countInactiveStudents(scope: SiteScope, now: number, days: number): Promise<number> {
  const { later, dayOf } = activeStudentsCounted(scope, activeFrom(now, days), now, {});
  const row = await scope.db
    .selectNoFrom([studentsCounted(scope).as('students'), later.as('later'), dayOf.as('day_of')])
    .executeTakeFirstOrThrow();
  return Number(row.students ?? 0) - Number(row.later ?? 0) - Number(row.day_of ?? 0);
}

function studentRoles(scope: SiteScope) {
  return scope.db.selectFrom('site_roles as r').where('r.site_id', '=', scope.siteId).where('r.role', '=', 'student');
}

/**
 * The students among a few people: the set read first (a CROSS JOIN is SQLite's way of fixing the order
 * of the loops, which its planner would otherwise turn around, walking the students and testing each
 * against the set), then each one's role looked up by key. A person the set holds more than once comes
 * as often: see repeatsStudents.
 */
function fromFew(scope: SiteScope, people: { as(alias: 'm'): AliasedSelectQueryBuilder<{ person_id: string }, 'm'> }) {
  const joined = scope.db
    .selectFrom(people.as('m'))
    .crossJoin('site_roles as r')
    .where('r.site_id', '=', scope.siteId)
    .where('r.role', '=', 'student')
    .whereRef('r.person_id', '=', 'm.person_id');
  // The set's column is read by nothing after this, so the query is typed as the plain students' one
  // that the rest of the filters extend.
  return joined as unknown as ReturnType<typeof studentRoles>;
}

/**
 * Whether a student can come more than once from the start: from the enrollments in a state, not of a
 * course (a person holds one enrollment per course, one row of the search). The repeats are removed after
 * the join, from the page's or the count's few rows: asked for distinct people in the set itself, SQLite
 * reads the site's every enrollment in person order to get them.
 */
function repeatsStudents(start: Start, filter: StudentFilter): boolean {
  return start === 'enrolled' && filter.courseId === undefined;
}

/** The few people a start other than the students names (as `person_id`, a person perhaps more than once). */
function startSet(scope: SiteScope, filter: StudentFilter, now: number, start: Start) {
  if (start === 'named') return peopleNamed(scope, filter.q ?? '');
  if (start === 'enrolled') return enrollmentsAsked(scope, filter, now).select('e.person_id as person_id');
  if (start === 'inactive') return inactiveStudents(scope, now, filter.inactiveDays ?? 0);
  return undefined;
}

/**
 * On PostgreSQL, a page from a few reads the few first (unless the start's probe read them: fewNamed) and
 * hands them to the page as a list of ids. Given as a subquery, the planner sizes them from statistics
 * sampled at random, and taking a year's 15 inactive students for 1% of 100,000 it walked every student for
 * a page (0.7-1.1 s in the bench), or read all people to join them (12 ms); a list is sized by its length.
 * SQLite's CROSS JOIN fixes the order instead.
 */
async function fewPeople(scope: SiteScope, filter: StudentFilter, now: number, start: Start): Promise<string[] | undefined> {
  const set = startSet(scope, filter, now, start);
  if (set === undefined || isSqlite(scope.db)) return undefined;
  const rows = await set.execute();
  return [...new Set(rows.map((row) => row.person_id))];
}

/**
 * Where a search starts, on PostgreSQL the few people it starts from (fewPeople), and the inactive students
 * when the start counted them.
 */
export interface StudentStart {
  start: Start;
  few: string[] | undefined;
  inactive: number | undefined;
}

async function startingPoint(scope: SiteScope, filter: StudentFilter, now: number): Promise<StudentStart> {
  const { start, inactive, people } = await startOf(scope, filter, now);
  return { start, few: people ?? (await fewPeople(scope, filter, now, start)), inactive };
}

/**
 * The students matching the filter, from the start (or from a page's walk of the students in order): the
 * filter the start reads is met by the set; the others are asked of each student by key, but a text where
 * the students asked are not bounded, which is asked as the set of the people named.
 */
function matching(
  scope: SiteScope,
  filter: StudentFilter,
  now: number,
  start: Start,
  few?: readonly string[],
  walk?: ReturnType<typeof studentRoles>,
) {
  // People are joined only where a filter reads them: counting 100,000 students must not visit each person.
  const asksEnrollments = filter.courseId !== undefined || filter.state !== undefined;
  const set = startSet(scope, filter, now, start);
  const base =
    walk !== undefined
      ? walk
      : set === undefined
        ? studentRoles(scope)
        : few === undefined
          ? fromFew(scope, set)
          : studentRoles(scope).where('r.person_id', '=', sql<string>`any(${[...few]}::text[])`);
  // A text is asked of each student's row where the students asked are bounded (a few people, enrollments or
  // inactive students, or a page's walk) and the rule compares rows; otherwise as the set of people named,
  // read once per statement. Counting a common text's students by row would ask it of every student.
  const bounded = start !== 'students' || walk !== undefined;
  const named = filter.q === undefined || start === 'named' ? undefined : bounded && !namedFromIndex(scope, filter.q) ? 'row' : 'set';
  // Inactivity is asked of each student by key unless the start read it. With a course asked about as well,
  // it is asked inside the enrollment filter, of the students holding the enrollment: asked of every student
  // walked, PostgreSQL tested it first (a course with completed and a month's inactivity at 100,000 students:
  // 1,043 lookups of the latest activity and 800 of the enrollment for a page, where the enrollment first
  // needs 1,043 and 132; 4.7 → 3.3 ms, bench/RESULTS.md, twenty-sixth session). Not with a state alone: a
  // student holds many enrollments in a state, and it would be asked again for each (the active state's page
  // was the slower for it).
  const inactivity = filter.inactiveDays !== undefined && start !== 'inactive' ? activeFrom(now, filter.inactiveDays) : undefined;
  const enrollmentAsked = asksEnrollments && start !== 'enrolled';
  const insideEnrollment = enrollmentAsked && filter.courseId !== undefined ? inactivity : undefined;
  return base
    .$if(named === 'set', (qb) => qb.where('r.person_id', 'in', peopleNamed(scope, filter.q ?? '')))
    .$if(named === 'row', (qb) => qb.where(namedByRow(scope, filter.q ?? '')))
    .$if(enrollmentAsked, (qb) => qb.where(holdsEnrollmentAsked(scope, filter, now, 'r.person_id', insideEnrollment)))
    .$if(insideEnrollment === undefined && inactivity !== undefined, (qb) =>
      qb.where(inactiveBefore(scope, 'r.person_id', inactivity ?? 0)),
    );
}

/** A student's latest activity when they never had any (migration 035): before every moment asked. */
const NEVER_ACTIVE = -1;

/**
 * Whether a person's latest learning activity (never active included) is before a moment: their row of the
 * latest activity by key, as a scalar subquery. PostgreSQL turns a NOT EXISTS into an anti-join, which (misled
 * by a young table's statistics, or for a large range) reads the site's range of active students once per
 * student, where a page needs a hundred-odd lookups by key.
 */
function inactiveBefore(scope: SiteScope, person: 'r.person_id' | 'e.person_id', before: number) {
  const latest = scope.db
    .selectFrom('student_activity as a')
    .select('a.last_activity_at')
    .where('a.site_id', '=', scope.siteId)
    .where('a.person_id', '=', sql.ref<string>(person));
  return sql<SqlBool>`coalesce(${latest}, ${sql.lit(NEVER_ACTIVE)}) < ${before}`;
}

/**
 * Whether the person `person` names (a role's or a latest activity's) holds an enrollment the filter asks
 * about; with `inactiveSince`, one whose person has had no learning activity since that moment.
 */
function holdsEnrollmentAsked(
  scope: SiteScope,
  filter: Pick<StudentFilter, 'courseId' | 'state'>,
  now: number,
  person: 'r.person_id' | 'a.person_id' = 'r.person_id',
  inactiveSince?: number,
) {
  const held = enrollmentsAsked(scope, filter, now)
    .select(sql.lit(1).as('one'))
    .where('e.person_id', '=', sql.ref<string>(person))
    .$if(inactiveSince !== undefined, (qb) => qb.where(inactiveBefore(scope, 'e.person_id', inactiveSince ?? 0)));
  return <DB, TB extends keyof DB>({ exists }: ExpressionBuilder<DB, TB>) => exists(held);
}

/**
 * The first moment of the last `days` days, never before 1970: activity is stored as milliseconds since then,
 * so a span reaching further back asks the same, and a student never active stays inactive.
 */
function activeFrom(now: number, days: number): number {
  return Math.max(0, now - days * DAY_MS);
}

/**
 * The site's students without learning activity in the last `days` days, as `person_id`: a range of the
 * index of their latest activity (migration 035), where every student has an entry.
 */
function inactiveStudents(scope: SiteScope, now: number, days: number) {
  return scope.db
    .selectFrom('student_activity as a')
    .select('a.person_id')
    .where('a.site_id', '=', scope.siteId)
    .where('a.last_activity_at', '<', activeFrom(now, days));
}

/**
 * What the active students are counted among: all, or those holding an enrollment (in the course, when
 * given) in a state kept per day.
 */
type ActiveAmong = { courseId?: string; state?: 'completed' | 'revoked' | 'active' };

/** The column of the counts per day (042, 043) that holds a state: the active state's kept part is access open for good. */
function keptStateColumn(state: 'completed' | 'revoked' | 'active'): 'completed' | 'revoked' | 'open_for_good' {
  return state === 'active' ? 'open_for_good' : state;
}

/** Latest activity at or after a moment (`since`), or before it (`before`: never active included). */
type Activity = { since: number } | { before: number };

/**
 * Of the students whose timed access lasts beyond `now` (`lasting`) or has ended by then (`ended`), those
 * whose latest activity is as `activity` says, each one's latest activity by key. Both depend on the moment,
 * so they cannot be kept per day. Lasting is the active state's part that the counts per day cannot hold:
 * the students whose access is timed only (none open for good), a range of migration 034's partial index of
 * their last end. Ended is the expired state: a range of 034's index of their first end, as long as the
 * expired are many, which the state's total reads anyway. In a course, its timed enrollments by their end, a
 * range of migration 036's index (one enrollment per student). Every row of the latest activity is a
 * student's, so no role is looked up.
 */
async function countTimedAccess(scope: SiteScope, now: number, side: 'lasting' | 'ended', activity: Activity, courseId?: string) {
  const ends = side === 'lasting' ? '>' : '<=';
  const [op, at] = 'since' in activity ? (['>=', activity.since] as const) : (['<', activity.before] as const);
  if (courseId !== undefined) {
    // The literals are the partial index's condition, written as it is so SQLite matches it.
    const row = await scope.db
      .selectFrom('enrollments as e')
      .innerJoin('student_activity as a', (join) => join.onRef('a.site_id', '=', 'e.site_id').onRef('a.person_id', '=', 'e.person_id'))
      .where('e.site_id', '=', scope.siteId)
      .where('e.course_id', '=', courseId)
      .where(sql<boolean>`e.course_id is not null and e.revoked_at is null and e.lifetime_access = 0`)
      .where('e.access_expires_at', ends, now)
      .where('a.last_activity_at', op, at)
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
  // The literals are the partial indexes' conditions, written as they are so SQLite matches them.
  const row = await scope.db
    .selectFrom('student_figures as f')
    .innerJoin('student_activity as a', (join) => join.onRef('a.site_id', '=', 'f.site_id').onRef('a.person_id', '=', 'f.person_id'))
    .where('f.site_id', '=', scope.siteId)
    .$if(side === 'lasting', (qb) => qb.where(sql<boolean>`f.open_for_good = 0`).where('f.timed_last_end', '>', now))
    .$if(side === 'ended', (qb) => qb.where(sql<boolean>`f.timed_first_end is not null`).where('f.timed_first_end', '<=', now))
    .where('a.last_activity_at', op, at)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * How many of the site's students (those `among` names) had learning activity at or after `from`: the days
 * after its UTC day from the counts the triggers keep per day of latest activity (migration 040, per course
 * 041 and its states 043, per state 042), and its own day's stretch from the index of the latest activity
 * (migration 035). Counting the index entries alone read one per active student. For the active state, the
 * days count access open for good; timed access that has not ended is counted apart, as it ends with the time.
 */
async function countActiveStudents(scope: SiteScope, from: number, now: number, among: ActiveAmong = {}): Promise<number> {
  const { later, dayOf, firstDay } = activeStudentsCounted(scope, from, now, among);
  const [row, timed] = await Promise.all([
    scope.db.selectNoFrom([later.as('later'), dayOf.as('day_of')]).executeTakeFirstOrThrow(),
    among.state === 'active' ? countTimedAccess(scope, now, 'lasting', { since: (firstDay + 1) * DAY_MS }, among.courseId) : 0,
  ]);
  return Number(row.later ?? 0) + Number(row.day_of ?? 0) + timed;
}

/**
 * countActiveStudents' two counts as subqueries, asked in one statement: the days after `from`'s from the
 * counts per day, and its own day's stretch from the index of the latest activity.
 */
function activeStudentsCounted(scope: SiteScope, from: number, now: number, among: ActiveAmong) {
  const firstDay = Math.floor(from / DAY_MS);
  const { courseId, state } = among;
  const later =
    state !== undefined && courseId === undefined
      ? scope.db
          .selectFrom('student_state_days')
          .where('site_id', '=', scope.siteId)
          .where('day', '>', firstDay)
          .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>(keptStateColumn(state)), eb.lit(0)).as('n'))
      : courseId !== undefined
        ? scope.db
            .selectFrom('course_activity_days')
            .where('site_id', '=', scope.siteId)
            .where('course_id', '=', courseId)
            .where('day', '>', firstDay)
            .select((eb) =>
              eb.fn.coalesce(eb.fn.sum<number | string>(state === undefined ? 'n' : keptStateColumn(state)), eb.lit(0)).as('n'),
            )
        : scope.db
            .selectFrom('student_activity_days')
            .where('site_id', '=', scope.siteId)
            .where('day', '>', firstDay)
            .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('n'), eb.lit(0)).as('n'));
  const dayOf = scope.db
    .selectFrom('student_activity as a')
    .where('a.site_id', '=', scope.siteId)
    .where('a.last_activity_at', '>=', from)
    .where('a.last_activity_at', '<', (firstDay + 1) * DAY_MS)
    .$if(courseId !== undefined || state !== undefined, (qb) => qb.where(holdsEnrollmentAsked(scope, among, now, 'a.person_id')))
    .select((eb) => eb.fn.countAll<number | string>().as('n'));
  return { later, dayOf, firstDay };
}

/**
 * What a page is sorted by: when it starts from a few, a value no index holds in order. PostgreSQL would
 * otherwise weigh walking the students' index newest first, testing each student against the few, against
 * reading the few and sorting them; when the few lie among the oldest students, the walk reads them all.
 * The few are counted before (at most FEW_MATCHES), so reading them first is always right. SQLite reads
 * them first anyway (fromFew's CROSS JOIN) and sorts them the same either way.
 */
function sortedBy(start: Start) {
  return start === 'students' ? sql<number>`r.created_at` : sql<number>`r.created_at + 0`;
}

/** The site's students matching the filter, most recent first. */
export async function searchStudents(
  scope: SiteScope,
  filter: StudentFilter,
  request: PageRequest,
  now: number,
  from: Promise<StudentStart> = startingPoint(scope, filter, now),
): Promise<Page<StudentRecord>> {
  const { size, after } = pageQuery(SEARCH, request);
  const { start, few } = await from;
  const rows = walksCommonText(scope, filter, start)
    ? await walkThenSort(scope, filter, now, after, size)
    : await pageRows(scope, filter, now, start, few, after, size);
  const students = rows.map(
    (row): StudentRecord => ({
      id: row.id,
      name: row.name,
      email: row.email,
      studentSince: row.created_at,
      enrollmentCount: Number(row.enrollment_count ?? 0),
    }),
  );
  return toPage(SEARCH, students, size, (s) => ({ sort: s.studentSince, id: s.id }));
}

type Cursor = ReturnType<typeof pageQuery>['after'];

/** The students after the cursor in the list's order: those who became students before it, or at once with a smaller id. */
function afterCursor(after: NonNullable<Cursor>) {
  return sql<SqlBool>`(r.created_at < ${after.sort} or (r.created_at = ${after.sort} and r.person_id < ${after.id}))`;
}

/** Up to `size + 1` rows of a page from a start (from a walk's window of students, when given). */
function pageRows(
  scope: SiteScope,
  filter: StudentFilter,
  now: number,
  start: Start,
  few: readonly string[] | undefined,
  after: Cursor,
  size: number,
  walk?: ReturnType<typeof studentRoles>,
) {
  return (
    matching(scope, filter, now, start, few, walk)
      .innerJoin('people as p', 'p.id', 'r.person_id')
      .$if(after !== null, (qb) => qb.where(afterCursor(after!)))
      // r.person_id (equal to p.id) too: PostgreSQL sorts distinct rows only by what they select.
      .select(['p.id', 'p.name', 'p.email', 'r.created_at', 'r.person_id'])
      .select(enrollmentCount(scope))
      .select(sortedBy(start).as('sort_at'))
      .$if(repeatsStudents(start, filter), (qb) => qb.distinct())
      .orderBy(sql.ref('sort_at'), 'desc')
      .orderBy('r.person_id', 'desc')
      .limit(size + 1)
      .execute()
  );
}

/**
 * A common text's page walks at most this many students (of a hundred-odd asked for), each asked the text by
 * its row, before it reads the matches and sorts them instead: a text in one student of twenty fills a page
 * of 100 within it.
 */
export const WALKED_FOR_A_PAGE = FEW_MATCHES;

/**
 * Whether a page walks the students asking each the text (a common text, or one shorter than a trigram,
 * where the rule compares rows): walking until a page is found reads every student when the matches lie
 * among the oldest (at 100,000 students, 80,222 of them for `learner 1` on PostgreSQL, 240 ms), and reading
 * the set of the named for each page reads every match (100,000 for a text in every address).
 */
function walksCommonText(scope: SiteScope, filter: StudentFilter, start: Start): boolean {
  return start === 'students' && filter.q !== undefined && !namedFromIndex(scope, filter.q);
}

/**
 * A page of a common text: WALKED_FOR_A_PAGE students from the cursor on, each asked the text (and the other
 * filters) by key; when they hold no full page and more students follow, the people named, read and sorted.
 */
async function walkThenSort(scope: SiteScope, filter: StudentFilter, now: number, after: Cursor, size: number) {
  const window = studentRoles(scope)
    .select(['r.site_id', 'r.role', 'r.person_id', 'r.created_at'])
    .$if(after !== null, (qb) => qb.where(afterCursor(after!)))
    .orderBy('r.created_at', 'desc')
    .orderBy('r.person_id', 'desc')
    .limit(WALKED_FOR_A_PAGE);
  // Read by the same names as the students' table, which is all matching reads of it.
  const walk = scope.db.selectFrom(window.as('r')) as unknown as ReturnType<typeof studentRoles>;
  // The window starts after the cursor, so the page asks it no more.
  const rows = await pageRows(scope, filter, now, 'students', undefined, null, size, walk);
  if (rows.length > size) return rows;
  // Short of a page: the walk was the rest of the list, or the matches lie further on.
  const walked = await scope.db
    .selectFrom(window.as('w'))
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  if (Number(walked.n) < WALKED_FOR_A_PAGE) return rows;
  return pageRows(scope, filter, now, 'named', undefined, after, size);
}

/**
 * A page of the students matching the filter and how many match in all, from one start: asked apart, each
 * worked the start out again, and on PostgreSQL a page from a few named by `q` ran the name search four times
 * (counted for each, read for the page, and again inside the count) where now it runs once (fewNamed).
 */
export async function searchStudentsWithTotal(
  scope: SiteScope,
  filter: StudentFilter,
  request: PageRequest,
  now: number,
): Promise<{ page: Page<StudentRecord>; total: number }> {
  // A scope of this search's own, under which a course's kept counts are read once (courseStudentCounts).
  const search: SiteScope = { db: scope.db, siteId: scope.siteId };
  courseCountsOfSearch.set(search, new Map());
  const from = startingPoint(search, filter, now);
  const [page, total] = await Promise.all([
    searchStudents(search, filter, request, now, from),
    countMatchingStudents(search, filter, now, from),
  ]);
  return { page, total };
}

/**
 * How many students match. No filter, a course alone or with any state, and a state alone read what the
 * triggers keep (migrations 004, 031 and 034), a course's expired enrollments a range of an index;
 * inactivity alone is the students less the active, from the counts per day of latest activity (migration
 * 040), or the few inactive a page starts from; a course with inactivity, its students less its active,
 * from the counts per course (041), and so a course with a completed, revoked or active state (043) and
 * such a state alone (042); other filters count the matches, from the few people, enrollments or inactive
 * students when they are few.
 */
export async function countMatchingStudents(
  scope: SiteScope,
  filter: StudentFilter,
  now: number,
  from?: Promise<StudentStart>,
): Promise<number> {
  const { courseId, state, inactiveDays, ...others } = filter;
  const alone = Object.values(others).every((v) => v === undefined);
  if (inactivityAlone(filter)) {
    // The page's start counted them when it weighed them.
    const started = from === undefined ? undefined : await from;
    return started?.inactive ?? countInactiveStudents(scope, now, filter.inactiveDays);
  }
  if (alone && inactiveDays === undefined) {
    if (courseId === undefined && state === undefined) return countStudents(scope);
    if (courseId !== undefined && state === undefined) return countCourseStudents(scope, courseId, 'n');
    if (courseId !== undefined && (state === 'completed' || state === 'revoked')) return countCourseStudents(scope, courseId, state);
    if (courseId !== undefined && (state === 'active' || state === 'expired'))
      return countCourseStudentsByAccess(scope, courseId, state, now);
    if (courseId === undefined && state !== undefined) return countStudentsInState(scope, state, now);
  }
  const { start, few } = await (from ?? startingPoint(scope, filter, now));
  if (start === 'students' && inactiveDays !== undefined && alone && (courseId !== undefined || state !== undefined)) {
    // Many inactive among many enrolled. The expired are a range of their access's ends: the inactive among
    // them are counted as they are read. For a course, a completed, revoked or active state, or both, the
    // total is those enrolled (counted as above) less the active among them, kept per day (041, 042, 043).
    const since = activeFrom(now, inactiveDays);
    if (state === 'expired') return countTimedAccess(scope, now, 'ended', { before: since }, courseId);
    const [enrolled, active] = await Promise.all([
      countMatchingStudents(scope, { courseId, state }, now),
      countActiveStudents(scope, since, now, { courseId, state }),
    ]);
    return enrolled - active;
  }
  const row = await matching(scope, filter, now, start, few)
    .select((eb) => (repeatsStudents(start, filter) ? eb.fn.count('r.person_id').distinct() : eb.fn.countAll()).as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * A student's enrollments at this site, counted in the row's own query (a correlated subquery over the
 * (site, person, course) index), so a page of 100 costs no second round trip.
 */
function enrollmentCount(scope: SiteScope) {
  // The queries using it read site_roles as r.
  return sql<number>`(select count(*) from enrollments e where e.site_id = ${scope.siteId} and e.person_id = r.person_id)`.as(
    'enrollment_count',
  );
}

export interface StudentProfile extends StudentRecord {
  /** The operators' note on this student at this site; empty when none. */
  note: string;
}

/** A student of this site by id; null for anyone else (another site's person looks the same as nobody). */
export async function findStudent(scope: SiteScope, id: string): Promise<StudentProfile | null> {
  const row = await scope.db
    .selectFrom('site_roles as r')
    .innerJoin('people as p', 'p.id', 'r.person_id')
    .leftJoin('student_notes as n', (join) => join.onRef('n.person_id', '=', 'p.id').on('n.site_id', '=', scope.siteId))
    .where('r.site_id', '=', scope.siteId)
    .where('r.role', '=', 'student')
    .where('p.id', '=', id)
    .select(['p.id', 'p.name', 'p.email', 'r.created_at', 'n.note'])
    .select(enrollmentCount(scope))
    .executeTakeFirst();
  if (!row) return null;
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    studentSince: row.created_at,
    enrollmentCount: Number(row.enrollment_count ?? 0),
    note: row.note ?? '',
  };
}

/**
 * Makes a person a student of this site: the account of that e-mail when there is one (a person has
 * one account across sites), else a new one with a random password nobody knows, so it cannot be signed
 * into until a password is set.
 */
export async function addStudent(scope: SiteScope, email: string, name: string, now: number): Promise<{ id: string; created: boolean }> {
  const address = email.trim().toLowerCase();
  let person = await scope.db.selectFrom('people').select('id').where('email', '=', address).executeTakeFirst();
  let created = false;
  if (!person) {
    const id = newId('per');
    await scope.db
      .insertInto('people')
      .values({
        id,
        email: address,
        name,
        picture_url: null,
        password_hash: await hashPassword(randomBytes(32).toString('base64url')),
        created_at: now,
      })
      .onConflict((oc) => oc.column('email').doNothing())
      .execute();
    person = await scope.db.selectFrom('people').select('id').where('email', '=', address).executeTakeFirstOrThrow();
    created = person.id === id;
  }
  const role = await scope.db
    .insertInto('site_roles')
    .values({ site_id: scope.siteId, person_id: person.id, role: 'student', created_at: now })
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return { id: person.id, created: created || Number(role.numInsertedOrUpdatedRows ?? 0n) > 0 };
}

/** Sets the operators' note on a student of this site; false when the site has no such student. */
export async function setStudentNote(scope: SiteScope, id: string, note: string, now: number): Promise<boolean> {
  if (!(await findStudent(scope, id))) return false;
  await scope.db
    .insertInto('student_notes')
    .values({ site_id: scope.siteId, person_id: id, note, updated_at: now })
    .onConflict((oc) => oc.columns(['site_id', 'person_id']).doUpdateSet({ note, updated_at: now }))
    .execute();
  return true;
}
