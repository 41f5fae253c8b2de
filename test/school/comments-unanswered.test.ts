// CONTRACT 6 comments: the threads still waiting for the school are the first comments no staff member here
// (owner, admin or lecturer of this site) replied to. The list and its total agree with that rule, alone and
// with a course or a moment; a student's reply, or a reply by someone who is staff at another site only,
// answers nothing. The total is the threads less those the staff replied to, found from the staff's replies
// (migration 048), never by asking every thread of the site.
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CommentFilter, countComments, listComments } from '../../src/school/comments.repository.js';
import type { CommentsTable } from '../../src/storage/school-schema.js';
import type { Database } from '../../src/storage/schema.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import {
  grantRole,
  insertCourse,
  insertPerson,
  insertSite,
  openSchoolStore,
  type SchoolStore,
  TEST_NOW,
} from '../helpers/school-fixtures.js';
import { plansOf } from '../helpers/sqlite-plans.js';

const MINUTE = 60_000;

/** Who is staff at site_a: per_owner, per_lect (also a student), per_admin. per_other is staff at site_b only. */
const STAFF_AT_A = new Set(['per_owner', 'per_lect', 'per_admin']);
const STUDENTS = ['per_s1', 'per_s2', 'per_s3', 'per_lect'];

/** Twenty threads at site_a in two courses and none, replied to by students, staff, and staff of site_b. */
function commentRows(): CommentsTable[] {
  const rows: CommentsTable[] = [];
  const repliers = ['per_s2', 'per_owner', 'per_other', 'per_lect', 'per_s3', 'per_admin', 'per_s1'];
  for (let t = 0; t < 20; t++) {
    const id = `cmt_${String(t).padStart(2, '0')}`;
    const course = t % 3 === 0 ? null : t % 3 === 1 ? 'crs_a' : 'crs_b';
    const at = TEST_NOW - (100 - t * 4) * MINUTE;
    rows.push({
      id,
      site_id: 'site_a',
      person_id: STUDENTS[t % STUDENTS.length] as string,
      course_id: course,
      lecture_id: null,
      post_id: null,
      root_id: null,
      body: 'q',
      created_at: at,
    });
    for (let k = 0; k < t % 4; k++)
      rows.push({
        id: `${id}_r${k}`,
        site_id: 'site_a',
        person_id: repliers[(t + k * 3) % repliers.length] as string,
        course_id: course,
        lecture_id: null,
        post_id: null,
        root_id: id,
        body: 'a',
        created_at: at + (k + 1) * MINUTE,
      });
  }
  // A thread at site_b answered by site_b's staff: nothing of site_a's.
  rows.push({
    id: 'cmt_b',
    site_id: 'site_b',
    person_id: 'per_s1',
    course_id: null,
    lecture_id: null,
    post_id: null,
    root_id: null,
    body: 'q',
    created_at: TEST_NOW,
  });
  rows.push({
    id: 'cmt_b_r',
    site_id: 'site_b',
    person_id: 'per_other',
    course_id: null,
    lecture_id: null,
    post_id: null,
    root_id: 'cmt_b',
    body: 'a',
    created_at: TEST_NOW + MINUTE,
  });
  return rows;
}

/** The rule, from the rows: site_a's first comments matching the filter that no staff member here replied to, newest first. */
function waiting(rows: CommentsTable[], filter: CommentFilter): string[] {
  return rows
    .filter((r) => r.site_id === 'site_a' && r.root_id === null)
    .filter((r) => filter.courseId === undefined || r.course_id === filter.courseId)
    .filter((r) => filter.since === undefined || r.created_at >= filter.since)
    .filter((r) => !rows.some((reply) => reply.root_id === r.id && STAFF_AT_A.has(reply.person_id)))
    .sort((a, b) => b.created_at - a.created_at)
    .map((r) => r.id);
}

async function seed(db: Kysely<Database>, rows: CommentsTable[]): Promise<void> {
  await insertSite(db, { id: 'site_a', name: 'A', origin: 'http://a.test', variant: 'A' });
  await insertSite(db, { id: 'site_b', name: 'B', origin: 'http://b.test', variant: 'A' });
  for (const id of ['per_owner', 'per_lect', 'per_admin', 'per_other', 'per_s1', 'per_s2', 'per_s3'])
    await insertPerson(db, { id, email: `${id}@a.test`, name: id });
  await grantRole(db, 'site_a', 'per_owner', 'owner');
  await grantRole(db, 'site_a', 'per_admin', 'admin');
  await grantRole(db, 'site_a', 'per_lect', 'lecturer');
  for (const id of STUDENTS) await grantRole(db, 'site_a', id, 'student', TEST_NOW + MINUTE);
  await grantRole(db, 'site_b', 'per_other', 'lecturer');
  await grantRole(db, 'site_b', 'per_s1', 'student');
  await insertCourse(db, 'site_a', 'crs_a');
  await insertCourse(db, 'site_a', 'crs_b');
  await db.insertInto('comments').values(rows).execute();
}

const FILTERS: CommentFilter[] = [
  { unanswered: true },
  { unanswered: true, courseId: 'crs_a' },
  { unanswered: true, courseId: 'crs_b', since: TEST_NOW - 60 * MINUTE },
  { unanswered: true, since: TEST_NOW - 30 * MINUTE },
  { unanswered: true, courseId: 'crs_none' },
];

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`comments waiting for the school (${dialect})`, () => {
    let s: SchoolStore;
    const rows = commentRows();
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      await seed(s.db, rows);
    }, 60_000);
    afterAll(() => s?.close());

    for (const filter of FILTERS) {
      it(`the waiting threads and their total follow the rule: ${JSON.stringify({ ...filter, since: filter.since && 'set' })}`, async () => {
        const scope = { db: s.db, siteId: 'site_a' };
        const expected = waiting(rows, filter);
        const page = await listComments(scope, filter, { first: 100 });
        expect(page.edges.map((e) => e.node.id)).toEqual(expected);
        expect(page.edges.every((e) => !e.node.answered)).toBe(true);
        expect(await countComments(scope, filter)).toBe(expected.length);
      });
    }

    it('each comment says whether staff answered its thread and whether its author is staff here', async () => {
      const page = await listComments({ db: s.db, siteId: 'site_a' }, {}, { first: 100 });
      const roots = page.edges.map((e) => e.node).filter((c) => c.rootId === null);
      const answered = new Set(roots.filter((c) => c.answered).map((c) => c.id));
      const all = rows.filter((r) => r.site_id === 'site_a' && r.root_id === null).map((r) => r.id);
      expect([...answered].sort()).toEqual(all.filter((id) => !waiting(rows, {}).includes(id)).sort());
      for (const c of page.edges.map((e) => e.node)) expect(c.authorIsStaff).toBe(STAFF_AT_A.has(c.authorId));
      expect(await countComments({ db: s.db, siteId: 'site_a' }, {})).toBe(rows.filter((r) => r.site_id === 'site_a').length);
    });

    if (dialect === 'sqlite') {
      it('the total reads the staff’s replies by migration 048’s index and each thread by key, never every thread of the site', async () => {
        const plans = await plansOf(s.db, '"comments"', (db) => countComments({ db, siteId: 'site_a' }, { unanswered: true }));
        const answered = plans.find((p) => p.includes('CO-ROUTINE a'));
        expect(answered).toMatch(/SEARCH reply USING COVERING INDEX comments_site_person \(site_id=\? AND person_id=\?/);
        expect(answered).toMatch(/SEARCH c USING INDEX sqlite_autoindex_comments_1 \(id=\?\)/);
        for (const plan of plans) expect(plan).not.toMatch(/SCAN c\b|SCAN comments|SCAN reply/);
      });
    }
  });
}
