// A site's public catalogue: published courses, their curriculum outline, upcoming public events and the
// school profile (SPEC 1: the public tools /mcp serves to anonymous callers). Nothing member-only leaks here:
// unpublished rows and event join links never appear.
import { lecturesOfCourse, type OutlineSection, sectionTree } from './curriculum.repository.js';
import { type AliasedSelectQueryBuilder, type Kysely, sql, type Transaction } from 'kysely';
import { isSqlite } from '../storage/dialect.js';
import { defineQuery, type Placeholder } from '../storage/precompiled.js';
import type { Database } from '../storage/schema.js';
import type { SiteScope } from './scope.js';
import { type Page, type PageRequest, pageQuery, rowsWithTotal, toPage } from './paging.js';

export interface CourseListing {
  id: string;
  slug: string;
  title: string;
  subtitle: string | null;
  description: string;
  coverImageUrl: string | null;
  priceCents: number;
  currency: string;
  lectureCount: number;
  totalDurationSeconds: number;
  createdAt: number;
}

export interface CourseOutline {
  course: CourseListing;
  sections: OutlineSection[];
}

export interface PublicEvent {
  id: string;
  slug: string;
  title: string;
  description: string;
  startsAt: number;
  endsAt: number;
  timeZone: string;
  /** The place of an in-person event; null for online events (whose link only registered members see). */
  location: string | null;
  online: boolean;
}

export interface SchoolProfile {
  siteId: string;
  name: string;
  origin: string;
  publishedCourseCount: number;
  upcomingPublicEventCount: number;
}

const COURSES = 'catalogue_courses';
const EVENTS = 'public_events';

type Executor = Kysely<Database> | Transaction<Database>;
type SearchParams = Record<'siteId' | 'text', Placeholder>;

/**
 * The published courses of a site whose title, subtitle or description contains the text (any case,
 * `text` given in lower case): the one definition behind the search and its total, so the two can never
 * disagree. Without a text every published course matches. A position search rather than LIKE: SQLite
 * parses and plans a statement again on every run when a LIKE pattern is a bound parameter, and a
 * position search needs no escaping of wildcards either.
 */
function publishedCoursesMatching(db: Executor, p: SearchParams, withText: boolean) {
  return db
    .selectFrom('courses')
    .where('site_id', '=', p.siteId)
    .where('published', '=', 1)
    .$if(withText, (qb) =>
      qb.where((eb) =>
        eb.or(
          (['title', 'subtitle', 'description'] as const).map((column) =>
            isSqlite(db)
              ? sql<boolean>`instr(lower(coalesce(${eb.ref(column)}, '')), ${p.text}) > 0`
              : sql<boolean>`strpos(lower(coalesce(${eb.ref(column)}, '')), ${p.text}) > 0`,
          ),
        ),
      ),
    );
}

const listingColumns = [
  'id',
  'slug',
  'title',
  'subtitle',
  'description',
  'cover_image_url',
  'price_cents',
  'currency',
  'created_at',
] as const;
type PageParams = SearchParams & Record<'limit', Placeholder>;
const newestFirst = (db: Executor, p: PageParams, withText: boolean) =>
  publishedCoursesMatching(db, p, withText).select(listingColumns).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(p.limit);

/**
 * A page of listings with each course's lecture count and length: the page is chosen first (the inner
 * query, with its LIMIT), so the lectures are counted for its rows only, in the same statement (on
 * PostgreSQL a second one was a second round trip).
 */
const withLectureTotals = <O extends { id: string; created_at: number }>(
  db: Executor,
  page: AliasedSelectQueryBuilder<O, 'page'>,
  p: Record<'siteId', Placeholder>,
) =>
  db
    .selectFrom(page)
    .selectAll('page')
    .select([
      lecturesOfCourse(db, p.siteId, sql.ref('page.id'))
        .select((sub) => sub.fn.countAll<number | string>().as('n'))
        .as('lecture_count'),
      lecturesOfCourse(db, p.siteId, sql.ref('page.id'))
        .select((sub) => sub.fn.sum<number | string | null>('l.duration_seconds').as('s'))
        .as('lecture_seconds'),
    ])
    .orderBy('page.created_at', 'desc')
    .orderBy('page.id', 'desc');

// The search's statements, compiled once per form (with or without a text), for rowsWithTotal.
function searchStatements(withText: boolean) {
  return {
    firstPage: defineQuery(['siteId', 'text', 'limit'], (db, p) =>
      withLectureTotals(
        db,
        newestFirst(db, p, withText)
          .select((eb) => eb.fn.countAll<number>().over().as('total'))
          .as('page'),
        p,
      ),
    ),
    laterPage: defineQuery(['siteId', 'text', 'limit', 'afterSort', 'afterId'], (db, p) =>
      withLectureTotals(
        db,
        newestFirst(db, p, withText)
          .where((eb) =>
            eb.or([eb('created_at', '<', p.afterSort), eb.and([eb('created_at', '=', p.afterSort), eb('id', '<', p.afterId)])]),
          )
          .as('page'),
        p,
      ),
    ),
    count: defineQuery(['siteId', 'text'], (db, p) => publishedCoursesMatching(db, p, withText).select((eb) => eb.fn.countAll().as('n'))),
  };
}
const everyCourse = searchStatements(false);
const coursesWithText = searchStatements(true);

/**
 * Published courses of the site, newest first, and how many match over all pages; `text` matches title,
 * subtitle or description, case-insensitively.
 */
export async function searchPublishedCourses(
  scope: SiteScope,
  query: { text?: string | null } & PageRequest,
): Promise<{ page: Page<CourseListing>; total: number }> {
  const { size, after } = pageQuery(COURSES, query);
  const text = query.text?.trim() ?? '';
  const statements = text.length > 0 ? coursesWithText : everyCourse;
  const search = { siteId: scope.siteId, text: text.toLowerCase() };
  // Parameters written out rather than spread with added fields, which V8 builds on a slow path.
  const { rows, total } = await rowsWithTotal(after, {
    first: () => statements.firstPage.rows(scope.db, { siteId: search.siteId, text: search.text, limit: size + 1 }),
    later: (from) =>
      statements.laterPage.rows(scope.db, {
        siteId: search.siteId,
        text: search.text,
        limit: size + 1,
        afterSort: from.sort,
        afterId: from.id,
      }),
    count: async () => Number((await statements.count.first(scope.db, search))?.n ?? 0),
  });
  const listings = rows.map(
    (row): CourseListing => ({
      id: row.id,
      slug: row.slug,
      title: row.title,
      subtitle: row.subtitle,
      description: row.description,
      coverImageUrl: row.cover_image_url,
      priceCents: row.price_cents,
      currency: row.currency,
      lectureCount: Number(row.lecture_count ?? 0),
      totalDurationSeconds: Number(row.lecture_seconds ?? 0),
      createdAt: row.created_at,
    }),
  );
  return { page: toPage(COURSES, listings, size, (r) => ({ sort: r.createdAt, id: r.id })), total };
}

/** A published course with its sections and lectures in order; null when there is none by that slug. */
export async function findCourseOutline(scope: SiteScope, slug: string): Promise<CourseOutline | null> {
  const course = await scope.db
    .selectFrom('courses')
    .where('site_id', '=', scope.siteId)
    .where('slug', '=', slug)
    .where('published', '=', 1)
    .select(['id', 'slug', 'title', 'subtitle', 'description', 'cover_image_url', 'price_cents', 'currency', 'created_at'])
    .executeTakeFirst();
  if (!course) return null;
  const sections = await sectionTree(scope, course.id);
  const lectures = sections.flatMap((section) => section.lectures);
  return {
    course: {
      id: course.id,
      slug: course.slug,
      title: course.title,
      subtitle: course.subtitle,
      description: course.description,
      coverImageUrl: course.cover_image_url,
      priceCents: course.price_cents,
      currency: course.currency,
      lectureCount: lectures.length,
      totalDurationSeconds: lectures.reduce((sum, l) => sum + l.durationSeconds, 0),
      createdAt: course.created_at,
    },
    sections,
  };
}

/** The public, published, not cancelled events of a site that have not ended at `now`: the list's and the total's filter. */
function upcomingPublicEvents(scope: SiteScope, now: number) {
  return scope.db
    .selectFrom('events')
    .where('site_id', '=', scope.siteId)
    .where('published', '=', 1)
    .where('is_public', '=', 1)
    .where('cancelled_at', 'is', null)
    .where('ends_at', '>', now);
}

/** How many events `listUpcomingPublicEvents` returns over all its pages at `now`. */
export async function countUpcomingPublicEvents(scope: SiteScope, now: number): Promise<number> {
  const row = await upcomingPublicEvents(scope, now)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Published public events that have not ended yet (running ones included), soonest first. */
export async function listUpcomingPublicEvents(scope: SiteScope, request: PageRequest, now: number): Promise<Page<PublicEvent>> {
  const { size, after } = pageQuery(EVENTS, request);
  const rows = await upcomingPublicEvents(scope, now)
    .$if(after !== null, (qb) =>
      qb.where((eb) => eb.or([eb('starts_at', '>', after!.sort), eb.and([eb('starts_at', '=', after!.sort), eb('id', '>', after!.id)])])),
    )
    .select(['id', 'slug', 'title', 'description', 'starts_at', 'ends_at', 'time_zone', 'location', 'join_url'])
    .orderBy('starts_at', 'asc')
    .orderBy('id', 'asc')
    .limit(size + 1)
    .execute();
  const events = rows.map(
    (row): PublicEvent => ({
      id: row.id,
      slug: row.slug,
      title: row.title,
      description: row.description,
      startsAt: row.starts_at,
      endsAt: row.ends_at,
      timeZone: row.time_zone,
      location: row.location,
      // Only whether a link exists leaves this function, never the link.
      online: row.join_url !== null,
    }),
  );
  return toPage(EVENTS, events, size, (e) => ({ sort: e.startsAt, id: e.id }));
}

/** The site's public face: name, origin and what it offers; null for an unknown site. */
export async function findSchoolProfile(scope: SiteScope, now: number): Promise<SchoolProfile | null> {
  const site = await scope.db.selectFrom('sites').where('id', '=', scope.siteId).select(['id', 'name', 'origin']).executeTakeFirst();
  if (!site) return null;
  const [courses, events] = await Promise.all([
    scope.db
      .selectFrom('courses')
      .where('site_id', '=', scope.siteId)
      .where('published', '=', 1)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow(),
    scope.db
      .selectFrom('events')
      .where('site_id', '=', scope.siteId)
      .where('published', '=', 1)
      .where('is_public', '=', 1)
      .where('cancelled_at', 'is', null)
      .where('ends_at', '>', now)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return {
    siteId: site.id,
    name: site.name,
    origin: site.origin,
    publishedCourseCount: Number(courses.n),
    upcomingPublicEventCount: Number(events.n),
  };
}
