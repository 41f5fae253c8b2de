// A course's curriculum as its operators shape it (CONTRACT 6 curriculum): sections in order, lectures in
// order within them. Positions are 0-based and dense after every change, so "in order" has one meaning.
import type { Expression, Kysely, Transaction } from 'kysely';
import { newId } from '../kernel/random.js';
import type { Database } from '../storage/schema.js';
import { restampForLectureAddition, restampForLectureDeletion, restampForOrderKept, restampForReorder } from './curriculum-stamp.js';
import type { SiteScope } from './scope.js';

/**
 * The lectures of one course at one site, as a subquery for a statement that names the course by a
 * column of its own (`sql.ref`): what every lecture count and length of a listing or an enrolment counts.
 */
export function lecturesOfCourse(db: Kysely<Database> | Transaction<Database>, siteId: string, course: Expression<string>) {
  return db.selectFrom('lectures as l').where('l.site_id', '=', siteId).where('l.course_id', '=', course);
}

export interface OutlineLecture {
  id: string;
  sectionId: string;
  position: number;
  title: string;
  durationSeconds: number;
}

export interface OutlineSection {
  id: string;
  position: number;
  title: string;
  lectures: OutlineLecture[];
}

export interface CourseOutline {
  courseId: string;
  title: string;
  sections: OutlineSection[];
}

/** A course's sections in order, each with its lectures in order: two queries, whatever the size. */
export async function sectionTree(scope: SiteScope, courseId: string): Promise<OutlineSection[]> {
  const [sections, lectures] = await Promise.all([
    scope.db
      .selectFrom('course_sections')
      .select(['id', 'position', 'title'])
      .where('site_id', '=', scope.siteId)
      .where('course_id', '=', courseId)
      .orderBy('position')
      .orderBy('id')
      .execute(),
    scope.db
      .selectFrom('lectures')
      .select(['id', 'section_id', 'position', 'title', 'duration_seconds'])
      .where('site_id', '=', scope.siteId)
      .where('course_id', '=', courseId)
      .orderBy('position')
      .orderBy('id')
      .execute(),
  ]);
  const bySection = new Map<string, OutlineLecture[]>();
  for (const l of lectures) {
    const list = bySection.get(l.section_id) ?? [];
    list.push({ id: l.id, sectionId: l.section_id, position: l.position, title: l.title, durationSeconds: l.duration_seconds });
    bySection.set(l.section_id, list);
  }
  return sections.map((s) => ({ id: s.id, position: s.position, title: s.title, lectures: bySection.get(s.id) ?? [] }));
}

/** The whole tree of a course in any state; null when the site has no such course. */
export async function courseOutline(scope: SiteScope, courseId: string): Promise<CourseOutline | null> {
  const course = await scope.db
    .selectFrom('courses')
    .select(['id', 'title'])
    .where('site_id', '=', scope.siteId)
    .where('id', '=', courseId)
    .executeTakeFirst();
  if (!course) return null;
  return { courseId: course.id, title: course.title, sections: await sectionTree(scope, courseId) };
}

/**
 * Appends a section at the end of the course (or at `position`, moving later ones down); null without the
 * course. Inside a write transaction, as deleteLecture.
 */
export async function addSection(scope: SiteScope, courseId: string, title: string, position: number | undefined): Promise<string | null> {
  const outline = await courseOutline(scope, courseId);
  if (!outline) return null;
  const ids = outline.sections.map((s) => s.id);
  const id = newId('sec');
  const restamp = await restampForOrderKept(scope, courseId);
  await scope.db
    .insertInto('course_sections')
    .values({ id, site_id: scope.siteId, course_id: courseId, position: ids.length, title })
    .execute();
  ids.splice(Math.min(position ?? ids.length, ids.length), 0, id);
  await renumber(scope, 'course_sections', ids);
  await restamp();
  return id;
}

export interface LectureDraft {
  title: string;
  durationSeconds: number;
}

/** Appends a lecture to a section (or at `position`); null when the site has no such section. Inside a write transaction, as deleteLecture. */
export async function addLecture(
  scope: SiteScope,
  sectionId: string,
  draft: LectureDraft,
  position: number | undefined,
): Promise<OutlineLecture | null> {
  const section = await scope.db
    .selectFrom('course_sections')
    .select(['id', 'course_id'])
    .where('site_id', '=', scope.siteId)
    .where('id', '=', sectionId)
    .executeTakeFirst();
  if (!section) return null;
  const ids = await lectureIdsOf(scope, sectionId);
  const id = newId('lec');
  const restamp = await restampForLectureAddition(scope, section.course_id);
  await scope.db
    .insertInto('lectures')
    .values({
      id,
      site_id: scope.siteId,
      course_id: section.course_id,
      section_id: sectionId,
      position: ids.length,
      title: draft.title,
      duration_seconds: draft.durationSeconds,
    })
    .execute();
  ids.splice(Math.min(position ?? ids.length, ids.length), 0, id);
  await renumber(scope, 'lectures', ids);
  await restamp(id);
  return findLecture(scope, id);
}

export async function findLecture(scope: SiteScope, id: string): Promise<(OutlineLecture & { courseId: string }) | null> {
  const row = await scope.db
    .selectFrom('lectures')
    .select(['id', 'course_id', 'section_id', 'position', 'title', 'duration_seconds'])
    .where('site_id', '=', scope.siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row
    ? {
        id: row.id,
        courseId: row.course_id,
        sectionId: row.section_id,
        position: row.position,
        title: row.title,
        durationSeconds: row.duration_seconds,
      }
    : null;
}

export async function updateLecture(scope: SiteScope, id: string, changes: Partial<LectureDraft>): Promise<boolean> {
  if (changes.title === undefined && changes.durationSeconds === undefined) return (await findLecture(scope, id)) !== null;
  const result = await scope.db
    .updateTable('lectures')
    .set({
      ...(changes.title !== undefined ? { title: changes.title } : {}),
      ...(changes.durationSeconds !== undefined ? { duration_seconds: changes.durationSeconds } : {}),
    })
    .where('site_id', '=', scope.siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Deletes a lecture and closes the gap it leaves; learners' progress on it goes with it. Inside a write
 * transaction (the operation wrapper's), so that no other change of the course comes between.
 */
export async function deleteLecture(scope: SiteScope, id: string): Promise<boolean> {
  const lecture = await findLecture(scope, id);
  if (!lecture) return false;
  const restamp = await restampForLectureDeletion(scope, lecture.courseId, id);
  await scope.db.deleteFrom('lectures').where('site_id', '=', scope.siteId).where('id', '=', id).execute();
  await renumber(scope, 'lectures', await lectureIdsOf(scope, lecture.sectionId));
  await restamp();
  return true;
}

export interface SectionOrder {
  id: string;
  lectureIds: string[];
}

export type ReorderResult = { kind: 'reordered' } | { kind: 'not_found' } | { kind: 'mismatch'; detail: string };

/**
 * Puts the whole curriculum in the given order in one call: every section of the course exactly once,
 * every lecture exactly once, in any section (a lecture may move between sections). Inside a write
 * transaction (the operation wrapper's), like every change of the curriculum.
 */
export async function reorderCurriculum(scope: SiteScope, courseId: string, order: readonly SectionOrder[]): Promise<ReorderResult> {
  const outline = await courseOutline(scope, courseId);
  if (!outline) return { kind: 'not_found' };
  const sectionIds = new Set(outline.sections.map((s) => s.id));
  const lectureIds = new Set(outline.sections.flatMap((s) => s.lectures.map((l) => l.id)));
  const givenSections = order.map((s) => s.id);
  const givenLectures = order.flatMap((s) => s.lectureIds);
  const sameSet = (given: string[], stored: Set<string>) =>
    given.length === stored.size && new Set(given).size === given.length && given.every((id) => stored.has(id));
  if (!sameSet(givenSections, sectionIds))
    return { kind: 'mismatch', detail: `sections must list each of the course's ${sectionIds.size} sections exactly once` };
  if (!sameSet(givenLectures, lectureIds))
    return { kind: 'mismatch', detail: `the sections' lectureIds must list each of the course's ${lectureIds.size} lectures exactly once` };
  const restamp = await restampForReorder(scope, courseId);
  await renumber(scope, 'course_sections', givenSections);
  for (const section of order) {
    for (const [position, id] of section.lectureIds.entries()) {
      await scope.db
        .updateTable('lectures')
        .set({ section_id: section.id, position })
        .where('site_id', '=', scope.siteId)
        .where('id', '=', id)
        .execute();
    }
  }
  await restamp();
  return { kind: 'reordered' };
}

async function lectureIdsOf(scope: SiteScope, sectionId: string): Promise<string[]> {
  const rows = await scope.db
    .selectFrom('lectures')
    .select('id')
    .where('site_id', '=', scope.siteId)
    .where('section_id', '=', sectionId)
    .orderBy('position')
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/** Positions 0..n-1 in the given order; rows already in place are not written. */
async function renumber(scope: SiteScope, table: 'course_sections' | 'lectures', ids: readonly string[]): Promise<void> {
  for (const [position, id] of ids.entries()) {
    await scope.db
      .updateTable(table)
      .set({ position })
      .where('site_id', '=', scope.siteId)
      .where('id', '=', id)
      .where('position', '!=', position)
      .execute();
  }
}
