// Enrollments as a site's operators manage them (CONTRACT 6 students): rosters, a student's enrollments
// with progress, granting access (until a date or for life), changing it, revoking it with progress kept.
// A revoked enrollment ends its access at that moment (members see it as expired); granting or changing
// its access again restores it.
import { newId } from '../kernel/random.js';
import { lectureCountsByCourse, progressPercent } from './enrollments.repository.js';
import { type Page, type PageRequest, pageQuery, toPage } from './paging.js';
import { book, courseDim, localDay, SCHOOL, siteTimeZone } from './rollups.js';
import type { SiteScope } from './scope.js';

export type EnrollmentState = 'active' | 'expired' | 'revoked';

export interface OperatorEnrollment {
  id: string;
  studentId: string;
  studentName: string;
  courseId: string;
  courseTitle: string;
  state: EnrollmentState;
  startedAt: number;
  accessExpiresAt: number | null;
  lifetimeAccess: boolean;
  revokedAt: number | null;
  completedAt: number | null;
  completedLectures: number;
  lectureCount: number;
  progressPercent: number;
  lastActivityAt: number | null;
}

export function enrollmentState(
  row: { revoked_at: number | null; lifetime_access: number; access_expires_at: number | null },
  now: number,
): EnrollmentState {
  if (row.revoked_at !== null) return 'revoked';
  if (row.lifetime_access === 1 || row.access_expires_at === null) return 'active';
  return row.access_expires_at > now ? 'active' : 'expired';
}

function base(scope: SiteScope) {
  return scope.db
    .selectFrom('enrollments as e')
    .innerJoin('courses as c', 'c.id', 'e.course_id')
    .innerJoin('people as p', 'p.id', 'e.person_id')
    .where('e.site_id', '=', scope.siteId)
    .select([
      'e.id',
      'e.person_id',
      'p.name as person_name',
      'e.course_id',
      'c.title as course_title',
      'e.started_at',
      'e.access_expires_at',
      'e.lifetime_access',
      'e.revoked_at',
      'e.completed_at',
      'e.last_activity_at',
      'e.lectures_done',
    ]);
}

type Row = Awaited<ReturnType<ReturnType<typeof base>['execute']>>[number];

/**
 * Adds progress: the lectures each enrollment completed, which lecture_progress's triggers keep on it
 * (migration 028), and the lectures per course, one grouped query per page.
 */
async function withProgress(scope: SiteScope, rows: readonly Row[], now: number): Promise<OperatorEnrollment[]> {
  if (rows.length === 0) return [];
  const lectures = await lectureCountsByCourse(scope, [...new Set(rows.map((r) => r.course_id))]);
  return rows.map((r) => {
    const total = lectures.get(r.course_id) ?? 0;
    const finished = Number(r.lectures_done);
    return {
      id: r.id,
      studentId: r.person_id,
      studentName: r.person_name,
      courseId: r.course_id,
      courseTitle: r.course_title,
      state: enrollmentState(r, now),
      startedAt: r.started_at,
      accessExpiresAt: r.lifetime_access === 1 ? null : r.access_expires_at,
      lifetimeAccess: r.lifetime_access === 1,
      revokedAt: r.revoked_at,
      completedAt: r.completed_at,
      completedLectures: finished,
      lectureCount: total,
      progressPercent: progressPercent(finished, total),
      lastActivityAt: r.last_activity_at,
    };
  });
}

export async function findEnrollment(scope: SiteScope, id: string, now: number): Promise<OperatorEnrollment | null> {
  const row = await base(scope).where('e.id', '=', id).executeTakeFirst();
  return row ? ((await withProgress(scope, [row], now))[0] ?? null) : null;
}

export type EnrollmentsOf = { courseId: string } | { studentId: string };

const listName = (of: EnrollmentsOf) => ('courseId' in of ? 'course_enrollments' : 'student_enrollments');

/** A course's roster or a student's enrollments, most recently started first. */
export async function pageEnrollments(
  scope: SiteScope,
  of: EnrollmentsOf,
  request: PageRequest,
  now: number,
): Promise<Page<OperatorEnrollment>> {
  const { size, after } = pageQuery(listName(of), request);
  const rows = await base(scope)
    .$if('courseId' in of, (qb) => qb.where('e.course_id', '=', 'courseId' in of ? of.courseId : ''))
    .$if('studentId' in of, (qb) => qb.where('e.person_id', '=', 'studentId' in of ? of.studentId : ''))
    .$if(after !== null, (qb) =>
      qb.where((eb) =>
        eb.or([eb('e.started_at', '<', after!.sort), eb.and([eb('e.started_at', '=', after!.sort), eb('e.id', '<', after!.id)])]),
      ),
    )
    .orderBy('e.started_at', 'desc')
    .orderBy('e.id', 'desc')
    .limit(size + 1)
    .execute();
  const items = await withProgress(scope, rows.slice(0, size), now);
  return toPage(listName(of), items, size, (e) => ({ sort: e.startedAt, id: e.id }), rows.length > size);
}

/**
 * How many enrollments a course's roster or a student's list holds. A course's from the counts the
 * enrollments' triggers keep (migration 023): a few rows however many learners. A student's through the
 * (site, person) index: a person has a handful.
 */
export async function countEnrollments(scope: SiteScope, of: EnrollmentsOf): Promise<number> {
  const row =
    'courseId' in of
      ? await scope.db
          .selectFrom('enrollment_counts')
          .where('site_id', '=', scope.siteId)
          .where('course_id', '=', of.courseId)
          .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('n'), eb.lit(0)).as('n'))
          .executeTakeFirstOrThrow()
      : await scope.db
          .selectFrom('enrollments')
          .where('site_id', '=', scope.siteId)
          .where('person_id', '=', of.studentId)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Until a date, or for life. */
export type Access = { expiresAt: number } | { lifetime: true };

export type GrantResult =
  | { kind: 'granted'; id: string; created: boolean }
  | { kind: 'no_student' }
  | { kind: 'no_course' }
  | { kind: 'already_active'; id: string };

/**
 * Enrolls a person known at this site (any role; they become a student here) in a course of this site.
 * An expired or revoked enrollment of the same course is given access again, with its progress.
 */
export async function grantEnrollment(
  scope: SiteScope,
  studentId: string,
  courseId: string,
  access: Access,
  now: number,
): Promise<GrantResult> {
  const [known, course, existing] = await Promise.all([
    scope.db.selectFrom('site_roles').select('role').where('site_id', '=', scope.siteId).where('person_id', '=', studentId).execute(),
    scope.db.selectFrom('courses').select('id').where('site_id', '=', scope.siteId).where('id', '=', courseId).executeTakeFirst(),
    scope.db
      .selectFrom('enrollments')
      .select(['id', 'revoked_at', 'lifetime_access', 'access_expires_at'])
      .where('site_id', '=', scope.siteId)
      .where('person_id', '=', studentId)
      .where('course_id', '=', courseId)
      .executeTakeFirst(),
  ]);
  if (known.length === 0) return { kind: 'no_student' };
  if (!course) return { kind: 'no_course' };
  if (!known.some((r) => r.role === 'student')) {
    await scope.db
      .insertInto('site_roles')
      .values({ site_id: scope.siteId, person_id: studentId, role: 'student', created_at: now })
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
  if (existing) {
    if (enrollmentState(existing, now) === 'active') return { kind: 'already_active', id: existing.id };
    await setAccess(scope, existing.id, access);
    return { kind: 'granted', id: existing.id, created: false };
  }
  const id = newId('enr');
  await scope.db
    .insertInto('enrollments')
    .values({
      id,
      site_id: scope.siteId,
      person_id: studentId,
      course_id: courseId,
      started_at: now,
      access_expires_at: 'expiresAt' in access ? access.expiresAt : null,
      lifetime_access: 'lifetime' in access ? 1 : 0,
      completed_at: null,
      last_lecture_id: null,
      last_position_seconds: null,
      last_activity_at: null,
      revoked_at: null,
    })
    .execute();
  await book(scope.db, scope.siteId, 'new_enrollments', localDay(now, await siteTimeZone(scope.db, scope.siteId)), 1, [
    SCHOOL,
    courseDim(courseId),
  ]);
  return { kind: 'granted', id, created: true };
}

/** Sets the access of an enrollment (and lifts a revocation); false when the site has no such enrollment. */
export async function setAccess(scope: SiteScope, id: string, access: Access): Promise<boolean> {
  const result = await scope.db
    .updateTable('enrollments')
    .set({
      access_expires_at: 'expiresAt' in access ? access.expiresAt : null,
      lifetime_access: 'lifetime' in access ? 1 : 0,
      revoked_at: null,
    })
    .where('site_id', '=', scope.siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Ends the access now; progress and history stay. False when the site has no such enrollment. */
export async function revokeEnrollment(scope: SiteScope, id: string, now: number): Promise<boolean> {
  const result = await scope.db
    .updateTable('enrollments')
    .set({ revoked_at: now, access_expires_at: now, lifetime_access: 0 })
    .where('site_id', '=', scope.siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
