// Migration 023: a course roster's total comes from counts that the enrollments' triggers keep per site and
// course. They must agree with the enrollments themselves whoever writes them: one at a time or many in a
// statement, an enrollment moved to another course, deletions of an enrollment, a course and a site,
// concurrent connections on PostgreSQL, and enrollments that existed before the migration; the learners'
// activity updates must not touch them.
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countEnrollments, type EnrollmentsOf } from '../../src/school/operator-enrollments.repository.js';
import * as m023 from '../../src/storage/migrations/023-enrollment-counts.js';
import type { Database } from '../../src/storage/schema.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import {
  enrollmentRow,
  insertCourse,
  insertPerson,
  insertSite,
  openSchoolStore,
  type SchoolStore,
  TEST_NOW,
} from '../helpers/school-fixtures.js';

const ROSTERS: EnrollmentsOf[] = [{ courseId: 'crs_a1' }, { courseId: 'crs_a2' }, { studentId: 'per_3' }];

/** Counts each roster the slow way, from the enrollments. */
async function counted(db: Kysely<Database>, siteId: string, of: EnrollmentsOf): Promise<number> {
  const row = await db
    .selectFrom('enrollments')
    .where('site_id', '=', siteId)
    .where('courseId' in of ? 'course_id' : 'person_id', '=', 'courseId' in of ? of.courseId : of.studentId)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function totals(db: Kysely<Database>, siteId: string): Promise<{ answered: number[]; enrollments: number[] }> {
  const answered: number[] = [];
  const enrollments: number[] = [];
  for (const of of ROSTERS) {
    answered.push(await countEnrollments({ db, siteId }, of));
    enrollments.push(await counted(db, siteId, of));
  }
  return { answered, enrollments };
}

/** Enrolls people from..to (per_<n>) in a course, in one statement. */
async function enroll(db: Kysely<Database>, siteId: string, courseId: string, from: number, to: number): Promise<void> {
  await db
    .insertInto('enrollments')
    .values(
      Array.from({ length: to - from + 1 }, (_, i) =>
        enrollmentRow({
          id: `enr_${courseId}_${from + i}`,
          site_id: siteId,
          person_id: `per_${from + i}`,
          course_id: courseId,
          started_at: TEST_NOW + i,
        }),
      ),
    )
    .execute();
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`course roster totals (${dialect})`, () => {
    let s: SchoolStore;
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      await insertSite(s.db, { id: 'site_a', name: 'A', origin: 'http://a.test', variant: 'A' });
      await insertSite(s.db, { id: 'site_b', name: 'B', origin: 'http://b.test', variant: 'A' });
      for (let n = 1; n <= 200; n++) await insertPerson(s.db, { id: `per_${n}`, email: `p${n}@a.test`, name: `P ${n}` });
      for (const [site, course] of [
        ['site_a', 'crs_a1'],
        ['site_a', 'crs_a2'],
        ['site_a', 'crs_a3'],
        ['site_b', 'crs_b1'],
      ] as const)
        await insertCourse(s.db, site, course);
    });
    afterAll(() => s?.close());

    it('a roster total agrees with the enrollments after enrollments one at a time and many in one statement', async () => {
      for (let n = 1; n <= 3; n++) await enroll(s.db, 'site_a', 'crs_a1', n, n);
      await enroll(s.db, 'site_a', 'crs_a1', 4, 40);
      await enroll(s.db, 'site_a', 'crs_a2', 1, 10);
      await enroll(s.db, 'site_b', 'crs_b1', 1, 5);
      const { answered, enrollments } = await totals(s.db, 'site_a');
      expect(answered).toEqual(enrollments);
      expect(answered).toEqual([40, 10, 2]);
      expect(await countEnrollments({ db: s.db, siteId: 'site_b' }, { courseId: 'crs_b1' })).toBe(5);
      // A course of another site counts nothing here.
      expect(await countEnrollments({ db: s.db, siteId: 'site_a' }, { courseId: 'crs_b1' })).toBe(0);
    });

    it('activity, completion and access updates leave the counts; an enrollment moved to another course moves its count', async () => {
      const versions = async () =>
        dialect === 'postgres'
          ? (await sql<{ v: string }>`select xmin::text as v from enrollment_counts order by site_id, course_id, slot`.execute(s.db)).rows
          : [];
      const before = await versions();
      await s.db
        .updateTable('enrollments')
        .set({ last_activity_at: TEST_NOW + 5, completed_at: TEST_NOW + 6, lifetime_access: 0, access_expires_at: TEST_NOW + 9 })
        .where('site_id', '=', 'site_a')
        .execute();
      expect(await versions()).toEqual(before);
      await s.db.updateTable('enrollments').set({ course_id: 'crs_a2' }).where('id', 'in', ['enr_crs_a1_20', 'enr_crs_a1_21']).execute();
      const { answered, enrollments } = await totals(s.db, 'site_a');
      expect(answered).toEqual(enrollments);
      expect(answered).toEqual([38, 12, 2]);
    });

    it('a deleted enrollment, course or site takes its counts with it; another site’s stay', async () => {
      await s.db.deleteFrom('enrollments').where('id', 'in', ['enr_crs_a1_1', 'enr_crs_a1_2']).execute();
      expect((await totals(s.db, 'site_a')).answered).toEqual([36, 12, 2]);
      await enroll(s.db, 'site_a', 'crs_a3', 1, 7);
      await s.db.deleteFrom('courses').where('id', '=', 'crs_a3').execute();
      expect(await countEnrollments({ db: s.db, siteId: 'site_a' }, { courseId: 'crs_a3' })).toBe(0);
      expect(await s.db.selectFrom('enrollment_counts').where('course_id', '=', 'crs_a3').selectAll().execute()).toEqual([]);
      await insertSite(s.db, { id: 'site_c', name: 'C', origin: 'http://c.test', variant: 'A' });
      await insertCourse(s.db, 'site_c', 'crs_c1');
      await enroll(s.db, 'site_c', 'crs_c1', 1, 3);
      await s.db.deleteFrom('sites').where('id', '=', 'site_c').execute();
      expect(await s.db.selectFrom('enrollment_counts').where('site_id', '=', 'site_c').selectAll().execute()).toEqual([]);
      expect(await countEnrollments({ db: s.db, siteId: 'site_b' }, { courseId: 'crs_b1' })).toBe(5);
    });

    it('the migration counts the enrollments that existed before it', async () => {
      await m023.down(s.db);
      await enroll(s.db, 'site_a', 'crs_a2', 100, 129);
      await m023.up(s.db);
      const { answered, enrollments } = await totals(s.db, 'site_a');
      expect(answered).toEqual(enrollments);
      expect(answered).toEqual([36, 42, 2]);
    });

    if (dialect === 'postgres') {
      it('concurrent enrollments on several connections each add to their own slot, and the total is every enrollment', async () => {
        await Promise.all(Array.from({ length: 8 }, (_, i) => enroll(s.db, 'site_b', 'crs_b1', 10 + i * 10, 19 + i * 10)));
        expect(await countEnrollments({ db: s.db, siteId: 'site_b' }, { courseId: 'crs_b1' })).toBe(85);
        expect(await counted(s.db, 'site_b', { courseId: 'crs_b1' })).toBe(85);
        const slots = await s.db.selectFrom('enrollment_counts').where('site_id', '=', 'site_b').select('slot').execute();
        expect(new Set(slots.map((r) => r.slot)).size).toBeGreaterThan(1);
      });
    }
  });
}
