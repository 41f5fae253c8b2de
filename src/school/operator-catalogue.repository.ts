// A site's whole catalogue as its operators see it (SPEC 4.4 operator API, 5.5 `courses:*`, `events:*`):
// unpublished courses and private events included, unlike catalogue.repository.ts, which serves the public.
import { lectureCountsByCourse } from './enrollments.repository.js';
import { type Page, type PageRequest, pageQuery, toPage } from './paging.js';
import type { SiteScope } from './scope.js';
import { newId } from '../kernel/random.js';

export interface OperatorCourse {
  id: string;
  slug: string;
  title: string;
  subtitle: string | null;
  description: string;
  priceCents: number;
  currency: string;
  published: boolean;
  /** draft (never published or unpublished), published, or archived (hidden, kept). */
  state: CourseState;
  lectureCount: number;
  createdAt: number;
  updatedAt: number | null;
}

export type CourseState = 'draft' | 'published' | 'archived';

export interface CourseDraft {
  slug: string;
  title: string;
  subtitle: string | null;
  description: string;
  priceCents: number;
  currency: string;
}

const COURSES = 'operator_courses';

const COURSE_COLUMNS = [
  'id',
  'slug',
  'title',
  'subtitle',
  'description',
  'price_cents',
  'currency',
  'published',
  'created_at',
  'archived_at',
  'updated_at',
] as const;

type CourseRow = {
  id: string;
  slug: string;
  title: string;
  subtitle: string | null;
  description: string;
  price_cents: number;
  currency: string;
  published: number;
  created_at: number;
  archived_at: number | null;
  updated_at: number | null;
};

function toCourse(row: CourseRow, lectureCount: number): OperatorCourse {
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    subtitle: row.subtitle,
    description: row.description,
    priceCents: row.price_cents,
    currency: row.currency,
    published: row.published === 1,
    state: row.archived_at !== null ? 'archived' : row.published === 1 ? 'published' : 'draft',
    lectureCount,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Every course of the site, published or not, newest first. */
export async function listAllCourses(scope: SiteScope, request: PageRequest): Promise<Page<OperatorCourse>> {
  const { size, after } = pageQuery(COURSES, request);
  const rows = await scope.db
    .selectFrom('courses')
    .where('site_id', '=', scope.siteId)
    .$if(after !== null, (qb) =>
      qb.where((eb) => eb.or([eb('created_at', '<', after!.sort), eb.and([eb('created_at', '=', after!.sort), eb('id', '<', after!.id)])])),
    )
    .select(COURSE_COLUMNS)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(size + 1)
    .execute();
  const counts = await lectureCountsByCourse(
    scope,
    rows.slice(0, size).map((r) => r.id),
  );
  const courses = rows.map((row) => toCourse(row, counts.get(row.id) ?? 0));
  return toPage(COURSES, courses, size, (c) => ({ sort: c.createdAt, id: c.id }));
}

export async function countAllCourses(scope: SiteScope): Promise<number> {
  const row = await scope.db
    .selectFrom('courses')
    .where('site_id', '=', scope.siteId)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** One course of this site by id, published or not; null when the site has none by that id. */
export async function findCourseById(scope: SiteScope, id: string): Promise<OperatorCourse | null> {
  const row = await scope.db
    .selectFrom('courses')
    .where('site_id', '=', scope.siteId)
    .where('id', '=', id)
    .select(COURSE_COLUMNS)
    .executeTakeFirst();
  if (!row) return null;
  const counts = await lectureCountsByCourse(scope, [row.id]);
  return toCourse(row, counts.get(row.id) ?? 0);
}

/** The currency of the site's newest course: what a new draft is priced in unless told otherwise. */
export async function siteCurrency(scope: SiteScope): Promise<string | null> {
  const row = await scope.db
    .selectFrom('courses')
    .where('site_id', '=', scope.siteId)
    .select('currency')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.currency ?? null;
}

/**
 * Creates an unpublished course with no curriculum yet and returns it re-read; null when the site already
 * has a course with that slug. The insert does nothing on a slug conflict, so two concurrent drafts with
 * one slug cannot both succeed and neither fails with a constraint error.
 */
export async function createCourseDraft(scope: SiteScope, draft: CourseDraft, now: number): Promise<OperatorCourse | null> {
  const id = newId('crs');
  await scope.db
    .insertInto('courses')
    .values({
      id,
      site_id: scope.siteId,
      slug: draft.slug,
      title: draft.title,
      subtitle: draft.subtitle,
      description: draft.description,
      cover_image_url: null,
      price_cents: draft.priceCents,
      currency: draft.currency,
      published: 0,
      created_at: now,
      archived_at: null,
      updated_at: null,
    })
    .onConflict((oc) => oc.columns(['site_id', 'slug']).doNothing())
    .execute();
  return findCourseById(scope, id);
}
