// A site's students as its operators see them (SPEC 5.5 `students:read`): people holding the student role
// at this site, with how many courses they are enrolled in here. Never password hashes, never other sites.
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

const LIST = 'operator_students';

/** Students of the site, most recent first. */
export async function listStudents(scope: SiteScope, request: PageRequest): Promise<Page<StudentRecord>> {
  const { size, after } = pageQuery(LIST, request);
  const rows = await scope.db
    .selectFrom('site_roles as r')
    .innerJoin('people as p', 'p.id', 'r.person_id')
    .where('r.site_id', '=', scope.siteId)
    .where('r.role', '=', 'student')
    .$if(after !== null, (qb) =>
      qb.where((eb) =>
        eb.or([eb('r.created_at', '<', after!.sort), eb.and([eb('r.created_at', '=', after!.sort), eb('p.id', '<', after!.id)])]),
      ),
    )
    // Only these columns: the people table also holds the password hash, which must never leave here.
    .select(['p.id', 'p.name', 'p.email', 'r.created_at'])
    .orderBy('r.created_at', 'desc')
    .orderBy('p.id', 'desc')
    .limit(size + 1)
    .execute();
  const ids = rows.slice(0, size).map((r) => r.id);
  const enrollments = new Map<string, number>();
  if (ids.length > 0) {
    const counts = await scope.db
      .selectFrom('enrollments')
      .where('site_id', '=', scope.siteId)
      .where('person_id', 'in', ids)
      .groupBy('person_id')
      .select((eb) => ['person_id', eb.fn.countAll().as('n')])
      .execute();
    for (const c of counts) enrollments.set(c.person_id, Number(c.n));
  }
  const students = rows.map(
    (row): StudentRecord => ({
      id: row.id,
      name: row.name,
      email: row.email,
      studentSince: row.created_at,
      enrollmentCount: enrollments.get(row.id) ?? 0,
    }),
  );
  return toPage(LIST, students, size, (s) => ({ sort: s.studentSince, id: s.id }));
}

export async function countStudents(scope: SiteScope): Promise<number> {
  const row = await scope.db
    .selectFrom('site_roles')
    .where('site_id', '=', scope.siteId)
    .where('role', '=', 'student')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
