// `serve` names the first sites by creation in its start-up summary, and `schoolgate site list` lists them
// all in that order. Without an index SQLite read every site and sorted them for the first twenty: at
// 10,000 sites, whose rows lie between their signing keys' pages, that read (with a count of the sites,
// since dropped) touched pages all over the file and left 15 MB of it mapped in the new process (issue 12:
// memory within 10% of a two-site deployment). With it the summary reads 21 entries and their rows. Sites
// are written when an operator creates one, never on a hot path.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.createIndex('sites_created').ifNotExists().on('sites').columns(['created_at', 'slug']).execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex('sites_created').ifExists().execute();
}
