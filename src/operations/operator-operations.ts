// Operator operations (SPEC 4.4 operator API, 5.2 operator clients, 5.5 operator scopes): a site's
// operators look after its catalogue and students. Each needs its one scope; the operator REST API of a
// later issue will project these same definitions.
import { z } from 'zod';
import {
  countAllCourses,
  countAllEvents,
  createCourseDraft,
  listAllCourses,
  listAllEvents,
  type OperatorCourse,
  siteCurrency,
} from '../school/operator-catalogue.repository.js';
import { countStudents, listStudents } from '../school/operator-students.repository.js';
import type { SiteScope } from '../school/scope.js';
import { instant, iso, pagedOutput, pageInput, pageRequest, paged } from './lists.js';
import { defineOperation, type Operation, type OperationContext, OperationError, READ_ONLY } from './operation.js';

const operatorCourse = z.object({
  id: z.string(),
  slug: z.string(),
  title: z.string(),
  subtitle: z.string().nullable(),
  description: z.string(),
  priceCents: z.number().int(),
  currency: z.string(),
  published: z.boolean().describe('False for a draft that the public cannot see.'),
  lectureCount: z.number().int(),
  createdAt: instant('When the course was created'),
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
    published: course.published,
    lectureCount: course.lectureCount,
    createdAt: iso(course.createdAt),
  };
}

/** The token's site: operator operations read and write nothing of any other site. */
function siteScope(ctx: OperationContext): SiteScope {
  return { db: ctx.db, siteId: ctx.site.id };
}

export const listCourses = defineOperation({
  name: 'list_courses',
  title: 'List all courses',
  description:
    'Every course of this school, drafts included, newest first, with whether each is published. Paged with a total and a nextCursor.',
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

export const listStudentsOperation = defineOperation({
  name: 'list_students',
  title: 'List students',
  description:
    'People who hold the student role at this school, newest first, with their e-mail address and how many courses they are enrolled in here. ' +
    'Paged with a total and a nextCursor.',
  audience: 'operator',
  scopes: ['students:read'],
  rest: { method: 'GET', path: '/students' },
  input: z.object({ ...pageInput }),
  output: z.object(
    pagedOutput(
      z.object({
        id: z.string(),
        name: z.string(),
        email: z.string(),
        studentSince: instant('When the person became a student here'),
        enrollmentCount: z.number().int(),
      }),
      'students',
    ),
  ),
  annotations: READ_ONLY,
  userContent: ['items[].name'],
  async handle(ctx, input) {
    const scope = siteScope(ctx);
    const [page, total] = await Promise.all([listStudents(scope, pageRequest(input)), countStudents(scope)]);
    return paged(page, total, (s) => ({
      id: s.id,
      name: s.name,
      email: s.email,
      studentSince: iso(s.studentSince),
      enrollmentCount: s.enrollmentCount,
    }));
  },
});

export const listEvents = defineOperation({
  name: 'list_events',
  title: 'List all events',
  description:
    'Every event of this school, past and future, published or not, public or members-only, latest start first, with registration counts. ' +
    'Paged with a total and a nextCursor.',
  audience: 'operator',
  scopes: ['events:read'],
  rest: { method: 'GET', path: '/events' },
  input: z.object({ ...pageInput }),
  output: z.object(
    pagedOutput(
      z.object({
        id: z.string(),
        slug: z.string(),
        title: z.string(),
        description: z.string(),
        startsAt: instant('When the event starts'),
        endsAt: instant('When the event ends'),
        timeZone: z.string(),
        location: z.string().nullable(),
        joinUrl: z.string().nullable(),
        isPublic: z.boolean(),
        published: z.boolean(),
        registrationCount: z.number().int(),
      }),
      'events',
    ),
  ),
  annotations: READ_ONLY,
  userContent: ['items[].title', 'items[].description', 'items[].location'],
  async handle(ctx, input) {
    const scope = siteScope(ctx);
    const [page, total] = await Promise.all([listAllEvents(scope, pageRequest(input)), countAllEvents(scope)]);
    return paged(page, total, (e) => ({
      id: e.id,
      slug: e.slug,
      title: e.title,
      description: e.description,
      startsAt: iso(e.startsAt),
      endsAt: iso(e.endsAt),
      timeZone: e.timeZone,
      location: e.location,
      joinUrl: e.joinUrl,
      isPublic: e.isPublic,
      published: e.published,
      registrationCount: e.registrationCount,
    }));
  },
});

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

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
    slug: z
      .string()
      .max(80)
      .regex(SLUG, 'lowercase letters, digits and single hyphens, e.g. "intro-to-sql"')
      .optional()
      .describe('URL name of the course, unique in this school; made from the title when omitted.'),
    subtitle: z.string().trim().max(300).optional().describe('One-line summary under the title.'),
    description: z.string().max(10_000).optional().describe('What the course teaches.'),
    priceCents: z.number().int().min(0).max(100_000_000).optional().describe('Price in the smallest currency unit; 0 (free) when omitted.'),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/, 'an ISO 4217 code such as EUR')
      .optional()
      .describe('ISO 4217 code; the currency of the school’s other courses when omitted.'),
  }),
  output: z.object({ course: operatorCourse }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  userContent: ['course.title', 'course.subtitle', 'course.description'],
  async handle(ctx, input) {
    const scope = siteScope(ctx);
    const slug = input.slug ?? slugFromTitle(input.title);
    if (!SLUG.test(slug)) {
      throw new OperationError('invalid_argument', 'No slug can be made from this title: pass a slug such as "intro-to-sql".');
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

export const OPERATOR_OPERATIONS: readonly Operation[] = [listCourses, listStudentsOperation, listEvents, createCourseDraftOperation];
