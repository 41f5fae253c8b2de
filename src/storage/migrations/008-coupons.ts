// Coupons (issue 10, CONTRACT 6 coupons): a code per site, a percent or a fixed amount off, an optional
// cap on redemptions and an expiry, the products it applies to (none: all), disabled rather than
// deleted (orders name their coupon by code). Redemptions are the orders that name the code, counted by
// an index on (site, coupon_code) rather than a counter that could drift from them.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('coupons')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    /** Upper case: codes are matched without regard to case. */
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('percent_off', 'integer')
    .addColumn('amount_off_cents', 'bigint')
    .addColumn('currency', 'text')
    .addColumn('max_redemptions', 'integer')
    .addColumn('expires_at', 'bigint')
    .addColumn('disabled_at', 'bigint')
    /** The bulk creation that made it, if one did. */
    .addColumn('batch_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint')
    .addUniqueConstraint('coupons_site_code', ['site_id', 'code'])
    .execute();
  await db.schema.createIndex('coupons_site_created').on('coupons').columns(['site_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('coupons_site_batch').on('coupons').columns(['site_id', 'batch_id']).execute();
  await db.schema
    .createTable('coupon_products')
    .addColumn('coupon_id', 'text', (c) => c.notNull().references('coupons.id').onDelete('cascade'))
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('product_type', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('coupon_products_pk', ['coupon_id', 'product_type', 'product_id'])
    .execute();
  await db.schema.createIndex('orders_site_coupon').on('orders').columns(['site_id', 'coupon_code']).execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex('orders_site_coupon').execute();
  await db.schema.dropTable('coupon_products').execute();
  await db.schema.dropTable('coupons').execute();
}
