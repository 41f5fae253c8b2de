// The students list filtered by inactivity (GET /students?inactiveDays=): students of the site none of
// whose enrollments here had activity in that many days (or ever), newest student first, with the total.
// Pages and totals must equal what the roles and enrollments say, on both stores; on SQLite the active
// learners are read once, from the (site, last activity, person) index of migration 030, not once per
// student.
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countMatchingStudents, searchStudents } from '../../src/school/operator-students.repository.js';
import type { Database } from '../../src/storage/schema.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { pagedIds } from '../helpers/paging.js';
import {
  DAY,
  enrollmentRow,
  grantRole,
  insertCourse,
  insertPerson,
  insertSite,
  openSchoolStore,
  type SchoolStore,
  TEST_NOW,
} from '../helpers/school-fixtures.js';

const NOW = TEST_NOW;
/** Days ago each learner's enrollments were last active (null: never), one entry per enrollment. */
const ACTIVITY: Array<Array<number | null>> = [
  [],
  [null],
  [null, null],
  [400],
  [400, 2],
  [45, 31],
  [29.9, null],
  [30.1],
  [1, 1, 1],
  [10, 90, null],
  [200, 365, 3000],
  [0],
];

async function seed(db: Kysely<Database>): Promise<void> {
  await insertSite(db, { id: 'site_a', name: 'A', origin: 'http://a.test', variant: 'A' });
  await insertSite(db, { id: 'site_b', name: 'B', origin: 'http://b.test', variant: 'A' });
  for (const c of ['crs_1', 'crs_2', 'crs_3']) await insertCourse(db, 'site_a', c);
  await insertCourse(db, 'site_b', 'crs_b');
  for (const [i, activity] of ACTIVITY.entries()) {
    const id = `per_${String(i).padStart(2, '0')}`;
    await insertPerson(db, { id, email: `${id}@a.test`, name: `Learner ${i}` });
    await grantRole(db, 'site_a', id, 'student', NOW - (100 - i) * DAY);
    for (const [k, daysAgo] of activity.entries())
      await db
        .insertInto('enrollments')
        .values(
          enrollmentRow({
            id: `enr_${id}_${k}`,
            site_id: 'site_a',
            person_id: id,
            course_id: `crs_${k + 1}`,
            last_activity_at: daysAgo === null ? null : NOW - daysAgo * DAY,
          }),
        )
        .execute();
    // Activity at another school does not make a learner active here.
    if (i % 3 === 0) {
      await grantRole(db, 'site_b', id, 'student');
      await db
        .insertInto('enrollments')
        .values(enrollmentRow({ id: `enr_${id}_b`, site_id: 'site_b', person_id: id, course_id: 'crs_b', last_activity_at: NOW - DAY }))
        .execute();
    }
  }
  // A lecturer of site_a who is no student there never shows.
  await insertPerson(db, { id: 'per_lecturer', email: 'lecturer@a.test', name: 'Lecturer' });
  await grantRole(db, 'site_a', 'per_lecturer', 'lecturer');
}

/** The rule: site_a's students with no activity here since the threshold, newest student first. */
function expected(inactiveDays: number): string[] {
  const since = NOW - inactiveDays * DAY;
  return ACTIVITY.map((activity, i) => ({ id: `per_${String(i).padStart(2, '0')}`, i, activity }))
    .filter(({ activity }) => activity.every((daysAgo) => daysAgo === null || NOW - daysAgo * DAY < since))
    .sort((a, b) => b.i - a.i)
    .map(({ id }) => id);
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`students by inactivity (${dialect})`, () => {
    let s: SchoolStore;
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      await seed(s.db);
    });
    afterAll(() => s?.close());

    for (const inactiveDays of [1, 30, 60, 3650, 100000]) {
      it(`inactiveDays=${inactiveDays}: pages of three, newest student first, and the total`, async () => {
        const scope = { db: s.db, siteId: 'site_a' };
        const got = await pagedIds((after) => searchStudents(scope, { inactiveDays }, { first: 3, after }, NOW));
        expect(got).toEqual(expected(inactiveDays));
        expect(await countMatchingStudents(scope, { inactiveDays }, NOW)).toBe(got.length);
      });
    }

    it('the expected lists are not trivial: some students are active, some never were', () => {
      expect(expected(30).length).toBeGreaterThan(3);
      expect(expected(30).length).toBeLessThan(ACTIVITY.length - 3);
      expect(expected(30)).toContain('per_07');
      expect(expected(30)).not.toContain('per_06');
    });

    if (dialect === 'sqlite') {
      it('the active learners are read once from the activity index, not per student', async () => {
        const { rows } = await sql<{ detail: string }>`explain query plan
          select r.person_id from site_roles r where r.site_id = 'site_a' and r.role = 'student'
            and r.person_id not in (select e.person_id from enrollments e where e.site_id = 'site_a' and e.last_activity_at >= 5)
          order by r.created_at desc, r.person_id desc limit 4`.execute(s.db);
        const plan = rows.map((r) => r.detail).join(' | ');
        expect(plan).toContain('enrollments_site_activity_person');
        expect(plan).not.toContain('CORRELATED');
      });
    }
  });
}
