// The janitor purges the audit log's routine token events (token.issued, token.refreshed) after
// `janitor.token_event_retention_days`: an index on (kind, at) lets it find them by kind and age without
// reading the events it keeps. The log's other indexes lead with the site.
//
// On PostgreSQL the migrations run in one transaction, where an index can only be built while writes to
// the table wait, and every token issuance writes an audit event. A deployment with a large log can build
// the index beforehand without that (`create index concurrently`, README "Running on PostgreSQL"); it is then kept.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.createIndex('audit_events_kind_at').ifNotExists().on('audit_events').columns(['kind', 'at']).execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex('audit_events_kind_at').execute();
}
