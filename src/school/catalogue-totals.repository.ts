// Totals of the public catalogue lists (SPEC 1: public /mcp tools; issue 4: "lists say how many there are
// in all, never silently cut"). Each count uses the same filter as its list in catalogue.repository.ts;
// test/mcp/paging.test.ts pages every list to its end and checks the total against what it saw.
import { sql } from 'kysely';
import { containsPattern } from './catalogue.repository.js';
import type { SiteScope } from './scope.js';

/** How many published courses `searchPublishedCourses` would return over all pages for this text. */
export async function countPublishedCourses(scope: SiteScope, query: { text?: string | null }): Promise<number> {
  const text = query.text?.trim() ?? '';
  const pattern = containsPattern(text);
  const row = await scope.db
    .selectFrom('courses')
    .where('site_id', '=', scope.siteId)
    .where('published', '=', 1)
    .$if(text.length > 0, (qb) =>
      qb.where((eb) =>
        eb.or(
          (['title', 'subtitle', 'description'] as const).map(
            (column) => sql<boolean>`lower(coalesce(${eb.ref(column)}, '')) like ${pattern} escape '\\'`,
          ),
        ),
      ),
    )
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** How many events `listUpcomingPublicEvents` would return over all pages at `now`. */
export async function countUpcomingPublicEvents(scope: SiteScope, now: number): Promise<number> {
  const row = await scope.db
    .selectFrom('events')
    .where('site_id', '=', scope.siteId)
    .where('published', '=', 1)
    .where('is_public', '=', 1)
    .where('ends_at', '>', now)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
