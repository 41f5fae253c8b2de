// Operator operations of the curriculum family (CONTRACT 6 curriculum, scope curriculum:*): the whole
// tree in one read, sections and lectures added, lectures edited and deleted, the order set in one call.
import { z } from 'zod';
import {
  addLecture,
  addSection,
  type CourseOutline,
  courseOutline,
  deleteLecture,
  findLecture,
  type OutlineLecture,
  reorderCurriculum,
  updateLecture,
} from '../../school/curriculum.repository.js';
import { defineOperation, type Operation, type OperationContext, OperationError, READ_ONLY } from '../operation.js';
import { siteScope } from './site-scope.js';

const lecture = z.object({
  id: z.string(),
  sectionId: z.string(),
  position: z.number().int().describe('0-based order within its section.'),
  title: z.string(),
  durationSeconds: z.number().int(),
});

const outline = z.object({
  courseId: z.string(),
  title: z.string(),
  sectionCount: z.number().int(),
  lectureCount: z.number().int(),
  totalDurationSeconds: z.number().int(),
  sections: z.array(
    z.object({
      id: z.string(),
      position: z.number().int().describe('0-based order within the course.'),
      title: z.string(),
      lectures: z.array(lecture),
    }),
  ),
});

const OUTLINE_TEXT = ['curriculum.title', 'curriculum.sections[].title', 'curriculum.sections[].lectures[].title'];
const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;
const id = (what: string) => z.string().min(1).max(64).describe(`The ${what} id.`);
const position = z.number().int().min(0).max(10_000).optional().describe('0-based place to insert at; at the end when omitted.');

function outlineOut(tree: CourseOutline): z.output<typeof outline> {
  const lectures = tree.sections.flatMap((s) => s.lectures);
  return {
    courseId: tree.courseId,
    title: tree.title,
    sectionCount: tree.sections.length,
    lectureCount: lectures.length,
    totalDurationSeconds: lectures.reduce((sum, l) => sum + l.durationSeconds, 0),
    sections: tree.sections,
  };
}

async function outlineOr404(ctx: OperationContext, courseId: string): Promise<z.output<typeof outline>> {
  const tree = await courseOutline(siteScope(ctx), courseId);
  if (!tree) throw new OperationError('not_found', `This school has no course with the id ${courseId}.`);
  return outlineOut(tree);
}

function lectureOut(l: OutlineLecture): z.output<typeof lecture> {
  return { id: l.id, sectionId: l.sectionId, position: l.position, title: l.title, durationSeconds: l.durationSeconds };
}

export const getCourseOutline: Operation = defineOperation({
  name: 'get_course_outline',
  title: 'Get a course outline',
  description: 'The curriculum of one course in one read: its sections in order, each with its lectures in order, and the totals.',
  audience: 'operator',
  scopes: ['curriculum:read'],
  rest: { method: 'GET', path: '/courses/{id}/curriculum', resource: () => getCourseOutline },
  input: z.object({ id: id('course') }),
  output: z.object({ curriculum: outline }),
  annotations: READ_ONLY,
  userContent: OUTLINE_TEXT,
  async handle(ctx, input) {
    return { curriculum: await outlineOr404(ctx, input.id) };
  },
});

export const addCourseSection = defineOperation({
  name: 'add_course_section',
  title: 'Add a section to a course',
  description: 'Adds a section to a course’s curriculum and returns the whole curriculum as stored.',
  audience: 'operator',
  scopes: ['curriculum:write'],
  rest: { method: 'POST', path: '/courses/{id}/sections', status: 201 },
  tool: false,
  input: z.object({ id: id('course'), title: z.string().trim().min(1).max(200), position }),
  output: z.object({ sectionId: z.string(), curriculum: outline }),
  annotations: WRITE,
  userContent: OUTLINE_TEXT,
  audit: (_input, output) => `section:${output.sectionId}`,
  async handle(ctx, input) {
    const sectionId = await addSection(siteScope(ctx), input.id, input.title, input.position);
    if (!sectionId) throw new OperationError('not_found', `This school has no course with the id ${input.id}.`);
    return { sectionId, curriculum: await outlineOr404(ctx, input.id) };
  },
});

export const getLecture: Operation = defineOperation({
  name: 'get_lecture',
  title: 'Get a lecture',
  description: 'One lecture by id, with its section and place.',
  audience: 'operator',
  scopes: ['curriculum:read'],
  rest: { method: 'GET', path: '/lectures/{id}', resource: () => getLecture },
  tool: false,
  input: z.object({ id: id('lecture') }),
  output: z.object({ lecture }),
  annotations: READ_ONLY,
  userContent: ['lecture.title'],
  async handle(ctx, input) {
    const found = await findLecture(siteScope(ctx), input.id);
    if (!found) throw new OperationError('not_found', `This school has no lecture with the id ${input.id}.`);
    return { lecture: lectureOut(found) };
  },
});

export const addSectionLecture = defineOperation({
  name: 'add_lecture',
  title: 'Add a lecture to a section',
  description: 'Adds a lecture to a section and returns it as stored.',
  audience: 'operator',
  scopes: ['curriculum:write'],
  rest: { method: 'POST', path: '/sections/{id}/lectures', status: 201 },
  tool: false,
  input: z.object({
    id: id('section'),
    title: z.string().trim().min(1).max(200),
    durationSeconds: z.number().int().min(0).max(86_400).describe('Length of the lecture in seconds.'),
    position,
  }),
  output: z.object({ lecture }),
  annotations: WRITE,
  userContent: ['lecture.title'],
  audit: (_input, output) => `lecture:${output.lecture.id}`,
  async handle(ctx, input) {
    const added = await addLecture(
      siteScope(ctx),
      input.id,
      { title: input.title, durationSeconds: input.durationSeconds },
      input.position,
    );
    if (!added) throw new OperationError('not_found', `This school has no section with the id ${input.id}.`);
    return { lecture: lectureOut(added) };
  },
});

export const updateLectureOperation = defineOperation({
  name: 'update_lecture',
  title: 'Edit a lecture',
  description: 'Changes a lecture’s title or duration and returns it as stored. Move lectures with the curriculum reorder.',
  audience: 'operator',
  scopes: ['curriculum:write'],
  rest: { method: 'PATCH', path: '/lectures/{id}', resource: () => getLecture },
  tool: false,
  input: z.object({
    id: id('lecture'),
    title: z.string().trim().min(1).max(200).optional(),
    durationSeconds: z.number().int().min(0).max(86_400).optional(),
  }),
  output: z.object({ lecture }),
  annotations: { ...WRITE, idempotentHint: true },
  userContent: ['lecture.title'],
  audit: (input) => `lecture:${input.id}`,
  async handle(ctx, input) {
    const scope = siteScope(ctx);
    const found = (await updateLecture(scope, input.id, input)) ? await findLecture(scope, input.id) : null;
    if (!found) throw new OperationError('not_found', `This school has no lecture with the id ${input.id}.`);
    return { lecture: lectureOut(found) };
  },
});

export const deleteLectureOperation = defineOperation({
  name: 'delete_lecture',
  title: 'Delete a lecture',
  description: 'Deletes a lecture; the lectures after it move up, and learners’ progress on it is removed.',
  audience: 'operator',
  scopes: ['curriculum:write'],
  rest: { method: 'DELETE', path: '/lectures/{id}', resource: () => getLecture },
  tool: false,
  input: z.object({ id: id('lecture') }),
  output: z.object({ deleted: z.literal(true), id: z.string() }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  audit: (input) => `lecture:${input.id}`,
  async handle(ctx, input) {
    if (!(await deleteLecture(siteScope(ctx), input.id)))
      throw new OperationError('not_found', `This school has no lecture with the id ${input.id}.`);
    return { deleted: true as const, id: input.id };
  },
});

export const reorderCurriculumOperation = defineOperation({
  name: 'reorder_curriculum',
  title: 'Reorder a course’s curriculum',
  description:
    'Sets the order of every section and lecture of a course in one call; lectures may move between sections. Returns the curriculum as stored.',
  audience: 'operator',
  scopes: ['curriculum:write'],
  rest: { method: 'POST', path: '/courses/{id}/curriculum/reorder', resource: () => getCourseOutline },
  tool: false,
  input: z.object({
    id: id('course'),
    sections: z
      .array(z.object({ id: z.string().min(1).max(64), lectureIds: z.array(z.string().min(1).max(64)).max(2000) }))
      .max(500)
      .describe('Every section of the course in the new order, each with every lecture it is to hold, in order.'),
  }),
  output: z.object({ curriculum: outline }),
  annotations: { ...WRITE, idempotentHint: true },
  userContent: OUTLINE_TEXT,
  audit: (input) => `course:${input.id}`,
  async handle(ctx, input) {
    const result = await reorderCurriculum(siteScope(ctx), input.id, input.sections);
    if (result.kind === 'not_found') throw new OperationError('not_found', `This school has no course with the id ${input.id}.`);
    if (result.kind === 'mismatch')
      throw new OperationError('invalid_argument', `The new order is incomplete: ${result.detail}.`, [
        { pointer: '/sections', detail: result.detail },
      ]);
    return { curriculum: await outlineOr404(ctx, input.id) };
  },
});

export const CURRICULUM_OPERATIONS: readonly Operation[] = [
  getCourseOutline,
  addCourseSection,
  getLecture,
  addSectionLecture,
  updateLectureOperation,
  deleteLectureOperation,
  reorderCurriculumOperation,
];
