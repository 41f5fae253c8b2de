// The students list filtered by inactivity (GET /students?inactiveDays=) asks which learners of the site
// were active since a moment: the enrollments in a range of the (site_id, last_activity_at) index, and
// each one's person, read from the table (a random row per active enrollment). With the person in the
// index the set is read from the index alone. This index replaces that one (migration 004), whose only
// reader this was.
import { type Kysely, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  // Only enrollments with activity: "active since" compares the time, which implies it is not null (both
  // planners know that), and leaving the never-active out keeps SQLite from taking this index for a
  // question about them (learners at risk: never active, or not since), which the open enrollments'
  // partial index of migration 024 answers.
  await db.schema
    .createIndex('enrollments_site_activity_person')
    .ifNotExists()
    .on('enrollments')
    .columns(['site_id', 'last_activity_at', 'person_id'])
    .where(sql.ref('last_activity_at'), 'is not', null)
    .execute();
  await db.schema.dropIndex('enrollments_site_activity').ifExists().execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema
    .createIndex('enrollments_site_activity')
    .ifNotExists()
    .on('enrollments')
    .columns(['site_id', 'last_activity_at'])
    .execute();
  await db.schema.dropIndex('enrollments_site_activity_person').ifExists().execute();
}
