// Comments as operators read them (CONTRACT 6 comments): newest first, by course, lecture or post, since a
// moment, or only the questions still waiting for the school: threads whose first comment no one of the
// school's staff (owner, admin or lecturer here) has answered. A thread is its first comment and the
// replies that name it, read in one query.
import { type ExpressionBuilder, sql } from 'kysely';
import type { Database } from '../storage/schema.js';
import { type Page, type PageRequest, pageQuery, toPage } from './paging.js';
import type { SiteScope } from './scope.js';

const STAFF = ['owner', 'admin', 'lecturer'] as const;

export interface CommentRecord {
  id: string;
  rootId: string | null;
  authorId: string;
  authorName: string;
  authorIsStaff: boolean;
  courseId: string | null;
  lectureId: string | null;
  postId: string | null;
  body: string;
  replyCount: number;
  answered: boolean;
  createdAt: number;
}

export interface CommentFilter {
  courseId?: string | undefined;
  lectureId?: string | undefined;
  postId?: string | undefined;
  since?: number | undefined;
  unanswered?: boolean | undefined;
}

type CommentsEb = ExpressionBuilder<Database & { c: Database['comments'] }, 'c'>;

/** Whether a staff member of the site has replied in the thread of comment `c` (its own root or it). */
function answeredBy(eb: CommentsEb) {
  return eb.exists(
    eb
      .selectFrom('comments as reply')
      .innerJoin('site_roles as sr', (join) => join.onRef('sr.person_id', '=', 'reply.person_id').onRef('sr.site_id', '=', 'reply.site_id'))
      .select('reply.id')
      .whereRef('reply.root_id', '=', 'c.id')
      .where('sr.role', 'in', STAFF),
  );
}

const LIST = 'operator_comments';

function matching(scope: SiteScope, filter: CommentFilter) {
  return scope.db
    .selectFrom('comments as c')
    .where('c.site_id', '=', scope.siteId)
    .$if(filter.courseId !== undefined, (qb) => qb.where('c.course_id', '=', filter.courseId ?? ''))
    .$if(filter.lectureId !== undefined, (qb) => qb.where('c.lecture_id', '=', filter.lectureId ?? ''))
    .$if(filter.postId !== undefined, (qb) => qb.where('c.post_id', '=', filter.postId ?? ''))
    .$if(filter.since !== undefined, (qb) => qb.where('c.created_at', '>=', filter.since ?? 0))
    .$if(filter.unanswered === true, (qb) => qb.where('c.root_id', 'is', null).where((eb) => eb.not(answeredBy(eb))));
}

function columns(scope: SiteScope) {
  return (eb: CommentsEb) => [
    'c.id' as const,
    'c.root_id' as const,
    'c.person_id' as const,
    'c.course_id' as const,
    'c.lecture_id' as const,
    'c.post_id' as const,
    'c.body' as const,
    'c.created_at' as const,
    eb.selectFrom('people as p').select('p.name').whereRef('p.id', '=', 'c.person_id').as('author_name'),
    eb
      .exists(
        eb
          .selectFrom('site_roles as sr')
          .select('sr.person_id')
          .whereRef('sr.person_id', '=', 'c.person_id')
          .where('sr.site_id', '=', scope.siteId)
          .where('sr.role', 'in', STAFF),
      )
      .as('author_is_staff'),
    eb.selectFrom('comments as reply').select(sql<number>`count(*)`.as('n')).whereRef('reply.root_id', '=', 'c.id').as('reply_count'),
    answeredBy(eb).as('answered'),
  ];
}

type Row = {
  id: string;
  root_id: string | null;
  person_id: string;
  course_id: string | null;
  lecture_id: string | null;
  post_id: string | null;
  body: string;
  created_at: number;
  author_name: string | null;
  author_is_staff: unknown;
  reply_count: unknown;
  answered: unknown;
};

// SQLite answers EXISTS as 0/1, PostgreSQL as a boolean.
const truthy = (v: unknown) => v === true || v === 1 || v === '1';

function toRecord(row: Row): CommentRecord {
  return {
    id: row.id,
    rootId: row.root_id,
    authorId: row.person_id,
    authorName: row.author_name ?? '',
    authorIsStaff: truthy(row.author_is_staff),
    courseId: row.course_id,
    lectureId: row.lecture_id,
    postId: row.post_id,
    body: row.body,
    replyCount: Number(row.reply_count ?? 0),
    answered: truthy(row.answered),
    createdAt: Number(row.created_at),
  };
}

export async function listComments(scope: SiteScope, filter: CommentFilter, request: PageRequest): Promise<Page<CommentRecord>> {
  const { size, after } = pageQuery(LIST, request);
  const rows = await matching(scope, filter)
    .$if(after !== null, (qb) =>
      qb.where((eb) =>
        eb.or([eb('c.created_at', '<', after!.sort), eb.and([eb('c.created_at', '=', after!.sort), eb('c.id', '<', after!.id)])]),
      ),
    )
    .select(columns(scope))
    .orderBy('c.created_at', 'desc')
    .orderBy('c.id', 'desc')
    .limit(size + 1)
    .execute();
  return toPage(LIST, (rows as Row[]).map(toRecord), size, (c) => ({ sort: c.createdAt, id: c.id }));
}

export async function countComments(scope: SiteScope, filter: CommentFilter): Promise<number> {
  const row = await matching(scope, filter)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The thread a comment belongs to, first comment first; null when the site has no such comment. */
export async function commentThread(scope: SiteScope, id: string): Promise<{ comment: CommentRecord; thread: CommentRecord[] } | null> {
  const found = await scope.db
    .selectFrom('comments')
    .select(['id', 'root_id'])
    .where('site_id', '=', scope.siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!found) return null;
  const root = found.root_id ?? found.id;
  const rows = (await scope.db
    .selectFrom('comments as c')
    .where('c.site_id', '=', scope.siteId)
    .where((eb) => eb.or([eb('c.id', '=', root), eb('c.root_id', '=', root)]))
    .select(columns(scope))
    .orderBy('c.created_at', 'asc')
    .orderBy('c.id', 'asc')
    .execute()) as Row[];
  const thread = rows.map(toRecord);
  const comment = thread.find((c) => c.id === id);
  return comment ? { comment, thread } : null;
}
