// The audit log at a million events (bench/RESULTS.md, eleventh session): filtering by actor or app read
// the whole log, and every list's exact total counted it (37-61 ms a page at 1M events, up to 270 ms with a
// filter). Now:
// - indexes lead with (site, person) and (site, app), so a filtered page and its total read only that
//   actor's or app's events; the (site_id, at) index, which no query uses, goes, so each event (one per
//   token issuance and rotation) writes one index more than before, and one counter;
//   The person index is the dear one: a rotation's event lands on a random page of it when a school's
//   rotations come from many people (about 13 µs more per event on SQLite, bench/RESULTS.md, twelfth
//   session). It is kept for every kind, rotations included: looking into one account is when an operator
//   needs that account's every token event.
// - the number of events per site and kind is kept in audit_event_counts by triggers (as site_role_counts
//   is), so every writer (the token endpoint's grouped statements, the janitor's purge, a site's deletion)
//   keeps it in step, and an unfiltered or action-filtered total is a few rows.
//
// On PostgreSQL every node's rotations write events of one kind, which would make one counter row that
// every rotation transaction locks until it commits. Each connection (backend) adds to its own slot
// instead (its process id modulo 16), and a total sums the slots. The insert trigger runs once per
// statement over the rows it added (a transition table), so a batch of rotations is one upsert.
import { type Kysely, sql } from 'kysely';
import { isSqlite } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createIndex('audit_events_site_person')
    .ifNotExists()
    .on('audit_events')
    .columns(['site_id', 'person_id', 'id'])
    .execute();
  await db.schema
    .createIndex('audit_events_site_client')
    .ifNotExists()
    .on('audit_events')
    .columns(['site_id', 'client_id', 'id'])
    .execute();
  await db.schema.dropIndex('audit_events_site_at').ifExists().execute();
  await db.schema
    .createTable('audit_event_counts')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('audit_event_counts_pk', ['site_id', 'kind', 'slot'])
    // SQLite: the row lives in its key's b-tree, so a count's update is one b-tree, not an index and a table.
    .$call((table) => (isSqlite(db) ? table.modifyEnd(sql`without rowid`) : table))
    .execute();
  if (isSqlite(db)) {
    // One writer at a time: one slot.
    await sql`create trigger audit_events_counted_insert after insert on audit_events begin
      insert into audit_event_counts (site_id, kind, slot, n) values (new.site_id, new.kind, 0, 1)
        on conflict (site_id, kind, slot) do update set n = n + 1;
    end`.execute(db);
    await sql`create trigger audit_events_counted_delete after delete on audit_events begin
      update audit_event_counts set n = n - 1 where site_id = old.site_id and kind = old.kind and slot = 0;
    end`.execute(db);
  } else {
    // Ordered by (site, kind), so two statements that share a slot take their rows' locks in one order.
    await sql`create function audit_events_count_added() returns trigger language plpgsql as $$
      begin
        insert into audit_event_counts (site_id, kind, slot, n)
          select site_id, kind, pg_backend_pid() % 16, count(*) from added group by site_id, kind order by site_id, kind
          on conflict (site_id, kind, slot) do update set n = audit_event_counts.n + excluded.n;
        return null;
      end $$`.execute(db);
    // A removal takes from the lowest slot of its (site, kind), which exists: the event was counted when
    // it was added. An update, not an upsert: during a site's deletion its counts may already be gone.
    await sql`create function audit_events_count_removed() returns trigger language plpgsql as $$
      begin
        update audit_event_counts c set n = c.n - d.n
          from (select site_id, kind, count(*) as n from removed group by site_id, kind) d
          where c.site_id = d.site_id and c.kind = d.kind
            and c.slot = (select min(x.slot) from audit_event_counts x where x.site_id = d.site_id and x.kind = d.kind);
        return null;
      end $$`.execute(db);
    await sql`create trigger audit_events_counted_insert after insert on audit_events
      referencing new table as added for each statement execute function audit_events_count_added()`.execute(db);
    await sql`create trigger audit_events_counted_delete after delete on audit_events
      referencing old table as removed for each statement execute function audit_events_count_removed()`.execute(db);
  }
  // After the triggers: on PostgreSQL creating them locks out writers until this transaction commits, so
  // no event is added between the count and the first trigger run.
  await sql`insert into audit_event_counts (site_id, kind, slot, n)
    select site_id, kind, 0, count(*) from audit_events group by site_id, kind`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  if (isSqlite(db)) {
    await sql`drop trigger if exists audit_events_counted_insert`.execute(db);
    await sql`drop trigger if exists audit_events_counted_delete`.execute(db);
  } else {
    await sql`drop trigger if exists audit_events_counted_insert on audit_events`.execute(db);
    await sql`drop trigger if exists audit_events_counted_delete on audit_events`.execute(db);
    await sql`drop function if exists audit_events_count_added()`.execute(db);
    await sql`drop function if exists audit_events_count_removed()`.execute(db);
  }
  await db.schema.dropTable('audit_event_counts').execute();
  await db.schema.createIndex('audit_events_site_at').ifNotExists().on('audit_events').columns(['site_id', 'at']).execute();
  await db.schema.dropIndex('audit_events_site_client').ifExists().execute();
  await db.schema.dropIndex('audit_events_site_person').ifExists().execute();
}
