// A curriculum change through the repository (src/school/curriculum-stamp.ts) moves only the next lectures it
// changes when the course's next lectures followed its order before it: deleting a lecture moves the
// enrollments whose next lecture it was, each to the first lecture after it it has not completed; adding a
// lecture makes it the next lecture of those whose next lecture came after it or who had none left; adding a
// section moves nobody; reordering moves the enrollments stopped at a lecture that another moved ahead of,
// each to the first of those it has not completed. The course stays stamped. When the next lectures did not
// follow the order before the change, the whole course is restamped. Either way every started enrollment's next lecture is the first
// lecture of the course, in curriculum order, it has not completed, on both stores.
import { CompiledQuery, type Kysely, sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { courseAnalytics } from '../../src/school/analytics.repository.js';
import {
  addLecture,
  addSection,
  courseOutline,
  deleteLecture,
  reorderCurriculum,
  type SectionOrder,
} from '../../src/school/curriculum.repository.js';
import { MOVE_CHUNK, REORDER_PAIRS_MAX } from '../../src/school/curriculum-stamp.js';
import type { SiteScope } from '../../src/school/scope.js';
import type { Database } from '../../src/storage/schema.js';
import { INDEX as STARTED_BY_NEXT_LECTURE } from '../../src/storage/migrations/052-started-enrollments-by-next-lecture.js';
import * as m053 from '../../src/storage/migrations/053-enrollment-figures-per-statement.js';
import { DIALECTS, skipDialect, type TestDialect } from '../helpers/dialects.js';
import { queriesOf } from '../helpers/sqlite-plans.js';
import {
  enrollmentRow,
  insertCourse,
  insertPerson,
  insertSite,
  openSchoolStore,
  type SchoolStore,
  TEST_NOW,
} from '../helpers/school-fixtures.js';

const SITE = 'site_del';
const COURSE = 'crs_del';
const lec = (section: number, i: number) => `lec_del_${section}_${i}`;
const enr = (i: number) => `enr_del_${String(i).padStart(2, '0')}`;
/** Two sections of four lectures, in course order. */
const ORDER = [0, 1].flatMap((s) => [0, 1, 2, 3].map((i) => lec(s, i)));

/**
 * Learner i completed: the first i % 9 lectures (none to all); learners 20-23 every lecture but the third
 * (lec_del_0_2), so they stop there with later ones done; learners 24-25 only the lectures after the third.
 */
function completedBy(i: number): string[] {
  if (i >= 24) return ORDER.slice(3);
  if (i >= 20) return ORDER.filter((id) => id !== lec(0, 2));
  return ORDER.slice(0, i % 9);
}
const LEARNERS = 26;

async function seed(db: Kysely<Database>): Promise<void> {
  await insertSite(db, { id: SITE, name: 'Deletion', origin: 'http://deletion.test', variant: 'A' });
  await insertCourse(db, SITE, COURSE);
  for (const s of [0, 1]) {
    await db
      .insertInto('course_sections')
      .values({ id: `sec_del_${s}`, site_id: SITE, course_id: COURSE, position: s, title: `Section ${s}` })
      .execute();
    for (const i of [0, 1, 2, 3])
      await db
        .insertInto('lectures')
        .values({
          id: lec(s, i),
          site_id: SITE,
          course_id: COURSE,
          section_id: `sec_del_${s}`,
          position: i,
          title: `L${s}.${i}`,
          duration_seconds: 60,
        })
        .execute();
  }
  for (let i = 0; i < LEARNERS; i++) {
    await insertPerson(db, { id: `per_del_${i}`, email: `del${i}@deletion.test`, name: `Learner ${i}` });
    await db
      .insertInto('enrollments')
      .values(enrollmentRow({ id: enr(i), site_id: SITE, person_id: `per_del_${i}`, course_id: COURSE }))
      .execute();
    const rows = completedBy(i).map((lecture_id) => ({ site_id: SITE, enrollment_id: enr(i), lecture_id, completed_at: TEST_NOW }));
    if (rows.length > 0) await db.insertInto('lecture_progress').values(rows).execute();
  }
}

/** Each enrollment's next lecture as stored, and as the rule says from the lectures and completions themselves. */
async function nextLectures(db: Kysely<Database>): Promise<{ stored: Map<string, string | null>; rule: Map<string, string | null> }> {
  const lectures = await db
    .selectFrom('lectures as l')
    .innerJoin('course_sections as s', 's.id', 'l.section_id')
    .where('l.course_id', '=', COURSE)
    .select(['l.id', 's.position as sp', 'l.position as lp'])
    .execute();
  lectures.sort((a, b) => a.sp - b.sp || a.lp - b.lp);
  const progress = await db.selectFrom('lecture_progress').where('site_id', '=', SITE).select(['enrollment_id', 'lecture_id']).execute();
  const enrollments = await db
    .selectFrom('enrollments')
    .where('course_id', '=', COURSE)
    .select(['id', 'next_lecture_id', 'lectures_done'])
    .execute();
  const stored = new Map<string, string | null>();
  const rule = new Map<string, string | null>();
  for (const e of enrollments) {
    const done = new Set(progress.filter((p) => p.enrollment_id === e.id).map((p) => p.lecture_id));
    stored.set(e.id, e.next_lecture_id);
    rule.set(e.id, done.size === 0 ? null : (lectures.find((l) => !done.has(l.id))?.id ?? null));
  }
  return { stored, rule };
}

/**
 * The course's figures as migration 028's triggers keep them (summed over slots) against the enrollments
 * themselves: every change's moves are counted, on PostgreSQL once per statement (migration 053).
 */
async function expectFiguresAgree(db: Kysely<Database>): Promise<void> {
  const enrollments = await db
    .selectFrom('enrollments')
    .where('course_id', '=', COURSE)
    .select(['next_lecture_id', 'lectures_done', 'completed_at', 'last_activity_at'])
    .execute();
  const stops = new Map<string, number>();
  for (const e of enrollments)
    if (e.completed_at === null && e.next_lecture_id !== null) stops.set(e.next_lecture_id, (stops.get(e.next_lecture_id) ?? 0) + 1);
  const kept = await db
    .selectFrom('course_stops')
    .where('course_id', '=', COURSE)
    .select((eb) => ['lecture_id', eb.fn.sum<number>('n').as('n')])
    .groupBy('lecture_id')
    .execute();
  expect(new Map(kept.filter((r) => Number(r.n) !== 0).map((r) => [r.lecture_id, Number(r.n)]))).toEqual(stops);
  const counts = await db
    .selectFrom('course_learning_counts')
    .where('course_id', '=', COURSE)
    .select((eb) => [eb.fn.sum<number>('started').as('started'), eb.fn.sum<number>('lectures_done').as('done')])
    .executeTakeFirstOrThrow();
  const started = enrollments.filter((e) => e.completed_at !== null || e.last_activity_at !== null || e.lectures_done > 0).length;
  expect({ started: Number(counts.started), done: Number(counts.done) }).toEqual({
    started,
    done: enrollments.reduce((sum, e) => sum + e.lectures_done, 0),
  });
}

async function versions(db: Kysely<Database>): Promise<{ version: number; stamped: number }> {
  const row = await db
    .selectFrom('curriculum_versions')
    .select(['version', 'stamped'])
    .where('course_id', '=', COURSE)
    .executeTakeFirstOrThrow();
  return { version: Number(row.version), stamped: Number(row.stamped) };
}

/**
 * The plans of the statements that find the enrollments to move while `run` changes the curriculum: SQLite's EXPLAIN
 * QUERY PLAN, or PostgreSQL's EXPLAIN with sequential scans off (in a table this small a scan is cheapest).
 */
async function movePlans(db: Kysely<Database>, dialect: string, run: (db: Kysely<Database>) => Promise<unknown>): Promise<string[]> {
  const plans: string[] = [];
  // PostgreSQL reads the enrollments to move first (MOVE_CHUNK a statement), SQLite finds them in its update.
  const marker = dialect === 'sqlite' ? 'update enrollments set next_lecture_id' : 'select id from enrollments';
  for (const q of await queriesOf(db, marker, run)) {
    if (dialect === 'sqlite') {
      const r = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${q.sql}`, [...q.parameters]));
      plans.push(r.rows.map((row) => row.detail).join(' | '));
    } else {
      plans.push(
        await db.transaction().execute(async (tx) => {
          // As a deployment's autovacuum would: without statistics every index looks alike for a row or two.
          await sql`analyze enrollments`.execute(tx);
          await sql`set local enable_seqscan = off`.execute(tx);
          const r = await tx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${q.sql}`, [...q.parameters]));
          return r.rows.map((row) => row['QUERY PLAN']).join(' | ');
        }),
      );
    }
  }
  return plans;
}

/** A fresh store with the seed, its course stamped: reading the figures stamps it, so its next lectures follow its order. */
async function openStampedCourse(dialect: TestDialect): Promise<{ s: SchoolStore; scope: SiteScope }> {
  const s = await openSchoolStore(dialect);
  await seed(s.db);
  const scope = { db: s.db, siteId: SITE };
  await courseAnalytics(scope, COURSE);
  return { s, scope };
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`a curriculum change restamps only what it changed (${dialect})`, () => {
    let s: SchoolStore;
    let scope: SiteScope;
    beforeAll(async () => ({ s, scope } = await openStampedCourse(dialect)));
    afterAll(() => s?.close());
    afterEach(() => expectFiguresAgree(s.db));

    it('the seeded next lectures follow the rule, and learners stop at the third lecture with later ones done', async () => {
      const { stored, rule } = await nextLectures(s.db);
      expect(stored).toEqual(rule);
      expect(stored.get(enr(3))).toBe(lec(0, 3));
      for (const i of [20, 21, 22, 23, 24, 25]) expect(stored.get(enr(i))).toBe(i >= 24 ? lec(0, 0) : lec(0, 2));
      expect(await versions(s.db)).toMatchObject({ stamped: (await versions(s.db)).version });
    });

    it('moves the learners stopped at a deleted lecture to the first lecture after it they have not completed, and touches no other enrollment', async () => {
      // A next lecture made wrong on purpose: only a whole restamp would put it right.
      await s.db
        .updateTable('enrollments')
        .set({ next_lecture_id: lec(1, 3) })
        .where('id', '=', enr(1))
        .execute();
      await s.db.transaction().execute((trx) => deleteLecture({ db: trx, siteId: SITE }, lec(0, 2)));
      const { stored, rule } = await nextLectures(s.db);
      // Stopped there with every later lecture done: nothing left.
      for (const i of [20, 21, 22, 23]) expect(stored.get(enr(i))).toBeNull();
      // Stopped there (two lectures done before it): the next one, now in its place.
      expect(stored.get(enr(2))).toBe(lec(0, 3));
      // Completed it: moved by the completion's removal.
      expect(stored.get(enr(8))).toBeNull();
      expect(stored.get(enr(5))).toBe(lec(1, 1));
      expect(stored.get(enr(1))).toBe(lec(1, 3));
      rule.set(enr(1), lec(1, 3));
      expect(stored).toEqual(rule);
      const after = await versions(s.db);
      expect(after.stamped).toBe(after.version);
      // The course's figures agree: nobody is counted as stopped at a lecture that no longer exists.
      const figures = await courseAnalytics(scope, COURSE);
      expect(figures?.dropOff?.lectureId).not.toBe(lec(0, 2));
      await s.db
        .updateTable('enrollments')
        .set({ next_lecture_id: lec(0, 1) })
        .where('id', '=', enr(1))
        .execute();
    });

    it('moves learners to a later section when the deleted lecture was the last of its own', async () => {
      await s.db.transaction().execute((trx) => deleteLecture({ db: trx, siteId: SITE }, lec(0, 3)));
      const { stored, rule } = await nextLectures(s.db);
      expect(stored).toEqual(rule);
      expect(stored.get(enr(3))).toBe(lec(1, 0));
      expect(await versions(s.db)).toMatchObject({ stamped: (await versions(s.db)).version });
    });

    it('restamps the whole course when its next lectures did not follow its order before the delete', async () => {
      // A curriculum change that nothing has restamped yet, and a next lecture made wrong on purpose.
      await s.db.updateTable('lectures').set({ position: 9 }).where('id', '=', lec(1, 0)).execute();
      await s.db
        .updateTable('enrollments')
        .set({ next_lecture_id: lec(1, 3) })
        .where('id', '=', enr(1))
        .execute();
      const before = await versions(s.db);
      expect(before.version).toBeGreaterThan(before.stamped);
      await s.db.transaction().execute((trx) => deleteLecture({ db: trx, siteId: SITE }, lec(1, 1)));
      const { stored, rule } = await nextLectures(s.db);
      expect(stored).toEqual(rule);
      expect(stored.get(enr(1))).toBe(lec(0, 1));
      expect(await versions(s.db)).toMatchObject({ stamped: (await versions(s.db)).version });
    });

    /** Sets an enrollment's next lecture wrong on purpose (only a whole restamp would put it right); `undo` sets it as the rule says then. */
    const misplace = async (enrollment: string, lecture: string) => {
      await s.db.updateTable('enrollments').set({ next_lecture_id: lecture }).where('id', '=', enrollment).execute();
      return async () => {
        const { rule } = await nextLectures(s.db);
        await s.db
          .updateTable('enrollments')
          .set({ next_lecture_id: rule.get(enrollment) ?? null })
          .where('id', '=', enrollment)
          .execute();
      };
    };

    it('adding a lecture makes it the next lecture of the learners whose next lecture came after it or who had none left, and of no one else', async () => {
      const undo = await misplace(enr(3), lec(0, 0));
      const before = (await nextLectures(s.db)).stored;
      const added = await s.db
        .transaction()
        .execute((trx) => addLecture({ db: trx, siteId: SITE }, 'sec_del_1', { title: 'New', durationSeconds: 60 }, 0));
      const { stored, rule } = await nextLectures(s.db);
      expect(stored.get(enr(3))).toBe(lec(0, 0));
      expect(rule.get(enr(3))).toBe(added?.id);
      rule.set(enr(3), lec(0, 0));
      expect(stored).toEqual(rule);
      // Those who had every lecture done, and those stopped in the later section, now stop at the new one.
      const moved = [...stored].filter(([id, next]) => next === added?.id && before.get(id) !== added?.id).map(([id]) => id);
      expect(moved).toEqual(expect.arrayContaining([enr(8), enr(20), enr(5)]));
      expect(stored.get(enr(24))).toBe(lec(0, 0));
      expect(stored.get(enr(1))).toBe(lec(0, 1));
      expect(stored.get(enr(0))).toBeNull();
      expect(await versions(s.db)).toMatchObject({ stamped: (await versions(s.db)).version });
      await undo();
      expect((await nextLectures(s.db)).stored).toEqual((await nextLectures(s.db)).rule);
    });

    it('adding a lecture at the end of the course moves only the learners who had none left', async () => {
      const added = await s.db
        .transaction()
        .execute((trx) => addLecture({ db: trx, siteId: SITE }, 'sec_del_1', { title: 'Last', durationSeconds: 60 }, undefined));
      const { stored, rule } = await nextLectures(s.db);
      expect(stored).toEqual(rule);
      expect(stored.get(enr(8))).not.toBe(added?.id);
      expect(await versions(s.db)).toMatchObject({ stamped: (await versions(s.db)).version });
    });

    it('adding a section moves nobody and leaves the course stamped', async () => {
      const undo = await misplace(enr(3), lec(0, 0));
      const before = (await nextLectures(s.db)).stored;
      const version = (await versions(s.db)).version;
      await s.db.transaction().execute((trx) => addSection({ db: trx, siteId: SITE }, COURSE, 'Between', 1));
      expect((await nextLectures(s.db)).stored).toEqual(before);
      const after = await versions(s.db);
      expect(after.version).toBeGreaterThan(version);
      expect(after.stamped).toBe(after.version);
      await undo();
    });

    it('each change reads the enrollments it moves through migration 052’s index, not every enrollment of the course', async () => {
      const added = await movePlans(s.db, dialect, (db) =>
        addLecture({ db, siteId: SITE }, 'sec_del_0', { title: 'Middle', durationSeconds: 60 }, 1),
      );
      const deleted = await movePlans(s.db, dialect, (db) => deleteLecture({ db, siteId: SITE }, lec(0, 1)));
      // Adding: those with none left, and those stopped after it; deleting: those stopped at it.
      expect(added).toHaveLength(2);
      expect(deleted).toHaveLength(1);
      for (const plan of [...added, ...deleted]) expect(plan).toContain(STARTED_BY_NEXT_LECTURE);
      const { stored, rule } = await nextLectures(s.db);
      expect(stored).toEqual(rule);
    });
  });
}

/** The course's sections and lectures in their order now, as reorderCurriculum takes them. */
async function currentOrder(scope: SiteScope): Promise<SectionOrder[]> {
  const outline = await courseOutline(scope, COURSE);
  return (outline?.sections ?? []).map((section) => ({ id: section.id, lectureIds: section.lectures.map((l) => l.id) }));
}

/** The same sections with `moved` taken out of its own and put first in the first. */
function toFront(sections: readonly SectionOrder[], moved: string): SectionOrder[] {
  return sections.map((section, k) => ({
    id: section.id,
    lectureIds: [...(k === 0 ? [moved] : []), ...section.lectureIds.filter((id) => id !== moved)],
  }));
}

/** A deterministic sequence in [0, 1) (mulberry32), so a failing order can be replayed. */
function numbers(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`a reorder moves only the learners stopped where a lecture moved ahead (${dialect})`, () => {
    let s: SchoolStore;
    let scope: SiteScope;
    beforeAll(async () => ({ s, scope } = await openStampedCourse(dialect)));
    afterAll(() => s?.close());
    afterEach(() => expectFiguresAgree(s.db));

    const reorder = (order: SectionOrder[]) =>
      s.db.transaction().execute((trx) => reorderCurriculum({ db: trx, siteId: SITE }, COURSE, order));
    /** Sets an enrollment's next lecture wrong on purpose: only a whole restamp, or a move of that stop, would put it right. */
    const misplace = (enrollment: string, lecture: string) =>
      s.db.updateTable('enrollments').set({ next_lecture_id: lecture }).where('id', '=', enrollment).execute();
    const putRight = async (enrollment: string) => {
      const { rule } = await nextLectures(s.db);
      await s.db
        .updateTable('enrollments')
        .set({ next_lecture_id: rule.get(enrollment) ?? null })
        .where('id', '=', enrollment)
        .execute();
    };
    const expectStamped = async () => expect(await versions(s.db)).toMatchObject({ stamped: (await versions(s.db)).version });

    it('moving a lecture later moves only the learners stopped at it, to the first lecture it passed they have not completed', async () => {
      // Nothing moves ahead of the first lecture, so a wrong next lecture there stays wrong.
      await misplace(enr(5), lec(0, 0));
      const [first, second] = await currentOrder(scope);
      if (!first || !second) throw new Error('the seed has two sections');
      // The third lecture of the first section goes to the end of the second.
      const moved = lec(0, 2);
      await reorder([
        { id: first.id, lectureIds: first.lectureIds.filter((id) => id !== moved) },
        { id: second.id, lectureIds: [...second.lectureIds, moved] },
      ]);
      const { stored, rule } = await nextLectures(s.db);
      // Stopped at it with the lectures after it done: stopped at it still, now last.
      for (const i of [20, 21, 22, 23]) expect(stored.get(enr(i))).toBe(moved);
      // Stopped at it with nothing after it done: the lecture that took its place.
      expect(stored.get(enr(2))).toBe(lec(0, 3));
      expect(stored.get(enr(5))).toBe(lec(0, 0));
      expect(rule.get(enr(5))).toBe(lec(1, 1));
      rule.set(enr(5), lec(0, 0));
      expect(stored).toEqual(rule);
      await expectStamped();
      await putRight(enr(5));
    });

    it('moving a lecture earlier makes it the next lecture of the learners stopped at a lecture it passed who have not completed it', async () => {
      const [first, second] = await currentOrder(scope);
      if (!first || !second) throw new Error('the seed has two sections');
      // The last lecture of the course (lec_del_0_2, moved there above) goes back to the front.
      const moved = second.lectureIds.at(-1) as string;
      await reorder([
        { id: first.id, lectureIds: [moved, ...first.lectureIds] },
        { id: second.id, lectureIds: second.lectureIds.slice(0, -1) },
      ]);
      const { stored, rule } = await nextLectures(s.db);
      expect(stored).toEqual(rule);
      // Those who never completed it stop there now, wherever they were.
      for (const i of [1, 2, 20, 24]) expect(stored.get(enr(i))).toBe(moved);
      // Completed it: where they were.
      expect(stored.get(enr(4))).toBe(lec(1, 0));
      await expectStamped();
    });

    it('follows sections swapped, lectures moved between sections and the whole course reversed', async () => {
      const [first, second] = await currentOrder(scope);
      if (!first || !second) throw new Error('the seed has two sections');
      await reorder([second, first]);
      expect((await nextLectures(s.db)).stored).toEqual((await nextLectures(s.db)).rule);
      await reorder([
        { id: second.id, lectureIds: [...second.lectureIds.slice(2), ...first.lectureIds.slice(0, 1)] },
        { id: first.id, lectureIds: [...first.lectureIds.slice(1), ...second.lectureIds.slice(0, 2)] },
      ]);
      expect((await nextLectures(s.db)).stored).toEqual((await nextLectures(s.db)).rule);
      const now = await currentOrder(scope);
      await reorder(now.reverse().map((section) => ({ id: section.id, lectureIds: [...section.lectureIds].reverse() })));
      const { stored, rule } = await nextLectures(s.db);
      expect(stored).toEqual(rule);
      await expectStamped();
    });

    it('keeps every next lecture at the rule through thirty random orders', async () => {
      const random = numbers(12);
      for (let round = 0; round < 30; round++) {
        const sections = await currentOrder(scope);
        const lectures = sections.flatMap((section) => section.lectureIds);
        for (let i = lectures.length - 1; i > 0; i--) {
          const j = Math.floor(random() * (i + 1));
          [lectures[i], lectures[j]] = [lectures[j] as string, lectures[i] as string];
        }
        const cut = Math.floor(random() * (lectures.length + 1));
        const order = random() < 0.5 ? sections : [...sections].reverse();
        await reorder(order.map((section, k) => ({ id: section.id, lectureIds: k === 0 ? lectures.slice(0, cut) : lectures.slice(cut) })));
        const { stored, rule } = await nextLectures(s.db);
        expect({ round, stored }).toEqual({ round, stored: rule });
      }
      await expectStamped();
    });

    it('counts the moves the same with migration 053 taken back (one row at a time on PostgreSQL) and put back', async () => {
      const sections = await currentOrder(scope);
      const lectures = sections.flatMap((section) => section.lectureIds);
      const reversed = sections.map((section, k) => ({
        id: section.id,
        lectureIds: k === 0 ? [...lectures].reverse() : [],
      }));
      await m053.down(s.db);
      try {
        await reorder(reversed);
        await expectFiguresAgree(s.db);
      } finally {
        await m053.up(s.db);
      }
      await reorder(sections);
      const { stored, rule } = await nextLectures(s.db);
      expect(stored).toEqual(rule);
    });

    it('restamps the whole course when its next lectures did not follow its order before the reorder', async () => {
      await s.db.updateTable('lectures').set({ position: 9 }).where('id', '=', lec(1, 0)).execute();
      const [first] = await currentOrder(scope);
      await misplace(enr(3), first?.lectureIds[0] as string);
      const before = await versions(s.db);
      expect(before.version).toBeGreaterThan(before.stamped);
      await reorder(await currentOrder(scope));
      const { stored, rule } = await nextLectures(s.db);
      expect(stored).toEqual(rule);
      await expectStamped();
    });

    it('reads the enrollments it moves through migration 052’s index, one statement per lecture passed', async () => {
      const sections = await currentOrder(scope);
      const lectures = sections.flatMap((section) => section.lectureIds);
      // The course's last lecture to the front: it passes every other one.
      const moved = lectures.at(-1) as string;
      const order = toFront(sections, moved);
      const plans = await movePlans(s.db, dialect, (db) => reorderCurriculum({ db, siteId: SITE }, COURSE, order));
      expect(plans).toHaveLength(lectures.length - 1);
      for (const plan of plans) expect(plan).toContain(STARTED_BY_NEXT_LECTURE);
      const { stored, rule } = await nextLectures(s.db);
      expect(stored).toEqual(rule);
    });

    it('restamps the whole course in one statement when a reorder passes more lectures than it is worth moving stop by stop', async () => {
      // Enough lectures that reversing them makes more (stop, lecture passed) pairs than the bound.
      const count = Math.ceil(Math.sqrt(2 * REORDER_PAIRS_MAX)) + 2;
      const sections = await currentOrder(scope);
      const last = sections.at(-1) as SectionOrder;
      const extra = Array.from({ length: count }, (_, i) => `lec_del_x_${String(i).padStart(3, '0')}`);
      await s.db
        .insertInto('lectures')
        .values(
          extra.map((id, i) => ({
            id,
            site_id: SITE,
            course_id: COURSE,
            section_id: last.id,
            position: last.lectureIds.length + i,
            title: id,
            duration_seconds: 60,
          })),
        )
        .execute();
      await courseAnalytics(scope, COURSE);
      const reversed = (await currentOrder(scope))
        .reverse()
        .map((section) => ({ id: section.id, lectureIds: [...section.lectureIds].reverse() }));
      const statements = await queriesOf(s.db, 'update enrollments set next_lecture_id', (db) =>
        db.transaction().execute((trx) => reorderCurriculum({ db: trx, siteId: SITE }, COURSE, reversed)),
      );
      expect(statements).toHaveLength(1);
      expect(statements[0]?.sql).toContain('with ranked');
      const { stored, rule } = await nextLectures(s.db);
      expect(stored).toEqual(rule);
      await expectStamped();
    });

    it('moves more learners stopped at one lecture than one statement may on PostgreSQL, MOVE_CHUNK a statement, and SQLite in one', async () => {
      const sections = await currentOrder(scope);
      const lectures = sections.flatMap((section) => section.lectureIds);
      // More learners than a statement moves, each with the course's first lecture done: they stop at its second.
      const count = MOVE_CHUNK + 10;
      // Set-based, 500 a statement: each completion's trigger finds its learner's next lecture among the course's many.
      const numbers = (from: number, to: number) =>
        dialect === 'sqlite'
          ? sql`with recursive r(n) as (select ${sql.lit(from)} union all select n + 1 from r where n < ${sql.lit(to)}) select n from r`
          : sql`select g as n from generate_series(${sql.lit(from)}, ${sql.lit(to)}) g`;
      const row = enrollmentRow({ id: '', site_id: SITE, person_id: '', course_id: COURSE });
      for (let from = 1; from <= count; from += 500) {
        const part = numbers(from, Math.min(count, from + 499));
        await sql`insert into people (id, email, name, picture_url, password_hash, created_at)
          select 'per_del_m' || n, 'm' || n || '@deletion.test', 'Many ' || n, null, 'none', ${TEST_NOW} from (${part}) t`.execute(s.db);
        await sql`insert into enrollments (id, site_id, person_id, course_id, started_at, access_expires_at, lifetime_access, completed_at,
            last_lecture_id, last_position_seconds, last_activity_at, revoked_at)
          select 'enr_del_m' || n, ${SITE}, 'per_del_m' || n, ${COURSE}, ${row.started_at}, null, ${row.lifetime_access}, null, null, null, null, null
          from (${part}) t`.execute(s.db);
        await sql`insert into lecture_progress (site_id, enrollment_id, lecture_id, completed_at)
          select ${SITE}, 'enr_del_m' || n, ${lectures[0]}, ${TEST_NOW} from (${part}) t`.execute(s.db);
      }
      const moved = lectures.at(-1) as string;
      const stops = await s.db
        .selectFrom('enrollments')
        .where('course_id', '=', COURSE)
        .where('lectures_done', '>', 0)
        .where('next_lecture_id', 'is not', null)
        .where('next_lecture_id', '!=', moved)
        .select((eb) => ['next_lecture_id', eb.fn.countAll<number>().as('n')])
        .groupBy('next_lecture_id')
        .execute();
      expect(stops.find((stop) => stop.next_lecture_id === lectures[1])?.n).toBeGreaterThan(MOVE_CHUNK);
      const order = toFront(sections, moved);
      const statements = await queriesOf(s.db, 'update enrollments set next_lecture_id', (db) =>
        db.transaction().execute((trx) => reorderCurriculum({ db: trx, siteId: SITE }, COURSE, order)),
      );
      // SQLite moves each overtaken stop in one statement, found or not; PostgreSQL those it found, MOVE_CHUNK a statement.
      expect(statements).toHaveLength(
        dialect === 'sqlite' ? lectures.length - 1 : stops.reduce((sum, stop) => sum + Math.ceil(Number(stop.n) / MOVE_CHUNK), 0),
      );
      const { stored, rule } = await nextLectures(s.db);
      expect(stored).toEqual(rule);
      expect(stored.get('enr_del_m1')).toBe(moved);
      // A whole restamp (a change nothing has restamped yet) goes MOVE_CHUNK started enrollments a statement too.
      await s.db.updateTable('lectures').set({ position: 999 }).where('id', '=', moved).execute();
      const started = stops.reduce((sum, stop) => sum + Number(stop.n), 0);
      const whole = await queriesOf(s.db, 'with ranked', (db) =>
        db.transaction().execute((trx) => reorderCurriculum({ db: trx, siteId: SITE }, COURSE, order)),
      );
      expect(whole).toHaveLength(dialect === 'sqlite' ? 1 : Math.ceil(started / MOVE_CHUNK));
      const after = await nextLectures(s.db);
      expect(after.stored).toEqual(after.rule);
      await expectStamped();
    });
  });
}
