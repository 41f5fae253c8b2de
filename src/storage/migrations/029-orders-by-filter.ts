// The orders list (GET /orders) pages newest first. Filtered by a student, a coupon or a status, the page
// walked the (site_id, created_at, id) index newest first and tested each order: SQLite's planner prefers
// an index that needs no sort to one that finds the matches and sorts them, having no statistics to say
// how few match. For a student with ten of a million orders, a coupon nobody used or a status no order
// has, a page read the whole index: 650-810 ms on SQLite (2 req/s at p99 7.7 s through HTTP; bench/
// RESULTS.md, fourteenth session). These indexes hold each filter's orders in the page's order, so the
// page reads its first entries whichever index the planner takes; they replace the student's and the
// coupon's indexes without the order (migrations 005 and 008), whose every use they also serve.
//
// Operators of a large PostgreSQL deployment can build them beforehand without blocking writes (README,
// "Running on PostgreSQL"); the migration then keeps them.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

const INDEXES = [
  ['orders_site_person_created', 'person_id'],
  ['orders_site_coupon_created', 'coupon_code'],
  ['orders_site_status_created', 'status'],
] as const;

export async function up(db: AnyDb): Promise<void> {
  for (const [name, column] of INDEXES)
    await db.schema.createIndex(name).ifNotExists().on('orders').columns(['site_id', column, 'created_at', 'id']).execute();
  await db.schema.dropIndex('orders_site_person').ifExists().execute();
  await db.schema.dropIndex('orders_site_coupon').ifExists().execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.createIndex('orders_site_person').ifNotExists().on('orders').columns(['site_id', 'person_id', 'created_at']).execute();
  await db.schema.createIndex('orders_site_coupon').ifNotExists().on('orders').columns(['site_id', 'coupon_code']).execute();
  for (const [name] of INDEXES) await db.schema.dropIndex(name).ifExists().execute();
}
