// Course analytics (GET /analytics/courses/{id}): enrolled, started (completed, active or with a completed
// lecture), completed, the completion rate, average progress (lectures completed over enrolled times
// lectures), and the lecture where most stop: among learners not done with the course who completed a
// lecture, the first lecture in course order (section position, lecture position, id) they have not
// completed; on a tie the earlier lecture. The answer comes from figures the triggers of migration 028
// keep; after every kind of change here it must equal what the rule computes from the enrollments,
// lectures and progress themselves, on both stores.
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CourseAnalytics, courseAnalytics } from '../../src/school/analytics.repository.js';
import { addLecture, deleteLecture, reorderCurriculum, sectionTree } from '../../src/school/curriculum.repository.js';
import type { SiteScope } from '../../src/school/scope.js';
import * as m028 from '../../src/storage/migrations/028-course-learning-counts.js';
import * as m052 from '../../src/storage/migrations/052-started-enrollments-by-next-lecture.js';
import * as m053 from '../../src/storage/migrations/053-enrollment-figures-per-statement.js';
import type { Database } from '../../src/storage/schema.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import {
  DAY,
  enrollmentRow,
  insertCourse,
  insertPerson,
  insertSite,
  openSchoolStore,
  type SchoolStore,
  TEST_NOW,
} from '../helpers/school-fixtures.js';

const NOW = TEST_NOW;
const COURSES = ['crs_a', 'crs_c'] as const;

/** The rule, computed here from the stored rows. */
async function rule(db: Kysely<Database>, courseId: string): Promise<CourseAnalytics> {
  const lectures = await db
    .selectFrom('lectures as l')
    .innerJoin('course_sections as s', 's.id', 'l.section_id')
    .where('l.course_id', '=', courseId)
    .select(['l.id', 'l.title', 's.position as sp', 'l.position as lp'])
    .execute();
  lectures.sort((a, b) => a.sp - b.sp || a.lp - b.lp || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const enrollments = await db.selectFrom('enrollments').where('course_id', '=', courseId).selectAll().execute();
  const progress = await db
    .selectFrom('lecture_progress')
    .where('enrollment_id', 'in', enrollments.map((e) => e.id).concat(['none']))
    .select(['enrollment_id', 'lecture_id'])
    .execute();
  const done = new Map<string, Set<string>>();
  for (const p of progress) done.set(p.enrollment_id, (done.get(p.enrollment_id) ?? new Set()).add(p.lecture_id));
  const enrolled = enrollments.length;
  const completed = enrollments.filter((e) => e.completed_at !== null).length;
  const started = enrollments.filter((e) => e.completed_at !== null || e.last_activity_at !== null || done.has(e.id)).length;
  const totalDone = progress.length;
  const stops = new Map<string, number>();
  for (const e of enrollments) {
    const mine = done.get(e.id);
    if (e.completed_at !== null || !mine) continue;
    const next = lectures.find((l) => !mine.has(l.id));
    if (next) stops.set(next.id, (stops.get(next.id) ?? 0) + 1);
  }
  let dropOff: CourseAnalytics['dropOff'] = null;
  for (const l of lectures) {
    const n = stops.get(l.id) ?? 0;
    if (n > 0 && (dropOff === null || n > dropOff.learners)) dropOff = { lectureId: l.id, title: l.title, learners: n };
  }
  return {
    enrolled,
    started,
    completed,
    completionRate: enrolled === 0 ? 0 : Math.round((completed / enrolled) * 1000) / 1000,
    averageProgressPercent: enrolled === 0 || lectures.length === 0 ? 0 : Math.round((totalDone * 100) / (enrolled * lectures.length)),
    dropOff,
  };
}

/** Every course's figures as answered and as the rule says. */
async function both(scope: SiteScope): Promise<{ answered: Array<CourseAnalytics | null>; rule: CourseAnalytics[] }> {
  const answered: Array<CourseAnalytics | null> = [];
  const computed: CourseAnalytics[] = [];
  for (const c of COURSES) {
    answered.push(await courseAnalytics(scope, c));
    computed.push(await rule(scope.db, c));
  }
  return { answered, rule: computed };
}

const lec = (course: string, section: number, i: number) => `lec_${course}_${section}_${i}`;

async function seedCourse(db: Kysely<Database>, siteId: string, course: string, sections: number[]): Promise<string[]> {
  await insertCourse(db, siteId, course);
  const order: string[] = [];
  for (const [s, count] of sections.entries()) {
    await db
      .insertInto('course_sections')
      .values({ id: `sec_${course}_${s}`, site_id: siteId, course_id: course, position: s, title: `Section ${s}` })
      .execute();
    for (let i = 0; i < count; i++) {
      await db
        .insertInto('lectures')
        .values({
          id: lec(course, s, i),
          site_id: siteId,
          course_id: course,
          section_id: `sec_${course}_${s}`,
          position: i,
          title: `Lecture ${s}.${i}`,
          duration_seconds: 300,
        })
        .execute();
      order.push(lec(course, s, i));
    }
  }
  return order;
}

const enr = (course: string, i: number) => `enr_${course}_${String(i).padStart(2, '0')}`;

/**
 * Forty learners of crs_a with seven lectures: none done, prefixes of every length, gaps (the second
 * lecture skipped), all done; some completed with lectures left, some active with none done, some revoked.
 */
async function seed(db: Kysely<Database>): Promise<void> {
  await insertSite(db, { id: 'site_a', name: 'A', origin: 'http://a.test', variant: 'A' });
  await insertSite(db, { id: 'site_b', name: 'B', origin: 'http://b.test', variant: 'A' });
  const orderA = await seedCourse(db, 'site_a', 'crs_a', [3, 4, 0]);
  const orderC = await seedCourse(db, 'site_a', 'crs_c', [2]);
  const orderB = await seedCourse(db, 'site_b', 'crs_b', [3]);
  for (let i = 0; i < 40; i++) await insertPerson(db, { id: `per_${i}`, email: `p${i}@a.test`, name: `Learner ${i}` });
  const enrollment = (course: string, i: number, siteId = 'site_a') =>
    enrollmentRow({
      id: enr(course, i),
      site_id: siteId,
      person_id: `per_${i}`,
      course_id: course,
      started_at: NOW - 100 * DAY,
      completed_at: i % 9 === 4 ? NOW - DAY : null,
      last_activity_at: i % 5 === 1 ? NOW - 3 * DAY : null,
      revoked_at: i % 11 === 7 ? NOW - DAY : null,
    });
  await db
    .insertInto('enrollments')
    .values(Array.from({ length: 40 }, (_, i) => enrollment('crs_a', i)))
    .execute();
  await db
    .insertInto('enrollments')
    .values(Array.from({ length: 10 }, (_, i) => enrollment('crs_c', i)))
    .execute();
  await db
    .insertInto('enrollments')
    .values(Array.from({ length: 6 }, (_, i) => enrollment('crs_b', i, 'site_b')))
    .execute();
  // Learner i of crs_a completed the first i % 8 lectures, without the second when i % 6 = 5.
  for (let i = 0; i < 40; i++) {
    const lectures = orderA.slice(0, i % 8).filter((_, k) => !(i % 6 === 5 && k === 1));
    const rows = lectures.map((l) => ({ site_id: 'site_a', enrollment_id: enr('crs_a', i), lecture_id: l, completed_at: NOW - DAY }));
    // Some one row at a time (a row trigger each), some in one statement.
    if (i % 2 === 0) for (const r of rows) await db.insertInto('lecture_progress').values(r).execute();
    else if (rows.length > 0) await db.insertInto('lecture_progress').values(rows).execute();
  }
  for (let i = 0; i < 10; i++)
    for (const l of orderC.slice(0, i % 3))
      await db
        .insertInto('lecture_progress')
        .values({ site_id: 'site_a', enrollment_id: enr('crs_c', i), lecture_id: l, completed_at: NOW })
        .execute();
  for (let i = 0; i < 6; i++)
    for (const l of orderB.slice(0, i % 3))
      await db
        .insertInto('lecture_progress')
        .values({ site_id: 'site_b', enrollment_id: enr('crs_b', i), lecture_id: l, completed_at: NOW })
        .execute();
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`course analytics from kept figures (${dialect})`, () => {
    let s: SchoolStore;
    let scope: SiteScope;
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      await seed(s.db);
      scope = { db: s.db, siteId: 'site_a' };
    });
    afterAll(() => s?.close());

    const expectRule = async () => {
      const { answered, rule } = await both(scope);
      expect(answered).toEqual(rule);
    };

    it('the figures of a seeded course equal the rule, and the rule is not trivial here', async () => {
      await expectRule();
      const a = await rule(s.db, 'crs_a');
      expect(a.enrolled).toBe(40);
      expect(a.started).toBeGreaterThan(a.completed);
      expect(a.started).toBeLessThan(a.enrolled);
      expect(a.dropOff?.learners).toBeGreaterThan(1);
      // The learners who skipped the second lecture stop there, not after their last.
      const stopped = await s.db
        .selectFrom('enrollments')
        .select('next_lecture_id')
        .where('id', '=', enr('crs_a', 5))
        .executeTakeFirstOrThrow();
      expect(stopped.next_lecture_id).toBe(lec('crs_a', 0, 1));
      expect(await courseAnalytics({ db: s.db, siteId: 'site_b' }, 'crs_b')).toEqual(await rule(s.db, 'crs_b'));
      expect(await courseAnalytics({ db: s.db, siteId: 'site_b' }, 'crs_a')).toBeNull();
    });

    it('follows lectures completed and uncompleted, one at a time and several in one statement', async () => {
      await s.db
        .insertInto('lecture_progress')
        .values([
          { site_id: 'site_a', enrollment_id: enr('crs_a', 5), lecture_id: lec('crs_a', 0, 1), completed_at: NOW },
          { site_id: 'site_a', enrollment_id: enr('crs_a', 0), lecture_id: lec('crs_a', 1, 3), completed_at: NOW },
          { site_id: 'site_a', enrollment_id: enr('crs_a', 0), lecture_id: lec('crs_a', 1, 2), completed_at: NOW },
        ])
        .execute();
      await expectRule();
      // The first lecture of someone with three: they stop at the first again.
      await s.db
        .deleteFrom('lecture_progress')
        .where('enrollment_id', '=', enr('crs_a', 3))
        .where('lecture_id', '=', lec('crs_a', 0, 0))
        .execute();
      // Every lecture of another.
      await s.db.deleteFrom('lecture_progress').where('enrollment_id', '=', enr('crs_a', 6)).execute();
      await expectRule();
      // A learner who completes every lecture but is not marked done stops nowhere.
      const all = (await sectionTree(scope, 'crs_a')).flatMap((sec) => sec.lectures.map((l) => l.id));
      const have = new Set(
        (await s.db.selectFrom('lecture_progress').select('lecture_id').where('enrollment_id', '=', enr('crs_a', 21)).execute()).map(
          (r) => r.lecture_id,
        ),
      );
      await s.db
        .insertInto('lecture_progress')
        .values(
          all
            .filter((l) => !have.has(l))
            .map((l) => ({ site_id: 'site_a', enrollment_id: enr('crs_a', 21), lecture_id: l, completed_at: NOW })),
        )
        .execute();
      const row = await s.db
        .selectFrom('enrollments')
        .select(['next_lecture_id', 'lectures_done'])
        .where('id', '=', enr('crs_a', 21))
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ next_lecture_id: null, lectures_done: all.length });
      await expectRule();
    });

    it('follows completion, activity, new and deleted enrollments', async () => {
      const update = s.db.updateTable('enrollments').where('site_id', '=', 'site_a');
      await update
        .set({ completed_at: NOW })
        .where('id', 'in', [enr('crs_a', 9), enr('crs_a', 10), enr('crs_a', 2)])
        .execute();
      await update.set({ completed_at: null }).where('id', '=', enr('crs_a', 13)).execute();
      await update
        .set({ last_activity_at: NOW })
        .where('id', 'in', [enr('crs_a', 8), enr('crs_a', 1)])
        .execute();
      await update.set({ last_activity_at: null }).where('id', '=', enr('crs_a', 11)).execute();
      await expectRule();
      await s.db
        .deleteFrom('enrollments')
        .where('id', 'in', [enr('crs_a', 12), enr('crs_a', 14), enr('crs_c', 2)])
        .execute();
      await insertPerson(s.db, { id: 'per_new', email: 'new@a.test', name: 'New' });
      await s.db
        .insertInto('enrollments')
        .values(enrollmentRow({ id: 'enr_new', site_id: 'site_a', person_id: 'per_new', course_id: 'crs_a' }))
        .execute();
      await expectRule();
      await s.db
        .insertInto('lecture_progress')
        .values({ site_id: 'site_a', enrollment_id: 'enr_new', lecture_id: lec('crs_a', 0, 0), completed_at: NOW })
        .execute();
      await expectRule();
    });

    it('follows the curriculum: a lecture added first and last, a lecture deleted, the sections and lectures reordered', async () => {
      const added = await addLecture(scope, 'sec_crs_a_0', { title: 'Welcome', durationSeconds: 60 }, 0);
      expect(added).not.toBeNull();
      await expectRule();
      expect((await courseAnalytics(scope, 'crs_a'))?.dropOff?.lectureId).toBe(added?.id);
      await addLecture(scope, 'sec_crs_a_2', { title: 'Epilogue', durationSeconds: 60 }, undefined);
      await expectRule();
      // The lecture most learners stop at, and one that many completed.
      await deleteLecture(scope, added!.id);
      await expectRule();
      await deleteLecture(scope, lec('crs_a', 0, 0));
      await expectRule();
      const tree = await sectionTree(scope, 'crs_a');
      const ids = tree.flatMap((sec) => sec.lectures.map((l) => l.id));
      // Sections reversed, and the lectures dealt out again: the last first, one moved across sections.
      const reordered = [...tree].reverse().map((sec, k) => ({
        id: sec.id,
        lectureIds:
          k === 0
            ? [ids.at(-1)!, ids[2]!]
            : k === 1
              ? [ids[3]!, ids[1]!, ids[4]!]
              : ids.filter((id) => ![ids.at(-1), ids[2], ids[3], ids[1], ids[4]].includes(id)),
      }));
      expect(await reorderCurriculum(scope, 'crs_a', reordered)).toEqual({ kind: 'reordered' });
      await expectRule();
    });

    it('a curriculum changed by a statement of its own (no repository) is restamped before figures are read', async () => {
      const first = await s.db
        .selectFrom('course_sections')
        .select('id')
        .where('course_id', '=', 'crs_a')
        .orderBy('position')
        .executeTakeFirstOrThrow();
      await s.db.updateTable('course_sections').set({ position: 99 }).where('id', '=', first.id).execute();
      await s.db
        .updateTable('lectures')
        .set({ position: -1 })
        .where('id', '=', lec('crs_a', 1, 3))
        .execute();
      const version = await s.db.selectFrom('curriculum_versions').selectAll().where('course_id', '=', 'crs_a').executeTakeFirstOrThrow();
      expect(Number(version.version)).toBeGreaterThan(Number(version.stamped));
      await expectRule();
      const stamped = await s.db.selectFrom('curriculum_versions').selectAll().where('course_id', '=', 'crs_a').executeTakeFirstOrThrow();
      expect(Number(stamped.stamped)).toBe(Number(stamped.version));
    });

    it('on a tie the earlier lecture is the one where most stop', async () => {
      await s.db.deleteFrom('lecture_progress').where('enrollment_id', 'like', 'enr_crs_c_%').execute();
      // Two learners stop at the second lecture, two at the first (they completed the second only).
      const [first, second] = (await sectionTree(scope, 'crs_c')).flatMap((sec) => sec.lectures.map((l) => l.id));
      const progress = (i: number, lecture: string) => ({
        site_id: 'site_a',
        enrollment_id: enr('crs_c', i),
        lecture_id: lecture,
        completed_at: NOW,
      });
      await s.db
        .insertInto('lecture_progress')
        .values([progress(0, first!), progress(1, first!), progress(3, second!), progress(5, second!)])
        .execute();
      const figures = await courseAnalytics(scope, 'crs_c');
      expect(figures?.dropOff).toEqual({ lectureId: first, title: 'Lecture 0.0', learners: 2 });
      await expectRule();
    });

    it('the figures of enrollments and progress that existed before migration 028 are counted by it', async () => {
      // Migrations 052 and 053 index and count 028's columns: a database from before 028 had neither.
      await m053.down(s.db);
      await m052.down(s.db);
      await m028.down(s.db);
      await s.db.deleteFrom('lecture_progress').where('enrollment_id', '=', enr('crs_a', 15)).execute();
      await s.db
        .insertInto('lecture_progress')
        .values({ site_id: 'site_a', enrollment_id: enr('crs_a', 16), lecture_id: lec('crs_a', 1, 3), completed_at: NOW })
        .onConflict((oc) => oc.doNothing())
        .execute();
      await s.db.updateTable('enrollments').set({ completed_at: NOW }).where('id', '=', enr('crs_a', 17)).execute();
      await m028.up(s.db);
      await m052.up(s.db);
      await m053.up(s.db);
      await expectRule();
    });

    if (dialect === 'postgres') {
      it('concurrent progress and completions on several connections each add to their own slot, and the figures stay right', async () => {
        const order = (await sectionTree(scope, 'crs_a')).flatMap((sec) => sec.lectures.map((l) => l.id));
        await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            s.db.transaction().execute(async (trx) => {
              await trx
                .insertInto('lecture_progress')
                .values(order.map((l) => ({ site_id: 'site_a', enrollment_id: enr('crs_a', 20 + i), lecture_id: l, completed_at: NOW })))
                .onConflict((oc) => oc.doNothing())
                .execute();
              await trx
                .updateTable('enrollments')
                .set({ completed_at: NOW })
                .where('id', '=', enr('crs_a', 30 + i))
                .execute();
            }),
          ),
        );
        const slots = await s.db.selectFrom('course_learning_counts').select('slot').distinct().where('course_id', '=', 'crs_a').execute();
        expect(slots.length).toBeGreaterThan(1);
        await expectRule();
      });
    }

    it('a deleted site takes its figures', async () => {
      await s.db.deleteFrom('sites').where('id', '=', 'site_b').execute();
      for (const table of ['course_learning_counts', 'course_stops', 'curriculum_versions'] as const)
        expect(await s.db.selectFrom(table).select('site_id').where('site_id', '=', 'site_b').execute()).toEqual([]);
    });
  });
}
