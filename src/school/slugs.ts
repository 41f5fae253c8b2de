// Slugs are unique per site within each kind of thing that has one: the one check every write of a
// slug asks before it writes (the unique constraints stay the last word under a race).
import type { SiteScope } from './scope.js';

export type SluggedTable = 'courses' | 'events' | 'posts' | 'pages' | 'digital_products';

/** Whether another row of `table` at this site (any but `exceptId`) has this slug. */
export async function slugTaken(scope: SiteScope, table: SluggedTable, slug: string, exceptId: string | null): Promise<boolean> {
  const row = await scope.db
    .selectFrom(table)
    .select('id')
    .where('site_id', '=', scope.siteId)
    .where('slug', '=', slug)
    .$if(exceptId !== null, (qb) => qb.where('id', '!=', exceptId as string))
    .executeTakeFirst();
  return row !== undefined;
}
