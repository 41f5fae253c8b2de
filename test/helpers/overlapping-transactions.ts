// Two PostgreSQL transactions at READ COMMITTED that change related rows at once, driven step by step by
// what PostgreSQL reports rather than by timers: for the tests of the row locks that keep the trigger-kept
// counts right under concurrent writers (migrations 037 and 041).
import { type Kysely, sql } from 'kysely';
import type { Database } from '../../src/storage/schema.js';

const backendPid = async (db: Kysely<Database>) =>
  (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0]?.pid ?? 0;

/**
 * Runs `first` in a transaction and, after it wrote and before it commits, `second` in another; lets the
 * first commit once the second waits for it or has finished. Answers whether the second waited for the
 * first, as PostgreSQL tells it (the first's backend among those blocking the second's): without a lock
 * between them the second finishes before the first commits. A wait on anyone else (autovacuum truncating
 * a table takes a lock that every writer waits for) is not the first's.
 */
export async function secondWaitsForFirst(
  db: Kysely<Database>,
  first: (trx: Kysely<Database>) => Promise<unknown>,
  second: (trx: Kysely<Database>) => Promise<unknown>,
): Promise<boolean> {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let wrote = () => {};
  const firstWrote = new Promise<void>((resolve) => {
    wrote = resolve;
  });
  let firstPid = 0;
  const a = db.transaction().execute(async (trx) => {
    firstPid = await backendPid(trx);
    await first(trx);
    wrote();
    await released;
  });
  await firstWrote;
  let pid = 0;
  let finished = false;
  // Settled either way: a second writer that fails must end the wait below, not spin it.
  const b = db
    .transaction()
    .execute(async (trx) => {
      pid = await backendPid(trx);
      await second(trx);
    })
    .finally(() => {
      finished = true;
    });
  let waited = false;
  while (!finished && !waited) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (pid === 0) continue;
    const blocking = await sql<{ by_first: boolean }>`select ${firstPid} = any(pg_blocking_pids(${pid})) as by_first`.execute(db);
    waited = blocking.rows[0]?.by_first === true;
  }
  release();
  await Promise.all([a, b]);
  return waited;
}
