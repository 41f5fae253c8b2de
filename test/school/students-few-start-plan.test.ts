// Issue 12, the students list at 100,000 students on PostgreSQL: a page that starts from a few students
// (here the few inactive, counted first) reads those few and sorts them, whatever the planner estimates.
// In the bench, statistics sampled at random took a year's 15 inactive students for 1% of 100,000, and the
// planner walked the students' index newest first, looking each one up, for a page of 15: 0.8-1.1 s a
// page (bench/RESULTS.md, seventeenth session). Here statistics are left stale on purpose (analyzed while
// 2,000 of 5,000 students were inactive, then all but 15 of them became active), and the page must
// neither look up each student's latest activity by key nor read the people or the roles whole.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchStudents } from '../../src/school/operator-students.repository.js';
import { openStore, type Store } from '../../src/storage/connect.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { freshDatabaseUrl, skipDialect } from '../helpers/dialects.js';
import { DAY, insertLearners, insertSite, learnerId, TEST_NOW } from '../helpers/school-fixtures.js';

const SITE = 'site_few';
const STUDENTS = 5_000;

describe.skipIf(skipDialect('postgres'))('students list from a few, under stale statistics (postgres)', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    const db = await freshDatabaseUrl('postgres');
    cleanup = db.cleanup;
    // One connection: the index counters below are this session's, flushed on demand.
    store = openStore(db.url, { poolSize: 1 });
    await migrateToLatest(store);
    await insertSite(store.db, { id: SITE, name: 'Few', origin: 'https://few.test', variant: 'A' });
    await insertLearners(store.db, SITE, STUDENTS);
    await sql`alter table student_activity set (autovacuum_enabled = off)`.execute(store.db);
    // Every student starts never active (-1); 3,000 become active, and the table is analyzed then.
    const activeFrom = (from: number) =>
      sql`update student_activity set last_activity_at = ${TEST_NOW - DAY} where site_id = ${SITE} and person_id >= ${learnerId(from)}`.execute(
        store.db,
      );
    await activeFrom(2_000);
    await sql`analyze`.execute(store.db);
    // All but 15 of the 2,000 others become active after it: the statistics still say 40% are inactive.
    await activeFrom(15);
  }, 120_000);
  afterAll(async () => {
    await store?.close();
    await cleanup?.();
  });

  /** The session's counts reach the statistics views when it next goes idle; this forces that flush. */
  const flushCounts = async () => {
    await sql`select pg_stat_force_next_flush()`.execute(store.db);
    await sql`select 1`.execute(store.db);
  };

  /** Entries this session has read from an index so far. */
  const entriesRead = async (index: string) => {
    await flushCounts();
    const row = await sql<{ n: string }>`select idx_tup_read::text as n from pg_stat_user_indexes where indexrelname = ${index}`.execute(
      store.db,
    );
    return Number(row.rows[0]?.n ?? Number.NaN);
  };

  /** Rows this session has read from a table by scanning it whole so far. */
  const scanned = async (table: string) => {
    await flushCounts();
    const row = await sql<{ n: string }>`select seq_tup_read::text as n from pg_stat_user_tables where relname = ${table}`.execute(
      store.db,
    );
    return Number(row.rows[0]?.n ?? Number.NaN);
  };

  it('a page of the 15 inactive students reads them from the range of latest activity, not each student’s latest activity by key, and reads no table whole', async () => {
    const before = {
      activity: await entriesRead('student_activity_pk'),
      people: await scanned('people'),
      roles: await scanned('site_roles'),
    };
    const page = await searchStudents({ db: store.db, siteId: SITE }, { inactiveDays: 30 }, { first: 100 }, TEST_NOW);
    // The newest first: learners 14 down to 0 (a later number is a newer student).
    expect(page.edges.map((e) => e.node.id)).toEqual(Array.from({ length: 15 }, (_, i) => learnerId(14 - i)));
    expect((await entriesRead('student_activity_pk')) - before.activity).toBeLessThan(100);
    // Taking the few for 2,000, the planner would read every person and every role to join them.
    expect((await scanned('people')) - before.people).toBe(0);
    expect((await scanned('site_roles')) - before.roles).toBe(0);
  });
});
