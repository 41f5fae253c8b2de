// Operator operations of the lecturers family (CONTRACT 6 lecturers, scopes lecturers:*): profiles, and
// the ordered list of who teaches a course.
import { z } from 'zod';
import { courseExists } from '../../school/course-lifecycle.repository.js';
import {
  countLecturers,
  courseLecturers,
  createLecturer,
  deleteLecturer,
  findLecturer,
  isPersonHere,
  type Lecturer,
  pageLecturers,
  setCourseLecturers,
  updateLecturer,
} from '../../school/lecturers.repository.js';
import { instant, instantOrNull, iso, isoOrNull, pagedOutput, pageInput, pageRequest, paged } from '../lists.js';
import { defineOperation, type Operation, type OperationContext, OperationError, READ_ONLY } from '../operation.js';
import { siteScope } from './site-scope.js';

const lecturer = z.object({
  id: z.string(),
  personId: z.string().nullable().describe('The lecturer’s account at this school, when they have one.'),
  name: z.string(),
  headline: z.string(),
  bio: z.string(),
  courseIds: z.array(z.string()).describe('The courses they teach.'),
  createdAt: instant('When the profile was created'),
  updatedAt: instantOrNull('When the profile last changed'),
});

function lecturerOut(l: Lecturer): z.output<typeof lecturer> {
  return { ...l, createdAt: iso(l.createdAt), updatedAt: isoOrNull(l.updatedAt) };
}

const TEXT = ['lecturer.name', 'lecturer.headline', 'lecturer.bio'];
const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;
const lecturerId = z.string().min(1).max(64).describe('The lecturer id (lct_…).');
const fields = {
  personId: z.string().min(1).max(64).nullable().optional().describe('A person with a role at this school, or null.'),
  name: z.string().trim().min(1).max(200),
  headline: z.string().trim().max(300).optional(),
  bio: z.string().max(10_000).optional(),
};

async function lecturerOr404(ctx: OperationContext, id: string): Promise<Lecturer> {
  const found = await findLecturer(siteScope(ctx), id);
  if (!found) throw new OperationError('not_found', `This school has no lecturer with the id ${id}.`);
  return found;
}

async function checkPerson(ctx: OperationContext, personId: string | null | undefined): Promise<void> {
  if (personId && !(await isPersonHere(siteScope(ctx), personId)))
    throw new OperationError('invalid_argument', `No person with the id ${personId} has a role at this school.`, [
      { pointer: '/personId', detail: 'not a person of this school' },
    ]);
}

export const listLecturers = defineOperation({
  name: 'list_lecturers',
  title: 'List lecturers',
  description: 'Lecturer profiles of this school, newest first, with the courses each teaches. Paged with a total and a nextCursor.',
  audience: 'operator',
  scopes: ['lecturers:read'],
  rest: { method: 'GET', path: '/lecturers' },
  tool: false,
  input: z.object({ ...pageInput }),
  output: z.object(pagedOutput(lecturer, 'lecturers')),
  annotations: READ_ONLY,
  userContent: ['items[].name', 'items[].headline', 'items[].bio'],
  async handle(ctx, input) {
    const scope = siteScope(ctx);
    const [page, total] = await Promise.all([pageLecturers(scope, pageRequest(input)), countLecturers(scope)]);
    return paged(page, total, lecturerOut);
  },
});

export const getLecturer: Operation = defineOperation({
  name: 'get_lecturer',
  title: 'Get a lecturer',
  description: 'One lecturer profile with the courses they teach.',
  audience: 'operator',
  scopes: ['lecturers:read'],
  rest: { method: 'GET', path: '/lecturers/{id}', resource: () => getLecturer },
  tool: false,
  input: z.object({ id: lecturerId }),
  output: z.object({ lecturer }),
  annotations: READ_ONLY,
  userContent: TEXT,
  async handle(ctx, input) {
    return { lecturer: lecturerOut(await lecturerOr404(ctx, input.id)) };
  },
});

export const createLecturerOperation = defineOperation({
  name: 'create_lecturer',
  title: 'Create a lecturer profile',
  description: 'Creates a lecturer profile, optionally tied to a person of this school, and returns it as stored.',
  audience: 'operator',
  scopes: ['lecturers:write'],
  rest: { method: 'POST', path: '/lecturers', status: 201 },
  tool: false,
  input: z.object(fields),
  output: z.object({ lecturer }),
  annotations: WRITE,
  userContent: TEXT,
  audit: (_input, output) => `lecturer:${output.lecturer.id}`,
  async handle(ctx, input) {
    await checkPerson(ctx, input.personId);
    const id = await createLecturer(
      siteScope(ctx),
      { personId: input.personId ?? null, name: input.name, headline: input.headline ?? '', bio: input.bio ?? '' },
      ctx.clock.now(),
    );
    return { lecturer: lecturerOut(await lecturerOr404(ctx, id)) };
  },
});

export const updateLecturerOperation = defineOperation({
  name: 'update_lecturer',
  title: 'Edit a lecturer profile',
  description: 'Changes the given fields of a lecturer profile and returns it as stored.',
  audience: 'operator',
  scopes: ['lecturers:write'],
  rest: { method: 'PATCH', path: '/lecturers/{id}', resource: () => getLecturer },
  tool: false,
  input: z.object({ id: lecturerId, ...fields, name: fields.name.optional() }),
  output: z.object({ lecturer }),
  annotations: { ...WRITE, idempotentHint: true },
  userContent: TEXT,
  audit: (input) => `lecturer:${input.id}`,
  async handle(ctx, input) {
    await checkPerson(ctx, input.personId);
    const { id, ...changes } = input;
    if (!(await updateLecturer(siteScope(ctx), id, changes, ctx.clock.now())))
      throw new OperationError('not_found', `This school has no lecturer with the id ${id}.`);
    return { lecturer: lecturerOut(await lecturerOr404(ctx, id)) };
  },
});

export const deleteLecturerOperation = defineOperation({
  name: 'delete_lecturer',
  title: 'Delete a lecturer profile',
  description: 'Deletes a lecturer profile; the courses it taught no longer list it. The person’s account, if any, is untouched.',
  audience: 'operator',
  scopes: ['lecturers:write'],
  rest: { method: 'DELETE', path: '/lecturers/{id}', resource: () => getLecturer },
  tool: false,
  input: z.object({ id: lecturerId }),
  output: z.object({ deleted: z.literal(true), id: z.string() }),
  annotations: { ...WRITE, destructiveHint: true },
  audit: (input) => `lecturer:${input.id}`,
  async handle(ctx, input) {
    if (!(await deleteLecturer(siteScope(ctx), input.id)))
      throw new OperationError('not_found', `This school has no lecturer with the id ${input.id}.`);
    return { deleted: true as const, id: input.id };
  },
});

export const setCourseLecturersOperation = defineOperation({
  name: 'set_course_lecturers',
  title: 'Set a course’s lecturers',
  description: 'Replaces the lecturers of a course with the given ones, in that order (an empty list removes them all).',
  audience: 'operator',
  scopes: ['lecturers:write'],
  rest: { method: 'PUT', path: '/courses/{id}/lecturers' },
  tool: false,
  input: z.object({
    id: z.string().min(1).max(64).describe('The course id.'),
    lecturerIds: z.array(z.string().min(1).max(64)).max(50),
  }),
  output: z.object({ courseId: z.string(), lecturers: z.array(lecturer) }),
  annotations: { ...WRITE, idempotentHint: true },
  userContent: ['lecturers[].name', 'lecturers[].headline', 'lecturers[].bio'],
  audit: (input) => `course:${input.id}`,
  async handle(ctx, input) {
    const scope = siteScope(ctx);
    if (!(await courseExists(scope, input.id))) throw new OperationError('not_found', `This school has no course with the id ${input.id}.`);
    if (new Set(input.lecturerIds).size !== input.lecturerIds.length)
      throw new OperationError('invalid_argument', 'Each lecturer may appear once.', [{ pointer: '/lecturerIds', detail: 'duplicates' }]);
    const unknown = await setCourseLecturers(scope, input.id, input.lecturerIds);
    if (unknown.length > 0)
      throw new OperationError('invalid_argument', `This school has no lecturer with the id ${unknown.join(', ')}.`, [
        { pointer: '/lecturerIds', detail: `unknown: ${unknown.join(', ')}` },
      ]);
    return { courseId: input.id, lecturers: (await courseLecturers(scope, input.id)).map(lecturerOut) };
  },
});

export const LECTURER_OPERATIONS: readonly Operation[] = [
  listLecturers,
  getLecturer,
  createLecturerOperation,
  updateLecturerOperation,
  deleteLecturerOperation,
  setCourseLecturersOperation,
];
