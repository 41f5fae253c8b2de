// The write wrapper (operations/operation.ts) on PostgreSQL: when the database ends a write's transaction
// because of another transaction at the same moment (a serialization failure, 40001, or a deadlock,
// 40P01), the caller gets the conflict with its remedy (read again and retry), never a fault, and nothing
// of the write stays. The other transaction is a real one on its own connection, and the overlap is driven
// by what PostgreSQL reports (a backend blocked by the other's lock), not by timers.
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineOperation, type OperationContext, OperationError } from '../../src/operations/operation.js';
import { findSiteBySlug } from '../../src/sites/sites.repository.js';
import type { Database } from '../../src/storage/schema.js';
import { skipDialect } from '../helpers/dialects.js';
import { insertSite, openSchoolStore, type SchoolStore } from '../helpers/school-fixtures.js';

/** A promise and the function that settles it. */
function signal(): { done: Promise<void>; fire: () => void } {
  let fire = () => {};
  const done = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { done, fire };
}

/** An operator write whose handler runs `steps` inside the wrapper's transaction. */
function writeWith(steps: (db: Kysely<Database>) => Promise<void>) {
  return defineOperation({
    name: 'test_write',
    title: 'Test write',
    description: 'A write for this test.',
    audience: 'operator',
    scopes: ['school:write'],
    input: z.object({}),
    output: z.object({ done: z.boolean() }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    audit: () => 'site:site_a',
    async handle(inner) {
      await steps(inner.db);
      return { done: true };
    },
  });
}

const rename = (db: Kysely<Database>, id: string, name: string) => db.updateTable('sites').set({ name }).where('id', '=', id).execute();
const backendPid = async (db: Kysely<Database>) =>
  (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0]?.pid ?? 0;

describe.skipIf(skipDialect('postgres'))('the write wrapper on PostgreSQL, a write ended by a concurrent transaction', () => {
  let s: SchoolStore;
  let ctx: OperationContext;

  const names = async () => (await s.db.selectFrom('sites').select(['id', 'name']).orderBy('id').execute()).map((r) => `${r.id}=${r.name}`);
  const audits = async () => (await s.db.selectFrom('audit_events').select('id').execute()).length;
  /** Whether backend `pid` waits for a lock that backend `holder` holds (a wait on autovacuum is not one). */
  const blockedBy = async (pid: number, holder: number) =>
    (await sql<{ blocked: boolean }>`select ${holder} = any(pg_blocking_pids(${pid})) as blocked`.execute(s.db)).rows[0]?.blocked === true;

  beforeAll(async () => {
    s = await openSchoolStore('postgres');
    await insertSite(s.db, { id: 'site_a', name: 'A', origin: 'http://a.test', variant: 'A' });
    await insertSite(s.db, { id: 'site_b', name: 'B', origin: 'http://b.test', variant: 'A' });
    const site = await findSiteBySlug(s.db, 'site_a');
    if (!site) throw new Error('no site');
    ctx = { db: s.db, site, clock: { now: () => Date.now() }, personId: null, scopes: [], clientId: null, requestId: null };
  });
  afterAll(() => s?.close());

  it('answers a serialization failure (40001) as a conflict to read again and retry, and keeps nothing of the write', async () => {
    const read = signal();
    const otherCommitted = signal();
    const write = writeWith(async (db) => {
      await db.selectFrom('sites').select('name').where('id', '=', 'site_a').execute();
      read.fire();
      await otherCommitted.done;
      // The row changed after this transaction's snapshot: SERIALIZABLE refuses to write over it.
      await rename(db, 'site_a', 'written by the operation');
    });
    const before = await audits();
    const running = write.run(ctx, {});
    await read.done;
    await rename(s.db, 'site_a', 'written by the other');
    otherCommitted.fire();

    const error = await running.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OperationError);
    expect((error as OperationError).code).toBe('conflict');
    expect((error as OperationError).message).toMatch(/Read it again and retry/);
    expect(await names()).toEqual(['site_a=written by the other', 'site_b=B']);
    expect(await audits()).toBe(before);
  });

  it('answers a deadlock (40P01) in which PostgreSQL ends the write as a conflict to retry, and keeps nothing of the write', async () => {
    const otherHolds = signal();
    const writeWaits = signal();
    let writePid = 0;
    let otherPid = 0;
    const write = writeWith(async (db) => {
      writePid = await backendPid(db);
      await otherHolds.done;
      await rename(db, 'site_a', 'written by the operation');
      // Held by the other transaction: this waits, and the other then waits for site_a, held here.
      await rename(db, 'site_b', 'written by the operation');
    });
    const before = await audits();
    const other = s.db.transaction().execute(async (trx) => {
      // The write's backend runs the deadlock check first (after PostgreSQL's default second) and ends its
      // own transaction; this one would wait ten seconds before checking.
      await sql`set local deadlock_timeout = '10s'`.execute(trx);
      otherPid = await backendPid(trx);
      await rename(trx, 'site_b', 'written by the other');
      otherHolds.fire();
      await writeWaits.done;
      await rename(trx, 'site_a', 'written by the other');
    });
    const running = write.run(ctx, {}).then(
      () => undefined,
      (e: unknown) => e,
    );
    await otherHolds.done;
    let settled = false;
    void running.finally(() => {
      settled = true;
    });
    while (!settled && !(writePid !== 0 && (await blockedBy(writePid, otherPid)))) await new Promise((resolve) => setTimeout(resolve, 5));
    writeWaits.fire();

    const error = await running;
    await other;
    expect(error).toBeInstanceOf(OperationError);
    expect((error as OperationError).code).toBe('conflict');
    expect((error as OperationError).message).toMatch(/Read it again and retry/);
    expect(await names()).toEqual(['site_a=written by the other', 'site_b=written by the other']);
    expect(await audits()).toBe(before);
  });
});
