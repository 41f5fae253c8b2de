// Comments as operators read them (CONTRACT 6 comments): newest first, by course, lecture or post, since a
// moment, or only the questions still waiting for the school: threads whose first comment no one of the
// school's staff (owner, admin or lecturer here) has answered. A thread is its first comment and the
// replies that name it, read in one query.
import { type ExpressionBuilder, sql } from 'kysely';
import { STAFF_ROLES } from '../people/people.repository.js';
import type { Database } from '../storage/schema.js';
import { type Page, type PageRequest, pageQuery, toPage } from './paging.js';
import type { SiteScope } from './scope.js';

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

/** A staff member's reply in the thread of comment `c` (its own root or it), if any. */
function staffReply(eb: CommentsEb) {
  return eb
    .selectFrom('comments as reply')
    .innerJoin('site_roles as sr', (join) => join.onRef('sr.person_id', '=', 'reply.person_id').onRef('sr.site_id', '=', 'reply.site_id'))
    .select('reply.id')
    .whereRef('reply.root_id', '=', 'c.id')
    .where('sr.role', 'in', STAFF_ROLES);
}

/**
 * Whether a staff member of the site has replied in the thread of comment `c` (`is not`) or no one has
 * (`is`). Scalar subqueries, each a thread's few replies by key: as EXISTS, PostgreSQL read every staff
 * reply of the site into a hashed set for a page's column (27 ms a page at 100,000 comments, 5-7 ms now),
 * and as NOT EXISTS, with 048's index there, it made them an anti-join compared once per thread read (160 ms).
 */
function staffReplied(eb: CommentsEb, answered: 'is not' | 'is') {
  return eb(staffReply(eb).limit(1), answered, null);
}

const LIST = 'operator_comments';

/** The filter's conditions on a comment `c`, all but `unanswered`. */
function narrowedBy(filter: CommentFilter) {
  return (eb: CommentsEb) =>
    eb.and([
      ...(filter.courseId !== undefined ? [eb('c.course_id', '=', filter.courseId)] : []),
      ...(filter.lectureId !== undefined ? [eb('c.lecture_id', '=', filter.lectureId)] : []),
      ...(filter.postId !== undefined ? [eb('c.post_id', '=', filter.postId)] : []),
      ...(filter.since !== undefined ? [eb('c.created_at', '>=', filter.since)] : []),
    ]);
}

function matching(scope: SiteScope, filter: CommentFilter) {
  return scope.db
    .selectFrom('comments as c')
    .where('c.site_id', '=', scope.siteId)
    .where(narrowedBy(filter))
    .$if(filter.unanswered === true, (qb) => qb.where('c.root_id', 'is', null).where((eb) => staffReplied(eb, 'is')));
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
    eb(
      eb
        .selectFrom('site_roles as sr')
        .select('sr.person_id')
        .whereRef('sr.person_id', '=', 'c.person_id')
        .where('sr.site_id', '=', scope.siteId)
        .where('sr.role', 'in', STAFF_ROLES)
        .limit(1),
      'is not',
      null,
    ).as('author_is_staff'),
    eb.selectFrom('comments as reply').select(sql<number>`count(*)`.as('n')).whereRef('reply.root_id', '=', 'c.id').as('reply_count'),
    staffReplied(eb, 'is not').as('answered'),
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

/**
 * How many comments match. The threads still waiting are the first comments matching the filter less those
 * a staff member here replied to, and the replies are found from the staff (048's index of comments by
 * person): asked of each first comment, the count read every thread of the site (100 ms at 100,000 comments
 * on SQLite).
 */
export async function countComments(scope: SiteScope, filter: CommentFilter): Promise<number> {
  if (filter.unanswered !== true) {
    const row = await matching(scope, filter)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
  const threads = scope.db
    .selectFrom('comments as c')
    .where('c.site_id', '=', scope.siteId)
    .where('c.root_id', 'is', null)
    .where(narrowedBy(filter))
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  // The threads the staff replied to, from their replies, then each thread by key (a CROSS JOIN fixes that
  // order on SQLite) to meet the filter.
  const repliedTo = scope.db
    .selectFrom('site_roles as sr')
    .crossJoin('comments as reply')
    .where('sr.site_id', '=', scope.siteId)
    .where('sr.role', 'in', STAFF_ROLES)
    .where('reply.site_id', '=', scope.siteId)
    .whereRef('reply.person_id', '=', 'sr.person_id')
    .where('reply.root_id', 'is not', null)
    .select('reply.root_id as id')
    .distinct();
  const answered = scope.db
    .selectFrom(repliedTo.as('a'))
    .crossJoin('comments as c')
    .whereRef('c.id', '=', 'a.id')
    .where('c.site_id', '=', scope.siteId)
    .where('c.root_id', 'is', null)
    .where(narrowedBy(filter))
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  const [all, done] = await Promise.all([threads, answered]);
  return Number(all.n) - Number(done.n);
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
