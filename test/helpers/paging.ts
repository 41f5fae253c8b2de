// Reading a paged list to its end as a client would: page after page, each from the last one's cursor.
import type { Page } from '../../src/school/paging.js';

/** Every item id of a list, in order; `page` reads the page after a cursor (the first page for undefined). */
export async function pagedIds(page: (after: string | undefined) => Promise<Page<{ id: string }>>, maxPages = 50): Promise<string[]> {
  const ids: string[] = [];
  let after: string | undefined;
  for (let pages = 0; pages < maxPages; pages++) {
    const current = await page(after);
    ids.push(...current.edges.map((e) => e.node.id));
    if (!current.hasNextPage || !current.endCursor) break;
    after = current.endCursor;
  }
  return ids;
}
