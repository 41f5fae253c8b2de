// The orders list filtered by product (GET /orders?productId=) asked, for each order of the site, whether
// one of its lines is of the product, and the planners answered it from the (site_id, product_id) index:
// every line of the product for every order. At a million orders on SQLite a popular product's total did
// not finish in ten minutes (bench/RESULTS.md, thirteenth session). Now each line carries its order's
// time (created_at, kept equal to the order's by triggers, so every writer may leave it out), and the
// index (site_id, product_id, created_at, order_id) gives a product's orders newest first: a page walks
// its first entries. A product's total counts its distinct orders from (site_id, product_id, order_id),
// in order and without visiting the lines (from the first index it sorted them: 82-101 ms against 15 ms
// for 100,000 orders). Both replace the (site_id, product_id) index, their prefix.
//
// Operators of a large PostgreSQL deployment can build it beforehand without blocking writes (README,
// "Running on PostgreSQL"); the migration then keeps it. The copy of the times is one update of every
// line, inside the migration.
import { type Kysely, sql } from 'kysely';
import { isSqlite } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable('order_lines').addColumn('created_at', 'bigint').execute();
  if (isSqlite(db)) {
    // SQLite has no BEFORE trigger that can set a column: a line written without its time gets it after.
    await sql`create trigger order_lines_timed_insert after insert on order_lines when new.created_at is null begin
      update order_lines set created_at = (select o.created_at from orders o where o.id = new.order_id) where id = new.id;
    end`.execute(db);
    await sql`create trigger orders_time_to_lines after update of created_at on orders when old.created_at is not new.created_at begin
      update order_lines set created_at = new.created_at where order_id = new.id;
    end`.execute(db);
  } else {
    await sql`create function order_lines_timed() returns trigger language plpgsql as $$
      begin
        if new.created_at is null then
          select o.created_at into new.created_at from orders o where o.id = new.order_id;
        end if;
        return new;
      end $$`.execute(db);
    await sql`create function orders_time_to_lines() returns trigger language plpgsql as $$
      begin
        update order_lines set created_at = new.created_at where order_id = new.id;
        return null;
      end $$`.execute(db);
    await sql`create trigger order_lines_timed_insert before insert on order_lines for each row
      execute function order_lines_timed()`.execute(db);
    await sql`create trigger orders_time_to_lines after update of created_at on orders for each row
      when (old.created_at is distinct from new.created_at) execute function orders_time_to_lines()`.execute(db);
  }
  await sql`update order_lines set created_at = (select o.created_at from orders o where o.id = order_lines.order_id)`.execute(db);
  await db.schema
    .createIndex('order_lines_product_time')
    .ifNotExists()
    .on('order_lines')
    .columns(['site_id', 'product_id', 'created_at', 'order_id'])
    .execute();
  // A product's total counts its distinct orders: in order, from this index, without sorting them.
  await db.schema
    .createIndex('order_lines_product_order')
    .ifNotExists()
    .on('order_lines')
    .columns(['site_id', 'product_id', 'order_id'])
    .execute();
  await db.schema.dropIndex('order_lines_product').ifExists().execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.createIndex('order_lines_product').ifNotExists().on('order_lines').columns(['site_id', 'product_id']).execute();
  await db.schema.dropIndex('order_lines_product_time').ifExists().execute();
  await db.schema.dropIndex('order_lines_product_order').ifExists().execute();
  if (isSqlite(db)) {
    await sql`drop trigger if exists order_lines_timed_insert`.execute(db);
    await sql`drop trigger if exists orders_time_to_lines`.execute(db);
  } else {
    await sql`drop trigger if exists order_lines_timed_insert on order_lines`.execute(db);
    await sql`drop trigger if exists orders_time_to_lines on orders`.execute(db);
    await sql`drop function if exists order_lines_timed()`.execute(db);
    await sql`drop function if exists orders_time_to_lines()`.execute(db);
  }
  await db.schema.alterTable('order_lines').dropColumn('created_at').execute();
}
