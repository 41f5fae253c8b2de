// A course's life as its operators change it (CONTRACT 6 courses): edits, publish, unpublish, archive.
// Each change is one UPDATE filtered by the site (the tenant seam), then the course is read again so the
// caller answers what is stored.
import { findCourseById, type OperatorCourse } from './operator-catalogue.repository.js';
import type { SiteScope } from './scope.js';
import { slugTaken } from './slugs.js';

export interface CourseChanges {
  slug?: string;
  title?: string;
  subtitle?: string | null;
  description?: string;
  priceCents?: number;
  currency?: string;
}

export type CourseChangeResult = { kind: 'changed'; course: OperatorCourse } | { kind: 'not_found' } | { kind: 'slug_taken' };

export async function updateCourse(scope: SiteScope, id: string, changes: CourseChanges, now: number): Promise<CourseChangeResult> {
  if (changes.slug !== undefined && (await slugTaken(scope, 'courses', changes.slug, id))) return { kind: 'slug_taken' };
  const result = await scope.db
    .updateTable('courses')
    .set({
      ...(changes.slug !== undefined ? { slug: changes.slug } : {}),
      ...(changes.title !== undefined ? { title: changes.title } : {}),
      ...(changes.subtitle !== undefined ? { subtitle: changes.subtitle } : {}),
      ...(changes.description !== undefined ? { description: changes.description } : {}),
      ...(changes.priceCents !== undefined ? { price_cents: changes.priceCents } : {}),
      ...(changes.currency !== undefined ? { currency: changes.currency } : {}),
      updated_at: now,
    })
    .where('site_id', '=', scope.siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return { kind: 'not_found' };
  const course = await findCourseById(scope, id);
  return course ? { kind: 'changed', course } : { kind: 'not_found' };
}

export type CourseTransition = 'publish' | 'unpublish' | 'archive';

/**
 * Moves a course to another state. Publishing an archived course brings it back; unpublishing makes
 * it a draft again; archiving hides it from the public and keeps everything (enrollments, progress).
 */
export async function transitionCourse(scope: SiteScope, id: string, to: CourseTransition, now: number): Promise<OperatorCourse | null> {
  const values =
    to === 'publish'
      ? { published: 1, archived_at: null, updated_at: now }
      : to === 'unpublish'
        ? { published: 0, archived_at: null, updated_at: now }
        : { published: 0, archived_at: now, updated_at: now };
  const result = await scope.db
    .updateTable('courses')
    .set(values)
    .where('site_id', '=', scope.siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return null;
  return findCourseById(scope, id);
}

/** Whether this site has a course with this id, in any state. */
export async function courseExists(scope: SiteScope, id: string): Promise<boolean> {
  const row = await scope.db.selectFrom('courses').select('id').where('site_id', '=', scope.siteId).where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}
