// A person's grants at a site were found through the grants' only index, by site and app: a member's
// /account/apps read every grant of the site (38 ms for 100,000 on SQLite), and withdrawing one app read
// every grant of that app there. This index holds them by site and person, then app, so both read the
// person's own. A grant is written when an authorization code is exchanged, never by a refresh rotation.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.createIndex('grants_site_person').ifNotExists().on('grants').columns(['site_id', 'person_id', 'client_id']).execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex('grants_site_person').ifExists().execute();
}
