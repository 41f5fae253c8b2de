// Operator operations of the posts family (CONTRACT 6 posts, scope posts:*): drafts by default, edited,
// published now or at `publishAt` (through MCP after a confirmation: it is outward-facing), deleted. A
// scheduled post becomes published at its moment by itself; the scheduler then tells the members.
import { z } from 'zod';
import {
  countPosts,
  deletePost,
  draftPost,
  findPost,
  listPosts,
  type Post,
  type PostWrite,
  postState,
  schedulePost,
  updatePost,
} from '../../school/posts.repository.js';
import { instant, instantOrNull, iso, isoOrNull, pagedOutput, pageInput, pageRequest, paged } from '../lists.js';
import { defineOperation, type Operation, type OperationContext, OperationError, READ_ONLY } from '../operation.js';
import { SLUG, slugField, slugFromTitle } from './courses.js';
import { siteScope } from './site-scope.js';

const STATES = ['draft', 'scheduled', 'published'] as const;

const operatorPost = z.object({
  id: z.string(),
  slug: z.string(),
  title: z.string(),
  body: z.string().describe('The post’s text (Markdown).'),
  state: z.enum(STATES).describe('draft; scheduled (published at publishAt); published.'),
  publishAt: instantOrNull('When it is (or was) published; null for a draft'),
  announcedAt: instantOrNull('When the members were told; null until then'),
  authorId: z.string().nullable().describe('The person who drafted it.'),
  createdAt: instant('When it was drafted'),
  updatedAt: instantOrNull('When an operator last changed it; null when never'),
});

function postOut(post: Post, now: number): z.output<typeof operatorPost> {
  return {
    id: post.id,
    slug: post.slug,
    title: post.title,
    body: post.body,
    state: postState(post, now),
    publishAt: isoOrNull(post.publishAt),
    announcedAt: isoOrNull(post.announcedAt),
    authorId: post.authorId,
    createdAt: iso(post.createdAt),
    updatedAt: isoOrNull(post.updatedAt),
  };
}

const POST_TEXT = ['post.title', 'post.body'];
const postId = z.string().min(1).max(64).describe('The post id (pst_…).');
const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;
const MAX_BODY = 100_000;

async function postOr404(ctx: OperationContext, id: string): Promise<Post> {
  const post = await findPost(siteScope(ctx), id);
  if (!post) throw new OperationError('not_found', `This school has no post with the id ${id}.`);
  return post;
}

function written(result: PostWrite, ctx: OperationContext, id: string, slug?: string): { post: z.output<typeof operatorPost> } {
  switch (result.kind) {
    case 'done':
      return { post: postOut(result.post, ctx.clock.now()) };
    case 'not_found':
      throw new OperationError('not_found', `This school has no post with the id ${id}.`);
    case 'slug_taken':
      throw new OperationError('conflict', `Another post of this school has the slug "${slug}". Pass another slug.`, [
        { pointer: '/slug', detail: 'already used by another post' },
      ]);
  }
}

export const listPostsOperation = defineOperation({
  name: 'list_posts',
  title: 'List posts',
  description:
    'The school’s posts, newest first, drafts and scheduled ones included; filter by state. Paged with a total and a nextCursor.',
  audience: 'operator',
  scopes: ['posts:read'],
  rest: { method: 'GET', path: '/posts' },
  tool: false,
  input: z.object({ ...pageInput, state: z.enum(STATES).optional().describe('Only posts in this state.') }),
  output: z.object(pagedOutput(operatorPost, 'posts')),
  annotations: READ_ONLY,
  userContent: ['items[].title', 'items[].body'],
  async handle(ctx, input) {
    const scope = siteScope(ctx);
    const now = ctx.clock.now();
    const [page, total] = await Promise.all([listPosts(scope, input.state, pageRequest(input), now), countPosts(scope, input.state, now)]);
    return paged(page, total, (p) => postOut(p, now));
  },
});

export const getPost: Operation = defineOperation({
  name: 'get_post',
  title: 'Get a post',
  description: 'One post by id, in any state.',
  audience: 'operator',
  scopes: ['posts:read'],
  rest: { method: 'GET', path: '/posts/{id}', resource: () => getPost },
  tool: false,
  input: z.object({ id: postId }),
  output: z.object({ post: operatorPost }),
  annotations: READ_ONLY,
  userContent: POST_TEXT,
  async handle(ctx, input) {
    return { post: postOut(await postOr404(ctx, input.id), ctx.clock.now()) };
  },
});

export const draftPostOperation = defineOperation({
  name: 'draft_post',
  title: 'Draft a post',
  description:
    'Writes a new post as a draft (nobody sees it until it is published with publish_post) and returns it as stored. The slug is made ' +
    'from the title unless you pass one.',
  audience: 'operator',
  scopes: ['posts:write'],
  rest: { method: 'POST', path: '/posts', status: 201 },
  input: z.object({
    title: z.string().trim().min(1).max(200).describe('Post title.'),
    body: z.string().max(MAX_BODY).describe('The text, in Markdown.'),
    slug: slugField.optional().describe('URL name, unique in this school; made from the title when omitted.'),
  }),
  output: z.object({ post: operatorPost }),
  annotations: WRITE,
  userContent: POST_TEXT,
  audit: (_input, output) => `post:${output.post.id}`,
  async handle(ctx, input) {
    const slug = input.slug ?? slugFromTitle(input.title);
    if (!SLUG.test(slug))
      throw new OperationError('invalid_argument', 'No slug can be made from this title: pass a slug such as "spring-news".', [
        { pointer: '/slug', detail: 'required when the title has no letters or digits' },
      ]);
    return written(
      await draftPost(siteScope(ctx), { slug, title: input.title, body: input.body, authorId: ctx.personId }, ctx.clock.now()),
      ctx,
      '',
      slug,
    );
  },
});

export const updatePostOperation = defineOperation({
  name: 'update_post',
  title: 'Edit a post',
  description: 'Changes a post’s title, text or slug (the others stay), in any state, and returns it as stored.',
  audience: 'operator',
  scopes: ['posts:write'],
  rest: { method: 'PATCH', path: '/posts/{id}', resource: () => getPost },
  tool: false,
  input: z.object({
    id: postId,
    title: z.string().trim().min(1).max(200).optional(),
    body: z.string().max(MAX_BODY).optional(),
    slug: slugField.optional(),
  }),
  output: z.object({ post: operatorPost }),
  annotations: { ...WRITE, idempotentHint: true },
  userContent: POST_TEXT,
  audit: (input) => `post:${input.id}`,
  async handle(ctx, input) {
    const { id, ...changes } = input;
    const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    return written(await updatePost(siteScope(ctx), id, defined, ctx.clock.now()), ctx, id, input.slug);
  },
});

export const publishPostOperation = defineOperation({
  name: 'publish_post',
  title: 'Publish a post',
  description:
    'Publishes a draft now, or at publishAt (a future moment: it becomes published then, by itself), and the school’s members are told in ' +
    'their inbox. A scheduled post can be given another moment. Outward-facing: the first call answers a preview and a ' +
    'confirmationToken; call again with it to publish.',
  audience: 'operator',
  scopes: ['posts:write'],
  rest: { method: 'POST', path: '/posts/{id}/publish', resource: () => getPost },
  input: z.object({
    id: postId,
    publishAt: z.iso.datetime({ offset: true }).optional().describe('When to publish (ISO 8601, in the future); now when omitted.'),
  }),
  output: z.object({ post: operatorPost }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  userContent: POST_TEXT,
  audit: (input) => `post:${input.id}`,
  async confirm(ctx, input) {
    const post = await postOr404(ctx, input.id);
    return {
      summary: `Publish the post "${post.title}" ${input.publishAt ? `at ${input.publishAt}` : 'now'} and tell the school’s members.`,
      details: { post: postOut(post, ctx.clock.now()) },
    };
  },
  async handle(ctx, input) {
    const now = ctx.clock.now();
    const at = input.publishAt === undefined ? now : Date.parse(input.publishAt);
    if (at < now)
      throw new OperationError('invalid_argument', 'publishAt is in the past; omit it to publish now.', [
        { pointer: '/publishAt', detail: 'must be in the future' },
      ]);
    const current = await postOr404(ctx, input.id);
    if (!(await schedulePost(siteScope(ctx), input.id, at, now)))
      throw new OperationError('conflict', `The post is ${postState(current, now)} already and cannot be published again.`);
    return { post: postOut(await postOr404(ctx, input.id), now) };
  },
});

export const deletePostOperation = defineOperation({
  name: 'delete_post',
  title: 'Delete a post',
  description: 'Deletes a post for good; a scheduled post is then never published.',
  audience: 'operator',
  scopes: ['posts:write'],
  rest: { method: 'DELETE', path: '/posts/{id}', resource: () => getPost },
  tool: false,
  input: z.object({ id: postId }),
  output: z.object({ deleted: z.literal(true), id: z.string() }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  audit: (input) => `post:${input.id}`,
  async handle(ctx, input) {
    if (!(await deletePost(siteScope(ctx), input.id)))
      throw new OperationError('not_found', `This school has no post with the id ${input.id}.`);
    return { deleted: true as const, id: input.id };
  },
});

export const POST_OPERATIONS: readonly Operation[] = [
  listPostsOperation,
  getPost,
  draftPostOperation,
  updatePostOperation,
  publishPostOperation,
  deletePostOperation,
];
