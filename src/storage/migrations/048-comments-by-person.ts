// The comments list's total of threads still waiting for the school was asked of every thread of the site
// (whether a staff member replied to it): 100 ms at 100,000 comments on SQLite. It is now the threads less
// those the staff replied to, and this index finds the staff's replies at a site, with their thread. A
// comment is written when a member posts one, never on a hot path.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.createIndex('comments_site_person').ifNotExists().on('comments').columns(['site_id', 'person_id', 'root_id']).execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex('comments_site_person').ifExists().execute();
}
