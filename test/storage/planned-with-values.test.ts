// Issue 12, operator lists stay fast on PostgreSQL: an operator's reads are planned with their values
// (storage/planned-with-values.ts). A named statement may be run from a generic plan after five runs, and
// for a list whose best plan depends on its values that plan, forced on the bench database, walked
// 100,000 students for a page of 15 (bench/RESULTS.md, seventeenth session). Marked statements are sent
// unnamed, which PostgreSQL plans with the values of each call; a member's reads and every precompiled
// lookup stay prepared.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listMyEnrollments } from '../../src/operations/member-operations.js';
import type { OperationContext } from '../../src/operations/operation.js';
import { listOrders } from '../../src/operations/operator/orders.js';
import { listStudentsOperation } from '../../src/operations/operator/students.js';
import { findSiteByOrigin, findSiteBySlug } from '../../src/sites/sites.repository.js';
import { openStore, type Store } from '../../src/storage/connect.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { PLANNED_WITH_VALUES, planningWithValues } from '../../src/storage/planned-with-values.js';
import { type TestDialect, freshDatabaseUrl, skipDialect } from '../helpers/dialects.js';
import { insertLearners, insertSite, learnerId, TEST_NOW } from '../helpers/school-fixtures.js';

const SITE = 'site_planned';

async function openWorld(dialect: TestDialect) {
  const { url, cleanup } = await freshDatabaseUrl(dialect);
  // One connection, so every statement below meets the same session's prepared statements.
  const store = openStore(url, { poolSize: 1 });
  await migrateToLatest(store);
  await insertSite(store.db, { id: SITE, name: 'Planned', origin: 'https://planned.test', variant: 'A' });
  await insertLearners(store.db, SITE, 40);
  return { store, close: async () => [await store.close(), await cleanup()] };
}

async function contextOf(store: Store, personId: string): Promise<OperationContext> {
  const site = await findSiteBySlug(store.db, SITE);
  if (!site) throw new Error('the test site is missing');
  return { db: store.db, site, clock: { now: () => TEST_NOW }, personId, scopes: [], clientId: 'test-app', requestId: 'req' };
}

describe.skipIf(skipDialect('postgres'))('operator reads planned with their values (postgres)', () => {
  let world: Awaited<ReturnType<typeof openWorld>>;
  beforeAll(async () => {
    world = await openWorld('postgres');
  });
  afterAll(async () => {
    await world?.close();
  });

  const preparedLike = async (like: string) =>
    (
      await sql<{ statement: string }>`select statement from pg_prepared_statements where statement like ${like}`.execute(world.store.db)
    ).rows.map((r) => r.statement);

  it('an operator list (students by inactivity, orders by status) run many times leaves none of its statements prepared in the session', async () => {
    const ctx = await contextOf(world.store, learnerId(0));
    for (let i = 0; i < 8; i++) {
      const students = await listStudentsOperation.run(ctx, { inactiveDays: 365, limit: 10 });
      expect(students.total).toBe(40);
      expect(students.items).toHaveLength(10);
      const orders = await listOrders.run(ctx, { status: 'refunded', limit: 10 });
      expect(orders.total).toBe(0);
    }
    expect(await preparedLike('%student_activity%')).toEqual([]);
    expect(await preparedLike('%from "orders"%')).toEqual([]);
    expect(await preparedLike(`%${PLANNED_WITH_VALUES.trim()}%`)).toEqual([]);
  });

  it('a member read keeps its prepared statements', async () => {
    const ctx = await contextOf(world.store, learnerId(0));
    for (let i = 0; i < 3; i++) expect((await listMyEnrollments.run(ctx, {})).items).toEqual([]);
    expect((await preparedLike('%from "enrollments"%')).length).toBeGreaterThan(0);
  });

  it('a precompiled lookup first compiled inside an operator read is still prepared for every later caller, without the marker', async () => {
    // sites.repository's lookup by origin is precompiled once per dialect adapter, which the marked database shares.
    const marked = planningWithValues(world.store.db);
    const byOrigin = async () => (await findSiteByOrigin(marked, 'https://planned.test'))?.id;
    expect(await byOrigin()).toBe(SITE);
    expect(await byOrigin()).toBe(SITE);
    const prepared = await preparedLike('%from "sites" where "origin" = $1%');
    expect(prepared).toHaveLength(1);
    expect(prepared[0]).not.toContain(PLANNED_WITH_VALUES.trim());
  });

  it('a marked statement answers as the unmarked one: the marker is a comment at its end', async () => {
    const marked = planningWithValues(world.store.db);
    const page = (db: typeof marked) =>
      db.selectFrom('site_roles').select('person_id').where('site_id', '=', SITE).orderBy('person_id').limit(3).offset(2);
    expect(await page(marked).execute()).toEqual(await page(world.store.db).execute());
    expect((await page(marked).execute()).map((r) => r.person_id)).toEqual([learnerId(2), learnerId(3), learnerId(4)]);
    expect(page(marked).compile().sql.endsWith(PLANNED_WITH_VALUES)).toBe(true);
    expect(page(world.store.db).compile().sql).not.toContain(PLANNED_WITH_VALUES.trim());
    const raw = sql<{ n: number }>`select count(*)::int as n from site_roles where site_id = ${SITE}`;
    expect((await raw.execute(marked)).rows).toEqual([{ n: 40 }]);
  });
});

describe('operator reads planned with their values (sqlite)', () => {
  let world: Awaited<ReturnType<typeof openWorld>>;
  beforeAll(async () => {
    world = await openWorld('sqlite');
  });
  afterAll(async () => {
    await world?.close();
  });

  it('on SQLite the database is left as it is: statement texts (and so its plans) do not change', async () => {
    expect(planningWithValues(world.store.db)).toBe(world.store.db);
    const ctx = await contextOf(world.store, learnerId(0));
    const students = await listStudentsOperation.run(ctx, { inactiveDays: 365, limit: 10 });
    expect(students.total).toBe(40);
  });
});
