// The janitor purges the audit log's routine token events (token.issued, token.refreshed) after
// `janitor.token_event_retention_days`: an index on (kind, at) lets it find them by kind and age without
// reading the events it keeps. The log's other indexes lead with the site.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.createIndex('audit_events_kind_at').on('audit_events').columns(['kind', 'at']).execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex('audit_events_kind_at').execute();
}
