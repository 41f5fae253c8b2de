// The students list filtered by inactivity (GET /students?inactiveDays=) asks which learners of the site
// were active since a moment: the enrollments in a range of the (site_id, last_activity_at) index, and
// each one's person, read from the table (a random row per active enrollment). With the person in the
// index the set is read from the index alone. This index replaces that one, its prefix (migration 004).
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createIndex('enrollments_site_activity_person')
    .ifNotExists()
    .on('enrollments')
    .columns(['site_id', 'last_activity_at', 'person_id'])
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
