// SQLite answers a statement synchronously, yet Kysely's driver queues each one behind a connection mutex
// and several promise turns (about 6 µs per statement measured, more under load). A Kysely instance over
// SQLite registers here a runner that executes a compiled statement at once, but only while the
// connection is outside any transaction: then the statement is its own autocommit transaction, exactly
// what Kysely would have run once the mutex was free. Inside a transaction (or on PostgreSQL) the runner
// declines and the statement goes through Kysely, which orders it after the transaction.
import type { CompiledQuery, Kysely, QueryResult } from 'kysely';
import type { Database } from './schema.js';

/** Runs the statement now and returns its result, or undefined to leave it to Kysely. */
export type SynchronousRunner = <R>(query: CompiledQuery<R>) => QueryResult<R> | undefined;

const runners = new WeakMap<object, SynchronousRunner>();

export function registerSynchronousRunner(db: Kysely<Database>, runner: SynchronousRunner): void {
  runners.set(db, runner);
}

/** The runner for this database handle; none for a transaction's handle or a PostgreSQL database. */
export function synchronousRunnerOf(db: object): SynchronousRunner | undefined {
  return runners.get(db);
}
