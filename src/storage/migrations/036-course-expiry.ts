// The students list filtered by a course and a time-bound state (GET /students?courseId=&state=active or
// expired) counted its total by walking the site's students and asking each one's enrollments: 139 ms on
// SQLite and 58 ms on PostgreSQL for a course every one of 100,000 students is in (bench/RESULTS.md,
// fifteenth session). A person holds one enrollment per course, so a course's expired students are its
// enrollments with timed access, not revoked, ended by now: a range of this index, each one's student
// role looked up by key. Active is then the course's students less its revoked and expired ones, the first
// two kept by migration 031's triggers.
import { type Kysely, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  // `course_id is not null`, which a course's question implies, keeps the index from being offered to
  // SQLite for the learners at risk, whose question implies the rest of the condition and names no course
  // (see migration 032).
  await sql`create index if not exists enrollments_course_expiry_person on enrollments (site_id, course_id, access_expires_at, person_id)
    where course_id is not null and revoked_at is null and lifetime_access = 0`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex('enrollments_course_expiry_person').ifExists().execute();
}
