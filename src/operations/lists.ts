// How operations page their lists (issue 4: "lists are paged with a cursor and say how many there are in
// all, never silently cut"), over the keyset paging of school/paging.ts, and how they write instants.
import { z } from 'zod';
import { isoInstant } from '../kernel/instant.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type Page, type PageRequest } from '../school/paging.js';

/** Input fields of every list: page size and the cursor of the previous page. */
export const pageInput = {
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE_SIZE)
    .optional()
    .describe(`How many items to return, 1 to ${MAX_PAGE_SIZE}; ${DEFAULT_PAGE_SIZE} when omitted.`),
  cursor: z
    .string()
    .min(1)
    .max(512)
    .optional()
    .describe('The nextCursor of the previous page, to continue the list; omit it for the first page.'),
};

/** Output fields of every list: the total over all pages, the next cursor, the items of this page. */
export function pagedOutput<T extends z.ZodType>(item: T, itemsName: string) {
  return {
    total: z.number().int().describe(`How many ${itemsName} there are in all pages together.`),
    nextCursor: z.string().nullable().describe('Pass this as cursor to get the next page; null when this page is the last one.'),
    items: z.array(item).describe(`The ${itemsName} of this page.`),
  };
}

export interface Paged<U> {
  total: number;
  nextCursor: string | null;
  items: U[];
}

export function pageRequest(input: { limit?: number | undefined; cursor?: string | undefined }): PageRequest {
  return { first: input.limit ?? null, after: input.cursor ?? null };
}

export function paged<T, U>(page: Page<T>, total: number, map: (node: T) => U): Paged<U> {
  return { total, nextCursor: page.hasNextPage ? page.endCursor : null, items: page.edges.map((edge) => map(edge.node)) };
}

/** An instant as ISO 8601 in UTC, as the member API's DateTime writes it. */
export function iso(ms: number): string {
  return isoInstant(ms);
}

export function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : iso(ms);
}

// A plain string with `format: date-time`: z.iso.datetime() would put a 400-character pattern into every
// date field of every tool schema, which clients read into a model's context.
export const instant = (description: string) => z.string().meta({ format: 'date-time', description: `${description} (ISO 8601, UTC).` });
export const instantOrNull = (description: string) =>
  z
    .string()
    .nullable()
    .meta({ format: 'date-time', description: `${description} (ISO 8601, UTC).` });
