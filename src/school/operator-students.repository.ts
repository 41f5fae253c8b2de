// A site's students as its operators see them (SPEC 5.5 `students:read`): people holding the student role
// at this site, with how many courses they are enrolled in here. Never password hashes, never other sites.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { hashPassword } from '../kernel/password.js';
import { newId } from '../kernel/random.js';
import { isSqlite } from '../storage/dialect.js';
import { type Page, type PageRequest, pageQuery, toPage } from './paging.js';
import type { SiteScope } from './scope.js';

export interface StudentRecord {
  id: string;
  name: string;
  email: string;
  /** When the person became a student of this site. */
  studentSince: number;
  enrollmentCount: number;
}

/** The site's students, from the count the role triggers keep (migration 004). */
export async function countStudents(scope: SiteScope): Promise<number> {
  const row = await scope.db
    .selectFrom('site_role_counts')
    .select('n')
    .where('site_id', '=', scope.siteId)
    .where('role', '=', 'student')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The site's students enrolled in a course, from the count the triggers of migration 031 keep. */
async function countCourseStudents(scope: SiteScope, courseId: string): Promise<number> {
  const row = await scope.db
    .selectFrom('course_student_counts')
    .where('site_id', '=', scope.siteId)
    .where('course_id', '=', courseId)
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('n'), eb.lit(0)).as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export type StudentStateFilter = 'active' | 'expired' | 'revoked' | 'completed';

export interface StudentFilter {
  /** Part of the name or e-mail, any case. */
  q?: string;
  /** Enrolled in this course. */
  courseId?: string;
  /** Holding an enrollment in this state (in courseId, when given). */
  state?: StudentStateFilter;
  /** No learning activity in this many days (or never). */
  inactiveDays?: number;
}

const DAY_MS = 86_400_000;
const SEARCH = 'operator_student_search';

/** `%text%` for LIKE with the wildcards of the text itself escaped. */
function contains(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The site's enrollments a course or state filter asks about (none of the two: all of them). The state
 * terms are written as the partial indexes of migrations 024 and 032 are, so the planners can use them.
 */
function enrollmentsAsked(scope: SiteScope, filter: Pick<StudentFilter, 'courseId' | 'state'>, now: number) {
  return (
    scope.db
      .selectFrom('enrollments as e')
      .where('e.site_id', '=', scope.siteId)
      .$if(filter.courseId !== undefined, (sub) => sub.where('e.course_id', '=', filter.courseId ?? ''))
      .$if(filter.state === 'active', (sub) =>
        sub
          .where('e.revoked_at', 'is', null)
          .where((eb) =>
            eb.or([eb('e.lifetime_access', '=', 1), eb('e.access_expires_at', 'is', null), eb('e.access_expires_at', '>', now)]),
          ),
      )
      // Expired, as two ranges: not completed (migration 024's open enrollments by expiry) and completed
      // (migration 032's).
      .$if(filter.state === 'expired', (sub) =>
        sub.where((eb) =>
          eb.or(
            [eb('e.completed_at', 'is', null), eb('e.completed_at', 'is not', null)].map((completion) =>
              eb.and([eb('e.revoked_at', 'is', null), completion, eb('e.lifetime_access', '=', 0), eb('e.access_expires_at', '<=', now)]),
            ),
          ),
        ),
      )
      .$if(filter.state === 'revoked', (sub) => sub.where('e.revoked_at', 'is not', null))
      .$if(filter.state === 'completed', (sub) => sub.where('e.completed_at', 'is not', null))
  );
}

/**
 * Up to this many enrollments asked about, a page starts from them: reading them all and sorting their
 * students costs less than walking the students newest first until a page of matches is found, which for
 * a rare match reads every student (0.4-3.5 s at 100,000 students). Beyond it matches are common enough
 * that the walk finds a page soon.
 */
export const FEW_ENROLLMENTS = 2_000;

/**
 * Whether the filter's course or state holds at most FEW_ENROLLMENTS enrollments, counted (up to the bound)
 * through an index whose entries are exactly those enrollments: the (site, course) index, or a rare state's
 * partial index (migration 032). Active has none and is taken as common.
 */
async function fewEnrollmentsAsked(scope: SiteScope, filter: StudentFilter, now: number): Promise<boolean> {
  const probes: Array<Pick<StudentFilter, 'courseId' | 'state'>> = [];
  if (filter.courseId !== undefined) probes.push({ courseId: filter.courseId });
  if (filter.state !== undefined && filter.state !== 'active') probes.push({ state: filter.state });
  for (const probe of probes) {
    const row = await scope.db
      .selectFrom(
        enrollmentsAsked(scope, probe, now)
          .select(sql.lit(1).as('one'))
          .limit(FEW_ENROLLMENTS + 1)
          .as('m'),
      )
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    if (Number(row.n) <= FEW_ENROLLMENTS) return true;
  }
  return false;
}

function studentRoles(scope: SiteScope) {
  return scope.db.selectFrom('site_roles as r').where('r.site_id', '=', scope.siteId).where('r.role', '=', 'student');
}

/**
 * The students among the people of the few enrollments asked about: the enrollments read first (a CROSS
 * JOIN is SQLite's way of fixing the order of the loops, which its planner would otherwise turn around,
 * walking the students and testing each against the set), then each one's role looked up by key. A
 * person with several such enrollments comes once per enrollment: see repeatsStudents.
 */
function fromFewEnrollments(scope: SiteScope, filter: StudentFilter, now: number) {
  const joined = scope.db
    .selectFrom(enrollmentsAsked(scope, filter, now).select('e.person_id').as('m'))
    .crossJoin('site_roles as r')
    .where('r.site_id', '=', scope.siteId)
    .where('r.role', '=', 'student')
    .whereRef('r.person_id', '=', 'm.person_id');
  // The set's column is read by nothing after this, so the query is typed as the plain students' one
  // that the rest of the filters extend.
  return joined as unknown as ReturnType<typeof studentRoles>;
}

/**
 * Whether a student can come more than once from fromFewEnrollments: not for a course (a person holds one
 * enrollment per course). The repeats are removed after the join, from the page's or the count's few
 * rows: asked for distinct people in the set itself, SQLite reads the site's every enrollment in person
 * order to get them.
 */
function repeatsStudents(filter: StudentFilter): boolean {
  return filter.courseId === undefined;
}

/**
 * The students matching the filter. With `few`, the course and state terms are the set of the few
 * enrollments' people (read once, then each student looked up by key); otherwise each student, walked in
 * the list's order, is asked whether it holds such an enrollment.
 */
function matching(scope: SiteScope, filter: StudentFilter, now: number, few: boolean) {
  // People are joined only where a filter reads them: counting 100,000 students must not visit each person.
  const asksEnrollments = filter.courseId !== undefined || filter.state !== undefined;
  return (asksEnrollments && few ? fromFewEnrollments(scope, filter, now) : studentRoles(scope))
    .$if(filter.q !== undefined, (qb) => {
      const like = contains(filter.q ?? '');
      return qb.where('r.person_id', 'in', (eb) =>
        eb
          .selectFrom('people as q')
          .select('q.id')
          .where(sql<boolean>`(lower(q.name) like ${like} escape '\\' or q.email like ${like} escape '\\')`),
      );
    })
    .$if(asksEnrollments && !few, (qb) =>
      qb.where(({ exists }) =>
        exists(enrollmentsAsked(scope, filter, now).select(sql.lit(1).as('one')).where('e.person_id', '=', sql.ref<string>('r.person_id'))),
      ),
    )
    .$if(filter.inactiveDays !== undefined, (qb) => {
      const since = now - (filter.inactiveDays ?? 0) * DAY_MS;
      // SQLite runs a correlated NOT EXISTS once per student, reading each one's enrollments (3-4 s for
      // a page at 100,000 students and a million enrollments), but builds an uncorrelated NOT IN's set of
      // the learners active since then once, from the (site, last activity, person) index of migration
      // 030. PostgreSQL turns NOT EXISTS into one anti-join, while a NOT IN whose set outgrows work_mem
      // is scanned once per student.
      return isSqlite(scope.db)
        ? qb.where('r.person_id', 'not in', (eb) =>
            eb
              .selectFrom('enrollments as e')
              .select('e.person_id')
              .where('e.site_id', '=', scope.siteId)
              .where('e.last_activity_at', '>=', since),
          )
        : qb.where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('enrollments as e')
                  .select(sql.lit(1).as('one'))
                  .whereRef('e.person_id', '=', 'r.person_id')
                  .where('e.site_id', '=', scope.siteId)
                  .where('e.last_activity_at', '>=', since),
              ),
            ),
          );
    });
}

/** The site's students matching the filter, most recent first. */
export async function searchStudents(
  scope: SiteScope,
  filter: StudentFilter,
  request: PageRequest,
  now: number,
): Promise<Page<StudentRecord>> {
  const { size, after } = pageQuery(SEARCH, request);
  const few = await fewEnrollmentsAsked(scope, filter, now);
  const rows = await matching(scope, filter, now, few)
    .innerJoin('people as p', 'p.id', 'r.person_id')
    .$if(after !== null, (qb) =>
      qb.where((eb) =>
        eb.or([eb('r.created_at', '<', after!.sort), eb.and([eb('r.created_at', '=', after!.sort), eb('r.person_id', '<', after!.id)])]),
      ),
    )
    // r.person_id (equal to p.id) too: PostgreSQL sorts distinct rows only by what they select.
    .select(['p.id', 'p.name', 'p.email', 'r.created_at', 'r.person_id'])
    .select(enrollmentCount(scope))
    .$if(few && repeatsStudents(filter), (qb) => qb.distinct())
    .orderBy('r.created_at', 'desc')
    .orderBy('r.person_id', 'desc')
    .limit(size + 1)
    .execute();
  const students = rows.map(
    (row): StudentRecord => ({
      id: row.id,
      name: row.name,
      email: row.email,
      studentSince: row.created_at,
      enrollmentCount: Number(row.enrollment_count ?? 0),
    }),
  );
  return toPage(SEARCH, students, size, (s) => ({ sort: s.studentSince, id: s.id }));
}

/**
 * How many students match. No filter, or a course alone, reads counts the triggers keep (migrations 004
 * and 031); other filters count the matches, from the few enrollments asked about when they are few.
 */
export async function countMatchingStudents(scope: SiteScope, filter: StudentFilter, now: number): Promise<number> {
  const { courseId, ...others } = filter;
  const onlyCourse = Object.values(others).every((v) => v === undefined);
  if (onlyCourse && courseId === undefined) return countStudents(scope);
  if (onlyCourse && courseId !== undefined) return countCourseStudents(scope, courseId);
  const few = await fewEnrollmentsAsked(scope, filter, now);
  const row = await matching(scope, filter, now, few)
    .select((eb) => (few && repeatsStudents(filter) ? eb.fn.count('r.person_id').distinct() : eb.fn.countAll()).as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * A student's enrollments at this site, counted in the row's own query (a correlated subquery over the
 * (site, person, course) index), so a page of 100 costs no second round trip.
 */
function enrollmentCount(scope: SiteScope) {
  // The queries using it read site_roles as r.
  return sql<number>`(select count(*) from enrollments e where e.site_id = ${scope.siteId} and e.person_id = r.person_id)`.as(
    'enrollment_count',
  );
}

export interface StudentProfile extends StudentRecord {
  /** The operators' note on this student at this site; empty when none. */
  note: string;
}

/** A student of this site by id; null for anyone else (another site's person looks the same as nobody). */
export async function findStudent(scope: SiteScope, id: string): Promise<StudentProfile | null> {
  const row = await scope.db
    .selectFrom('site_roles as r')
    .innerJoin('people as p', 'p.id', 'r.person_id')
    .leftJoin('student_notes as n', (join) => join.onRef('n.person_id', '=', 'p.id').on('n.site_id', '=', scope.siteId))
    .where('r.site_id', '=', scope.siteId)
    .where('r.role', '=', 'student')
    .where('p.id', '=', id)
    .select(['p.id', 'p.name', 'p.email', 'r.created_at', 'n.note'])
    .select(enrollmentCount(scope))
    .executeTakeFirst();
  if (!row) return null;
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    studentSince: row.created_at,
    enrollmentCount: Number(row.enrollment_count ?? 0),
    note: row.note ?? '',
  };
}

/**
 * Makes a person a student of this site: the account of that e-mail when there is one (a person has
 * one account across sites), else a new one with a random password nobody knows, so it cannot be signed
 * into until a password is set.
 */
export async function addStudent(scope: SiteScope, email: string, name: string, now: number): Promise<{ id: string; created: boolean }> {
  const address = email.trim().toLowerCase();
  let person = await scope.db.selectFrom('people').select('id').where('email', '=', address).executeTakeFirst();
  let created = false;
  if (!person) {
    const id = newId('per');
    await scope.db
      .insertInto('people')
      .values({
        id,
        email: address,
        name,
        picture_url: null,
        password_hash: await hashPassword(randomBytes(32).toString('base64url')),
        created_at: now,
      })
      .onConflict((oc) => oc.column('email').doNothing())
      .execute();
    person = await scope.db.selectFrom('people').select('id').where('email', '=', address).executeTakeFirstOrThrow();
    created = person.id === id;
  }
  const role = await scope.db
    .insertInto('site_roles')
    .values({ site_id: scope.siteId, person_id: person.id, role: 'student', created_at: now })
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return { id: person.id, created: created || Number(role.numInsertedOrUpdatedRows ?? 0n) > 0 };
}

/** Sets the operators' note on a student of this site; false when the site has no such student. */
export async function setStudentNote(scope: SiteScope, id: string, note: string, now: number): Promise<boolean> {
  if (!(await findStudent(scope, id))) return false;
  await scope.db
    .insertInto('student_notes')
    .values({ site_id: scope.siteId, person_id: id, note, updated_at: now })
    .onConflict((oc) => oc.columns(['site_id', 'person_id']).doUpdateSet({ note, updated_at: now }))
    .execute();
  return true;
}
