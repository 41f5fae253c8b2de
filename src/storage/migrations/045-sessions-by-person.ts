// Suspending a member ends their sessions at the site, and the sessions table was keyed by the session's
// hash alone: each suspension read every session of every site (on SQLite under its write lock). This index
// holds them by site and person. A session is written once, at sign-in; no hot path writes one.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.createIndex('sessions_site_person').ifNotExists().on('sessions').columns(['site_id', 'person_id']).execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex('sessions_site_person').ifExists().execute();
}
