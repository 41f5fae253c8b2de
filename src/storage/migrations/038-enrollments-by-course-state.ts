// The students of a course with an enrollment completed or revoked (GET /students?courseId=&state=) were
// found through the course's index, every enrollment of the course read to test its state: for a course
// every one of 100,000 students is in and none revoked, 30 ms for an empty page on SQLite (bench/RESULTS.md,
// eighteenth session), and when the state is common at the site but rare in the course, the page walked
// every student. These indexes hold exactly a course's completed and revoked enrollments' people, so such
// a page starts from them when they are few (school/operator-students.repository.ts). A completion adds
// one entry; the learners' frequent activity writes change neither.
import { type Kysely, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  // `course_id is not null`, which a course's question implies, keeps them from being offered for
  // questions that name no course (see migration 032). The state's column is in the key as well as the
  // condition: SQLite reads a column the question names from the table unless the index holds it.
  await sql`create index if not exists enrollments_course_completed_person on enrollments (site_id, course_id, person_id, completed_at)
    where course_id is not null and completed_at is not null`.execute(db);
  await sql`create index if not exists enrollments_course_revoked_person on enrollments (site_id, course_id, person_id, revoked_at)
    where course_id is not null and revoked_at is not null`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex('enrollments_course_completed_person').ifExists().execute();
  await db.schema.dropIndex('enrollments_course_revoked_person').ifExists().execute();
}
