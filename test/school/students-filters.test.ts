// The students list's filters (GET /students?q=&courseId=&state=): students of the site whose name or
// address contains a text, or who hold an enrollment here of a course or in a state, newest student
// first, with the total. Pages and totals must equal what the people, roles and enrollments say, on both
// stores, whether the page starts from the few people or enrollments that match (a rare text, course or
// state) or walks the students (a common one); a rare text is looked up in the trigram index of migration
// 033, which follows every change of a name or address; and a course's total, read from counts the
// triggers of migration 031 keep (with a time-bound state, less a range of migration 036's index of the
// course's timed enrollments), and a state's, read from the students' figures of migration 034, must
// follow every change of enrollments and roles.
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  countMatchingStudents,
  FEW_MATCHES,
  type StudentFilter,
  searchStudents,
  searchStudentsWithTotal,
  WALKED_FOR_A_PAGE,
} from '../../src/school/operator-students.repository.js';
import * as m031 from '../../src/storage/migrations/031-course-student-counts.js';
import * as m034 from '../../src/storage/migrations/034-student-figures.js';
import type { Database } from '../../src/storage/schema.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { pagedIds } from '../helpers/paging.js';
import {
  DAY,
  enrollLearners,
  enrollmentRow,
  grantRole,
  insertLearners,
  insertMany,
  insertCourse,
  insertPerson,
  insertSite,
  learnerId,
  openSchoolStore,
  type SchoolStore,
  TEST_NOW,
} from '../helpers/school-fixtures.js';
import { secondWaitsForFirst } from '../helpers/overlapping-transactions.js';
import { plansOf } from '../helpers/sqlite-plans.js';
import { recordingStatements } from '../helpers/executed-statements.js';

const NOW = TEST_NOW;
const PEOPLE = 2_400;
const id = learnerId;

/** Students whose names and addresses hold what a search must take literally or fold. */
const ODD_NAMES: Array<[number, string, string]> = [
  [1, 'Zoë "Zed" O\'Brien', 'zoe.obrien@a.test'],
  [2, 'ÉMILE Learner', 'emile@a.test'],
  [3, 'Ann 100%_Sure', 'ann@example.org'],
  [4, 'Bo', 'bo@a.test'],
];

/**
 * site_a: 2,400 students (two at a time share a start, so ties are broken by id); crs_big holds nearly all
 * of them, most completed (more than FEW_MATCHES each: the walk); crs_wide nearly all too, four of them
 * completed and none revoked (few, where the course and the state are not); crs_small a few, some expired,
 * revoked, or timed and still open. A lecturer without the student role is enrolled in both. site_b
 * enrolls the same people, all expired, which must never show at site_a.
 */
async function seed(db: Kysely<Database>): Promise<void> {
  await insertSite(db, { id: 'site_a', name: 'A', origin: 'http://a.test', variant: 'A' });
  await insertSite(db, { id: 'site_b', name: 'B', origin: 'http://b.test', variant: 'A' });
  for (const c of ['crs_big', 'crs_small', 'crs_empty', 'crs_wide']) await insertCourse(db, 'site_a', c);
  await insertCourse(db, 'site_b', 'crs_b');
  await insertLearners(db, 'site_a', PEOPLE);
  const all = Array.from({ length: PEOPLE }, (_, i) => i);
  await enrollLearners(
    db,
    { siteId: 'site_a', courseId: 'crs_big', tag: 'big' },
    all.filter((i) => i % 50 !== 0),
    (i) => ({
      completed_at: i % 10 !== 0 ? NOW - DAY : null,
      revoked_at: i % 500 === 1 ? NOW - DAY : null,
    }),
  );
  await enrollLearners(
    db,
    { siteId: 'site_a', courseId: 'crs_wide', tag: 'wide' },
    all.filter((i) => i % 50 !== 7),
    (i) => ({
      completed_at: i % 600 === 3 ? NOW : null,
    }),
  );
  await enrollLearners(
    db,
    { siteId: 'site_a', courseId: 'crs_small', tag: 'small' },
    all.filter((i) => i % 73 === 5),
    (_, k) => ({
      // Expired, timed and open, revoked, for life.
      lifetime_access: k % 4 === 3 ? 1 : 0,
      access_expires_at: k % 4 === 0 ? NOW - DAY : k % 4 === 3 ? null : NOW + DAY,
      revoked_at: k % 4 === 2 ? NOW - 2 * DAY : null,
    }),
  );
  for (const [n, name, email] of ODD_NAMES) {
    await insertPerson(db, { id: `per_odd_${n}`, email, name });
    await grantRole(db, 'site_a', `per_odd_${n}`, 'student', NOW + n);
  }
  await insertPerson(db, { id: 'per_lecturer', email: 'lecturer@a.test', name: 'Lecturer' });
  await grantRole(db, 'site_a', 'per_lecturer', 'lecturer');
  for (const course of ['crs_big', 'crs_small'])
    await db
      .insertInto('enrollments')
      .values(
        enrollmentRow({
          id: `enr_lecturer_${course}`,
          site_id: 'site_a',
          person_id: 'per_lecturer',
          course_id: course,
          lifetime_access: 0,
          access_expires_at: NOW - DAY,
        }),
      )
      .execute();
  await insertMany(
    db,
    'site_roles',
    all.filter((i) => i % 7 === 0).map((i) => ({ site_id: 'site_b', person_id: id(i), role: 'student', created_at: NOW })),
  );
  await enrollLearners(
    db,
    { siteId: 'site_b', courseId: 'crs_b', tag: 'b' },
    all.filter((i) => i % 7 === 0),
    (i) => ({
      lifetime_access: 0,
      access_expires_at: NOW - DAY,
      revoked_at: i % 2 === 0 ? NOW - DAY : null,
      completed_at: NOW - DAY,
    }),
  );
}

interface EnrollmentFacts {
  person_id: string;
  course_id: string;
  lifetime_access: number;
  access_expires_at: number | string | null;
  revoked_at: number | string | null;
  completed_at: number | string | null;
}

/** The SPEC's states of an enrollment, applied to a row. */
function inState(e: EnrollmentFacts, state: NonNullable<StudentFilter['state']>): boolean {
  const open = e.revoked_at === null;
  const ended = e.lifetime_access === 0 && e.access_expires_at !== null && Number(e.access_expires_at) <= NOW;
  if (state === 'revoked') return !open;
  if (state === 'completed') return e.completed_at !== null;
  if (state === 'expired') return open && ended;
  return open && !ended;
}

/** The rule, from the rows: site_a's students with a matching enrollment there, newest student first. */
async function expected(db: Kysely<Database>, filter: Pick<StudentFilter, 'courseId' | 'state'>): Promise<string[]> {
  const students = await db
    .selectFrom('site_roles')
    .select(['person_id', 'created_at'])
    .where('site_id', '=', 'site_a')
    .where('role', '=', 'student')
    .execute();
  const enrollments = await db
    .selectFrom('enrollments')
    .select(['person_id', 'course_id', 'lifetime_access', 'access_expires_at', 'revoked_at', 'completed_at'])
    .where('site_id', '=', 'site_a')
    .execute();
  const matched = new Set(
    enrollments
      .filter(
        (e) =>
          (filter.courseId === undefined || e.course_id === filter.courseId) && (filter.state === undefined || inState(e, filter.state)),
      )
      .map((e) => e.person_id),
  );
  return students
    .filter((s) => matched.has(s.person_id))
    .sort((a, b) => Number(b.created_at) - Number(a.created_at) || (a.person_id < b.person_id ? 1 : -1))
    .map((s) => s.person_id);
}

const FILTERS: Array<{ filter: Pick<StudentFilter, 'courseId' | 'state'>; few: boolean }> = [
  { filter: { courseId: 'crs_big' }, few: false },
  { filter: { courseId: 'crs_small' }, few: true },
  { filter: { courseId: 'crs_empty' }, few: true },
  { filter: { courseId: 'crs_b' }, few: true },
  { filter: { state: 'active' }, few: false },
  { filter: { state: 'completed' }, few: false },
  { filter: { state: 'expired' }, few: true },
  { filter: { state: 'revoked' }, few: true },
  { filter: { courseId: 'crs_big', state: 'completed' }, few: false },
  { filter: { courseId: 'crs_big', state: 'revoked' }, few: true },
  { filter: { courseId: 'crs_big', state: 'active' }, few: false },
  { filter: { courseId: 'crs_wide' }, few: false },
  { filter: { courseId: 'crs_wide', state: 'completed' }, few: true },
  { filter: { courseId: 'crs_wide', state: 'revoked' }, few: true },
  { filter: { courseId: 'crs_small', state: 'expired' }, few: true },
  { filter: { courseId: 'crs_small', state: 'active' }, few: true },
  { filter: { courseId: 'crs_small', state: 'completed' }, few: true },
];

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`students by course and enrollment state (${dialect})`, () => {
    let s: SchoolStore;
    const scope = () => ({ db: s.db, siteId: 'site_a' });
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      await seed(s.db);
    }, 60_000);
    afterAll(() => s?.close());

    it('the world has both kinds of filter: common matches beyond FEW_MATCHES, rare ones within it', async () => {
      expect((await expected(s.db, { courseId: 'crs_big' })).length).toBeGreaterThan(FEW_MATCHES);
      expect((await expected(s.db, { state: 'completed' })).length).toBeGreaterThan(FEW_MATCHES);
      for (const state of ['expired', 'revoked', 'active'] as const)
        expect((await expected(s.db, { courseId: 'crs_small', state })).length).toBeGreaterThan(2);
      expect(await expected(s.db, { state: 'expired' })).toEqual(await expected(s.db, { courseId: 'crs_small', state: 'expired' }));
    });

    for (const { filter } of FILTERS) {
      it(`${JSON.stringify(filter)}: pages of 100 newest student first, and the total, equal the rows' answer`, async () => {
        const want = await expected(s.db, filter);
        const got = await pagedIds((after) => searchStudents(scope(), filter, { first: 100, after }, NOW));
        expect(got).toEqual(want);
        expect(await countMatchingStudents(scope(), filter, NOW)).toBe(want.length);
        // With a name, a page of three, and inactivity on top: the same rule, narrowed. The name matches about
        // a hundred learners (11, 110-119, 1100-1199): paging a thousand by three took PostgreSQL near the
        // test's 30 s on a slow box.
        const named = { ...filter, q: 'Learner 11' };
        const wantNamed = want.filter((p) => String(Number(p.slice(4))).startsWith('11'));
        expect(await pagedIds((after) => searchStudents(scope(), named, { first: 3, after }, NOW), 1_000)).toEqual(wantNamed);
        expect(await countMatchingStudents(scope(), named, NOW)).toBe(wantNamed.length);
        expect(await countMatchingStudents(scope(), { ...filter, inactiveDays: 30 }, NOW)).toBe(want.length);
      });
    }

    it('a page and its total with a course read its kept counts once, whatever the state and inactivity, and answer as asked apart', async () => {
      const first = { first: 100, after: null };
      for (const state of [undefined, 'completed', 'revoked', 'active', 'expired'] as const)
        for (const inactiveDays of [undefined, 30])
          for (const courseId of ['crs_big', 'crs_small']) {
            const filter: StudentFilter = { courseId, state, inactiveDays };
            const { db, executed } = recordingStatements(s.db);
            const both = await searchStudentsWithTotal({ db, siteId: 'site_a' }, filter, first, NOW);
            expect(both, JSON.stringify(filter)).toEqual({
              page: await searchStudents(scope(), filter, first, NOW),
              total: await countMatchingStudents(scope(), filter, NOW),
            });
            const reads = executed.filter((q) => q.sql.includes('from "course_student_counts"')).length;
            expect(reads, JSON.stringify(filter)).toBeLessThanOrEqual(1);
          }
    });

    if (dialect === 'sqlite') {
      for (const { filter, few } of FILTERS) {
        it(`${JSON.stringify(filter)}: the page ${few ? 'starts from the few enrollments' : 'walks the students in order'}`, async () => {
          const [plan] = await plansOf(s.db, '"site_roles" as "r"', (db) =>
            searchStudents({ db, siteId: 'site_a' }, filter, { first: 100 }, NOW),
          );
          expect(plan).toBeDefined();
          if (few) {
            // The enrollments through an index holding exactly them, then each student by key, then the sort.
            expect(plan).toMatch(
              filter.state === 'expired' && filter.courseId !== undefined
                ? /^MULTI-INDEX OR \| INDEX 1 \| SEARCH e USING INDEX enrollments_course_expiry_person \(site_id=\? AND course_id=\? AND access_expires_at<\?\) \| INDEX 2 \| SEARCH e USING INDEX enrollments_course_expiry_person \(site_id=\? AND course_id=\? AND access_expires_at<\?\) \| SEARCH r USING INDEX sqlite_autoindex_site_roles_1 \(site_id=\? AND person_id=\? AND role=\?\)/
                : filter.state === 'expired'
                  ? /^MULTI-INDEX OR \| INDEX 1 \| SEARCH e USING INDEX enrollments_open_by_expiry \(site_id=\? AND access_expires_at<\?\) \| INDEX 2 \| SEARCH e USING INDEX enrollments_completed_expiry_person \(site_id=\? AND access_expires_at<\?\) \|.* SEARCH r USING INDEX sqlite_autoindex_site_roles_1 \(site_id=\? AND person_id=\? AND role=\?\)/
                  : filter.courseId !== undefined && (filter.state === 'completed' || filter.state === 'revoked')
                    ? new RegExp(
                        `^SEARCH e USING COVERING INDEX enrollments_course_${filter.state}_person \\(site_id=\\? AND course_id=\\?\\) \\| SEARCH r USING INDEX sqlite_autoindex_site_roles_1 \\(site_id=\\? AND person_id=\\? AND role=\\?\\)`,
                      )
                    : /^SEARCH e USING (COVERING )?INDEX (enrollments_site_course_person|enrollments_revoked_person) \(site_id=\?[^|]*\| SEARCH r USING INDEX sqlite_autoindex_site_roles_1 \(site_id=\? AND person_id=\? AND role=\?\)/,
            );
            expect(plan).not.toContain('site_roles_site_role_created');
          } else {
            expect(plan).toMatch(/^SEARCH r USING COVERING INDEX site_roles_site_role_created \(site_id=\? AND role=\?\)/);
            expect(plan).not.toContain('TEMP B-TREE');
          }
        });
      }
    }

    if (dialect === 'sqlite') {
      it('a state’s total reads kept counts, and a time-bound one a range of a partial index over the students’ figures', async () => {
        for (const state of ['active', 'expired', 'completed', 'revoked'] as const) {
          const counts = await plansOf(s.db, '"student_figures"', (db) => countMatchingStudents({ db, siteId: 'site_a' }, { state }, NOW));
          // Completed and revoked are read from the per-site counts alone.
          expect(counts.length).toBe(state === 'active' || state === 'expired' ? 1 : 0);
          for (const plan of counts) expect(plan).toMatch(/^SEARCH student_figures USING COVERING INDEX student_figures_\w+ \(site_id=\?/);
        }
      });
    }

    if (dialect === 'sqlite') {
      it('a course’s expired students are a range of the course’s timed enrollments, each student by key', async () => {
        for (const state of ['active', 'expired'] as const) {
          const plans = await plansOf(s.db, '"enrollments" as "e"', (db) =>
            countMatchingStudents({ db, siteId: 'site_a' }, { courseId: 'crs_big', state }, NOW),
          );
          expect(plans).toEqual([
            'SEARCH e USING INDEX enrollments_course_expiry_person (site_id=? AND course_id=? AND access_expires_at<?) | SEARCH r USING COVERING INDEX sqlite_autoindex_site_roles_1 (site_id=? AND person_id=? AND role=?)',
          ]);
        }
      });
    }

    describe('students by part of the name or e-mail address, any case', () => {
      /** The rule, from the rows: site_a's students whose name or address contains the text in any case. */
      const named = async (text: string) => {
        const people = await s.db
          .selectFrom('people as p')
          .innerJoin('site_roles as r', 'r.person_id', 'p.id')
          .where('r.site_id', '=', 'site_a')
          .where('r.role', '=', 'student')
          .select(['p.id', 'p.name', 'p.email', 'r.created_at'])
          .execute();
        const t = text.toLowerCase();
        return people
          .filter((p) => p.name.toLowerCase().includes(t) || p.email.toLowerCase().includes(t))
          .sort((a, b) => Number(b.created_at) - Number(a.created_at) || (a.id < b.id ? 1 : -1))
          .map((p) => p.id);
      };
      const searched = async (q: string) => ({
        ids: await pagedIds((after) => searchStudents(scope(), { q }, { first: 100, after }, NOW)),
        total: await countMatchingStudents(scope(), { q }, NOW),
      });

      const TEXTS = [
        'learner',
        'LEARNER 12',
        'er 2',
        'zoë',
        'ZOË "ZED"',
        "o'brien",
        '100%_',
        '%',
        '_s',
        'émile',
        'bo',
        'b',
        ' 3',
        '@example.',
        'nobody-by-that-name',
      ];
      for (const q of TEXTS) {
        it(`q=${JSON.stringify(q)}: the pages and the total are the students whose name or address contains it`, async () => {
          const want = await named(q);
          expect(await searched(q)).toEqual({ ids: want, total: want.length });
        });
      }

      it('the texts are not trivial: a common one beyond FEW_MATCHES, rare ones, literal wildcards and quotes', async () => {
        expect((await named('learner')).length).toBeGreaterThan(FEW_MATCHES);
        expect(await named('zoë')).toEqual(['per_odd_1']);
        expect(await named('ZOË "ZED"')).toEqual(['per_odd_1']);
        expect(await named('100%_')).toEqual(['per_odd_3']);
        expect((await named('%')).length).toBe(1);
        expect(await named('nobody-by-that-name')).toEqual([]);
      });

      it('a changed name or address is found by the new one, not the old; a deleted person by neither', async () => {
        await s.db.updateTable('people').set({ name: 'Renamed Person' }).where('id', '=', 'per_odd_3').execute();
        expect((await searched('100%_')).total).toBe(0);
        expect((await searched('renamed person')).ids).toEqual(['per_odd_3']);
        await s.db.updateTable('people').set({ email: 'moved@elsewhere.test' }).where('id', '=', 'per_odd_3').execute();
        expect((await searched('@example.')).total).toBe(0);
        expect((await searched('moved@else')).ids).toEqual(['per_odd_3']);
        // A password change is no change to the search.
        await s.db.updateTable('people').set({ password_hash: 'y' }).where('id', '=', 'per_odd_3').execute();
        expect((await searched('renamed person')).ids).toEqual(['per_odd_3']);
        await s.db.deleteFrom('people').where('id', '=', 'per_odd_3').execute();
        expect((await searched('renamed person')).total).toBe(0);
      });

      it('people of another site, or not students here, are not found', async () => {
        await insertPerson(s.db, { id: 'per_outsider', email: 'outsider@b.test', name: 'Quite Unusual Name' });
        await grantRole(s.db, 'site_b', 'per_outsider', 'student');
        expect(await searched('unusual name')).toEqual({ ids: [], total: 0 });
        expect(await searched('lecturer@')).toEqual({ ids: [], total: 0 });
      });

      it('a page and its total from one start: the same as asked apart, the name search run once on PostgreSQL (the probe reads the few named) and three times on SQLite', async () => {
        const first = { first: 100, after: null };
        const filters: StudentFilter[] = [
          { q: 'learner 12' },
          { q: 'learner' },
          { q: 'zoë' },
          { q: 'bo' },
          { q: 'learner', state: 'completed' },
          {},
        ];
        for (const filter of filters)
          expect(await searchStudentsWithTotal(scope(), filter, first, NOW), JSON.stringify(filter)).toEqual({
            page: await searchStudents(scope(), filter, first, NOW),
            total: await countMatchingStudents(scope(), filter, NOW),
          });
        // The statements run, told by their text: the search of the trigram index (FTS5 on SQLite).
        const recorded = recordingStatements(s.db);
        const { page, total } = await searchStudentsWithTotal({ db: recorded.db, siteId: 'site_a' }, { q: 'learner 123' }, first, NOW);
        const searches = recorded.executed.filter((q) => /people_search match|lower\(q\.name\) like/.test(q.sql)).length;
        expect(total).toBeGreaterThan(0);
        expect(page.edges).toHaveLength(total);
        expect(searches).toBe(dialect === 'postgres' ? 1 : 3);
      });

      it('a common text with few enrollments asked about: the pages and the total are the rule’s (the text asked of each one’s row where the rule compares rows)', async () => {
        const filters: Array<Pick<StudentFilter, 'courseId' | 'state'>> = [
          { courseId: 'crs_small' },
          { state: 'expired' },
          { courseId: 'crs_small', state: 'active' },
        ];
        for (const filter of filters)
          for (const q of ['learner', 'er']) {
            const names = new Set(await named(q));
            const want = (await expected(s.db, filter)).filter((id) => names.has(id));
            expect(want.length, `${q} ${JSON.stringify(filter)}`).toBeGreaterThan(3);
            const got = await pagedIds((after) => searchStudents(scope(), { ...filter, q }, { first: 3, after }, NOW), 1_000);
            expect(got, `${q} ${JSON.stringify(filter)}`).toEqual(want);
            expect(await countMatchingStudents(scope(), { ...filter, q }, NOW)).toBe(want.length);
          }
      });

      it('a common text’s page walks at most WALKED_FOR_A_PAGE students asking each one’s row; short of a page with students beyond, it reads the named and sorts them', async () => {
        // " 3" names learners 3, 30-39 and 300-399, all older than the newest WALKED_FOR_A_PAGE students; "er"
        // nearly every student. Both are shorter than a trigram, so both stores compare rows (PostgreSQL does
        // for a common text of any length).
        const { db, executed } = recordingStatements(s.db);
        const statements = () => executed.map((q) => q.sql);
        const walks = () => statements().filter((q) => /\(select \(lower\(q\.name\) like/.test(q)).length;
        const sortsNamed = () => statements().filter((q) => q.includes('r.created_at + 0')).length;
        const oldest = await named(' 3');
        expect(oldest.length).toBeGreaterThan(100);
        expect(await countMatchingStudents(scope(), {}, NOW)).toBeGreaterThan(WALKED_FOR_A_PAGE + oldest.length);
        const first = await searchStudents({ db, siteId: 'site_a' }, { q: ' 3' }, { first: 100 }, NOW);
        expect(first.edges.map((e) => e.node.id)).toEqual(oldest.slice(0, 100));
        expect([walks(), sortsNamed()]).toEqual([1, 1]);
        const next = await searchStudents({ db, siteId: 'site_a' }, { q: ' 3' }, { first: 100, after: first.endCursor }, NOW);
        expect(next.edges.map((e) => e.node.id)).toEqual(oldest.slice(100));
        expect(next.hasNextPage).toBe(false);
        // The rest of the list was shorter than a walk: no set read.
        expect([walks(), sortsNamed()]).toEqual([2, 1]);
        // A page found within the walk reads no set of the named.
        executed.length = 0;
        const common = await searchStudents({ db, siteId: 'site_a' }, { q: 'er' }, { first: 100 }, NOW);
        expect(common.edges.map((e) => e.node.id)).toEqual((await named('er')).slice(0, 100));
        expect([walks(), sortsNamed()]).toEqual([1, 0]);
        expect(statements().filter((q) => q.includes('"q"."id" as "person_id"'))).toEqual([]);
      });

      if (dialect === 'sqlite') {
        it('a rare text of three characters or more is looked up in the trigram index, and its students by key', async () => {
          const [plan] = await plansOf(s.db, '"site_roles" as "r"', (db) =>
            searchStudents({ db, siteId: 'site_a' }, { q: 'learner 12' }, { first: 100 }, NOW),
          );
          expect(plan).toMatch(/^SCAN people_search VIRTUAL TABLE INDEX \d+:M/);
          expect(plan).toContain('SEARCH r USING INDEX sqlite_autoindex_site_roles_1 (site_id=? AND person_id=? AND role=?)');
          expect(plan).not.toContain('SCAN q');
        });
      }
    });

    describe('a course’s total follows every change of enrollments and roles', () => {
      const courses = ['crs_big', 'crs_small', 'crs_empty'];
      const check = async () => {
        for (const courseId of courses)
          for (const state of [undefined, 'completed', 'revoked', 'active', 'expired'] as const)
            expect({ courseId, state, n: await countMatchingStudents(scope(), { courseId, state }, NOW) }).toEqual({
              courseId,
              state,
              n: (await expected(s.db, { courseId, state })).length,
            });
        // A state alone: from each student's figures (migration 034).
        for (const state of ['active', 'expired', 'completed', 'revoked'] as const)
          expect({ state, n: await countMatchingStudents(scope(), { state }, NOW) }).toEqual({
            state,
            n: (await expected(s.db, { state })).length,
          });
      };

      it('as seeded, and after the migrations are run again over existing rows', async () => {
        await check();
        await m034.down(s.db);
        await m031.down(s.db);
        await m031.up(s.db);
        await m034.up(s.db);
        await check();
      });

      it('access changed to timed, ended, moved past now and back to life', async () => {
        const some = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => `enr_big_${from + k}`);
        // Students 200-229 keep only their crs_big enrollment: timed, ended for some, and then for all.
        await s.db
          .updateTable('enrollments')
          .set({ lifetime_access: 0, access_expires_at: NOW - DAY })
          .where('id', 'in', some(200, 215))
          .execute();
        await s.db
          .updateTable('enrollments')
          .set({ lifetime_access: 0, access_expires_at: NOW + DAY })
          .where('id', 'in', some(215, 230))
          .execute();
        await check();
        await s.db
          .updateTable('enrollments')
          .set({ access_expires_at: NOW - 1 })
          .where('id', 'in', some(215, 222))
          .execute();
        await s.db
          .updateTable('enrollments')
          .set({ access_expires_at: NOW + 5 * DAY })
          .where('id', 'in', some(200, 204))
          .execute();
        await check();
        // For life again, with the old end left in place: access for good.
        await s.db.updateTable('enrollments').set({ lifetime_access: 1 }).where('id', 'in', some(200, 210)).execute();
        await check();
        expect((await expected(s.db, { state: 'expired' })).length).toBeGreaterThan(10);
      });

      it('a student’s role taken away and given back, one at a time and many in a statement', async () => {
        await s.db.deleteFrom('site_roles').where('site_id', '=', 'site_a').where('person_id', '=', id(5)).execute();
        await check();
        await s.db
          .deleteFrom('site_roles')
          .where('site_id', '=', 'site_a')
          .where('person_id', 'in', [id(78), id(151), id(3)])
          .execute();
        await check();
        await s.db
          .insertInto('site_roles')
          .values([id(5), id(78), id(151)].map((p) => ({ site_id: 'site_a', person_id: p, role: 'student', created_at: NOW })))
          .execute();
        await check();
        // The lecturer becomes a student too: their enrollments count from now on.
        await grantRole(s.db, 'site_a', 'per_lecturer', 'student');
        await check();
      });

      it('enrollments added, moved to another course or person, and deleted', async () => {
        await s.db
          .insertInto('enrollments')
          .values([
            enrollmentRow({ id: 'enr_new_1', site_id: 'site_a', person_id: id(1), course_id: 'crs_empty' }),
            enrollmentRow({ id: 'enr_new_3', site_id: 'site_a', person_id: id(3), course_id: 'crs_empty' }),
          ])
          .execute();
        await check();
        await s.db.updateTable('enrollments').set({ course_id: 'crs_empty' }).where('id', '=', `enr_small_${5}`).execute();
        await s.db
          .updateTable('enrollments')
          .set({ person_id: id(7) })
          .where('id', '=', 'enr_new_1')
          .execute();
        await check();
        await s.db.deleteFrom('enrollments').where('course_id', '=', 'crs_small').where('person_id', '<', id(1000)).execute();
        await check();
      });

      it('enrollments completed and revoked, one at a time and many in a statement, and undone', async () => {
        const some = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => `enr_big_${from + k}`);
        await s.db.updateTable('enrollments').set({ completed_at: NOW }).where('id', '=', 'enr_big_10').execute();
        await s.db.updateTable('enrollments').set({ revoked_at: NOW }).where('id', '=', 'enr_big_11').execute();
        await check();
        await s.db.updateTable('enrollments').set({ completed_at: null }).where('id', 'in', some(1, 40)).execute();
        await s.db.updateTable('enrollments').set({ revoked_at: NOW, completed_at: NOW }).where('id', 'in', some(100, 130)).execute();
        await check();
        await s.db.updateTable('enrollments').set({ revoked_at: null }).where('id', 'in', some(100, 120)).execute();
        // A second date on an enrollment already completed changes nothing.
        await s.db
          .updateTable('enrollments')
          .set({ completed_at: NOW + 1 })
          .where('id', 'in', some(100, 130))
          .execute();
        await check();
        // Students with completed and revoked enrollments lose the role and regain it.
        await s.db
          .deleteFrom('site_roles')
          .where('site_id', '=', 'site_a')
          .where('person_id', 'in', [id(101), id(125)])
          .execute();
        await check();
        await s.db
          .insertInto('site_roles')
          .values([id(101), id(125)].map((p) => ({ site_id: 'site_a', person_id: p, role: 'student', created_at: NOW })))
          .execute();
        await check();
      });

      it('a role renamed, a person deleted with role and enrollments, and a deleted course', async () => {
        await s.db
          .updateTable('site_roles')
          .set({ role: 'admin' })
          .where('site_id', '=', 'site_a')
          .where('person_id', '=', id(9))
          .execute();
        await check();
        await s.db
          .updateTable('site_roles')
          .set({ role: 'student' })
          .where('site_id', '=', 'site_a')
          .where('person_id', '=', id(9))
          .execute();
        await check();
        await s.db
          .deleteFrom('people')
          .where('id', 'in', [id(11), id(78), 'per_lecturer'])
          .execute();
        await check();
        await s.db.deleteFrom('courses').where('id', '=', 'crs_small').execute();
        expect(await countMatchingStudents(scope(), { courseId: 'crs_small' }, NOW)).toBe(0);
        expect(await s.db.selectFrom('course_student_counts').where('course_id', '=', 'crs_small').selectAll().execute()).toEqual([]);
      });

      if (dialect === 'postgres') {
        it('concurrent connections enrolling and granting roles keep the total', async () => {
          await Promise.all(
            Array.from({ length: 12 }, (_, k) =>
              s.db.transaction().execute(async (trx) => {
                await trx
                  .insertInto('enrollments')
                  .values(
                    Array.from({ length: 20 }, (_, j) =>
                      enrollmentRow({ id: `enr_c_${k}_${j}`, site_id: 'site_a', person_id: id(1000 + k * 20 + j), course_id: 'crs_empty' }),
                    ),
                  )
                  .execute();
                await sql`select pg_sleep(0.01)`.execute(trx);
              }),
            ),
          );
          await check();
          expect(await countMatchingStudents(scope(), { courseId: 'crs_empty' }, NOW)).toBeGreaterThanOrEqual(240);
        });

        const overlapping = (first: (trx: Kysely<Database>) => Promise<unknown>, second: (trx: Kysely<Database>) => Promise<unknown>) =>
          secondWaitsForFirst(s.db, first, second);

        const newPerson = async (n: number) =>
          insertPerson(s.db, { id: `per_overlap_${n}`, email: `overlap${n}@a.test`, name: `Overlap ${n}` });
        const enroll =
          (personId: string, courseId: string, extra: { completed_at?: number; revoked_at?: number } = {}) =>
          (trx: Kysely<Database>) =>
            trx
              .insertInto('enrollments')
              .values(
                enrollmentRow({ id: `enr_${personId}_${courseId}`, site_id: 'site_a', person_id: personId, course_id: courseId, ...extra }),
              )
              .execute();
        const makeStudent = (personId: string) => (trx: Kysely<Database>) => grantRole(trx, 'site_a', personId, 'student');

        it('a role granted while another transaction enrolls the person, either first: the second waits, and the counts take both', async () => {
          const [p1, p2] = [await newPerson(1), await newPerson(2)];
          expect(await overlapping(makeStudent(p1), enroll(p1, 'crs_empty', { completed_at: NOW }))).toBe(true);
          await check();
          expect(await overlapping(enroll(p2, 'crs_empty', { revoked_at: NOW }), makeStudent(p2))).toBe(true);
          await check();
        });

        it('one student enrolled twice by two transactions at once: the second waits, and the student’s figures take both', async () => {
          const p3 = await newPerson(3);
          await grantRole(s.db, 'site_a', p3, 'student');
          expect(await overlapping(enroll(p3, 'crs_big', { completed_at: NOW }), enroll(p3, 'crs_empty', { revoked_at: NOW }))).toBe(true);
          await check();
          const figures = await s.db.selectFrom('student_figures').select(['completed', 'revoked']).where('person_id', '=', p3).execute();
          expect(figures).toEqual([{ completed: 1, revoked: 1 }]);
        });

        it('a learner’s activity, the frequent write, does not wait for the person’s lock, only for an enrollment of the same student at once (migration 041)', async () => {
          const p4 = await newPerson(4);
          await grantRole(s.db, 'site_a', p4, 'student');
          await enroll(p4, 'crs_empty')(s.db);
          const touch = (at: number) => (trx: Kysely<Database>) =>
            trx.updateTable('enrollments').set({ last_activity_at: at }).where('id', '=', `enr_${p4}_crs_empty`).execute();
          // A role granted takes the person's lock (037) and leaves the student's latest activity alone.
          expect(await overlapping((trx) => grantRole(trx, 'site_a', p4, 'lecturer'), touch(NOW))).toBe(false);
          // An enrollment reads the student's day of activity under a share lock, which the activity's raise waits for.
          expect(await overlapping(enroll(p4, 'crs_big'), touch(NOW + DAY))).toBe(true);
          await check();
        });
      }

      it('another site’s course counts nothing here, and a deleted site takes its counts', async () => {
        expect(await countMatchingStudents(scope(), { courseId: 'crs_b' }, NOW)).toBe(0);
        expect(await countMatchingStudents({ db: s.db, siteId: 'site_b' }, { courseId: 'crs_b' }, NOW)).toBeGreaterThan(300);
        await s.db.deleteFrom('sites').where('id', '=', 'site_b').execute();
        expect(await s.db.selectFrom('course_student_counts').where('site_id', '=', 'site_b').selectAll().execute()).toEqual([]);
      });
    });
  });
}
