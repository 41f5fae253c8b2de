// An enrollment's next lecture (the first of its course, in curriculum order, it has not completed) is
// kept by migration 028's triggers as lectures are completed. A change of curriculum order only bumps the
// course's version, since a reorder renumbers lectures one statement at a time; this recomputes the next
// lectures once for the whole change (the trigger on curriculum_versions holds the rule).
import type { SiteScope } from './scope.js';

/** Brings a course's next lectures up to its curriculum order; nothing to do when they already are. */
export async function stampCurriculum(scope: SiteScope, courseId: string): Promise<void> {
  await scope.db
    .updateTable('curriculum_versions')
    .set((eb) => ({ stamped: eb.ref('version') }))
    .where('site_id', '=', scope.siteId)
    .where('course_id', '=', courseId)
    .whereRef('stamped', '<>', 'version')
    .execute();
}
