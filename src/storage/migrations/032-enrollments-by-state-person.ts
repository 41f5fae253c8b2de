// The students list filtered by an enrollment state (GET /students?state=) walked the site's students
// newest first and asked each one's enrollments about the state, so a state few enrollments are in read
// every student: 0.4-1 s on SQLite at 100,000 students for `state=expired` when none was (bench/RESULTS.md,
// fourteenth session), 1 request a second. These partial indexes hold the enrollments of each rare state
// with their person, so the list can first count them (up to a bound) and, when they are few, start from
// them (school/operator-students.repository.ts). Active, the common state, has none: it is asked by
// walking the students, where a match comes soon. A course's people are read from a (site, course,
// person) index: with only the (site, course, start) one, which lacks the person, SQLite (without
// statistics) reads the site's every enrollment from the (site, person, course) one instead.
import { type Kysely, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  // Partial on a condition every row meets (course_id is not null) and every course question implies:
  // an index led by site_id alone would be offered to SQLite for every question about a site's
  // enrollments, and it took this small one over the open enrollments' partial index of migration 024
  // for the learners at risk.
  await db.schema
    .createIndex('enrollments_site_course_person')
    .ifNotExists()
    .on('enrollments')
    .columns(['site_id', 'course_id', 'person_id'])
    .where(sql.ref('course_id'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('enrollments_revoked_person')
    .ifNotExists()
    .on('enrollments')
    .columns(['site_id', 'person_id'])
    .where(sql.ref('revoked_at'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('enrollments_completed_person')
    .ifNotExists()
    .on('enrollments')
    .columns(['site_id', 'person_id'])
    .where(sql.ref('completed_at'), 'is not', null)
    .execute();
  // Expired (timed access, not revoked, ended by now) is two ranges: of the open enrollments' expiry index
  // (migration 024) for those not completed, and of this one for those completed. One index of both
  // would be offered to SQLite for the learners at risk, whose question implies its condition, and
  // SQLite took it over the open enrollments' one.
  await sql`create index if not exists enrollments_completed_expiry_person on enrollments (site_id, access_expires_at, person_id)
    where revoked_at is null and lifetime_access = 0 and completed_at is not null`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  for (const name of [
    'enrollments_site_course_person',
    'enrollments_revoked_person',
    'enrollments_completed_person',
    'enrollments_completed_expiry_person',
  ])
    await db.schema.dropIndex(name).ifExists().execute();
}
