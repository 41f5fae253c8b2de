// Posts as operators write them (CONTRACT 6 posts): drafts by default, published now or at `publishAt`.
// A post's state is read from its `publish_at` against `now` (one rule, here), so a scheduled post is
// published on time whether or not anything runs; `announceDuePosts` then tells the school's members
// once, in their inbox on variant A, claimed row by row so two nodes never announce the same post twice.
import { randomUUID } from 'node:crypto';
import type { Expression, ExpressionBuilder, Kysely, SqlBool } from 'kysely';
import { variantCapabilities } from '../sites/site.js';
import type { Database } from '../storage/schema.js';
import { type Page, type PageRequest, pageQuery, toPage } from './paging.js';
import type { SiteScope } from './scope.js';
import { slugTaken } from './slugs.js';

export type PostState = 'draft' | 'scheduled' | 'published';

export interface Post {
  id: string;
  slug: string;
  title: string;
  body: string;
  authorId: string | null;
  publishAt: number | null;
  announcedAt: number | null;
  createdAt: number;
  updatedAt: number | null;
}

export function postState(post: { publishAt: number | null }, now: number): PostState {
  if (post.publishAt === null) return 'draft';
  return post.publishAt <= now ? 'published' : 'scheduled';
}

function stateIs(eb: ExpressionBuilder<Database, 'posts'>, state: PostState, now: number): Expression<SqlBool> {
  switch (state) {
    case 'draft':
      return eb('publish_at', 'is', null);
    case 'scheduled':
      return eb('publish_at', '>', now);
    case 'published':
      return eb('publish_at', '<=', now);
  }
}

const LIST = 'operator_posts';
const COLUMNS = ['id', 'slug', 'title', 'body', 'author_person_id', 'publish_at', 'announced_at', 'created_at', 'updated_at'] as const;

function toPost(row: {
  id: string;
  slug: string;
  title: string;
  body: string;
  author_person_id: string | null;
  publish_at: number | null;
  announced_at: number | null;
  created_at: number;
  updated_at: number | null;
}): Post {
  const num = (v: number | null) => (v === null ? null : Number(v));
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    body: row.body,
    authorId: row.author_person_id,
    publishAt: num(row.publish_at),
    announcedAt: num(row.announced_at),
    createdAt: Number(row.created_at),
    updatedAt: num(row.updated_at),
  };
}

function postsOf(scope: SiteScope, state: PostState | undefined, now: number) {
  return scope.db
    .selectFrom('posts')
    .where('site_id', '=', scope.siteId)
    .$if(state !== undefined, (qb) => qb.where((eb) => stateIs(eb, state ?? 'draft', now)));
}

export async function listPosts(scope: SiteScope, state: PostState | undefined, request: PageRequest, now: number): Promise<Page<Post>> {
  const { size, after } = pageQuery(LIST, request);
  const rows = await postsOf(scope, state, now)
    .$if(after !== null, (qb) =>
      qb.where((eb) => eb.or([eb('created_at', '<', after!.sort), eb.and([eb('created_at', '=', after!.sort), eb('id', '<', after!.id)])])),
    )
    .select(COLUMNS)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(size + 1)
    .execute();
  return toPage(LIST, rows.map(toPost), size, (p) => ({ sort: p.createdAt, id: p.id }));
}

export async function countPosts(scope: SiteScope, state: PostState | undefined, now: number): Promise<number> {
  const row = await postsOf(scope, state, now)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findPost(scope: SiteScope, id: string): Promise<Post | null> {
  const row = await scope.db
    .selectFrom('posts')
    .select(COLUMNS)
    .where('site_id', '=', scope.siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? toPost(row) : null;
}

export type PostWrite = { kind: 'done'; post: Post } | { kind: 'not_found' } | { kind: 'slug_taken' };

export async function draftPost(
  scope: SiteScope,
  fields: { slug: string; title: string; body: string; authorId: string | null },
  now: number,
): Promise<PostWrite> {
  if (await slugTaken(scope, 'posts', fields.slug, null)) return { kind: 'slug_taken' };
  const id = `pst_${randomUUID()}`;
  await scope.db
    .insertInto('posts')
    .values({
      id,
      site_id: scope.siteId,
      slug: fields.slug,
      title: fields.title,
      body: fields.body,
      author_person_id: fields.authorId,
      publish_at: null,
      announced_at: null,
      created_at: now,
      updated_at: null,
    })
    .execute();
  const post = await findPost(scope, id);
  return post ? { kind: 'done', post } : { kind: 'not_found' };
}

export async function updatePost(
  scope: SiteScope,
  id: string,
  changes: { slug?: string; title?: string; body?: string },
  now: number,
): Promise<PostWrite> {
  if (changes.slug !== undefined && (await slugTaken(scope, 'posts', changes.slug, id))) return { kind: 'slug_taken' };
  const result = await scope.db
    .updateTable('posts')
    .set({ ...changes, updated_at: now })
    .where('site_id', '=', scope.siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return { kind: 'not_found' };
  const post = await findPost(scope, id);
  return post ? { kind: 'done', post } : { kind: 'not_found' };
}

/** Publishes at `at` (now or later); a post already published stays as it is (false). */
export async function schedulePost(scope: SiteScope, id: string, at: number, now: number): Promise<boolean> {
  const result = await scope.db
    .updateTable('posts')
    .set({ publish_at: at, updated_at: now })
    .where('site_id', '=', scope.siteId)
    .where('id', '=', id)
    .where((eb) => eb.or([stateIs(eb, 'draft', now), stateIs(eb, 'scheduled', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deletePost(scope: SiteScope, id: string): Promise<boolean> {
  const result = await scope.db.deleteFrom('posts').where('site_id', '=', scope.siteId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * Tells the members of each school with an inbox about each post that has become published and was not
 * announced yet: one notification per member who has not turned announcements off. Each post is claimed
 * in its own transaction (announced_at set where still null), so a post is announced exactly once however
 * many nodes run this. Returns how many posts it announced.
 */
export async function announceDuePosts(db: Kysely<Database>, now: number, limit = 20): Promise<number> {
  const due = await db
    .selectFrom('posts')
    .innerJoin('sites', 'sites.id', 'posts.site_id')
    .select(['posts.id', 'posts.site_id', 'posts.slug', 'posts.title', 'sites.variant'])
    .where('posts.announced_at', 'is', null)
    .where('posts.publish_at', '<=', now)
    .orderBy('posts.publish_at')
    .limit(limit)
    .execute();
  let announced = 0;
  for (const post of due) {
    const claimed = await db.transaction().execute(async (trx) => {
      const claim = await trx
        .updateTable('posts')
        .set({ announced_at: now })
        .where('id', '=', post.id)
        .where('announced_at', 'is', null)
        .executeTakeFirst();
      if (Number(claim.numUpdatedRows) === 0) return false;
      if (!variantCapabilities(post.variant).inbox) return true;
      const people = await trx
        .selectFrom('site_roles as r')
        .select('r.person_id')
        .distinct()
        .where('r.site_id', '=', post.site_id)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('notification_subscriptions as s')
                .select('s.person_id')
                .whereRef('s.person_id', '=', 'r.person_id')
                .where('s.site_id', '=', post.site_id)
                .where('s.kind', '=', 'announcement')
                .where('s.channel', '=', 'in_app')
                .where('s.enabled', '=', 0),
            ),
          ),
        )
        .execute();
      for (let i = 0; i < people.length; i += 500)
        await trx
          .insertInto('notifications')
          .values(
            people.slice(i, i + 500).map((p) => ({
              id: `ntf_${randomUUID()}`,
              site_id: post.site_id,
              person_id: p.person_id,
              kind: 'announcement' as const,
              title: post.title.slice(0, 200),
              body: 'A new post from your school.',
              link: `/posts/${post.slug}`,
              read_at: null,
              created_at: now,
            })),
          )
          .execute();
      return true;
    });
    if (claimed) announced++;
  }
  return announced;
}
