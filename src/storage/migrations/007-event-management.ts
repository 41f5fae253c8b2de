// Events as operators manage them (issue 10, CONTRACT 6 events): a cancelled event keeps its row and its
// registrations, with when and why it was cancelled; edits are stamped; an event's registrations page in
// the order people registered, by an index rather than a scan of the site's registrations.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable('events').addColumn('cancelled_at', 'bigint').execute();
  await db.schema.alterTable('events').addColumn('cancel_reason', 'text').execute();
  await db.schema.alterTable('events').addColumn('updated_at', 'bigint').execute();
  await db.schema.createIndex('events_site_starts').on('events').columns(['site_id', 'starts_at', 'id']).execute();
  await db.schema
    .createIndex('event_registrations_site_event_at')
    .on('event_registrations')
    .columns(['site_id', 'event_id', 'registered_at', 'id'])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex('event_registrations_site_event_at').execute();
  await db.schema.dropIndex('events_site_starts').execute();
  await db.schema.alterTable('events').dropColumn('updated_at').execute();
  await db.schema.alterTable('events').dropColumn('cancel_reason').execute();
  await db.schema.alterTable('events').dropColumn('cancelled_at').execute();
}
