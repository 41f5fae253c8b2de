// Membership plans and subscriptions (issue 10, CONTRACT 6 membership_plans and subscriptions). A plan has
// a price per interval (or one payment), how long a payment gives access, and the courses and products it
// includes; archiving it stops new subscriptions and leaves existing ones as they are. A subscription
// runs period by period; cancelling ends it now or at the period's end, and one set to end can resume.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('membership_plans')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('price_cents', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    /** month, year, or one_time (a single payment). */
    .addColumn('billing_interval', 'text', (c) => c.notNull())
    /** Days of access a payment gives; null: for as long as the subscription runs (or for good, one-time). */
    .addColumn('access_days', 'integer')
    .addColumn('archived_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint')
    .execute();
  await db.schema.createIndex('membership_plans_site_created').on('membership_plans').columns(['site_id', 'created_at', 'id']).execute();
  await db.schema
    .createTable('plan_products')
    .addColumn('plan_id', 'text', (c) => c.notNull().references('membership_plans.id').onDelete('cascade'))
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('product_type', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('plan_products_pk', ['plan_id', 'product_type', 'product_id'])
    .execute();
  await db.schema
    .createTable('subscriptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('person_id', 'text', (c) => c.notNull().references('people.id').onDelete('cascade'))
    .addColumn('plan_id', 'text', (c) => c.notNull().references('membership_plans.id').onDelete('cascade'))
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('current_period_end', 'bigint', (c) => c.notNull())
    .addColumn('cancel_at_period_end', 'integer', (c) => c.notNull().defaultTo(0))
    /** When the subscription ended (cancelled now, or its last period ran out). */
    .addColumn('ended_at', 'bigint')
    .addColumn('cancelled_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('subscriptions_site_started').on('subscriptions').columns(['site_id', 'started_at', 'id']).execute();
  await db.schema.createIndex('subscriptions_site_plan').on('subscriptions').columns(['site_id', 'plan_id', 'started_at']).execute();
  await db.schema.createIndex('subscriptions_site_person').on('subscriptions').columns(['site_id', 'person_id', 'started_at']).execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('subscriptions').execute();
  await db.schema.dropTable('plan_products').execute();
  await db.schema.dropTable('membership_plans').execute();
}
