// A school's pages as operators edit them (CONTRACT 6 pages). The page row holds the current content and
// its revision number; every content change writes the next revision with the whole content, in the same
// transaction as the page (the operation's write wrapper), so the history and the page never disagree.
import { randomUUID } from 'node:crypto';
import { type Page as ListPage, type PageRequest, pageQuery, toPage } from './paging.js';
import type { SiteScope } from './scope.js';
import { slugTaken } from './slugs.js';

export interface SchoolPage {
  id: string;
  slug: string;
  title: string;
  body: string;
  revision: number;
  publishedAt: number | null;
  createdAt: number;
  updatedAt: number | null;
}

export interface PageRevision {
  id: string;
  number: number;
  slug: string;
  title: string;
  body: string;
  authorId: string | null;
  restoredFrom: number | null;
  createdAt: number;
}

export interface PageContent {
  slug: string;
  title: string;
  body: string;
}

const LIST = 'operator_pages';
const COLUMNS = ['id', 'slug', 'title', 'body', 'revision', 'published_at', 'created_at', 'updated_at'] as const;
const num = (v: number | null) => (v === null ? null : Number(v));

function pageOf(row: {
  id: string;
  slug: string;
  title: string;
  body: string;
  revision: number;
  published_at: number | null;
  created_at: number;
  updated_at: number | null;
}): SchoolPage {
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    body: row.body,
    revision: Number(row.revision),
    publishedAt: num(row.published_at),
    createdAt: Number(row.created_at),
    updatedAt: num(row.updated_at),
  };
}

export async function listPages(scope: SiteScope, request: PageRequest): Promise<ListPage<SchoolPage>> {
  const { size, after } = pageQuery(LIST, request);
  const rows = await scope.db
    .selectFrom('pages')
    .where('site_id', '=', scope.siteId)
    .$if(after !== null, (qb) =>
      qb.where((eb) => eb.or([eb('created_at', '<', after!.sort), eb.and([eb('created_at', '=', after!.sort), eb('id', '<', after!.id)])])),
    )
    .select(COLUMNS)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(size + 1)
    .execute();
  return toPage(LIST, rows.map(pageOf), size, (p) => ({ sort: p.createdAt, id: p.id }));
}

export async function countPages(scope: SiteScope): Promise<number> {
  const row = await scope.db
    .selectFrom('pages')
    .where('site_id', '=', scope.siteId)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findPage(scope: SiteScope, id: string): Promise<SchoolPage | null> {
  const row = await scope.db
    .selectFrom('pages')
    .select(COLUMNS)
    .where('site_id', '=', scope.siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? pageOf(row) : null;
}

async function writeRevision(
  scope: SiteScope,
  pageId: string,
  number: number,
  content: PageContent,
  authorId: string | null,
  restoredFrom: number | null,
  now: number,
): Promise<void> {
  await scope.db
    .insertInto('page_revisions')
    .values({
      id: `prv_${randomUUID()}`,
      site_id: scope.siteId,
      page_id: pageId,
      number,
      ...content,
      author_person_id: authorId,
      restored_from: restoredFrom,
      created_at: now,
    })
    .execute();
}

export type PageWrite = { kind: 'done'; page: SchoolPage } | { kind: 'not_found' } | { kind: 'slug_taken' };

async function done(scope: SiteScope, id: string): Promise<PageWrite> {
  const page = await findPage(scope, id);
  return page ? { kind: 'done', page } : { kind: 'not_found' };
}

export async function createPage(scope: SiteScope, content: PageContent, authorId: string | null, now: number): Promise<PageWrite> {
  if (await slugTaken(scope, 'pages', content.slug, null)) return { kind: 'slug_taken' };
  const id = `pag_${randomUUID()}`;
  await scope.db
    .insertInto('pages')
    .values({ id, site_id: scope.siteId, ...content, revision: 1, published_at: null, created_at: now, updated_at: null })
    .execute();
  await writeRevision(scope, id, 1, content, authorId, null, now);
  return done(scope, id);
}

/** New content as the next revision; `restoredFrom` names the revision it brings back, if any. */
export async function revisePage(
  scope: SiteScope,
  id: string,
  changes: Partial<PageContent>,
  authorId: string | null,
  restoredFrom: number | null,
  now: number,
): Promise<PageWrite> {
  const current = await findPage(scope, id);
  if (!current) return { kind: 'not_found' };
  if (changes.slug !== undefined && (await slugTaken(scope, 'pages', changes.slug, id))) return { kind: 'slug_taken' };
  const content: PageContent = {
    slug: changes.slug ?? current.slug,
    title: changes.title ?? current.title,
    body: changes.body ?? current.body,
  };
  const number = current.revision + 1;
  // The revision number in the WHERE makes a concurrent edit of the same revision lose, not interleave.
  const result = await scope.db
    .updateTable('pages')
    .set({ ...content, revision: number, updated_at: now })
    .where('site_id', '=', scope.siteId)
    .where('id', '=', id)
    .where('revision', '=', current.revision)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return { kind: 'not_found' };
  await writeRevision(scope, id, number, content, authorId, restoredFrom, now);
  return done(scope, id);
}

export async function setPagePublished(scope: SiteScope, id: string, published: boolean, now: number): Promise<PageWrite> {
  const result = await scope.db
    .updateTable('pages')
    .set(published ? { published_at: now, updated_at: now } : { published_at: null, updated_at: now })
    .where('site_id', '=', scope.siteId)
    .where('id', '=', id)
    .$if(published, (qb) => qb.where('published_at', 'is', null))
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0 && !(await findPage(scope, id))) return { kind: 'not_found' };
  return done(scope, id);
}

export async function listRevisions(scope: SiteScope, pageId: string, request: PageRequest): Promise<ListPage<PageRevision>> {
  const list = `operator_page_revisions:${pageId}`;
  const { size, after } = pageQuery(list, request);
  const rows = await scope.db
    .selectFrom('page_revisions')
    .where('site_id', '=', scope.siteId)
    .where('page_id', '=', pageId)
    .$if(after !== null, (qb) => qb.where('number', '<', after!.sort))
    .select(['id', 'number', 'slug', 'title', 'body', 'author_person_id', 'restored_from', 'created_at'])
    .orderBy('number', 'desc')
    .limit(size + 1)
    .execute();
  return toPage(
    list,
    rows.map((r) => ({
      id: r.id,
      number: Number(r.number),
      slug: r.slug,
      title: r.title,
      body: r.body,
      authorId: r.author_person_id,
      restoredFrom: num(r.restored_from),
      createdAt: Number(r.created_at),
    })),
    size,
    (r) => ({ sort: r.number, id: r.id }),
  );
}

export async function findRevision(scope: SiteScope, pageId: string, revisionId: string): Promise<PageRevision | null> {
  const r = await scope.db
    .selectFrom('page_revisions')
    .select(['id', 'number', 'slug', 'title', 'body', 'author_person_id', 'restored_from', 'created_at'])
    .where('site_id', '=', scope.siteId)
    .where('page_id', '=', pageId)
    .where('id', '=', revisionId)
    .executeTakeFirst();
  if (!r) return null;
  return {
    id: r.id,
    number: Number(r.number),
    slug: r.slug,
    title: r.title,
    body: r.body,
    authorId: r.author_person_id,
    restoredFrom: num(r.restored_from),
    createdAt: Number(r.created_at),
  };
}
