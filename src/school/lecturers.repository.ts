// Lecturer profiles and who teaches which course (CONTRACT 6 lecturers). A profile may name a person
// with an account at this site; the course's lecturers are an ordered list, replaced as a whole.
import { newId } from '../kernel/random.js';
import { type Page, type PageRequest, pageQuery, toPage } from './paging.js';
import type { SiteScope } from './scope.js';

export interface Lecturer {
  id: string;
  personId: string | null;
  name: string;
  headline: string;
  bio: string;
  courseIds: string[];
  createdAt: number;
  updatedAt: number | null;
}

export interface LecturerFields {
  personId?: string | null;
  name?: string;
  headline?: string;
  bio?: string;
}

const LIST = 'operator_lecturers';

async function withCourses(scope: SiteScope, rows: ReadonlyArray<Omit<Lecturer, 'courseIds'>>): Promise<Lecturer[]> {
  if (rows.length === 0) return [];
  const links = await scope.db
    .selectFrom('course_lecturers')
    .select(['lecturer_id', 'course_id'])
    .where('site_id', '=', scope.siteId)
    .where(
      'lecturer_id',
      'in',
      rows.map((r) => r.id),
    )
    .orderBy('course_id')
    .execute();
  return rows.map((r) => ({ ...r, courseIds: links.filter((l) => l.lecturer_id === r.id).map((l) => l.course_id) }));
}

function select(scope: SiteScope) {
  return scope.db
    .selectFrom('lecturers')
    .where('site_id', '=', scope.siteId)
    .select(['id', 'person_id as personId', 'name', 'headline', 'bio', 'created_at as createdAt', 'updated_at as updatedAt']);
}

export async function pageLecturers(scope: SiteScope, request: PageRequest): Promise<Page<Lecturer>> {
  const { size, after } = pageQuery(LIST, request);
  const rows = await select(scope)
    .$if(after !== null, (qb) =>
      qb.where((eb) =>
        eb.or([eb('created_at', '<', after?.sort ?? 0), eb.and([eb('created_at', '=', after?.sort ?? 0), eb('id', '<', after?.id ?? '')])]),
      ),
    )
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(size + 1)
    .execute();
  const items = await withCourses(scope, rows.slice(0, size));
  return toPage(LIST, items, size, (l) => ({ sort: l.createdAt, id: l.id }), rows.length > size);
}

export async function countLecturers(scope: SiteScope): Promise<number> {
  const row = await scope.db
    .selectFrom('lecturers')
    .where('site_id', '=', scope.siteId)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findLecturer(scope: SiteScope, id: string): Promise<Lecturer | null> {
  const row = await select(scope).where('id', '=', id).executeTakeFirst();
  return row ? ((await withCourses(scope, [row]))[0] ?? null) : null;
}

/** Whether the person holds a role at this site (a profile may only name someone known here). */
export async function isPersonHere(scope: SiteScope, personId: string): Promise<boolean> {
  const row = await scope.db
    .selectFrom('site_roles')
    .select('role')
    .where('site_id', '=', scope.siteId)
    .where('person_id', '=', personId)
    .executeTakeFirst();
  return row !== undefined;
}

export async function createLecturer(scope: SiteScope, fields: Required<LecturerFields>, now: number): Promise<string> {
  const id = newId('lct');
  await scope.db
    .insertInto('lecturers')
    .values({
      id,
      site_id: scope.siteId,
      person_id: fields.personId,
      name: fields.name,
      headline: fields.headline,
      bio: fields.bio,
      created_at: now,
      updated_at: null,
    })
    .execute();
  return id;
}

export async function updateLecturer(scope: SiteScope, id: string, fields: LecturerFields, now: number): Promise<boolean> {
  const result = await scope.db
    .updateTable('lecturers')
    .set({
      ...(fields.personId !== undefined ? { person_id: fields.personId } : {}),
      ...(fields.name !== undefined ? { name: fields.name } : {}),
      ...(fields.headline !== undefined ? { headline: fields.headline } : {}),
      ...(fields.bio !== undefined ? { bio: fields.bio } : {}),
      updated_at: now,
    })
    .where('site_id', '=', scope.siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Deletes a profile; the courses it taught lose it from their lecturers. */
export async function deleteLecturer(scope: SiteScope, id: string): Promise<boolean> {
  const result = await scope.db.deleteFrom('lecturers').where('site_id', '=', scope.siteId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The course's lecturers, in order. */
export async function courseLecturers(scope: SiteScope, courseId: string): Promise<Lecturer[]> {
  const rows = await scope.db
    .selectFrom('course_lecturers as cl')
    .innerJoin('lecturers as l', 'l.id', 'cl.lecturer_id')
    .where('cl.site_id', '=', scope.siteId)
    .where('cl.course_id', '=', courseId)
    .select(['l.id', 'l.person_id as personId', 'l.name', 'l.headline', 'l.bio', 'l.created_at as createdAt', 'l.updated_at as updatedAt'])
    .orderBy('cl.position')
    .execute();
  return withCourses(scope, rows);
}

/** Replaces the course's lecturers with these, in this order; answers the ids this site does not have. */
export async function setCourseLecturers(scope: SiteScope, courseId: string, lecturerIds: readonly string[]): Promise<string[]> {
  const known = lecturerIds.length
    ? await scope.db
        .selectFrom('lecturers')
        .select('id')
        .where('site_id', '=', scope.siteId)
        .where('id', 'in', [...lecturerIds])
        .execute()
    : [];
  const found = new Set(known.map((k) => k.id));
  const unknown = lecturerIds.filter((id) => !found.has(id));
  if (unknown.length > 0) return unknown;
  await scope.db.deleteFrom('course_lecturers').where('site_id', '=', scope.siteId).where('course_id', '=', courseId).execute();
  if (lecturerIds.length > 0)
    await scope.db
      .insertInto('course_lecturers')
      .values(
        lecturerIds.map((lecturerId, position) => ({ site_id: scope.siteId, course_id: courseId, lecturer_id: lecturerId, position })),
      )
      .execute();
  return [];
}
