// The admin area (issue 11): per-site decisions on Client ID Metadata Document clients (reviewed or
// blocked; the platform's reviewed_hosts stays the default) and the app usage log: requests per app,
// person, day and thing used, counted in memory and added here in batches, so the hot path never writes.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('site_client_decisions')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('decision', 'text', (c) => c.notNull())
    .addColumn('decided_by', 'text')
    .addColumn('decided_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('site_client_decisions_pk', ['site_id', 'client_id'])
    .execute();

  await db.schema
    .createTable('app_usage')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('person_id', 'text', (c) => c.notNull())
    /** The UTC day, YYYY-MM-DD. */
    .addColumn('day', 'text', (c) => c.notNull())
    /** What was used: `graphql:viewer.enrollments`, `mcp:list_courses`, `api:list_students`, `userinfo`. */
    .addColumn('what', 'text', (c) => c.notNull())
    .addColumn('write', 'integer', (c) => c.notNull())
    .addColumn('requests', 'bigint', (c) => c.notNull())
    .addColumn('last_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('app_usage_pk', ['site_id', 'client_id', 'person_id', 'day', 'what'])
    .execute();
  // The connections page sums a site's last 7 days per app; the account page reads one person's apps.
  await db.schema.createIndex('app_usage_site_day').on('app_usage').columns(['site_id', 'day', 'client_id']).execute();
  await db.schema.createIndex('app_usage_person').on('app_usage').columns(['site_id', 'person_id', 'client_id', 'day']).execute();
  await db.schema.createIndex('app_usage_day').on('app_usage').column('day').execute();
  // The connections page finds every app holding live grants at a site.
  await db.schema.createIndex('grants_site_client').on('grants').columns(['site_id', 'client_id']).execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex('grants_site_client').execute();
  await db.schema.dropTable('app_usage').execute();
  await db.schema.dropTable('site_client_decisions').execute();
}
