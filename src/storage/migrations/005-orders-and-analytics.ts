// Orders and the analytics roll-ups (issue 9, CONTRACT 6 orders and analytics). Orders are what the
// demo seed and the domain create (there is no checkout); the daily roll-ups are kept in step by the
// writes that change them (an order paid or refunded, an enrollment started or completed, a learner
// active), so analytics reads a few hundred rows for a year, however large the school.
import { type Kysely, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

const site = 'sites.id';

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('orders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references(site).onDelete('cascade'))
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('person_id', 'text', (c) => c.notNull().references('people.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('subtotal_cents', 'bigint', (c) => c.notNull())
    .addColumn('discount_cents', 'bigint', (c) => c.notNull())
    .addColumn('total_cents', 'bigint', (c) => c.notNull())
    .addColumn('refunded_cents', 'bigint', (c) => c.notNull())
    .addColumn('coupon_code', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('paid_at', 'bigint')
    .addUniqueConstraint('orders_site_number', ['site_id', 'number'])
    .execute();
  await db.schema.createIndex('orders_site_created').on('orders').columns(['site_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('orders_site_person').on('orders').columns(['site_id', 'person_id', 'created_at']).execute();

  await db.schema
    .createTable('order_lines')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references(site).onDelete('cascade'))
    .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id').onDelete('cascade'))
    .addColumn('product_type', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('unit_price_cents', 'bigint', (c) => c.notNull())
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('order_lines_order').on('order_lines').columns(['order_id']).execute();
  await db.schema.createIndex('order_lines_product').on('order_lines').columns(['site_id', 'product_id']).execute();

  for (const table of ['payments', 'refunds'] as const) {
    let builder = db.schema
      .createTable(table)
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('site_id', 'text', (c) => c.notNull().references(site).onDelete('cascade'))
      .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id').onDelete('cascade'))
      .addColumn('amount_cents', 'bigint', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull());
    builder =
      table === 'payments'
        ? builder.addColumn('method', 'text', (c) => c.notNull())
        : builder.addColumn('reason', 'text', (c) => c.notNull());
    await builder.execute();
    await db.schema.createIndex(`${table}_order`).on(table).columns(['order_id']).execute();
  }

  // One row per site, local day (the site's time zone), metric and key ('' for the school, course:<id>,
  // product:<type>:<id>): sums that add up over any range of days.
  await db.schema
    .createTable('daily_rollups')
    .addColumn('site_id', 'text', (c) => c.notNull().references(site).onDelete('cascade'))
    .addColumn('metric', 'text', (c) => c.notNull())
    .addColumn('dim', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('value', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('daily_rollups_pk', ['site_id', 'metric', 'dim', 'day'])
    .execute();

  // Distinct learners do not add up over days: each learner has a number per site, and each local day
  // and month a bitmap of the numbers active in it (school/learner-activity.ts).
  await db.schema
    .createTable('learner_numbers')
    .addColumn('site_id', 'text', (c) => c.notNull().references(site).onDelete('cascade'))
    .addColumn('person_id', 'text', (c) => c.notNull())
    .addColumn('no', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('learner_numbers_pk', ['site_id', 'person_id'])
    .addUniqueConstraint('learner_numbers_no', ['site_id', 'no'])
    .execute();
  const binary = db.getExecutor().adapter.constructor.name.startsWith('Sqlite') ? 'blob' : 'bytea';
  await db.schema
    .createTable('activity_bitmaps')
    .addColumn('site_id', 'text', (c) => c.notNull().references(site).onDelete('cascade'))
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('bits', sql.raw(binary), (c) => c.notNull())
    .addPrimaryKeyConstraint('activity_bitmaps_pk', ['site_id', 'period'])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  for (const table of ['activity_bitmaps', 'learner_numbers', 'daily_rollups', 'refunds', 'payments', 'order_lines', 'orders'])
    await db.schema.dropTable(table).execute();
}
