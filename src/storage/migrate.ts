// Runs the migrations in order. One list serves both dialects.
import { type Migration, type MigrationProvider, Migrator } from 'kysely';
import * as m001 from './migrations/001-authorization-server.js';
import * as m002 from './migrations/002-school.js';
import * as m003 from './migrations/003-expiry-indexes.js';
import * as m004 from './migrations/004-operator-spine.js';
import * as m005 from './migrations/005-orders-and-analytics.js';
import * as m006 from './migrations/006-activity-bitmap-digests.js';
import * as m007 from './migrations/007-event-management.js';
import * as m008 from './migrations/008-coupons.js';
import * as m009 from './migrations/009-plans-and-subscriptions.js';
import * as m010 from './migrations/010-posts.js';
import * as m011 from './migrations/011-comments-and-forms.js';
import * as m012 from './migrations/012-digital-product-lifecycle.js';
import * as m013 from './migrations/013-pages.js';
import * as m014 from './migrations/014-assets.js';
import * as m015 from './migrations/015-appearance.js';
import * as m016 from './migrations/016-admin-area.js';
import * as m017 from './migrations/017-token-tables-by-rowid.js';
import * as m018 from './migrations/018-audit-token-event-expiry.js';
import * as m019 from './migrations/019-audit-log-by-actor-and-app.js';
import * as m020 from './migrations/020-order-counts.js';
import * as m021 from './migrations/021-order-sums.js';
import * as m022 from './migrations/022-audit-counts-by-app.js';
import * as m023 from './migrations/023-enrollment-counts.js';
import * as m024 from './migrations/024-open-enrollments-by-activity.js';
import * as m025 from './migrations/025-open-enrollments-by-activity-day.js';
import * as m026 from './migrations/026-order-lines-by-product.js';
import * as m027 from './migrations/027-order-product-counts.js';
import * as m028 from './migrations/028-course-learning-counts.js';
import * as m029 from './migrations/029-orders-by-filter.js';
import * as m030 from './migrations/030-enrollments-by-activity-person.js';
import * as m031 from './migrations/031-course-student-counts.js';
import * as m032 from './migrations/032-enrollments-by-state-person.js';
import * as m033 from './migrations/033-people-search.js';
import * as m034 from './migrations/034-student-figures.js';
import * as m035 from './migrations/035-student-activity.js';
import * as m036 from './migrations/036-course-expiry.js';
import * as m037 from './migrations/037-student-counts-serialized.js';
import * as m038 from './migrations/038-enrollments-by-course-state.js';
import * as m039 from './migrations/039-daily-rollups-clustered.js';
import * as m040 from './migrations/040-student-activity-days.js';
import * as m041 from './migrations/041-course-activity-days.js';
import * as m042 from './migrations/042-student-state-days.js';
import * as m043 from './migrations/043-course-state-days.js';
import * as m044 from './migrations/044-grants-by-person.js';
import * as m045 from './migrations/045-sessions-by-person.js';
import * as m046 from './migrations/046-live-grants-by-app.js';
import * as m047 from './migrations/047-members-by-time.js';
import * as m048 from './migrations/048-comments-by-person.js';
import * as m049 from './migrations/049-sites-by-creation.js';
import * as m050 from './migrations/050-tokens-answer-to-their-grant.js';
import * as m051 from './migrations/051-references-of-deleted-rows.js';
import * as m052 from './migrations/052-started-enrollments-by-next-lecture.js';
import * as m053 from './migrations/053-enrollment-figures-per-statement.js';
import type { Store } from './connect.js';

const migrations: Record<string, Migration> = {
  '001-authorization-server': m001,
  '002-school': m002,
  '003-expiry-indexes': m003,
  '004-operator-spine': m004,
  '005-orders-and-analytics': m005,
  '006-activity-bitmap-digests': m006,
  '007-event-management': m007,
  '008-coupons': m008,
  '009-plans-and-subscriptions': m009,
  '010-posts': m010,
  '011-comments-and-forms': m011,
  '012-digital-product-lifecycle': m012,
  '013-pages': m013,
  '014-assets': m014,
  '015-appearance': m015,
  '016-admin-area': m016,
  '017-token-tables-by-rowid': m017,
  '018-audit-token-event-expiry': m018,
  '019-audit-log-by-actor-and-app': m019,
  '020-order-counts': m020,
  '021-order-sums': m021,
  '022-audit-counts-by-app': m022,
  '023-enrollment-counts': m023,
  '024-open-enrollments-by-activity': m024,
  '025-open-enrollments-by-activity-day': m025,
  '026-order-lines-by-product': m026,
  '027-order-product-counts': m027,
  '028-course-learning-counts': m028,
  '029-orders-by-filter': m029,
  '030-enrollments-by-activity-person': m030,
  '031-course-student-counts': m031,
  '032-enrollments-by-state-person': m032,
  '033-people-search': m033,
  '034-student-figures': m034,
  '035-student-activity': m035,
  '036-course-expiry': m036,
  '037-student-counts-serialized': m037,
  '038-enrollments-by-course-state': m038,
  '039-daily-rollups-clustered': m039,
  '040-student-activity-days': m040,
  '041-course-activity-days': m041,
  '042-student-state-days': m042,
  '043-course-state-days': m043,
  '044-grants-by-person': m044,
  '045-sessions-by-person': m045,
  '046-live-grants-by-app': m046,
  '047-members-by-time': m047,
  '048-comments-by-person': m048,
  '049-sites-by-creation': m049,
  '050-tokens-answer-to-their-grant': m050,
  '051-references-of-deleted-rows': m051,
  '052-started-enrollments-by-next-lecture': m052,
  '053-enrollment-figures-per-statement': m053,
};

/** Adds a migration module; issues after the first register theirs here, in order. */
export function registeredMigrations(): Record<string, Migration> {
  return migrations;
}

const provider: MigrationProvider = { getMigrations: async () => migrations };

/**
 * Brings the schema up to date; throws with the failing migration's name and cause. On PostgreSQL the
 * migrations run on a connection of their own without the serving statements' time limit (Store.forMigrations).
 */
export async function migrateToLatest(store: Store): Promise<string[]> {
  const migrating = store.forMigrations?.();
  const migrator = new Migrator({ db: migrating?.db ?? store.db, provider });
  const { error, results } = await migrator.migrateToLatest().finally(() => migrating?.close());
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    const cause = error instanceof Error ? error.message : String(error);
    // No migration ran: the database was not reached, or its migration lock could not be taken.
    throw new Error(failed ? `migration ${failed} failed: ${cause}` : `the database schema cannot be brought up to date: ${cause}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
