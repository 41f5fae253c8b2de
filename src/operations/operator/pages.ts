// Operator operations of the pages family (CONTRACT 6 pages, scopes pages:*): a school's own pages,
// drafts until published; every content change a numbered revision; any revision restored as a new one.
import { z } from 'zod';
import {
  countPages,
  createPage,
  findPage,
  findRevision,
  listPages,
  listRevisions,
  type PageRevision,
  type PageWrite,
  revisePage,
  type SchoolPage,
  setPagePublished,
} from '../../school/pages.repository.js';
import { instant, instantOrNull, iso, isoOrNull, pagedOutput, pageInput, pageRequest, paged } from '../lists.js';
import { defineOperation, type Operation, type OperationContext, OperationError, READ_ONLY } from '../operation.js';
import { SLUG, slugField, slugFromTitle } from './courses.js';
import { siteScope } from './site-scope.js';

const page = z.object({
  id: z.string(),
  slug: z.string(),
  title: z.string(),
  body: z.string().describe('The page’s text (Markdown).'),
  revision: z.number().int().describe('The number of the revision this content is.'),
  state: z.enum(['draft', 'published']),
  publishedAt: instantOrNull('When it was published; null for a draft'),
  createdAt: instant('When it was created'),
  updatedAt: instantOrNull('When an operator last changed it; null when never'),
});

const revision = z.object({
  id: z.string(),
  number: z.number().int(),
  slug: z.string(),
  title: z.string(),
  body: z.string(),
  authorId: z.string().nullable(),
  restoredFrom: z.number().int().nullable().describe('The revision this one brought back, when it was a restore.'),
  createdAt: instant('When it was written'),
});

function pageOut(p: SchoolPage): z.output<typeof page> {
  return {
    id: p.id,
    slug: p.slug,
    title: p.title,
    body: p.body,
    revision: p.revision,
    state: p.publishedAt === null ? 'draft' : 'published',
    publishedAt: isoOrNull(p.publishedAt),
    createdAt: iso(p.createdAt),
    updatedAt: isoOrNull(p.updatedAt),
  };
}

function revisionOut(r: PageRevision): z.output<typeof revision> {
  return { ...r, createdAt: iso(r.createdAt) };
}

const PAGE_TEXT = ['page.title', 'page.body'];
const pageId = z.string().min(1).max(64).describe('The page id (pag_…).');
const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;
const MAX_BODY = 200_000;

function written(result: PageWrite, id: string, slug?: string): { page: z.output<typeof page> } {
  switch (result.kind) {
    case 'done':
      return { page: pageOut(result.page) };
    case 'not_found':
      throw new OperationError('not_found', `This school has no page with the id ${id}.`);
    case 'slug_taken':
      throw new OperationError('conflict', `Another page of this school has the slug "${slug}".`, [
        { pointer: '/slug', detail: 'already used by another page' },
      ]);
  }
}

async function pageOr404(ctx: OperationContext, id: string): Promise<SchoolPage> {
  const found = await findPage(siteScope(ctx), id);
  if (!found) throw new OperationError('not_found', `This school has no page with the id ${id}.`);
  return found;
}

export const listPagesOperation = defineOperation({
  name: 'list_pages',
  title: 'List pages',
  description: 'The school’s own pages, drafts included, newest first.',
  audience: 'operator',
  scopes: ['pages:read'],
  rest: { method: 'GET', path: '/pages' },
  tool: false,
  input: z.object({ ...pageInput }),
  output: z.object(pagedOutput(page, 'pages')),
  annotations: READ_ONLY,
  userContent: ['items[].title', 'items[].body'],
  async handle(ctx, input) {
    const scope = siteScope(ctx);
    const [list, total] = await Promise.all([listPages(scope, pageRequest(input)), countPages(scope)]);
    return paged(list, total, pageOut);
  },
});

export const getPage: Operation = defineOperation({
  name: 'get_page',
  title: 'Get a page',
  description: 'One page by id with its current content and revision number.',
  audience: 'operator',
  scopes: ['pages:read'],
  rest: { method: 'GET', path: '/pages/{id}', resource: () => getPage },
  tool: false,
  input: z.object({ id: pageId }),
  output: z.object({ page }),
  annotations: READ_ONLY,
  userContent: PAGE_TEXT,
  async handle(ctx, input) {
    return { page: pageOut(await pageOr404(ctx, input.id)) };
  },
});

export const createPageOperation = defineOperation({
  name: 'create_page',
  title: 'Create a page',
  description: 'Creates a page as a draft, its content revision 1. The slug is made from the title unless given.',
  audience: 'operator',
  scopes: ['pages:write'],
  rest: { method: 'POST', path: '/pages', status: 201 },
  tool: false,
  input: z.object({
    title: z.string().trim().min(1).max(200),
    body: z.string().max(MAX_BODY).describe('The text, in Markdown.'),
    slug: slugField.optional(),
  }),
  output: z.object({ page }),
  annotations: WRITE,
  userContent: PAGE_TEXT,
  audit: (_input, output) => `page:${output.page.id}`,
  async handle(ctx, input) {
    const slug = input.slug ?? slugFromTitle(input.title);
    if (!SLUG.test(slug))
      throw new OperationError('invalid_argument', 'No slug can be made from this title: pass a slug.', [
        { pointer: '/slug', detail: 'required when the title has no letters or digits' },
      ]);
    return written(
      await createPage(siteScope(ctx), { slug, title: input.title, body: input.body }, ctx.personId, ctx.clock.now()),
      '',
      slug,
    );
  },
});

export const updatePageOperation = defineOperation({
  name: 'update_page',
  title: 'Edit a page',
  description: 'Changes a page’s title, text or slug; the new content is the next revision (earlier ones stay readable and restorable).',
  audience: 'operator',
  scopes: ['pages:write'],
  rest: { method: 'PATCH', path: '/pages/{id}', resource: () => getPage },
  tool: false,
  input: z.object({
    id: pageId,
    title: z.string().trim().min(1).max(200).optional(),
    body: z.string().max(MAX_BODY).optional(),
    slug: slugField.optional(),
  }),
  output: z.object({ page }),
  annotations: WRITE,
  userContent: PAGE_TEXT,
  audit: (input) => `page:${input.id}`,
  async handle(ctx, input) {
    const { id, ...changes } = input;
    const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    return written(await revisePage(siteScope(ctx), id, defined, ctx.personId, null, ctx.clock.now()), id, input.slug);
  },
});

function publication(name: string, to: 'publish' | 'unpublish', title: string, description: string): Operation {
  return defineOperation({
    name,
    title,
    description,
    audience: 'operator',
    scopes: ['pages:write'],
    rest: { method: 'POST', path: `/pages/{id}/${to}`, resource: () => getPage },
    tool: false,
    input: z.object({ id: pageId }),
    output: z.object({ page }),
    annotations: { readOnlyHint: false, destructiveHint: to === 'unpublish', idempotentHint: true, openWorldHint: false },
    userContent: PAGE_TEXT,
    audit: (input) => `page:${input.id}`,
    async handle(ctx, input) {
      return written(await setPagePublished(siteScope(ctx), input.id, to === 'publish', ctx.clock.now()), input.id);
    },
  });
}

export const publishPage = publication(
  'publish_page',
  'publish',
  'Publish a page',
  'Makes a page visible; publishing a published page changes nothing.',
);
export const unpublishPage = publication(
  'unpublish_page',
  'unpublish',
  'Unpublish a page',
  'Makes a page a draft again; its content stays.',
);

export const listPageRevisions = defineOperation({
  name: 'list_page_revisions',
  title: 'List a page’s revisions',
  description: 'Every content a page has had, newest revision first, each whole. Paged with a total and a nextCursor.',
  audience: 'operator',
  scopes: ['pages:read'],
  rest: { method: 'GET', path: '/pages/{id}/revisions' },
  tool: false,
  input: z.object({ id: pageId, ...pageInput }),
  output: z.object({ pageId: z.string(), ...pagedOutput(revision, 'revisions') }),
  annotations: READ_ONLY,
  userContent: ['items[].title', 'items[].body'],
  async handle(ctx, input) {
    const current = await pageOr404(ctx, input.id);
    const list = await listRevisions(siteScope(ctx), input.id, pageRequest(input));
    return { pageId: input.id, ...paged(list, current.revision, revisionOut) };
  },
});

export const restorePageRevision = defineOperation({
  name: 'restore_page_revision',
  title: 'Restore a page revision',
  description: 'Brings back an earlier revision’s content as the page’s next revision; nothing in the history is lost.',
  audience: 'operator',
  scopes: ['pages:write'],
  rest: { method: 'POST', path: '/pages/{id}/revisions/{revisionId}/restore', resource: () => getPage },
  tool: false,
  input: z.object({ id: pageId, revisionId: z.string().min(1).max(64).describe('The revision id (prv_…).') }),
  output: z.object({ page }),
  annotations: WRITE,
  userContent: PAGE_TEXT,
  audit: (input) => `page:${input.id}`,
  async handle(ctx, input) {
    const scope = siteScope(ctx);
    await pageOr404(ctx, input.id);
    const old = await findRevision(scope, input.id, input.revisionId);
    if (!old) throw new OperationError('not_found', `The page ${input.id} has no revision with the id ${input.revisionId}.`);
    return written(
      await revisePage(scope, input.id, { slug: old.slug, title: old.title, body: old.body }, ctx.personId, old.number, ctx.clock.now()),
      input.id,
      old.slug,
    );
  },
});

export const PAGE_OPERATIONS: readonly Operation[] = [
  listPagesOperation,
  getPage,
  createPageOperation,
  updatePageOperation,
  publishPage,
  unpublishPage,
  listPageRevisions,
  restorePageRevision,
];
