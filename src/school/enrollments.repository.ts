// A member's enrolments and their progress (SPEC 2.2): access expiry, lifetime access, last-watched lecture.
import { type AliasedSelectQueryBuilder, type Expression, type Kysely, sql, type Transaction } from 'kysely';
import { lecturesOfCourse } from './curriculum.repository.js';
import { defineListQuery, defineQuery, type Placeholder } from '../storage/precompiled.js';
import type { Database } from '../storage/schema.js';
import type { MemberScope, SiteScope } from './scope.js';

type Executor = Kysely<Database> | Transaction<Database>;
import { DEFAULT_PAGE_SIZE, type Page, type PageKey, type PageRequest, pageQuery, rowsWithTotal, toPage } from './paging.js';

export type AccessState = 'ACTIVE' | 'EXPIRED';

export interface EnrolledCourseSummary {
  id: string;
  slug: string;
  title: string;
  subtitle: string | null;
  coverImageUrl: string | null;
}

export interface EnrollmentRecord {
  id: string;
  course: EnrolledCourseSummary;
  startedAt: number;
  /** Null with lifetime access: nothing ends. */
  accessExpiresAt: number | null;
  hasLifetimeAccess: boolean;
  accessState: AccessState;
  completedAt: number | null;
  lastLectureId: string | null;
  lastPositionSeconds: number | null;
  lastActivityAt: number | null;
}

export interface LectureSummary {
  id: string;
  courseId: string;
  title: string;
  durationSeconds: number;
}

const LIST = 'enrollments';

/** EXPIRED once the expiry instant has passed, unless the access is for life; no expiry means open-ended. */
export function accessStateAt(enrollment: { lifetimeAccess: boolean; accessExpiresAt: number | null }, now: number): AccessState {
  if (enrollment.lifetimeAccess || enrollment.accessExpiresAt === null) return 'ACTIVE';
  return enrollment.accessExpiresAt <= now ? 'EXPIRED' : 'ACTIVE';
}

/** Whole percent of lectures completed, never above 100; a course without lectures is at 0. */
export function progressPercent(completed: number, total: number): number {
  if (total <= 0) return 0;
  return Math.min(100, Math.floor((completed * 100) / total));
}

/** The member's enrolments at this site, most recently started first. */
// The member's page of enrolments, first page and the pages after a cursor, compiled once: every member
// API viewer query and every list_my_enrollments call reads it.
const enrollmentColumns = [
  'e.id',
  'e.started_at',
  'e.access_expires_at',
  'e.lifetime_access',
  'e.completed_at',
  'e.last_lecture_id',
  'e.last_position_seconds',
  'e.last_activity_at',
  'c.id as course_id',
  'c.slug as course_slug',
  'c.title as course_title',
  'c.subtitle as course_subtitle',
  'c.cover_image_url as course_cover_image_url',
] as const;
const memberEnrollments = (db: Executor, p: Record<'siteId' | 'personId' | 'limit', Placeholder>) =>
  db
    .selectFrom('enrollments as e')
    .innerJoin('courses as c', (join) => join.onRef('c.id', '=', 'e.course_id').on('c.site_id', '=', p.siteId))
    .where('e.site_id', '=', p.siteId)
    .where('e.person_id', '=', p.personId)
    .select(enrollmentColumns)
    .orderBy('e.started_at', 'desc')
    .orderBy('e.id', 'desc')
    .limit(p.limit);
const firstEnrollmentPage = defineQuery(['siteId', 'personId', 'limit'], (db, p) => memberEnrollments(db, p));
/** The member's enrolments after a cursor: started earlier, or at the same instant with a smaller id. */
const memberEnrollmentsAfter = (db: Executor, p: Record<'siteId' | 'personId' | 'limit' | 'afterSort' | 'afterId', Placeholder>) =>
  memberEnrollments(db, p).where((eb) =>
    eb.or([eb('e.started_at', '<', p.afterSort), eb.and([eb('e.started_at', '=', p.afterSort), eb('e.id', '<', p.afterId)])]),
  );
const laterEnrollmentPage = defineQuery(['siteId', 'personId', 'limit', 'afterSort', 'afterId'], memberEnrollmentsAfter);

type EnrollmentRow = Awaited<ReturnType<typeof firstEnrollmentPage.rows>>[number];

function enrollmentRecord(row: EnrollmentRow, now: number): EnrollmentRecord {
  const lifetime = row.lifetime_access === 1;
  const expires = lifetime ? null : row.access_expires_at;
  return {
    id: row.id,
    course: {
      id: row.course_id,
      slug: row.course_slug,
      title: row.course_title,
      subtitle: row.course_subtitle,
      coverImageUrl: row.course_cover_image_url,
    },
    startedAt: row.started_at,
    accessExpiresAt: expires,
    hasLifetimeAccess: lifetime,
    accessState: accessStateAt({ lifetimeAccess: lifetime, accessExpiresAt: expires }, now),
    completedAt: row.completed_at,
    lastLectureId: row.last_lecture_id,
    lastPositionSeconds: row.last_lecture_id === null ? null : (row.last_position_seconds ?? 0),
    lastActivityAt: row.last_activity_at,
  };
}

const pageKey = (r: EnrollmentRecord) => ({ sort: r.startedAt, id: r.id });

/** A later page's parameters, written out: V8 builds a spread with added fields on a slow path. */
const laterPageParams = (base: { siteId: string; personId: string; limit: number }, after: PageKey) => ({
  siteId: base.siteId,
  personId: base.personId,
  limit: base.limit,
  afterSort: after.sort,
  afterId: after.id,
});

/**
 * A read of the member's own enrolments through the scope's cache where it has one, for the page that
 * apps and assistants ask for again and again: the first, of the default size. Other pages are read each
 * time, so a member holds at most one kept page per read and a kept page at most DEFAULT_PAGE_SIZE + 1 rows
 * (LEARNING_ENTRIES bounds the rest). The rows are kept as read, and what depends on the time (the access
 * state) is worked out from them at every answer, so a kept page never shows access that has ended since.
 */
function memberRead<T>(scope: MemberScope, read: string, size: number, after: PageKey | null, load: () => Promise<T>): Promise<T> {
  if (!scope.learning || after !== null || size !== DEFAULT_PAGE_SIZE) return load();
  return scope.learning.read(scope.siteId, `${scope.personId}\u0000${read}`, load);
}

export async function listEnrollments(scope: MemberScope, request: PageRequest, now: number): Promise<Page<EnrollmentRecord>> {
  const { size, after } = pageQuery(LIST, request);
  const base = { siteId: scope.siteId, personId: scope.personId, limit: size + 1 };
  const rows = await memberRead(scope, 'enrollments', size, after, () =>
    after ? laterEnrollmentPage.rows(scope.db, laterPageParams(base, after)) : firstEnrollmentPage.rows(scope.db, base),
  );
  return toPage(
    LIST,
    rows.map((row) => enrollmentRecord(row, now)),
    size,
    pageKey,
  );
}

/** An enrolment with what the member tools show beside it: lecture counts and the lecture to resume. */
export interface EnrollmentProgressRecord extends EnrollmentRecord {
  totalLectures: number;
  completedLectures: number;
  /** The last-watched lecture, or null before the first one or when it no longer exists at this site. */
  lastLecture: { id: string; title: string; durationSeconds: number } | null;
}

/** What the outer query of a page with progress reads of the page itself. */
interface PageKeyColumns {
  id: string;
  course_id: string;
  started_at: number;
  last_lecture_id: string | null;
}

/**
 * How many lectures of an enrolment are completed: its progress rows for lectures of the enrolled course
 * only, so the percentage cannot pass 100 through stray rows. The one definition, for the member tools'
 * page statement and the member API's loader alike.
 */
function completedLecturesOf(db: Executor, siteId: string, enrollment: Expression<string>, course: Expression<string>) {
  return db
    .selectFrom('lecture_progress as lp')
    .innerJoin('lectures as done', (join) => join.onRef('done.id', '=', 'lp.lecture_id').on('done.course_id', '=', course))
    .where('lp.site_id', '=', siteId)
    .where('lp.enrollment_id', '=', enrollment)
    .select((sub) => sub.fn.countAll<number | string>().as('n'));
}

// The page with its progress in one statement: on PostgreSQL every statement is a round trip, and the
// member tools read all of this for every enrolment on the page (they did in four statements). The page
// is chosen first (the inner query, with its LIMIT), so the counts run for its rows only, however many
// enrolments the member has.
const withProgress = <O extends PageKeyColumns>(
  db: Executor,
  page: AliasedSelectQueryBuilder<O, 'page'>,
  p: Record<'siteId', Placeholder>,
) =>
  db
    .selectFrom(page)
    .leftJoin('lectures as last', (join) => join.onRef('last.id', '=', 'page.last_lecture_id').on('last.site_id', '=', p.siteId))
    .selectAll('page')
    .select([
      'last.title as last_lecture_title',
      'last.duration_seconds as last_lecture_duration_seconds',
      lecturesOfCourse(db, p.siteId, sql.ref('page.course_id'))
        .select((sub) => sub.fn.countAll<number | string>().as('n'))
        .as('total_lectures'),
      completedLecturesOf(db, p.siteId, sql.ref('page.id'), sql.ref('page.course_id')).as('completed_lectures'),
    ])
    .orderBy('page.started_at', 'desc')
    .orderBy('page.id', 'desc');
/** How many enrolments the member has at the site: a count over the member page's index alone. */
const memberEnrollmentCount = (db: Executor, p: Record<'siteId' | 'personId', Placeholder>) =>
  db
    .selectFrom('enrollments')
    .where('site_id', '=', p.siteId)
    .where('person_id', '=', p.personId)
    .select((eb) => eb.fn.countAll<number | string>().as('n'));
// The total as a scalar subquery, run once per statement: a window count over the page made SQLite keep
// and sort the member's rows once more (60 µs against 49 µs for a page of four, in a loop).
const firstProgressPageWithTotal = defineQuery(['siteId', 'personId', 'limit'], (db, p) =>
  withProgress(db, memberEnrollments(db, p).as('page'), p).select(memberEnrollmentCount(db, p).as('total')),
);
const laterProgressPage = defineQuery(['siteId', 'personId', 'limit', 'afterSort', 'afterId'], (db, p) =>
  withProgress(db, memberEnrollmentsAfter(db, p).as('page'), p),
);

type ProgressRow = Awaited<ReturnType<typeof laterProgressPage.rows>>[number];

function progressRecord(row: ProgressRow, now: number): EnrollmentProgressRecord {
  // Object.assign, not a spread with added fields: V8 builds those on a slow path (about 3.9 µs a row here).
  return Object.assign(enrollmentRecord(row, now), {
    totalLectures: Number(row.total_lectures ?? 0),
    completedLectures: Number(row.completed_lectures ?? 0),
    lastLecture:
      row.last_lecture_id === null || row.last_lecture_title === null || row.last_lecture_duration_seconds === null
        ? null
        : { id: row.last_lecture_id, title: row.last_lecture_title, durationSeconds: row.last_lecture_duration_seconds },
  });
}

/**
 * A page of the member's enrolments with their progress, and the number of all of them, for callers that
 * show both (the member tools): a first page is one statement; a later page reads the count beside it.
 */
export async function listEnrollmentsWithProgress(
  scope: MemberScope,
  request: PageRequest,
  now: number,
): Promise<{ page: Page<EnrollmentProgressRecord>; total: number }> {
  const { size, after } = pageQuery(LIST, request);
  const base = { siteId: scope.siteId, personId: scope.personId, limit: size + 1 };
  const { rows, total } = await memberRead(scope, 'progress', size, after, () =>
    rowsWithTotal(after, {
      first: () => firstProgressPageWithTotal.rows(scope.db, base),
      later: (from) => laterProgressPage.rows(scope.db, laterPageParams(base, from)),
      count: () => countEnrollments(scope),
    }),
  );
  const page = toPage(
    LIST,
    rows.map((row) => progressRecord(row, now)),
    size,
    pageKey,
  );
  return { page, total };
}

const enrollmentCount = defineQuery(['siteId', 'personId'], memberEnrollmentCount);

export async function countEnrollments(scope: MemberScope): Promise<number> {
  const row = await enrollmentCount.first(scope.db, { siteId: scope.siteId, personId: scope.personId });
  return Number(row?.n ?? 0);
}

// The per-page lookups of the member API and the member tools, compiled once per list length.
const lectureCounts = defineListQuery(['siteId'], (db, p, courseIds) =>
  db
    .selectFrom('lectures')
    .where('site_id', '=', p.siteId)
    .where('course_id', 'in', courseIds)
    .groupBy('course_id')
    .select((eb) => ['course_id', eb.fn.countAll().as('n')]),
);
const completedCounts = defineListQuery(['siteId', 'personId'], (db, p, enrollmentIds) =>
  db
    .selectFrom('enrollments as e')
    .where('e.site_id', '=', p.siteId)
    .where('e.person_id', '=', p.personId)
    .where('e.id', 'in', enrollmentIds)
    .select(['e.id as enrollment_id', completedLecturesOf(db, p.siteId, sql.ref('e.id'), sql.ref('e.course_id')).as('n')]),
);
const lecturesById = defineListQuery(['siteId'], (db, p, lectureIds) =>
  db
    .selectFrom('lectures')
    .where('site_id', '=', p.siteId)
    .where('id', 'in', lectureIds)
    .select(['id', 'course_id', 'title', 'duration_seconds']),
);

/** A site's scope that may carry the member learning cache (MemberScope's). */
type LearningScope = SiteScope & Pick<MemberScope, 'learning'>;

/**
 * A member request's batch of per-enrolment facts (lecture counts, completed lectures, last lectures), kept
 * in the learning cache when the scope has it: a member's app asks for the same page with the same fields on
 * every screen, so the batch repeats with the same ids. Keyed by the ids in order of their value, so any
 * page's batch is kept, but one larger than a default page is read each time and an entry stays small. Only
 * operators change lectures (their writes forget the site's entries); lecture progress is written by no
 * request of this service, only by the demo's seed, before any request. A member-side write of progress or
 * enrolments, if one is ever added, must forget the site's entries too (SchoolReadCache.changed), as
 * operator writes do, or the member's app shows the old figures for up to TTL_MS.
 */
function batchRead<V>(
  scope: LearningScope,
  read: string,
  ids: readonly string[],
  load: () => Promise<Map<string, V>>,
): Promise<Map<string, V>> {
  if (!scope.learning || ids.length > DEFAULT_PAGE_SIZE + 1) return load();
  return scope.learning.read(scope.siteId, `${read}\u0000${[...ids].sort().join('\u0000')}`, load);
}

/** Lectures per course, for the given courses of this site (absent courses count 0). */
export function lectureCountsByCourse(scope: LearningScope, courseIds: readonly string[]): Promise<Map<string, number>> {
  return batchRead(scope, 'lecture-counts', courseIds, async () => {
    const counts = new Map<string, number>();
    if (courseIds.length === 0) return counts;
    const rows = await lectureCounts.rows(scope.db, { siteId: scope.siteId }, courseIds);
    for (const row of rows) counts.set(row.course_id, Number(row.n));
    return counts;
  });
}

/** Completed lectures of the course, per enrolment of this member (other members' enrolments count 0). */
export function completedLectureCounts(scope: MemberScope, enrollmentIds: readonly string[]): Promise<Map<string, number>> {
  return batchRead(scope, `${scope.personId}\u0000completed-lectures`, enrollmentIds, async () => {
    const counts = new Map<string, number>();
    if (enrollmentIds.length === 0) return counts;
    const rows = await completedCounts.rows(scope.db, { siteId: scope.siteId, personId: scope.personId }, enrollmentIds);
    for (const row of rows) counts.set(row.enrollment_id, Number(row.n));
    return counts;
  });
}

/** Lectures of this site by id, for "resume" (title and duration of the last-watched lecture). */
export function lecturesByIds(scope: LearningScope, lectureIds: readonly string[]): Promise<Map<string, LectureSummary>> {
  return batchRead(scope, 'lectures', lectureIds, async () => {
    const lectures = new Map<string, LectureSummary>();
    if (lectureIds.length === 0) return lectures;
    const rows = await lecturesById.rows(scope.db, { siteId: scope.siteId }, lectureIds);
    for (const row of rows) {
      lectures.set(row.id, { id: row.id, courseId: row.course_id, title: row.title, durationSeconds: row.duration_seconds });
    }
    return lectures;
  });
}
