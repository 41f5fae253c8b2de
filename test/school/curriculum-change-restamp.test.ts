// A curriculum change through the repository (src/school/curriculum-stamp.ts) moves only the next lectures it
// changes when the course's next lectures followed its order before it: deleting a lecture moves the
// enrollments whose next lecture it was, each to the first lecture after it it has not completed; adding a
// lecture makes it the next lecture of those whose next lecture came after it or who had none left; adding a
// section moves nobody. The course stays stamped. When the next lectures did not follow the order before the
// change, the whole course is restamped. Either way every started enrollment's next lecture is the first
// lecture of the course, in curriculum order, it has not completed, on both stores.
import { CompiledQuery, type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { courseAnalytics } from '../../src/school/analytics.repository.js';
import { addLecture, addSection, deleteLecture } from '../../src/school/curriculum.repository.js';
import type { SiteScope } from '../../src/school/scope.js';
import type { Database } from '../../src/storage/schema.js';
import { INDEX as STARTED_BY_NEXT_LECTURE } from '../../src/storage/migrations/052-started-enrollments-by-next-lecture.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
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

async function versions(db: Kysely<Database>): Promise<{ version: number; stamped: number }> {
  const row = await db
    .selectFrom('curriculum_versions')
    .select(['version', 'stamped'])
    .where('course_id', '=', COURSE)
    .executeTakeFirstOrThrow();
  return { version: Number(row.version), stamped: Number(row.stamped) };
}

/**
 * The plans of the statements that move next lectures while `run` changes the curriculum: SQLite's EXPLAIN
 * QUERY PLAN, or PostgreSQL's EXPLAIN with sequential scans off (in a table this small a scan is cheapest).
 */
async function movePlans(db: Kysely<Database>, dialect: string, run: (db: Kysely<Database>) => Promise<unknown>): Promise<string[]> {
  const plans: string[] = [];
  for (const q of await queriesOf(db, 'update enrollments set next_lecture_id', run)) {
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

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`a curriculum change restamps only what it changed (${dialect})`, () => {
    let s: SchoolStore;
    let scope: SiteScope;
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      await seed(s.db);
      scope = { db: s.db, siteId: SITE };
      // Reading the figures stamps the course: its next lectures follow its order from here on.
      await courseAnalytics(scope, COURSE);
    });
    afterAll(() => s?.close());

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
