// The students list filtered by inactivity (GET /students?inactiveDays=): the site's students none of
// whose enrollments here had activity in that many days (or ever), newest student first, with the total.
// Each student's latest activity is kept by the triggers of migration 035. Pages and totals must equal
// what the roles and enrollments say, on both stores: in a small world at the boundaries (activity just
// inside and outside the span, none, another school's), and in one of 2,400 students, alone and with the
// other filters; the kept figure must follow every change of enrollments, roles, people and sites.
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  countMatchingStudents,
  FEW_MATCHES,
  type StudentFilter,
  searchStudents,
  searchStudentsWithTotal,
} from '../../src/school/operator-students.repository.js';
import * as m035 from '../../src/storage/migrations/035-student-activity.js';
import * as m040 from '../../src/storage/migrations/040-student-activity-days.js';
import * as m041 from '../../src/storage/migrations/041-course-activity-days.js';
import * as m042 from '../../src/storage/migrations/042-student-state-days.js';
import * as m043 from '../../src/storage/migrations/043-course-state-days.js';
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
import { recordingStatements } from '../helpers/executed-statements.js';
import { plansOf as statementPlans } from '../helpers/sqlite-plans.js';

const NOW = TEST_NOW;
const PEOPLE = 2_400;
const id = learnerId;

/**
 * site_a: 2,400 students. Each has a crs_a enrollment (but one in fifty), active 0 to 399 days ago or, one
 * in four, never; one in three also crs_b, recently active for one in five of those. One in six has
 * completed crs_a. A lecturer without the student role was active yesterday. site_b enrolls one in seven of
 * the same people, all active yesterday, which must never make them active at site_a.
 */
async function seed(db: Kysely<Database>): Promise<void> {
  await insertSite(db, { id: 'site_a', name: 'A', origin: 'http://a.test', variant: 'A' });
  await insertSite(db, { id: 'site_b', name: 'B', origin: 'http://b.test', variant: 'A' });
  for (const c of ['crs_a', 'crs_b', 'crs_c']) await insertCourse(db, 'site_a', c);
  await insertCourse(db, 'site_b', 'crs_other');
  await insertLearners(db, 'site_a', PEOPLE);
  const all = Array.from({ length: PEOPLE }, (_, i) => i);
  await enrollLearners(
    db,
    { siteId: 'site_a', courseId: 'crs_a', tag: 'a' },
    all.filter((i) => i % 50 !== 0),
    (i) => ({
      completed_at: i % 6 === 0 ? NOW - DAY : null,
      last_activity_at: i % 4 === 0 ? null : NOW - ((i * 7) % 400) * DAY - (i % 1000) * 1000,
    }),
  );
  await enrollLearners(
    db,
    { siteId: 'site_a', courseId: 'crs_b', tag: 'b' },
    all.filter((i) => i % 3 === 0),
    (i) => ({
      last_activity_at: i % 5 === 0 ? NOW - (i % 20) * DAY : null,
      revoked_at: i % 9 === 0 ? NOW - 2 * DAY : null,
    }),
  );
  await insertPerson(db, { id: 'per_lecturer', email: 'lecturer@a.test', name: 'Lecturer' });
  await grantRole(db, 'site_a', 'per_lecturer', 'lecturer');
  await db
    .insertInto('enrollments')
    .values(
      enrollmentRow({ id: 'enr_lecturer', site_id: 'site_a', person_id: 'per_lecturer', course_id: 'crs_a', last_activity_at: NOW - DAY }),
    )
    .execute();
  const sevenths = all.filter((i) => i % 7 === 0);
  await insertMany(
    db,
    'site_roles',
    sevenths.map((i) => ({ site_id: 'site_b', person_id: id(i), role: 'student', created_at: NOW })),
  );
  await enrollLearners(db, { siteId: 'site_b', courseId: 'crs_other', tag: 'other' }, sevenths, () => ({ last_activity_at: NOW - DAY }));
}

/** Each (site, student) and their latest activity there, -1 for never, from the rows: what student_activity must hold. */
async function latestFromRows(db: Kysely<Database>): Promise<string[]> {
  const rows = await db
    .selectFrom('site_roles as r')
    .leftJoin('enrollments as e', (join) => join.onRef('e.site_id', '=', 'r.site_id').onRef('e.person_id', '=', 'r.person_id'))
    .where('r.role', '=', 'student')
    .select(['r.site_id', 'r.person_id', (eb) => eb.fn.max('e.last_activity_at').as('at')])
    .groupBy(['r.site_id', 'r.person_id'])
    .execute();
  return rows.map((r) => `${r.site_id} ${r.person_id} ${r.at === null ? -1 : Number(r.at)}`).sort();
}

async function kept(db: Kysely<Database>): Promise<string[]> {
  const rows = await db.selectFrom('student_activity').selectAll().execute();
  return rows.map((r) => `${r.site_id} ${r.person_id} ${Number(r.last_activity_at)}`).sort();
}

/** The UTC day of an activity (-1: never) as migration 040 files it. */
const dayOf = (at: number) => (at < 0 ? -1 : Math.floor(at / DAY));

/** How many students there are per site and day of latest activity, counted from student_activity: what student_activity_days must hold. */
async function daysFromLatest(db: Kysely<Database>): Promise<string[]> {
  const counts = new Map<string, number>();
  for (const r of await db.selectFrom('student_activity').select(['site_id', 'last_activity_at']).execute()) {
    const key = `${r.site_id} ${dayOf(Number(r.last_activity_at))}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, n]) => `${key} ${n}`).sort();
}

/** The kept counts per site and day, summed over slots, days that sum to none left out. */
async function daysKept(db: Kysely<Database>): Promise<string[]> {
  const counts = new Map<string, number>();
  for (const r of await db.selectFrom('student_activity_days').selectAll().execute()) {
    const key = `${r.site_id} ${Number(r.day)}`;
    counts.set(key, (counts.get(key) ?? 0) + Number(r.n));
  }
  return [...counts]
    .filter(([, n]) => n !== 0)
    .map(([key, n]) => `${key} ${n}`)
    .sort();
}

/**
 * Per site, course and day of the student's latest activity, how many students are enrolled and how many of
 * those enrollments are completed, revoked and open for good, from the rows: what course_activity_days must hold.
 */
async function courseDaysFromLatest(db: Kysely<Database>): Promise<string[]> {
  const rows = await db
    .selectFrom('enrollments as e')
    .innerJoin('student_activity as s', (join) => join.onRef('s.site_id', '=', 'e.site_id').onRef('s.person_id', '=', 'e.person_id'))
    .select([
      'e.site_id',
      'e.course_id',
      'e.completed_at',
      'e.revoked_at',
      'e.lifetime_access',
      'e.access_expires_at',
      's.last_activity_at',
    ])
    .execute();
  const counts = new Map<string, [number, number, number, number]>();
  for (const r of rows) {
    const key = `${r.site_id} ${r.course_id} ${dayOf(Number(r.last_activity_at))}`;
    const [n, completed, revoked, forGood] = counts.get(key) ?? [0, 0, 0, 0];
    const openForGood = r.revoked_at === null && (r.lifetime_access === 1 || r.access_expires_at === null);
    counts.set(key, [
      n + 1,
      completed + (r.completed_at === null ? 0 : 1),
      revoked + (r.revoked_at === null ? 0 : 1),
      forGood + (openForGood ? 1 : 0),
    ]);
  }
  return [...counts].map(([key, n]) => `${key} ${n.join(' ')}`).sort();
}

/** The kept counts per site, course and day, summed over slots, those that sum to none left out. */
async function courseDaysKept(db: Kysely<Database>): Promise<string[]> {
  const counts = new Map<string, [number, number, number, number]>();
  for (const r of await db.selectFrom('course_activity_days').selectAll().execute()) {
    const key = `${r.site_id} ${r.course_id} ${Number(r.day)}`;
    const [n, completed, revoked, forGood] = counts.get(key) ?? [0, 0, 0, 0];
    counts.set(key, [n + Number(r.n), completed + Number(r.completed), revoked + Number(r.revoked), forGood + Number(r.open_for_good)]);
  }
  return [...counts]
    .filter(([, n]) => n.some((v) => v !== 0))
    .map(([key, n]) => `${key} ${n.join(' ')}`)
    .sort();
}

/**
 * Per site and day of the student's latest activity, how many students hold a completed, a revoked and an
 * open-for-good enrollment (not revoked, for life or without an end), from the rows: what student_state_days
 * must hold.
 */
async function stateDaysFromLatest(db: Kysely<Database>): Promise<string[]> {
  const rows = await db
    .selectFrom('enrollments as e')
    .innerJoin('student_activity as s', (join) => join.onRef('s.site_id', '=', 'e.site_id').onRef('s.person_id', '=', 'e.person_id'))
    .select([
      'e.site_id',
      'e.person_id',
      'e.completed_at',
      'e.revoked_at',
      'e.lifetime_access',
      'e.access_expires_at',
      's.last_activity_at',
    ])
    .execute();
  const counts = new Map<string, { completed: Set<string>; revoked: Set<string>; forGood: Set<string> }>();
  for (const r of rows) {
    const key = `${r.site_id} ${dayOf(Number(r.last_activity_at))}`;
    const day = counts.get(key) ?? { completed: new Set(), revoked: new Set(), forGood: new Set() };
    counts.set(key, day);
    if (r.completed_at !== null) day.completed.add(r.person_id);
    if (r.revoked_at !== null) day.revoked.add(r.person_id);
    if (r.revoked_at === null && (r.lifetime_access === 1 || r.access_expires_at === null)) day.forGood.add(r.person_id);
  }
  return [...counts]
    .filter(([, day]) => day.completed.size + day.revoked.size + day.forGood.size > 0)
    .map(([key, day]) => `${key} ${day.completed.size} ${day.revoked.size} ${day.forGood.size}`)
    .sort();
}

/** The kept counts per site and day, summed over slots, days that sum to none left out. */
async function stateDaysKept(db: Kysely<Database>): Promise<string[]> {
  const counts = new Map<string, [number, number, number]>();
  for (const r of await db.selectFrom('student_state_days').selectAll().execute()) {
    const key = `${r.site_id} ${Number(r.day)}`;
    const [completed, revoked, forGood] = counts.get(key) ?? [0, 0, 0];
    counts.set(key, [completed + Number(r.completed), revoked + Number(r.revoked), forGood + Number(r.open_for_good)]);
  }
  return [...counts]
    .filter(([, n]) => n.some((v) => v !== 0))
    .map(([key, n]) => `${key} ${n.join(' ')}`)
    .sort();
}

/** site_a's students and enrollments, read once for the rule. */
async function rowsOf(db: Kysely<Database>) {
  const students = await db
    .selectFrom('site_roles as r')
    .innerJoin('people as p', 'p.id', 'r.person_id')
    .select(['r.person_id', 'r.created_at', 'p.name'])
    .where('r.site_id', '=', 'site_a')
    .where('r.role', '=', 'student')
    .execute();
  const enrollments = await db
    .selectFrom('enrollments')
    .select(['person_id', 'course_id', 'completed_at', 'revoked_at', 'lifetime_access', 'access_expires_at', 'last_activity_at'])
    .where('site_id', '=', 'site_a')
    .execute();
  return { students, enrollments };
}

/** The rule, from the rows: site_a's students matching the filter, newest first. */
function rule({ students, enrollments }: Awaited<ReturnType<typeof rowsOf>>, filter: StudentFilter): string[] {
  const since = NOW - (filter.inactiveDays ?? 0) * DAY;
  const active = new Set(
    enrollments.filter((e) => e.last_activity_at !== null && Number(e.last_activity_at) >= since).map((e) => e.person_id),
  );
  const inState = (e: (typeof enrollments)[number]): boolean => {
    const timedEnd = e.lifetime_access === 1 || e.access_expires_at === null ? null : Number(e.access_expires_at);
    if (filter.state === 'completed') return e.completed_at !== null;
    if (filter.state === 'revoked') return e.revoked_at !== null;
    if (filter.state === 'active') return e.revoked_at === null && (timedEnd === null || timedEnd > NOW);
    if (filter.state === 'expired') return e.revoked_at === null && timedEnd !== null && timedEnd <= NOW;
    return true;
  };
  const enrolled = new Set(
    enrollments.filter((e) => (filter.courseId === undefined || e.course_id === filter.courseId) && inState(e)).map((e) => e.person_id),
  );
  return students
    .filter((s) => filter.inactiveDays === undefined || !active.has(s.person_id))
    .filter((s) => (filter.courseId === undefined && filter.state === undefined) || enrolled.has(s.person_id))
    .filter((s) => filter.q === undefined || s.name.toLowerCase().includes(filter.q.toLowerCase()))
    .sort((a, b) => Number(b.created_at) - Number(a.created_at) || (a.person_id < b.person_id ? 1 : -1))
    .map((s) => s.person_id);
}

/** site_a's first page of 100 and total for a filter, asked together (`got`), beside what the rule says of the rows (`want`). */
async function firstPageAndTotal(db: Kysely<Database>, rows: Awaited<ReturnType<typeof rowsOf>>, filter: StudentFilter) {
  const matches = rule(rows, filter);
  const { page, total } = await searchStudentsWithTotal({ db, siteId: 'site_a' }, filter, { first: 100 }, NOW);
  return {
    got: { filter, total, first: page.edges.map((edge) => edge.node.id) },
    want: { filter, total: matches.length, first: matches.slice(0, 100) },
  };
}

async function expected(db: Kysely<Database>, filter: StudentFilter): Promise<string[]> {
  return rule(await rowsOf(db), filter);
}

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

async function seedBoundaries(db: Kysely<Database>): Promise<void> {
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

/** The rule for that world: site_a's students with no activity here since the threshold, newest student first. */
function expectedAtBoundaries(inactiveDays: number): string[] {
  const since = NOW - inactiveDays * DAY;
  return ACTIVITY.map((activity, i) => ({ id: `per_${String(i).padStart(2, '0')}`, i, activity }))
    .filter(({ activity }) => activity.every((daysAgo) => daysAgo === null || NOW - daysAgo * DAY < since))
    .sort((a, b) => b.i - a.i)
    .map(({ id }) => id);
}

const SPANS = [1, 30, 90, 365, 1_000];

/** A count asked with others in one statement (a constant row of scalar subqueries) is captured alone as well. */
const ONE_STATEMENT = 'SCAN CONSTANT ROW | ';

/** The plans of the queries holding `marker`, each count asked within one statement by its own plan. */
async function plansOf(db: Kysely<Database>, marker: string, run: (db: Kysely<Database>) => Promise<unknown>): Promise<string[]> {
  return (await statementPlans(db, marker, run)).filter((plan) => !plan.startsWith(ONE_STATEMENT));
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`students by inactivity at the boundaries (${dialect})`, () => {
    let s: SchoolStore;
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      await seedBoundaries(s.db);
    });
    afterAll(() => s?.close());

    for (const inactiveDays of [1, 30, 60, 3650, 100000]) {
      it(`inactiveDays=${inactiveDays}: pages of three, newest student first, and the total`, async () => {
        const scope = { db: s.db, siteId: 'site_a' };
        const got = await pagedIds((after) => searchStudents(scope, { inactiveDays }, { first: 3, after }, NOW));
        expect(got).toEqual(expectedAtBoundaries(inactiveDays));
        expect(await countMatchingStudents(scope, { inactiveDays }, NOW)).toBe(got.length);
      });
    }

    it('the expected lists are not trivial: some students are active, some never were', () => {
      expect(expectedAtBoundaries(30).length).toBeGreaterThan(3);
      expect(expectedAtBoundaries(30).length).toBeLessThan(ACTIVITY.length - 3);
      expect(expectedAtBoundaries(30)).toContain('per_07');
      expect(expectedAtBoundaries(30)).not.toContain('per_06');
    });
  });

  describe.skipIf(skipDialect(dialect))(`students by inactivity (${dialect})`, () => {
    let s: SchoolStore;
    const scope = () => ({ db: s.db, siteId: 'site_a' });
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      await seed(s.db);
      // As a deployment's autovacuum would: without statistics PostgreSQL takes each table for a row or
      // two and may scan the site's students once per enrollment of a course.
      if (dialect === 'postgres') await sql`analyze`.execute(s.db);
    }, 60_000);
    afterAll(() => s?.close());

    /** The kept figures equal the rows', and so do the totals of each span alone. */
    const check = async () => {
      expect(await kept(s.db)).toEqual(await latestFromRows(s.db));
      expect(await daysKept(s.db)).toEqual(await daysFromLatest(s.db));
      expect(await courseDaysKept(s.db)).toEqual(await courseDaysFromLatest(s.db));
      expect(await stateDaysKept(s.db)).toEqual(await stateDaysFromLatest(s.db));
      const rows = await rowsOf(s.db);
      const filters: StudentFilter[] = [
        {},
        { courseId: 'crs_a' },
        { courseId: 'crs_b' },
        { state: 'completed' },
        { state: 'revoked' },
        { state: 'active' },
        { courseId: 'crs_a', state: 'completed' },
        { courseId: 'crs_b', state: 'revoked' },
        { courseId: 'crs_a', state: 'active' },
        { courseId: 'crs_b', state: 'active' },
      ];
      for (const filter of filters)
        for (const inactiveDays of SPANS)
          expect({ ...filter, inactiveDays, n: await countMatchingStudents(scope(), { ...filter, inactiveDays }, NOW) }).toEqual({
            ...filter,
            inactiveDays,
            n: rule(rows, { ...filter, inactiveDays }).length,
          });
    };

    it('the world is not trivial: each span leaves some students inactive and some active', async () => {
      for (const inactiveDays of [30, 90, 365]) {
        const inactive = (await expected(s.db, { inactiveDays })).length;
        expect(inactive).toBeGreaterThan(200);
        expect(inactive).toBeLessThan(PEOPLE - 200);
      }
    });

    it('a page and its total asked together equal the two asked apart, for few inactive and for many', async () => {
      for (const inactiveDays of SPANS) {
        const want = await expected(s.db, { inactiveDays });
        const { page, total } = await searchStudentsWithTotal(scope(), { inactiveDays }, { first: 100 }, NOW);
        expect({ inactiveDays, total, first: page.edges.map((edge) => edge.node.id) }).toEqual({
          inactiveDays,
          total: want.length,
          first: want.slice(0, 100),
        });
      }
      expect((await expected(s.db, { inactiveDays: 365 })).length).toBeLessThanOrEqual(FEW_MATCHES);
      expect((await expected(s.db, { inactiveDays: 1 })).length).toBeGreaterThan(FEW_MATCHES);
    });

    it('where a page starts is weighed from the kept counts: no course or course state is read up to FEW_MATCHES + 1 entries, nor the inactive when inactivity is alone', async () => {
      const bounded = String(FEW_MATCHES + 1);
      for (const filter of [
        { inactiveDays: 1 },
        { inactiveDays: 365 },
        { courseId: 'crs_a', inactiveDays: 30 },
        { courseId: 'crs_a', state: 'completed', inactiveDays: 30 },
        { courseId: 'crs_b', state: 'revoked', inactiveDays: 30 },
      ] satisfies StudentFilter[]) {
        const { db, executed: sent } = recordingStatements(s.db);
        const want = await expected(s.db, filter);
        const { page, total } = await searchStudentsWithTotal({ db, siteId: 'site_a' }, filter, { first: 100 }, NOW);
        expect({ filter, total, first: page.edges.map((edge) => edge.node.id) }).toEqual({
          filter,
          total: want.length,
          first: want.slice(0, 100),
        });
        const probes = sent.filter((q) => /\blimit\b/i.test(q.sql) && (q.sql.includes(bounded) || q.parameters.includes(FEW_MATCHES + 1)));
        expect(probes.filter((q) => !q.sql.includes('from "student_activity"')).map((q) => q.sql)).toEqual([]);
        // Alone, the inactive are counted from the kept counts (their count is the total too); with other filters
        // they are a bounded range, when those did not find few enrollments first.
        if (!('courseId' in filter)) expect(probes.map((q) => q.sql)).toEqual([]);
      }
    });

    for (const inactiveDays of SPANS) {
      it(`inactiveDays=${inactiveDays}: pages of 100 newest student first, and the total, are the students without activity since`, async () => {
        const want = await expected(s.db, { inactiveDays });
        expect(await pagedIds((after) => searchStudents(scope(), { inactiveDays }, { first: 100, after }, NOW))).toEqual(want);
        expect(await countMatchingStudents(scope(), { inactiveDays }, NOW)).toBe(want.length);
      });
    }

    const COMBINED: StudentFilter[] = [
      { inactiveDays: 30, courseId: 'crs_b' },
      { inactiveDays: 30, state: 'completed' },
      { inactiveDays: 30, state: 'revoked' },
      { inactiveDays: 1, state: 'completed' },
      { inactiveDays: 1, state: 'revoked' },
      { inactiveDays: 30, courseId: 'crs_a', state: 'completed' },
      { inactiveDays: 30, q: 'learner 12' },
      { inactiveDays: 365, q: 'Learner' },
      // A text shorter than a trigram, asked of each row: of the few inactive, and of a page's walk.
      { inactiveDays: 365, q: 'er' },
      { inactiveDays: 1, q: 'er' },
      // Many inactive among many enrolled (beyond FEW_MATCHES each): the total is the enrolled less the active.
      { inactiveDays: 1, courseId: 'crs_a' },
      { inactiveDays: 1, state: 'active' },
      { inactiveDays: 1, courseId: 'crs_a', state: 'active' },
    ];
    for (const filter of COMBINED) {
      it(`${JSON.stringify(filter)}: inactivity narrows the other filters, pages and total`, async () => {
        const want = await expected(s.db, filter);
        expect(want.length).toBeGreaterThan(0);
        expect(await pagedIds((after) => searchStudents(scope(), filter, { first: 100, after }, NOW))).toEqual(want);
        expect(await countMatchingStudents(scope(), filter, NOW)).toBe(want.length);
      });
    }

    it('a completed or revoked state of many with inactivity, alone and in a course: pages and totals, the days after the threshold’s from the counts per state and per course', async () => {
      // Every site_a enrollment completed and revoked, in a transaction rolled back after: each state then
      // holds more than FEW_MATCHES enrollments, so the total is the state's students less its active ones.
      // In statements of 500: on PostgreSQL each changed enrollment runs row triggers (about 1.5 ms in all),
      // and 3,100 in one statement come near the store's 5 s limit per statement.
      const undone = new Error('rolled back');
      const run = s.db.transaction().execute(async (trx) => {
        const ids = (await trx.selectFrom('enrollments').select('id').where('site_id', '=', 'site_a').orderBy('id').execute()).map(
          (r) => r.id,
        );
        for (let i = 0; i < ids.length; i += 500)
          await trx
            .updateTable('enrollments')
            .set((eb) => ({ completed_at: eb.fn.coalesce('completed_at', eb.lit(NOW - DAY)), revoked_at: NOW }))
            .where('id', 'in', ids.slice(i, i + 500))
            .execute();
        expect(await stateDaysKept(trx)).toEqual(await stateDaysFromLatest(trx));
        expect(await courseDaysKept(trx)).toEqual(await courseDaysFromLatest(trx));
        const rows = await rowsOf(trx);
        for (const state of ['completed', 'revoked'] as const) {
          expect(rule(rows, { state }).length).toBeGreaterThan(FEW_MATCHES);
          expect(rule(rows, { courseId: 'crs_a', state }).length).toBeGreaterThan(FEW_MATCHES);
          for (const filter of SPANS.flatMap((inactiveDays) => [
            { state, inactiveDays },
            { courseId: 'crs_a', state, inactiveDays },
          ])) {
            const { got, want } = await firstPageAndTotal(trx, rows, filter);
            expect(got).toEqual(want);
          }
          if (dialect === 'sqlite') {
            const count = (db: Kysely<Database>) => countMatchingStudents({ db, siteId: 'site_a' }, { state, inactiveDays: 30 }, NOW);
            expect(await plansOf(trx, '"student_state_days"', count)).toEqual([
              'SEARCH student_state_days USING PRIMARY KEY (site_id=? AND day>?)',
            ]);
            // The threshold's own day alone is a range of the latest activity, each student's enrollments by key.
            const walks = (await plansOf(trx, '"student_activity" as "a"', count)).filter((plan) =>
              plan.includes('(site_id=? AND last_activity_at>? AND last_activity_at<?)'),
            );
            expect(walks).toHaveLength(1);
            expect(walks[0]).toMatch(
              /^SEARCH a USING COVERING INDEX student_activity_latest \(site_id=\? AND last_activity_at>\? AND last_activity_at<\?\)/,
            );
            expect(walks[0]).not.toMatch(/SCAN/);
            const inCourse = (db: Kysely<Database>) =>
              countMatchingStudents({ db, siteId: 'site_a' }, { courseId: 'crs_a', state, inactiveDays: 30 }, NOW);
            expect(await plansOf(trx, '"course_activity_days"', inCourse)).toEqual([
              'SEARCH course_activity_days USING PRIMARY KEY (site_id=? AND course_id=? AND day>?)',
            ]);
          }
        }
        throw undone;
      });
      await expect(run).rejects.toBe(undone);
      expect(await countMatchingStudents(scope(), { state: 'revoked' }, NOW)).toBeLessThan(FEW_MATCHES);
    });

    it('the expired state of many with inactivity, alone and in a course: pages and totals, the total a range of the expired by their end, each one’s latest activity by key', async () => {
      // Every site_a enrollment given timed access, nine in ten ended yesterday and the rest ending tomorrow,
      // in a transaction rolled back after: the expired then number more than FEW_MATCHES, alone and in crs_a,
      // so the total is the expired students less the active among them. The lecturer's enrollment expires
      // too and must count nowhere. In statements of 500, as above.
      const undone = new Error('rolled back');
      const run = s.db.transaction().execute(async (trx) => {
        const ids = (await trx.selectFrom('enrollments').select('id').where('site_id', '=', 'site_a').orderBy('id').execute()).map(
          (r) => r.id,
        );
        for (const [end, chosen] of [
          [NOW - DAY, ids.filter((_, i) => i % 10 !== 0)],
          [NOW + DAY, ids.filter((_, i) => i % 10 === 0)],
        ] as const)
          for (let i = 0; i < chosen.length; i += 500)
            await trx
              .updateTable('enrollments')
              .set({ lifetime_access: 0, access_expires_at: end })
              .where('id', 'in', chosen.slice(i, i + 500))
              .execute();
        const rows = await rowsOf(trx);
        expect(rule(rows, { state: 'expired' }).length).toBeGreaterThan(FEW_MATCHES);
        expect(rule(rows, { courseId: 'crs_a', state: 'expired' }).length).toBeGreaterThan(FEW_MATCHES);
        for (const filter of SPANS.flatMap((inactiveDays) => [
          { state: 'expired' as const, inactiveDays },
          { courseId: 'crs_a', state: 'expired' as const, inactiveDays },
          { courseId: 'crs_b', state: 'expired' as const, inactiveDays },
        ])) {
          const { got, want } = await firstPageAndTotal(trx, rows, filter);
          expect(got).toEqual(want);
          expect(got.total).toBeGreaterThan(0);
          expect(got.total).toBeLessThan(rule(rows, { courseId: filter.courseId, state: 'expired' }).length);
        }
        if (dialect === 'sqlite') {
          const inCourse = (db: Kysely<Database>) =>
            countMatchingStudents({ db, siteId: 'site_a' }, { courseId: 'crs_a', state: 'expired', inactiveDays: 30 }, NOW);
          const course = await plansOf(trx, '"enrollments" as "e" inner join "student_activity"', inCourse);
          expect(course).toHaveLength(1);
          expect(course[0]).toMatch(
            /^SEARCH e USING (COVERING )?INDEX enrollments_course_expiry_person \(site_id=\? AND course_id=\? AND access_expires_at<\?\)/,
          );
          expect(course[0]).toContain('SEARCH a USING PRIMARY KEY (site_id=? AND person_id=?)');
          const alone = (db: Kysely<Database>) =>
            countMatchingStudents({ db, siteId: 'site_a' }, { state: 'expired', inactiveDays: 30 }, NOW);
          const site = await plansOf(trx, '"student_figures" as "f" inner join "student_activity"', alone);
          expect(site).toHaveLength(1);
          expect(site[0]).toMatch(
            /^SEARCH f USING (COVERING )?INDEX student_figures_timed_first \(site_id=\? AND (timed_first_end>\? AND )?timed_first_end<\?\)/,
          );
          expect(site[0]).toContain('SEARCH a USING PRIMARY KEY (site_id=? AND person_id=?)');
          // The active students are never walked to ask each for an expired enrollment (the one range of the latest
          // activity read is the bounded look at whether the inactive are few, that picks where a page starts).
          for (const count of [inCourse, alone])
            for (const plan of await plansOf(trx, '"student_activity" as "a"', count)) expect(plan).not.toMatch(/last_activity_at>\?/);
        }
        throw undone;
      });
      await expect(run).rejects.toBe(undone);
      expect(await countMatchingStudents(scope(), { state: 'expired' }, NOW)).toBe(0);
    });

    if (dialect === 'sqlite') {
      it('many inactive: a page walks the students in order and asks each one’s latest activity by key', async () => {
        expect((await expected(s.db, { inactiveDays: 1 })).length).toBeGreaterThan(FEW_MATCHES);
        const [page] = await plansOf(s.db, '"site_roles" as "r"', (db) =>
          searchStudents({ db, siteId: 'site_a' }, { inactiveDays: 1 }, { first: 100 }, NOW),
        );
        expect(page).toMatch(/^SEARCH r USING COVERING INDEX site_roles_site_role_created \(site_id=\? AND role=\?\)/);
        expect(page).toContain('SEARCH a USING PRIMARY KEY (site_id=? AND person_id=?)');
        // Enrollments are read only for each student's enrollment count, by person.
        expect(page?.match(/SEARCH e USING [^|]*/g)).toEqual([
          'SEARCH e USING COVERING INDEX enrollments_member_page (site_id=? AND person_id=?)',
        ]);
        expect(page).not.toContain('TEMP B-TREE');
      });

      it('few inactive: a page starts from them, a range of their latest activity', async () => {
        expect((await expected(s.db, { inactiveDays: 365 })).length).toBeLessThanOrEqual(FEW_MATCHES);
        const [page] = await plansOf(s.db, '"site_roles" as "r"', (db) =>
          searchStudents({ db, siteId: 'site_a' }, { inactiveDays: 365 }, { first: 100 }, NOW),
        );
        expect(page).toMatch(
          /^SEARCH a USING COVERING INDEX student_activity_latest \(site_id=\? AND last_activity_at<\?\) \| SEARCH r USING (COVERING )?INDEX sqlite_autoindex_site_roles_1 \(site_id=\? AND person_id=\? AND role=\?\)/,
        );
        expect(page).not.toContain('site_roles_site_role_created');
      });

      it('inactiveDays with a course of many: the total is its students less its active, the days after the threshold’s from the counts per course', async () => {
        expect((await expected(s.db, { courseId: 'crs_a', inactiveDays: 30 })).length).toBeGreaterThan(FEW_MATCHES);
        const count = (db: Kysely<Database>) =>
          countMatchingStudents({ db, siteId: 'site_a' }, { courseId: 'crs_a', inactiveDays: 30 }, NOW);
        expect(await plansOf(s.db, '"course_activity_days"', count)).toEqual([
          'SEARCH course_activity_days USING PRIMARY KEY (site_id=? AND course_id=? AND day>?)',
        ]);
        // The threshold's own day: a range of the latest activity, each student's enrollment in the course by key.
        const dayOf = (await plansOf(s.db, '"student_activity" as "a"', count)).filter((plan) =>
          plan.includes('(site_id=? AND last_activity_at>? AND last_activity_at<?)'),
        );
        expect(dayOf).toHaveLength(1);
        expect(dayOf[0]).toMatch(/^SEARCH a USING COVERING INDEX student_activity_latest /);
        expect(dayOf[0]).toContain(
          'SEARCH e EXISTS USING COVERING INDEX sqlite_autoindex_enrollments_2 (site_id=? AND person_id=? AND course_id=?)',
        );
        expect(dayOf[0]).not.toMatch(/SCAN/);
      });

      it('inactiveDays with the active state: the days after the threshold’s from the counts of access open for good, the timed by their index', async () => {
        const count = (db: Kysely<Database>) => countMatchingStudents({ db, siteId: 'site_a' }, { state: 'active', inactiveDays: 30 }, NOW);
        expect(await plansOf(s.db, '"student_state_days"', count)).toEqual([
          'SEARCH student_state_days USING PRIMARY KEY (site_id=? AND day>?)',
        ]);
        const timed = await plansOf(s.db, '"student_figures" as "f"', count);
        expect(timed).toHaveLength(1);
        expect(timed[0]).toMatch(/^SEARCH f USING (COVERING )?INDEX student_figures_timed_last \(site_id=\? AND timed_last_end>\?\)/);
        expect(timed[0]).toContain('SEARCH a USING PRIMARY KEY (site_id=? AND person_id=?)');
      });

      it('inactiveDays with a course and the active state: the days after the threshold’s from the course’s counts of access open for good, the timed by the course’s index of their end', async () => {
        expect((await expected(s.db, { courseId: 'crs_a', state: 'active', inactiveDays: 1 })).length).toBeGreaterThan(FEW_MATCHES);
        const count = (db: Kysely<Database>) =>
          countMatchingStudents({ db, siteId: 'site_a' }, { courseId: 'crs_a', state: 'active', inactiveDays: 1 }, NOW);
        expect(await plansOf(s.db, '"course_activity_days"', count)).toEqual([
          'SEARCH course_activity_days USING PRIMARY KEY (site_id=? AND course_id=? AND day>?)',
        ]);
        const timed = await plansOf(s.db, '"enrollments" as "e" inner join "student_activity"', count);
        expect(timed).toHaveLength(1);
        expect(timed[0]).toMatch(
          /^SEARCH e USING (COVERING )?INDEX enrollments_course_expiry_person \(site_id=\? AND course_id=\? AND access_expires_at>\?\)/,
        );
        expect(timed[0]).toContain('SEARCH a USING PRIMARY KEY (site_id=? AND person_id=?)');
      });

      for (const inactiveDays of [1, 365])
        it(`inactiveDays=${inactiveDays} alone: the total is the students less the active, the days after the threshold's from their counts and its own day from the index`, async () => {
          const count = (db: Kysely<Database>) => countMatchingStudents({ db, siteId: 'site_a' }, { inactiveDays }, NOW);
          expect(await plansOf(s.db, '"student_activity_days"', count)).toEqual([
            'SEARCH student_activity_days USING PRIMARY KEY (site_id=? AND day>?)',
          ]);
          expect(await plansOf(s.db, '"student_activity"', count)).toEqual([
            'SEARCH a USING COVERING INDEX student_activity_latest (site_id=? AND last_activity_at>? AND last_activity_at<?)',
          ]);
          // The students, the days after and the day itself are asked in one statement.
          expect((await statementPlans(s.db, '"site_role_counts"', count)).filter((plan) => plan.startsWith(ONE_STATEMENT))).toEqual([
            `${ONE_STATEMENT}SCALAR SUBQUERY 1 | SEARCH site_role_counts USING INDEX sqlite_autoindex_site_role_counts_1 (site_id=? AND role=?) | SCALAR SUBQUERY 2 | SEARCH student_activity_days USING PRIMARY KEY (site_id=? AND day>?) | SCALAR SUBQUERY 3 | SEARCH a USING COVERING INDEX student_activity_latest (site_id=? AND last_activity_at>? AND last_activity_at<?)`,
          ]);
        });
    }

    describe('the kept latest activity follows every change', () => {
      it('as seeded, and after the migrations are run again over existing rows', async () => {
        await check();
        await m043.down(s.db);
        await m042.down(s.db);
        await m041.down(s.db);
        await m040.down(s.db);
        await m035.down(s.db);
        await m035.up(s.db);
        await m040.up(s.db);
        await m041.up(s.db);
        await m042.up(s.db);
        await m043.up(s.db);
        await check();
        for (const m of [m040, m042, m043]) {
          await m.down(s.db);
          await m.up(s.db);
          await check();
        }
        // 043 takes 041's triggers over: 041 is run again beneath it.
        await m043.down(s.db);
        await m041.down(s.db);
        await m041.up(s.db);
        await m043.up(s.db);
        await check();
      });

      it('activity raised, lowered, cleared and set again, one enrollment and many in a statement', async () => {
        await s.db.updateTable('enrollments').set({ last_activity_at: NOW }).where('id', '=', 'enr_a_4').execute();
        await s.db
          .updateTable('enrollments')
          .set({ last_activity_at: NOW - 3 * DAY })
          .where('id', 'in', ['enr_a_1', 'enr_a_2', 'enr_a_8', 'enr_a_9'])
          .execute();
        await check();
        // Lowered: the person's latest falls back to another enrollment's, or to this one's new value.
        await s.db
          .updateTable('enrollments')
          .set({ last_activity_at: NOW - 500 * DAY })
          .where('id', 'in', ['enr_a_15', 'enr_a_30', 'enr_a_31'])
          .execute();
        await check();
        await s.db
          .updateTable('enrollments')
          .set({ last_activity_at: null })
          .where('id', 'in', ['enr_a_45', 'enr_b_45', 'enr_a_33'])
          .execute();
        await check();
        // Many at once: every crs_b enrollment active today, then none ever.
        await s.db.updateTable('enrollments').set({ last_activity_at: NOW }).where('course_id', '=', 'crs_b').execute();
        await check();
        await s.db.updateTable('enrollments').set({ last_activity_at: null }).where('course_id', '=', 'crs_b').execute();
        await check();
        // The same value again changes nothing.
        await s.db
          .updateTable('enrollments')
          .set({ last_activity_at: NOW - 3 * DAY })
          .where('id', '=', 'enr_a_1')
          .execute();
        await check();
      });

      it('enrollments added, moved to another person, and deleted', async () => {
        await s.db
          .insertInto('enrollments')
          .values([
            enrollmentRow({ id: 'enr_new_1', site_id: 'site_a', person_id: id(0), course_id: 'crs_c', last_activity_at: NOW }),
            enrollmentRow({ id: 'enr_new_2', site_id: 'site_a', person_id: id(50), course_id: 'crs_c', last_activity_at: NOW - 40 * DAY }),
            enrollmentRow({ id: 'enr_new_3', site_id: 'site_a', person_id: id(4), course_id: 'crs_c', last_activity_at: null }),
          ])
          .execute();
        await check();
        // Moved: the old person may lose their latest, the new one gains it.
        await s.db
          .updateTable('enrollments')
          .set({ person_id: id(100) })
          .where('id', '=', 'enr_new_1')
          .execute();
        await s.db
          .updateTable('enrollments')
          .set({ person_id: id(2), last_activity_at: NOW - 2 * DAY })
          .where('id', '=', 'enr_b_9')
          .execute();
        await check();
        await s.db.deleteFrom('enrollments').where('id', '=', 'enr_new_1').execute();
        await s.db.deleteFrom('enrollments').where('course_id', '=', 'crs_a').where('person_id', '<', id(300)).execute();
        await check();
      });

      it('enrollments completed, revoked and restored, one and many in a statement, with their activity and without', async () => {
        // Each change must reach rows (the test before deleted crs_a's enrollments of the first 300 learners).
        const changes = async (query: { executeTakeFirst(): Promise<{ numUpdatedRows: bigint }> }, rows: number) =>
          expect(Number((await query.executeTakeFirst()).numUpdatedRows)).toBe(rows);
        const enrollments = s.db.updateTable('enrollments');
        // Completed: 310 and 311 (310 % 6 and 311 % 6 are not 0: none before), 313 with activity today.
        await changes(enrollments.set({ completed_at: NOW }).where('id', 'in', ['enr_a_310', 'enr_a_311']), 2);
        await changes(enrollments.set({ completed_at: NOW, last_activity_at: NOW }).where('id', '=', 'enr_a_313'), 1);
        await check();
        // Uncompleted: 312 and 318 held their only completed enrollment; 318's activity moves back 300 days.
        await changes(enrollments.set({ completed_at: null }).where('id', '=', 'enr_a_312'), 1);
        await changes(enrollments.set({ completed_at: null, last_activity_at: NOW - 300 * DAY }).where('id', '=', 'enr_a_318'), 1);
        await check();
        // Revoked, many in a statement (a student with two revoked enrollments counts once), then restored with activity.
        const between = (from: number, to: number) =>
          enrollments.where('site_id', '=', 'site_a').where('person_id', '>=', id(from)).where('person_id', '<', id(to));
        await changes(between(300, 420).set({ revoked_at: NOW }), 157);
        await check();
        await changes(
          between(300, 360)
            .set({ revoked_at: null, last_activity_at: NOW - 2 * DAY })
            .where('course_id', '=', 'crs_a'),
          58,
        );
        await check();
        // Access made timed (421, 422 and 424 hold crs_a alone, neither revoked nor completed): open for good no more, active for 421 and 422
        // while it lasts (both active today, so that even inactiveDays=1, which many match, counts them apart
        // from the days), ended for 424. Then only the end moves: no flag does.
        await changes(
          enrollments
            .set({ lifetime_access: 0, access_expires_at: NOW + 10 * DAY, last_activity_at: NOW })
            .where('id', 'in', ['enr_a_421', 'enr_a_422']),
          2,
        );
        await changes(
          enrollments
            .set({ lifetime_access: 0, access_expires_at: NOW - DAY, last_activity_at: NOW - 2 * DAY })
            .where('id', '=', 'enr_a_424'),
          1,
        );
        await check();
        const activeStudents = (await expected(s.db, { state: 'active' })).length;
        const activeInactive = (await expected(s.db, { state: 'active', inactiveDays: 1 })).length;
        expect((await expected(s.db, { state: 'active', inactiveDays: 30 })).length).toBeLessThan(activeInactive);
        await changes(enrollments.set({ access_expires_at: NOW + 20 * DAY }).where('id', 'in', ['enr_a_421', 'enr_a_422']), 2);
        await check();
        expect((await expected(s.db, { state: 'active' })).length).toBe(activeStudents);
      });

      it('a student’s role taken away, renamed and given back, one at a time and many in a statement', async () => {
        await s.db.deleteFrom('site_roles').where('site_id', '=', 'site_a').where('person_id', '=', id(301)).execute();
        await s.db
          .deleteFrom('site_roles')
          .where('site_id', '=', 'site_a')
          .where('person_id', 'in', [id(302), id(303), id(305)])
          .execute();
        await check();
        await s.db
          .insertInto('site_roles')
          .values([id(301), id(302), id(303)].map((p) => ({ site_id: 'site_a', person_id: p, role: 'student', created_at: NOW })))
          .execute();
        await check();
        await s.db
          .updateTable('site_roles')
          .set({ role: 'admin' })
          .where('site_id', '=', 'site_a')
          .where('person_id', '=', id(306))
          .execute();
        await check();
        await s.db
          .updateTable('site_roles')
          .set({ role: 'student' })
          .where('site_id', '=', 'site_a')
          .where('person_id', '=', id(306))
          .execute();
        // The lecturer, active yesterday, becomes a student too.
        await grantRole(s.db, 'site_a', 'per_lecturer', 'student');
        await check();
        expect(
          await s.db.selectFrom('student_activity').select('last_activity_at').where('person_id', '=', 'per_lecturer').execute(),
        ).toEqual([{ last_activity_at: NOW - DAY }]);
      });

      if (dialect === 'postgres') {
        it('concurrent connections raising and lowering one student’s activities leave the latest of them', async () => {
          // Person 402's two enrollments (crs_a, crs_b) set to values in a scrambled order, so that some
          // updates lower an enrollment's activity while another connection raises the other's.
          for (let round = 0; round < 10; round++) {
            await Promise.all(
              Array.from({ length: 16 }, (_, k) =>
                s.db.transaction().execute(async (trx) => {
                  await trx
                    .updateTable('enrollments')
                    .set({ last_activity_at: NOW + ((k * 7 + round * 5) % 16) * 1000 })
                    .where('id', '=', k % 2 === 0 ? 'enr_a_402' : 'enr_b_402')
                    .execute();
                  await sql`select pg_sleep(0.01)`.execute(trx);
                }),
              ),
            );
            const [kept402] = await s.db
              .selectFrom('student_activity')
              .select('last_activity_at')
              .where('person_id', '=', id(402))
              .execute();
            const [rows402] = await s.db
              .selectFrom('enrollments')
              .select((eb) => eb.fn.max('last_activity_at').as('at'))
              .where('site_id', '=', 'site_a')
              .where('person_id', '=', id(402))
              .execute();
            expect({ round, at: Number(kept402?.last_activity_at) }).toEqual({ round, at: Number(rows402?.at) });
          }
          await check();
        });
      }

      if (dialect === 'postgres')
        it('a student enrolled while their latest activity moves to a new day, either first: the second waits, and the course counts take both', async () => {
          const dayMoves = (i: number) => (trx: Kysely<Database>) =>
            trx.updateTable('enrollments').set({ last_activity_at: NOW }).where('id', '=', `enr_a_${i}`).execute();
          const enrolls = (i: number) => (trx: Kysely<Database>) =>
            trx
              .insertInto('enrollments')
              .values(enrollmentRow({ id: `enr_c_${i}`, site_id: 'site_a', person_id: id(i), course_id: 'crs_c' }))
              .execute();
          // Students 1201 and 1202: a crs_a enrollment last active 7 and 14 days ago, none in crs_c.
          expect(await secondWaitsForFirst(s.db, dayMoves(1201), enrolls(1201))).toBe(true);
          await check();
          expect(await secondWaitsForFirst(s.db, enrolls(1202), dayMoves(1202))).toBe(true);
          await check();
          const kept = await s.db
            .selectFrom('course_activity_days')
            .where('course_id', '=', 'crs_c')
            .where('day', '=', Math.floor(NOW / DAY))
            .select((eb) => eb.fn.sum<string>('n').as('n'))
            .executeTakeFirst();
          expect(Number(kept?.n)).toBeGreaterThanOrEqual(2);
        });

      if (dialect === 'postgres')
        it('a student’s enrollment completed while their latest activity moves to a new day, either first: the second waits, and the state counts take both; a change that moves no flag does not wait', async () => {
          // Two rows of one student, so that only the counts' lock can make one wait: the day moves with crs_b,
          // the completion is crs_a's.
          const dayMoves = (i: number) => (trx: Kysely<Database>) =>
            trx.updateTable('enrollments').set({ last_activity_at: NOW }).where('id', '=', `enr_b_${i}`).execute();
          const completes = (i: number) => (trx: Kysely<Database>) =>
            trx.updateTable('enrollments').set({ completed_at: NOW }).where('id', '=', `enr_a_${i}`).execute();
          // Students 1203, 1209 and 1221: crs_a neither completed nor revoked, last active weeks ago; crs_b never active.
          for (const i of [1203, 1209, 1221]) {
            const rows = await s.db
              .selectFrom('enrollments')
              .select(['id', 'completed_at', 'revoked_at', 'last_activity_at'])
              .where('id', 'in', [`enr_a_${i}`, `enr_b_${i}`])
              .orderBy('id')
              .execute();
            expect(
              rows.map((r) => [
                r.id,
                r.completed_at,
                r.revoked_at,
                r.last_activity_at === null ? null : Number(r.last_activity_at) < NOW - DAY,
              ]),
            ).toEqual([
              [`enr_a_${i}`, null, null, true],
              [`enr_b_${i}`, null, null, null],
            ]);
          }
          expect(await secondWaitsForFirst(s.db, dayMoves(1203), completes(1203))).toBe(true);
          await check();
          expect(await secondWaitsForFirst(s.db, completes(1209), dayMoves(1209))).toBe(true);
          await check();
          // A change of access that moves no flag locks nothing: it does not wait. crs_b's access made timed
          // first (it moves crs_b's count of access open for good, migration 043); then, while the day moves
          // with crs_a, only the end of crs_b's access moves: crs_a stays open for good, crs_b timed.
          const movesWithA = (i: number) => (trx: Kysely<Database>) =>
            trx.updateTable('enrollments').set({ last_activity_at: NOW }).where('id', '=', `enr_a_${i}`).execute();
          const endsAccess = (i: number, end: number) => (trx: Kysely<Database>) =>
            trx.updateTable('enrollments').set({ lifetime_access: 0, access_expires_at: end }).where('id', '=', `enr_b_${i}`).execute();
          await endsAccess(1221, NOW + 30 * DAY)(s.db);
          await check();
          expect(await secondWaitsForFirst(s.db, movesWithA(1221), endsAccess(1221, NOW + 40 * DAY))).toBe(false);
          await check();
        });

      it('a deleted person and a deleted site take their rows', async () => {
        // Both completed crs_a (one in six did) and hold a revoked enrollment: 702's crs_b as seeded, 390's
        // revoked by the test of states above. Their counts must go with them.
        const flagged = await s.db
          .selectFrom('student_figures')
          .select(['person_id', 'completed', 'revoked'])
          .where('site_id', '=', 'site_a')
          .where('person_id', 'in', [id(390), id(702)])
          .orderBy('person_id')
          .execute();
        expect(flagged.map((f) => [f.person_id, f.completed > 0, f.revoked > 0])).toEqual([
          [id(390), true, true],
          [id(702), true, true],
        ]);
        await s.db
          .deleteFrom('people')
          .where('id', 'in', [id(301), id(700), 'per_lecturer', id(390), id(702)])
          .execute();
        await check();
        expect(await s.db.selectFrom('student_activity').select('person_id').where('person_id', '=', id(700)).execute()).toEqual([]);
        expect(
          (await s.db.selectFrom('student_activity').select('person_id').where('site_id', '=', 'site_b').execute()).length,
        ).toBeGreaterThan(300);
        await s.db.deleteFrom('sites').where('id', '=', 'site_b').execute();
        expect(await s.db.selectFrom('student_activity').select('person_id').where('site_id', '=', 'site_b').execute()).toEqual([]);
        await check();
      });
    });
  });
}
