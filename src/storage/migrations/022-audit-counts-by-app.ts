// The audit log filtered by app (GET /audit_events?clientId=…, /admin/audit) reads its page from the
// (site_id, client_id, id) index (migration 019), but its total counted every event of that app through
// the index: for the app behind most of a school's sign-ins and refresh rotations that is nearly the whole
// log. The number of events per site, app and kind is now kept in audit_event_app_counts by triggers, as
// audit_event_counts keeps them per site and kind, so a total by app (and by app and action) is a few rows.
// Events without an app (sign-ins, operators' own writes) are not kept here; the per-kind counts have them.
//
// On PostgreSQL each connection adds to its own slot (its process id modulo 16), and a total sums the
// slots: every node's refresh rotations of one popular app would otherwise lock one row until they commit.
import { type Kysely, sql } from 'kysely';
import { isSqlite } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('audit_event_app_counts')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('audit_event_app_counts_pk', ['site_id', 'client_id', 'kind', 'slot'])
    .$call((table) => (isSqlite(db) ? table.modifyEnd(sql`without rowid`) : table))
    .execute();
  if (isSqlite(db)) {
    await sql`create trigger audit_events_app_counted_insert after insert on audit_events when new.client_id is not null begin
      insert into audit_event_app_counts (site_id, client_id, kind, slot, n) values (new.site_id, new.client_id, new.kind, 0, 1)
        on conflict (site_id, client_id, kind, slot) do update set n = n + 1;
    end`.execute(db);
    // An update, not an upsert: during a site's deletion its counts may already be gone.
    await sql`create trigger audit_events_app_counted_delete after delete on audit_events when old.client_id is not null begin
      update audit_event_app_counts set n = n - 1
        where site_id = old.site_id and client_id = old.client_id and kind = old.kind and slot = 0;
    end`.execute(db);
  } else {
    // Once per statement over the rows it added, ordered by key so two statements that share a slot take
    // their rows' locks in one order.
    await sql`create function audit_events_app_count_added() returns trigger language plpgsql as $$
      begin
        insert into audit_event_app_counts (site_id, client_id, kind, slot, n)
          select site_id, client_id, kind, pg_backend_pid() % 16, count(*) from added where client_id is not null
            group by site_id, client_id, kind order by site_id, client_id, kind
          on conflict (site_id, client_id, kind, slot) do update set n = audit_event_app_counts.n + excluded.n;
        return null;
      end $$`.execute(db);
    // A removal takes from the lowest slot of its key, which exists: the event was counted when it was
    // added. An update, not an upsert: during a site's deletion its counts may already be gone.
    await sql`create function audit_events_app_count_removed() returns trigger language plpgsql as $$
      begin
        update audit_event_app_counts c set n = c.n - d.n
          from (select site_id, client_id, kind, count(*) as n from removed where client_id is not null
                group by site_id, client_id, kind) d
          where c.site_id = d.site_id and c.client_id = d.client_id and c.kind = d.kind
            and c.slot = (select min(x.slot) from audit_event_app_counts x
                          where x.site_id = d.site_id and x.client_id = d.client_id and x.kind = d.kind);
        return null;
      end $$`.execute(db);
    await sql`create trigger audit_events_app_counted_insert after insert on audit_events
      referencing new table as added for each statement execute function audit_events_app_count_added()`.execute(db);
    await sql`create trigger audit_events_app_counted_delete after delete on audit_events
      referencing old table as removed for each statement execute function audit_events_app_count_removed()`.execute(db);
  }
  // After the triggers: on PostgreSQL creating them locks out writers until this transaction commits, so
  // no event is added between the count and the first trigger run.
  await sql`insert into audit_event_app_counts (site_id, client_id, kind, slot, n)
    select site_id, client_id, kind, 0, count(*) from audit_events where client_id is not null
    group by site_id, client_id, kind`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  if (isSqlite(db)) {
    await sql`drop trigger if exists audit_events_app_counted_insert`.execute(db);
    await sql`drop trigger if exists audit_events_app_counted_delete`.execute(db);
  } else {
    await sql`drop trigger if exists audit_events_app_counted_insert on audit_events`.execute(db);
    await sql`drop trigger if exists audit_events_app_counted_delete on audit_events`.execute(db);
    await sql`drop function if exists audit_events_app_count_added()`.execute(db);
    await sql`drop function if exists audit_events_app_count_removed()`.execute(db);
  }
  await db.schema.dropTable('audit_event_app_counts').execute();
}
