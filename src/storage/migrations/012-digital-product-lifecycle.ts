// Digital products as operators manage them (issue 10, CONTRACT 6 digital_products): archived rather than
// deleted (buyers keep what they bought), edits stamped, and a product's purchasers paged by an index.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable('digital_products').addColumn('archived_at', 'bigint').execute();
  await db.schema.alterTable('digital_products').addColumn('updated_at', 'bigint').execute();
  await db.schema.createIndex('digital_products_site_created').on('digital_products').columns(['site_id', 'created_at', 'id']).execute();
  await db.schema
    .createIndex('digital_product_purchases_product')
    .on('digital_product_purchases')
    .columns(['site_id', 'product_id', 'purchased_at', 'id'])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex('digital_product_purchases_product').execute();
  await db.schema.dropIndex('digital_products_site_created').execute();
  await db.schema.alterTable('digital_products').dropColumn('updated_at').execute();
  await db.schema.alterTable('digital_products').dropColumn('archived_at').execute();
}
