// Public operations (SPEC 1, 5.4: what /mcp serves to anonymous callers): the school's profile, its
// published courses and their curriculum outline, its upcoming public events. Unpublished content never
// appears: the catalogue functions filter it, and nothing here reads another table.
import { z } from 'zod';
import {
  type CourseListing,
  countUpcomingPublicEvents,
  findCourseOutline,
  findSchoolProfile,
  listUpcomingPublicEvents,
  searchPublishedCourses,
} from '../school/catalogue.repository.js';
import { instant, iso, pagedOutput, pageInput, pageRequest, paged } from './lists.js';
import { defineOperation, type Operation, type OperationContext, OperationError, READ_ONLY } from './operation.js';

const courseListing = z.object({
  id: z.string(),
  slug: z.string().describe('Pass to get_course for the curriculum.'),
  title: z.string(),
  subtitle: z.string().nullable(),
  description: z.string(),
  priceCents: z.number().int().describe('Price in the smallest unit of the currency (0 for a free course).'),
  currency: z.string().describe('ISO 4217 code, e.g. EUR.'),
  lectureCount: z.number().int(),
  totalDurationSeconds: z.number().int().describe('Length of all lectures together, in seconds.'),
  publishedSince: instant('When the course was created'),
});

/** A catalogue read through the public catalogue cache where the context has one; `key` names the read and its arguments. */
function fromCatalogue<T>(ctx: OperationContext, key: readonly unknown[], load: () => Promise<T>): Promise<T> {
  return ctx.catalogue ? ctx.catalogue.read(ctx.site.id, JSON.stringify(key), load) : load();
}

function listing(course: CourseListing): z.output<typeof courseListing> {
  return {
    id: course.id,
    slug: course.slug,
    title: course.title,
    subtitle: course.subtitle,
    description: course.description,
    priceCents: course.priceCents,
    currency: course.currency,
    lectureCount: course.lectureCount,
    totalDurationSeconds: course.totalDurationSeconds,
    publishedSince: iso(course.createdAt),
  };
}

export const getSchool = defineOperation({
  name: 'get_school',
  title: 'School profile',
  description: 'The school behind this server: its name, web origin, and how many published courses and upcoming public events it has.',
  audience: 'public',
  scopes: [],
  input: z.object({}),
  output: z.object({
    name: z.string(),
    origin: z.string().describe('The school’s web origin; its APIs are served there.'),
    publishedCourseCount: z.number().int(),
    upcomingPublicEventCount: z.number().int(),
  }),
  annotations: READ_ONLY,
  userContent: ['name'],
  async handle(ctx) {
    const profile = await findSchoolProfile({ db: ctx.db, siteId: ctx.site.id }, ctx.clock.now());
    if (!profile) throw new OperationError('not_found', 'This school no longer exists.');
    return {
      name: profile.name,
      origin: profile.origin,
      publishedCourseCount: profile.publishedCourseCount,
      upcomingPublicEventCount: profile.upcomingPublicEventCount,
    };
  },
});

export const searchCourses = defineOperation({
  name: 'search_courses',
  title: 'Search courses',
  description:
    'Published courses of this school, newest first, optionally only those whose title, subtitle or description contains a text. ' +
    'Paged: the answer says how many match in all and gives a nextCursor for the next page.',
  audience: 'public',
  scopes: [],
  input: z.object({
    query: z.string().max(200).optional().describe('Text to look for, case-insensitively; omit to list every published course.'),
    ...pageInput,
  }),
  output: z.object(pagedOutput(courseListing, 'matching courses')),
  annotations: READ_ONLY,
  userContent: ['items[].title', 'items[].subtitle', 'items[].description'],
  async handle(ctx, input) {
    const scope = { db: ctx.db, siteId: ctx.site.id };
    const text = input.query ?? null;
    const request = pageRequest(input);
    const { page, total } = await fromCatalogue(ctx, ['search_courses', text, request.first, request.after], () =>
      searchPublishedCourses(scope, { text, ...request }),
    );
    return paged(page, total, listing);
  },
});

export const getCourse = defineOperation({
  name: 'get_course',
  title: 'Course details',
  description:
    'One published course by its slug, with its curriculum outline: sections in order, each with its lectures and their lengths.',
  audience: 'public',
  scopes: [],
  input: z.object({ slug: z.string().min(1).max(200).describe('The course slug, as search_courses returns it.') }),
  output: z.object({
    course: courseListing,
    sections: z.array(
      z.object({
        position: z.number().int(),
        title: z.string(),
        lectures: z.array(z.object({ position: z.number().int(), title: z.string(), durationSeconds: z.number().int() })),
      }),
    ),
  }),
  annotations: READ_ONLY,
  userContent: ['course.title', 'course.subtitle', 'course.description', 'sections[].title', 'sections[].lectures[].title'],
  async handle(ctx, input) {
    // A slug with no course is kept too (as null): asking again and again for a missing one is as cheap.
    const outline = await fromCatalogue(
      ctx,
      ['get_course', input.slug],
      async () => (await findCourseOutline({ db: ctx.db, siteId: ctx.site.id }, input.slug)) ?? null,
    );
    if (!outline) {
      throw new OperationError(
        'not_found',
        `This school has no published course with the slug "${input.slug}". Call search_courses to find the slugs of its courses.`,
      );
    }
    return {
      course: listing(outline.course),
      sections: outline.sections.map((s) => ({
        position: s.position,
        title: s.title,
        lectures: s.lectures.map((l) => ({ position: l.position, title: l.title, durationSeconds: l.durationSeconds })),
      })),
    };
  },
});

export const listUpcomingEvents = defineOperation({
  name: 'list_upcoming_events',
  title: 'Upcoming public events',
  description:
    'Public events of this school that have not ended yet, soonest first. Join links of online events are shown only to registered members. ' +
    'Paged with a total and a nextCursor.',
  audience: 'public',
  scopes: [],
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
        timeZone: z.string().describe('IANA time zone the event is announced in, e.g. Europe/Berlin.'),
        location: z.string().nullable().describe('Where an in-person event takes place; null for online-only events.'),
        online: z.boolean().describe('True when the event can be joined online.'),
      }),
      'upcoming public events',
    ),
  ),
  annotations: READ_ONLY,
  userContent: ['items[].title', 'items[].description', 'items[].location'],
  async handle(ctx, input) {
    const scope = { db: ctx.db, siteId: ctx.site.id };
    const now = ctx.clock.now();
    const [page, total] = await Promise.all([
      listUpcomingPublicEvents(scope, pageRequest(input), now),
      countUpcomingPublicEvents(scope, now),
    ]);
    return paged(page, total, (e) => ({
      id: e.id,
      slug: e.slug,
      title: e.title,
      description: e.description,
      startsAt: iso(e.startsAt),
      endsAt: iso(e.endsAt),
      timeZone: e.timeZone,
      location: e.location,
      online: e.online,
    }));
  },
});

export const PUBLIC_OPERATIONS: readonly Operation[] = [getSchool, searchCourses, getCourse, listUpcomingEvents];
