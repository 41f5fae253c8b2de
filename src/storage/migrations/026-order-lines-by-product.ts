// The orders list filtered by product (GET /orders?productId=) asked, for each order of the site, whether
// one of its lines is of the product, and the planners answered it from the (site_id, product_id) index:
// every line of the product for every order. At a million orders on SQLite a popular product's total did
// not finish in ten minutes (bench/RESULTS.md, thirteenth session). The filter now reads the product's
// orders from its lines once, and this index holds the order of each line with the product, so that read
// and a product's total (its distinct orders) never visit the lines themselves. It replaces the
// (site_id, product_id) index, which is its prefix.
//
// Operators of a large PostgreSQL deployment can build it beforehand without blocking writes (README,
// "Running on PostgreSQL"); the migration then keeps it.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
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
  await db.schema.dropIndex('order_lines_product_order').ifExists().execute();
}
