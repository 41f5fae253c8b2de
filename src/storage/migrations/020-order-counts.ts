// The orders list's total (GET /orders) counted every order of the site: 57-72 ms at a million orders on
// SQLite, where a statement holds the one thread, so the list served 13 requests a second
// (bench/RESULTS.md, twelfth session). The number of orders per site and status is now kept in
// order_counts by triggers, as audit_event_counts is (migration 019), so every writer (placing an order, a
// refund changing its status, a site's deletion, a bulk import) keeps it in step, and an unfiltered or
// status-filtered total is a few rows.
//
// On PostgreSQL concurrent orders of one site would otherwise all lock one counter row until they commit:
// each connection adds to its own slot (its process id modulo 16), and a total sums the slots.
import { type Kysely, sql } from 'kysely';
import { isSqlite } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('order_counts')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('order_counts_pk', ['site_id', 'status', 'slot'])
    .$call((table) => (isSqlite(db) ? table.modifyEnd(sql`without rowid`) : table))
    .execute();
  if (isSqlite(db)) {
    await sql`create trigger orders_counted_insert after insert on orders begin
      insert into order_counts (site_id, status, slot, n) values (new.site_id, new.status, 0, 1)
        on conflict (site_id, status, slot) do update set n = n + 1;
    end`.execute(db);
    await sql`create trigger orders_counted_delete after delete on orders begin
      update order_counts set n = n - 1 where site_id = old.site_id and status = old.status and slot = 0;
    end`.execute(db);
    await sql`create trigger orders_counted_update after update of site_id, status on orders begin
      update order_counts set n = n - 1 where site_id = old.site_id and status = old.status and slot = 0;
      insert into order_counts (site_id, status, slot, n) values (new.site_id, new.status, 0, 1)
        on conflict (site_id, status, slot) do update set n = n + 1;
    end`.execute(db);
  } else {
    // Once per statement over the rows it changed (transition tables). A removal takes from the lowest
    // slot of its (site, status), which exists since the order was counted; an update, not an upsert, since
    // during a site's deletion its counts may already be gone. Additions are ordered by (site, status), so
    // two statements that share a slot lock rows in one order.
    await sql`create function order_counts_kept() returns trigger language plpgsql as $$
      begin
        if tg_op = 'DELETE' then
          update order_counts c set n = c.n - d.n
            from (select site_id, status, count(*) as n from removed group by site_id, status) d
            where c.site_id = d.site_id and c.status = d.status
              and c.slot = (select min(x.slot) from order_counts x where x.site_id = d.site_id and x.status = d.status);
        else
          insert into order_counts (site_id, status, slot, n)
            select site_id, status, pg_backend_pid() % 16, count(*) from added group by site_id, status order by site_id, status
            on conflict (site_id, status, slot) do update set n = order_counts.n + excluded.n;
        end if;
        return null;
      end $$`.execute(db);
    // An update counts only the orders whose site or status it changed (matched by id, which never
    // changes): a refund's new refunded amount, or any other column, touches no count, so updates do not
    // queue on the lowest slot. PostgreSQL allows transition tables only on a trigger without a column list.
    await sql`create function order_counts_moved() returns trigger language plpgsql as $$
      begin
        update order_counts c set n = c.n - d.n
          from (select r.site_id, r.status, count(*) as n from removed r join added a on a.id = r.id
                where (a.site_id, a.status) is distinct from (r.site_id, r.status) group by r.site_id, r.status) d
          where c.site_id = d.site_id and c.status = d.status
            and c.slot = (select min(x.slot) from order_counts x where x.site_id = d.site_id and x.status = d.status);
        insert into order_counts (site_id, status, slot, n)
          select a.site_id, a.status, pg_backend_pid() % 16, count(*) from added a join removed r on r.id = a.id
            where (a.site_id, a.status) is distinct from (r.site_id, r.status)
            group by a.site_id, a.status order by a.site_id, a.status
          on conflict (site_id, status, slot) do update set n = order_counts.n + excluded.n;
        return null;
      end $$`.execute(db);
    await sql`create trigger orders_counted_insert after insert on orders
      referencing new table as added for each statement execute function order_counts_kept()`.execute(db);
    await sql`create trigger orders_counted_delete after delete on orders
      referencing old table as removed for each statement execute function order_counts_kept()`.execute(db);
    await sql`create trigger orders_counted_update after update on orders
      referencing old table as removed new table as added for each statement execute function order_counts_moved()`.execute(db);
  }
  // After the triggers: on PostgreSQL creating them locks out writers until this transaction commits.
  await sql`insert into order_counts (site_id, status, slot, n) select site_id, status, 0, count(*) from orders group by site_id, status`.execute(
    db,
  );
}

export async function down(db: AnyDb): Promise<void> {
  for (const t of ['insert', 'delete', 'update'])
    await sql
      .raw(isSqlite(db) ? `drop trigger if exists orders_counted_${t}` : `drop trigger if exists orders_counted_${t} on orders`)
      .execute(db);
  if (!isSqlite(db)) {
    await sql`drop function if exists order_counts_kept()`.execute(db);
    await sql`drop function if exists order_counts_moved()`.execute(db);
  }
  await db.schema.dropTable('order_counts').execute();
}
