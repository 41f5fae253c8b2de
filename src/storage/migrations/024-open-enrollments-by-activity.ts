// Learners at risk (GET /analytics/at_risk_learners) are open enrollments (not revoked, not completed)
// with access, longest inactive first. At a million enrollments the page sorted every match (1.3 s on
// SQLite for 833,000 inactive learners) and the total joined each one's person and course (2 s; bench/
// RESULTS.md, thirteenth session). This partial index holds the open enrollments in the page's order (last
// activity, never-active first, then id) with the access columns the filter reads, so the page reads its
// first entries and the total counts index entries without visiting the table. Learners whose access ends
// soon, asked alone, are a range of a second partial index on the open timed enrollments' expiry (with
// their last activity, for the inactive among the timed ones that still have access).
//
// Operators of a large PostgreSQL deployment can build it beforehand without blocking writes (README,
// "Running on PostgreSQL"); the migration then keeps it.
import { type Kysely, sql } from 'kysely';
import { isSqlite } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  // NULLS FIRST is SQLite's own order for ascending keys and must be named on PostgreSQL.
  const activity = isSqlite(db) ? sql.raw('last_activity_at') : sql.raw('last_activity_at nulls first');
  await sql`create index if not exists enrollments_open_by_activity
    on enrollments (site_id, ${activity}, id, lifetime_access, access_expires_at)
    where revoked_at is null and completed_at is null`.execute(db);
  await sql`create index if not exists enrollments_open_by_expiry on enrollments (site_id, access_expires_at, last_activity_at)
    where revoked_at is null and completed_at is null and lifetime_access = 0`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex('enrollments_open_by_activity').ifExists().execute();
  await db.schema.dropIndex('enrollments_open_by_expiry').ifExists().execute();
}
