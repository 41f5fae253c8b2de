// Operator operations of the courses family (CONTRACT 6 courses, scope courses:*): list, read, create
// (a draft), edit, publish, unpublish, archive. Every write answers the course as stored, which is also
// its GET representation, so the ETag of a write's answer is the one a later GET gives.
import { z } from 'zod';
import { transitionCourse, updateCourse } from '../../school/course-lifecycle.repository.js';
import {
  countAllCourses,
  createCourseDraft,
  findCourseById,
  listAllCourses,
  type OperatorCourse,
  siteCurrency,
} from '../../school/operator-catalogue.repository.js';
import { instant, instantOrNull, iso, isoOrNull, pagedOutput, pageInput, pageRequest, paged } from '../lists.js';
import { defineOperation, type Operation, type OperationContext, OperationError, READ_ONLY } from '../operation.js';
import { siteScope } from './site-scope.js';

export const operatorCourse = z.object({
  id: z.string(),
  slug: z.string(),
  title: z.string(),
  subtitle: z.string().nullable(),
  description: z.string(),
  priceCents: z.number().int().describe('Price in minor units of currency (cents).'),
  currency: z.string(),
  state: z.enum(['draft', 'published', 'archived']).describe('draft: not visible to the public; archived: hidden, everything kept.'),
  published: z.boolean().describe('True exactly when state is published.'),
  lectureCount: z.number().int(),
  createdAt: instant('When the course was created'),
  updatedAt: instantOrNull('When an operator last changed the course; null when never'),
});

function courseOut(course: OperatorCourse): z.output<typeof operatorCourse> {
  return {
    id: course.id,
    slug: course.slug,
    title: course.title,
    subtitle: course.subtitle,
    description: course.description,
    priceCents: course.priceCents,
    currency: course.currency,
    state: course.state,
    published: course.published,
    lectureCount: course.lectureCount,
    createdAt: iso(course.createdAt),
    updatedAt: isoOrNull(course.updatedAt),
  };
}

const COURSE_TEXT = ['course.title', 'course.subtitle', 'course.description'];
const courseId = z.string().min(1).max(64).describe('The course id (crs_…).');
const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;
export const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const slugField = z.string().max(80).regex(SLUG, 'lowercase letters, digits and single hyphens, e.g. "intro-to-sql"');
const currencyField = z.string().regex(/^[A-Z]{3}$/, 'an ISO 4217 code such as EUR');

/** The course, or the not-found error every door answers for an id of nothing or of another site. */
async function courseOr404(ctx: OperationContext, id: string): Promise<OperatorCourse> {
  const course = await findCourseById(siteScope(ctx), id);
  if (!course) throw new OperationError('not_found', `This school has no course with the id ${id}.`);
  return course;
}

/** A slug from a title: lowercase ASCII words joined by hyphens ("Intro to SQL!" -> "intro-to-sql"). */
export function slugFromTitle(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/g, '');
}

export const listCourses = defineOperation({
  name: 'list_courses',
  title: 'List all courses',
  description:
    'Every course of this school, drafts and archived ones included, newest first, with the state of each. Paged with a total and a nextCursor.',
  audience: 'operator',
  scopes: ['courses:read'],
  rest: { method: 'GET', path: '/courses' },
  input: z.object({ ...pageInput }),
  output: z.object(pagedOutput(operatorCourse, 'courses')),
  annotations: READ_ONLY,
  userContent: ['items[].title', 'items[].subtitle', 'items[].description'],
  async handle(ctx, input) {
    const scope = siteScope(ctx);
    const [page, total] = await Promise.all([listAllCourses(scope, pageRequest(input)), countAllCourses(scope)]);
    return paged(page, total, courseOut);
  },
});

export const getCourse: Operation = defineOperation({
  // get_course is the public catalogue's tool; this is the operator's read of any course, drafts included.
  name: 'get_managed_course',
  title: 'Get a course (any state)',
  description: 'One course of this school by id, in any state, as operators manage it.',
  audience: 'operator',
  scopes: ['courses:read'],
  rest: { method: 'GET', path: '/courses/{id}', resource: () => getCourse },
  tool: false,
  input: z.object({ id: courseId }),
  output: z.object({ course: operatorCourse }),
  annotations: READ_ONLY,
  userContent: COURSE_TEXT,
  async handle(ctx, input) {
    return { course: courseOut(await courseOr404(ctx, input.id)) };
  },
});

export const createCourseDraftOperation = defineOperation({
  name: 'create_course_draft',
  title: 'Create a course draft',
  description:
    'Creates a new, unpublished course (a draft the public cannot see) with no curriculum yet, and returns it as stored. ' +
    'The slug is made from the title unless you pass one; it must be unique in this school.',
  audience: 'operator',
  scopes: ['courses:write'],
  rest: { method: 'POST', path: '/courses', status: 201 },
  input: z.object({
    title: z.string().trim().min(1).max(200).describe('Course title.'),
    slug: slugField.optional().describe('URL name of the course, unique in this school; made from the title when omitted.'),
    subtitle: z.string().trim().max(300).optional().describe('One-line summary under the title.'),
    description: z.string().max(10_000).optional().describe('What the course teaches.'),
    priceCents: z.number().int().min(0).max(100_000_000).optional().describe('Price in the smallest currency unit; 0 (free) when omitted.'),
    currency: currencyField.optional().describe('ISO 4217 code; the currency of the school’s other courses when omitted.'),
  }),
  output: z.object({ course: operatorCourse }),
  annotations: WRITE,
  userContent: COURSE_TEXT,
  audit: (_input, output) => `course:${output.course.id}`,
  async handle(ctx, input) {
    const scope = siteScope(ctx);
    const slug = input.slug ?? slugFromTitle(input.title);
    if (!SLUG.test(slug)) {
      throw new OperationError('invalid_argument', 'No slug can be made from this title: pass a slug such as "intro-to-sql".', [
        { pointer: '/slug', detail: 'required when the title has no letters or digits' },
      ]);
    }
    const currency = input.currency ?? (await siteCurrency(scope)) ?? 'EUR';
    const course = await createCourseDraft(
      scope,
      {
        slug,
        title: input.title,
        subtitle: input.subtitle && input.subtitle.length > 0 ? input.subtitle : null,
        description: input.description ?? '',
        priceCents: input.priceCents ?? 0,
        currency,
      },
      ctx.clock.now(),
    );
    if (!course) {
      throw new OperationError('conflict', `This school already has a course with the slug "${slug}". Pass another slug.`);
    }
    return { course: courseOut(course) };
  },
});

export const updateCourseOperation = defineOperation({
  name: 'update_course',
  title: 'Edit a course',
  description: 'Changes the given fields of a course (the others stay) and returns it as stored.',
  audience: 'operator',
  scopes: ['courses:write'],
  rest: { method: 'PATCH', path: '/courses/{id}', resource: () => getCourse },
  tool: false,
  input: z.object({
    id: courseId,
    title: z.string().trim().min(1).max(200).optional(),
    slug: slugField.optional(),
    subtitle: z.string().trim().max(300).nullable().optional().describe('null or "" removes it.'),
    description: z.string().max(10_000).optional(),
    priceCents: z.number().int().min(0).max(100_000_000).optional(),
    currency: currencyField.optional(),
  }),
  output: z.object({ course: operatorCourse }),
  annotations: { ...WRITE, idempotentHint: true },
  userContent: COURSE_TEXT,
  audit: (input) => `course:${input.id}`,
  async handle(ctx, input) {
    const { id, subtitle, ...rest } = input;
    const result = await updateCourse(
      siteScope(ctx),
      id,
      { ...rest, ...(subtitle !== undefined ? { subtitle: subtitle === null || subtitle === '' ? null : subtitle } : {}) },
      ctx.clock.now(),
    );
    if (result.kind === 'not_found') throw new OperationError('not_found', `This school has no course with the id ${id}.`);
    if (result.kind === 'slug_taken')
      throw new OperationError('conflict', `Another course of this school has the slug "${input.slug}".`, [
        { pointer: '/slug', detail: 'already used by another course' },
      ]);
    return { course: courseOut(result.course) };
  },
});

function transition(
  name: string,
  to: 'publish' | 'unpublish' | 'archive',
  words: { title: string; description: string; verb: string },
  tool: boolean,
): Operation {
  return defineOperation({
    name,
    title: words.title,
    description: words.description,
    audience: 'operator',
    scopes: ['courses:write'],
    rest: { method: 'POST', path: `/courses/{id}/${to}`, resource: () => getCourse },
    tool,
    input: z.object({ id: courseId }),
    output: z.object({ course: operatorCourse }),
    annotations: { readOnlyHint: false, destructiveHint: to !== 'publish', idempotentHint: true, openWorldHint: false },
    userContent: COURSE_TEXT,
    audit: (input) => `course:${input.id}`,
    async confirm(ctx, input) {
      const course = await courseOr404(ctx, input.id);
      return {
        summary: `${words.verb} the course "${course.title}" (now ${course.state}).`,
        details: { id: course.id, title: course.title, state: course.state, lectureCount: course.lectureCount },
      };
    },
    async handle(ctx, input) {
      const course = await transitionCourse(siteScope(ctx), input.id, to, ctx.clock.now());
      if (!course) throw new OperationError('not_found', `This school has no course with the id ${input.id}.`);
      return { course: courseOut(course) };
    },
  });
}

export const publishCourse = transition(
  'publish_course',
  'publish',
  {
    title: 'Publish a course',
    description:
      'Makes a course visible in the public catalogue (from draft or archived). Outward-facing: the first call answers a preview and a ' +
      'confirmationToken; call again with it to publish.',
    verb: 'Publish',
  },
  true,
);

export const unpublishCourse = transition(
  'unpublish_course',
  'unpublish',
  {
    title: 'Unpublish a course',
    description:
      'Takes a course out of the public catalogue and makes it a draft; enrolled students keep their access and progress. The first call ' +
      'answers a preview and a confirmationToken; call again with it to unpublish.',
    verb: 'Unpublish',
  },
  true,
);

export const archiveCourse = transition(
  'archive_course',
  'archive',
  {
    title: 'Archive a course',
    description: 'Hides a course everywhere but this API and keeps everything (enrollments, progress); publishing it brings it back.',
    verb: 'Archive',
  },
  false,
);

export const COURSE_OPERATIONS: readonly Operation[] = [
  listCourses,
  getCourse,
  createCourseDraftOperation,
  updateCourseOperation,
  publishCourse,
  unpublishCourse,
  archiveCourse,
];
