// A product's total on the orders list (GET /orders?productId=) counted its distinct orders through the
// lines' index: 11-14 ms on SQLite for a course in 100,000 orders, most of the request (61 req/s at p99
// 407 ms; bench/RESULTS.md, thirteenth session). The number of orders with at least one line of each
// product is now kept per site and product in order_product_counts by triggers on the lines, so every
// writer keeps it in step and the total is a few rows. An order with two lines of a product counts once:
// a line counts when its (order, product) had no line before, and uncounts when none is left.
//
// On PostgreSQL each statement is counted once over its transition tables, into the connection's slot
// (process id modulo 16); a removal takes from the lowest slot, with an update rather than an upsert,
// since during a site's deletion its counts may already be gone.
import { type Kysely, sql } from 'kysely';
import { isSqlite } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

const ADD_ON_CONFLICT = sql.raw('on conflict (site_id, product_id, slot) do update set n = order_product_counts.n + excluded.n');

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('order_product_counts')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('order_product_counts_pk', ['site_id', 'product_id', 'slot'])
    .$call((table) => (isSqlite(db) ? table.modifyEnd(sql`without rowid`) : table))
    .execute();
  if (isSqlite(db)) {
    const add = sql`insert into order_product_counts (site_id, product_id, slot, n) values (new.site_id, new.product_id, 0, 1) ${ADD_ON_CONFLICT};`;
    const remove = sql`update order_product_counts set n = n - 1 where site_id = old.site_id and product_id = old.product_id and slot = 0;`;
    const first = sql`not exists (select 1 from order_lines x where x.order_id = new.order_id and x.product_id = new.product_id and x.id <> new.id)`;
    const last = sql`not exists (select 1 from order_lines x where x.order_id = old.order_id and x.product_id = old.product_id)`;
    const moved = sql`(old.site_id is not new.site_id or old.order_id is not new.order_id or old.product_id is not new.product_id)`;
    await sql`create trigger order_lines_counted_insert after insert on order_lines when ${first} begin ${add} end`.execute(db);
    await sql`create trigger order_lines_counted_delete after delete on order_lines when ${last} begin ${remove} end`.execute(db);
    await sql`create trigger order_lines_counted_update_out after update of site_id, order_id, product_id on order_lines
      when ${moved} and ${last} begin ${remove} end`.execute(db);
    await sql`create trigger order_lines_counted_update_in after update of site_id, order_id, product_id on order_lines
      when ${moved} and ${first} begin ${add} end`.execute(db);
  } else {
    // Before the statement the lines were those now, less the added, plus the removed. An (order, product)
    // of the added rows counts if it had no line before; one of the removed rows uncounts if it has none now.
    await sql`create function order_product_counts_kept() returns trigger language plpgsql as $$
      begin
        if tg_op in ('DELETE', 'UPDATE') then
          update order_product_counts c set n = c.n - d.n
            from (select r.site_id, r.product_id, count(distinct r.order_id) as n from removed r
                  where not exists (select 1 from order_lines x where x.order_id = r.order_id and x.product_id = r.product_id)
                  group by 1, 2) d
            where c.site_id = d.site_id and c.product_id = d.product_id
              and c.slot = (select min(y.slot) from order_product_counts y where y.site_id = d.site_id and y.product_id = d.product_id);
        end if;
        if tg_op = 'INSERT' then
          insert into order_product_counts (site_id, product_id, slot, n)
            select a.site_id, a.product_id, pg_backend_pid() % 16, count(distinct a.order_id) from added a
              where not exists (select 1 from order_lines x where x.order_id = a.order_id and x.product_id = a.product_id
                                  and not exists (select 1 from added y where y.id = x.id))
              group by 1, 2 order by 1, 2
            ${ADD_ON_CONFLICT};
        elsif tg_op = 'UPDATE' then
          insert into order_product_counts (site_id, product_id, slot, n)
            select a.site_id, a.product_id, pg_backend_pid() % 16, count(distinct a.order_id) from added a
              where not exists (select 1 from order_lines x where x.order_id = a.order_id and x.product_id = a.product_id
                                  and not exists (select 1 from added y where y.id = x.id))
                and not exists (select 1 from removed r where r.order_id = a.order_id and r.product_id = a.product_id)
              group by 1, 2 order by 1, 2
            ${ADD_ON_CONFLICT};
        end if;
        return null;
      end $$`.execute(db);
    await sql`create trigger order_lines_counted_insert after insert on order_lines
      referencing new table as added for each statement execute function order_product_counts_kept()`.execute(db);
    await sql`create trigger order_lines_counted_delete after delete on order_lines
      referencing old table as removed for each statement execute function order_product_counts_kept()`.execute(db);
    await sql`create trigger order_lines_counted_update after update on order_lines
      referencing old table as removed new table as added for each statement execute function order_product_counts_kept()`.execute(db);
  }
  // After the triggers: on PostgreSQL creating them locks out writers until this transaction commits.
  await sql`insert into order_product_counts (site_id, product_id, slot, n)
    select site_id, product_id, 0, count(distinct order_id) from order_lines group by site_id, product_id`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  for (const t of ['insert', 'delete', 'update', 'update_out', 'update_in'])
    await sql
      .raw(
        isSqlite(db) ? `drop trigger if exists order_lines_counted_${t}` : `drop trigger if exists order_lines_counted_${t} on order_lines`,
      )
      .execute(db);
  if (!isSqlite(db)) await sql`drop function if exists order_product_counts_kept()`.execute(db);
  await db.schema.dropTable('order_product_counts').execute();
}
