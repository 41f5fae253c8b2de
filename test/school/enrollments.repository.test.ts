// A member's enrolments (SPEC 2.2): access state, progress, keyset paging, and site/person isolation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accessStateAt,
  completedLectureCounts,
  countEnrollments,
  lectureCountsByCourse,
  lecturesByIds,
  listEnrollments,
  listEnrollmentsWithProgress,
  progressPercent,
} from '../../src/school/enrollments.repository.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import {
  createDemoWorld,
  DAY,
  type DemoWorld,
  grantRole,
  insertPerson,
  openSchoolStore,
  type SchoolStore,
  TEST_NOW,
} from '../helpers/school-fixtures.js';

describe('access state and progress', () => {
  it('is ACTIVE with lifetime access even when an old expiry is stored', () => {
    expect(accessStateAt({ lifetimeAccess: true, accessExpiresAt: TEST_NOW - DAY }, TEST_NOW)).toBe('ACTIVE');
  });

  it('is ACTIVE before the expiry instant and EXPIRED from it on', () => {
    expect(accessStateAt({ lifetimeAccess: false, accessExpiresAt: TEST_NOW + 1 }, TEST_NOW)).toBe('ACTIVE');
    expect(accessStateAt({ lifetimeAccess: false, accessExpiresAt: TEST_NOW }, TEST_NOW)).toBe('EXPIRED');
    expect(accessStateAt({ lifetimeAccess: false, accessExpiresAt: TEST_NOW - 1 }, TEST_NOW)).toBe('EXPIRED');
  });

  it('is ACTIVE when no expiry is set', () => {
    expect(accessStateAt({ lifetimeAccess: false, accessExpiresAt: null }, TEST_NOW)).toBe('ACTIVE');
  });

  it('rounds progress down to whole percent, 0 for an empty course, never above 100', () => {
    expect(progressPercent(1, 3)).toBe(33);
    expect(progressPercent(2, 3)).toBe(66);
    expect(progressPercent(0, 0)).toBe(0);
    expect(progressPercent(5, 4)).toBe(100);
  });
});

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`enrollments repository (${dialect})`, () => {
    let s: SchoolStore;
    let world: DemoWorld;
    const pagerId = 'per_pager';
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      world = await createDemoWorld(s.db);
      // A member enrolled in every Academy course at the same instant: paging must break the tie by id.
      await insertPerson(s.db, { id: pagerId, email: 'pager@demo.test', name: 'Pat Pager' });
      await grantRole(s.db, world.academySiteId, pagerId, 'student');
      const courses = await s.db.selectFrom('courses').where('site_id', '=', world.academySiteId).select('id').execute();
      await s.db
        .insertInto('enrollments')
        .values(
          courses.map((c, i) => ({
            id: `enr_pager_${i}`,
            site_id: world.academySiteId,
            person_id: pagerId,
            course_id: c.id,
            started_at: TEST_NOW - DAY,
            access_expires_at: TEST_NOW - 1,
            lifetime_access: 0,
            completed_at: null,
            last_lecture_id: null,
            last_position_seconds: null,
            last_activity_at: null,
          })),
        )
        .execute();
    });
    afterAll(() => s?.close());

    const scopeOf = (personId: string, siteId = world.academySiteId) => ({ db: s.db, siteId, personId });

    it('lists the most recently started enrolment first', async () => {
      const page = await listEnrollments(scopeOf(world.studentId), {}, TEST_NOW);
      const started = page.edges.map((e) => e.node.startedAt);
      expect(started).toEqual([...started].sort((a, b) => b - a));
    });

    it('pages through tied start times with after until the end, each enrolment once', async () => {
      const total = await countEnrollments(scopeOf(pagerId));
      expect(total).toBe(7);
      const seen: string[] = [];
      let after: string | null = null;
      for (let round = 0; round < 10; round += 1) {
        const page = await listEnrollments(scopeOf(pagerId), { first: 3, after }, TEST_NOW);
        seen.push(...page.edges.map((e) => e.node.id));
        if (!page.hasNextPage) break;
        after = page.endCursor;
      }
      expect(seen).toHaveLength(total);
      expect(new Set(seen).size).toBe(total);
    });

    it('gives the same pages and the count of all enrolments with the total, first page in one statement, later pages too', async () => {
      let after: string | null = null;
      for (let round = 0; round < 4; round += 1) {
        const request = { first: 3, after };
        const withTotal = await listEnrollmentsWithProgress(scopeOf(pagerId), request, TEST_NOW);
        const plain = await listEnrollments(scopeOf(pagerId), request, TEST_NOW);
        expect(withTotal.page.edges.map((e) => e.node.id)).toEqual(plain.edges.map((e) => e.node.id));
        expect(withTotal.page.edges).toEqual(plain.edges.map((e) => ({ ...e, node: expect.objectContaining(e.node) })));
        expect(withTotal.page.endCursor).toBe(plain.endCursor);
        expect(withTotal.total).toBe(7);
        if (!withTotal.page.hasNextPage) break;
        after = withTotal.page.endCursor;
      }
      const none = await listEnrollmentsWithProgress(scopeOf(pagerId, world.studioSiteId), { first: 3 }, TEST_NOW);
      expect([none.page.edges, none.page.hasNextPage, none.page.endCursor, none.total]).toEqual([[], false, null, 0]);
      const oneAtStudio = await listEnrollmentsWithProgress(scopeOf(world.studentId, world.studioSiteId), { first: 3 }, TEST_NOW);
      expect(oneAtStudio.total).toBe(1);
    });

    it('computes EXPIRED from the stored expiry against the given now', async () => {
      const page = await listEnrollments(scopeOf(pagerId), { first: 1 }, TEST_NOW);
      expect(page.edges[0]?.node.accessState).toBe('EXPIRED');
      const earlier = await listEnrollments(scopeOf(pagerId), { first: 1 }, TEST_NOW - 2);
      expect(earlier.edges[0]?.node.accessState).toBe('ACTIVE');
    });

    it('reports no expiry date for lifetime access', async () => {
      const page = await listEnrollments(scopeOf(world.studentId), { first: 100 }, TEST_NOW);
      for (const { node } of page.edges.filter((e) => e.node.hasLifetimeAccess)) expect(node.accessExpiresAt).toBeNull();
    });

    it('never lists another person’s or another site’s enrolments', async () => {
      const academy = await listEnrollments(scopeOf(world.studentId), { first: 100 }, TEST_NOW);
      const ids = academy.edges.map((e) => e.node.id);
      expect(ids).not.toContain('enr_other');
      expect(ids.some((id) => id.startsWith('enr_pager'))).toBe(false);
      expect(academy.edges.map((e) => e.node.course.slug)).not.toContain('watercolor-basics');
      const studio = await listEnrollments(scopeOf(world.studentId, world.studioSiteId), { first: 100 }, TEST_NOW);
      expect(studio.edges.map((e) => e.node.course.slug)).toEqual(['watercolor-basics']);
      expect(await countEnrollments(scopeOf(world.studentId, world.studioSiteId))).toBe(1);
    });

    it('counts completed lectures only for the member’s own enrolments', async () => {
      const own = await listEnrollments(scopeOf(world.studentId), { first: 100 }, TEST_NOW);
      const lecturerRow = await s.db
        .selectFrom('enrollments')
        .where('person_id', '=', world.lecturerId)
        .select('id')
        .executeTakeFirstOrThrow();
      const counts = await completedLectureCounts(scopeOf(world.studentId), [...own.edges.map((e) => e.node.id), lecturerRow.id]);
      expect(counts.has(lecturerRow.id)).toBe(false);
      const typescript = own.edges.find((e) => e.node.course.slug === 'typescript-fundamentals')!;
      expect(counts.get(typescript.node.id)).toBe(5);
    });

    it('reads lectures and lecture counts of its own site only', async () => {
      const studioLecture = await s.db
        .selectFrom('lectures')
        .where('site_id', '=', world.studioSiteId)
        .select(['id', 'course_id'])
        .executeTakeFirstOrThrow();
      expect((await lecturesByIds({ db: s.db, siteId: world.academySiteId }, [studioLecture.id])).size).toBe(0);
      expect((await lectureCountsByCourse({ db: s.db, siteId: world.academySiteId }, [studioLecture.course_id])).size).toBe(0);
      expect((await lecturesByIds({ db: s.db, siteId: world.studioSiteId }, [studioLecture.id])).size).toBe(1);
    });

    it('reads each enrolment’s lecture counts and resume lecture in the page statement, as the separate lookups do', async () => {
      const own = await listEnrollments(scopeOf(world.studentId), { first: 100 }, TEST_NOW);
      const typescript = own.edges.find((e) => e.node.course.slug === 'typescript-fundamentals')!.node;
      // A progress row for a lecture of another course is not counted, and a resume lecture of another
      // site is not shown: the same rules as completedLectureCounts and lecturesByIds.
      const otherCourseLecture = await s.db
        .selectFrom('lectures')
        .where('site_id', '=', world.academySiteId)
        .where('course_id', '!=', typescript.course.id)
        .select('id')
        .executeTakeFirstOrThrow();
      await s.db
        .insertInto('lecture_progress')
        .values({ site_id: world.academySiteId, enrollment_id: typescript.id, lecture_id: otherCourseLecture.id, completed_at: TEST_NOW })
        .execute();
      const studioLecture = await s.db
        .selectFrom('lectures')
        .where('site_id', '=', world.studioSiteId)
        .select('id')
        .executeTakeFirstOrThrow();
      const academyLecture = await s.db
        .selectFrom('lectures')
        .where('site_id', '=', world.academySiteId)
        .select('id')
        .executeTakeFirstOrThrow();
      await s.db
        .updateTable('enrollments')
        .set({ last_lecture_id: studioLecture.id, last_position_seconds: 5 })
        .where('id', '=', 'enr_pager_0')
        .execute();
      await s.db
        .updateTable('enrollments')
        .set({ last_lecture_id: academyLecture.id, last_position_seconds: 7 })
        .where('id', '=', 'enr_pager_1')
        .execute();

      for (const personId of [world.studentId, pagerId]) {
        const scope = scopeOf(personId);
        const { page, total } = await listEnrollmentsWithProgress(scope, { first: 100 }, TEST_NOW);
        const records = page.edges.map((e) => e.node);
        expect(total).toBe(records.length);
        const totals = await lectureCountsByCourse(scope, [...new Set(records.map((r) => r.course.id))]);
        const completed = await completedLectureCounts(
          scope,
          records.map((r) => r.id),
        );
        const lectures = await lecturesByIds(
          scope,
          records.flatMap((r) => (r.lastLectureId ? [r.lastLectureId] : [])),
        );
        for (const r of records) {
          expect(r.totalLectures).toBe(totals.get(r.course.id) ?? 0);
          expect(r.completedLectures).toBe(completed.get(r.id) ?? 0);
          const last = r.lastLectureId === null ? undefined : lectures.get(r.lastLectureId);
          expect(r.lastLecture).toEqual(last ? { id: last.id, title: last.title, durationSeconds: last.durationSeconds } : null);
        }
        if (personId === pagerId) {
          expect(records.find((r) => r.id === 'enr_pager_0')?.lastLecture).toBeNull();
          expect(records.find((r) => r.id === 'enr_pager_1')?.lastLecture?.id).toBe(academyLecture.id);
        } else {
          expect(records.find((r) => r.id === typescript.id)?.completedLectures).toBe(5);
          expect(records.some((r) => r.totalLectures > 0 && r.lastLecture !== null)).toBe(true);
        }
      }
    });
  });
}
