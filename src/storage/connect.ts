// Opens the database named by DATABASE_URL: embedded SQLite (better-sqlite3, WAL) or PostgreSQL (pg).
// This is the only module that knows which dialect is in use; everything else sees Kysely<Database>.
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { type CompiledQuery, Kysely, PostgresDialect, type SqliteDatabase, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { PoolStats } from '../observability/metrics.js';
import type { Database } from './schema.js';
import { type Checkpointer, startCheckpointer } from './sqlite-checkpointer.js';
import { InlineLimitsPlugin } from './inline-limits.js';
import { plannedWithValues } from './planned-with-values.js';
import { statementRunner } from './sqlite-statement-runner.js';
import { registerSynchronousRunner } from './synchronous-statements.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  /**
   * SQLite only: a number that changes whenever another process commits to the file (PRAGMA
   * data_version), so in-process caches can tell when someone else may have written.
   */
  externalWriteVersion?: () => number;
  /**
   * SQLite only: runs `work` as one transaction on the connection, synchronously, its statements through
   * the synchronous runner (storage/sqlite-statement-runner.ts); the caller must hold Kysely's connection
   * (storage/group-commit.ts).
   */
  sqliteTransaction?: <T>(work: (run: RunCompiled) => T) => T;
  /** PostgreSQL only: the connection pool's state, for the metrics. */
  poolStats?: () => PoolStats;
  /** SQLite served with `backgroundCheckpoints`: the worker that checkpoints the log. */
  checkpoints?: Checkpointer;
  /**
   * PostgreSQL only: a connection of its own for the migrations, whose statements may run for minutes (an
   * index built over a log of millions of events) where a serving statement is cut off after seconds.
   */
  forMigrations?: () => { db: Kysely<Database>; close(): Promise<void> };
  close(): Promise<void>;
}

// PostgreSQL returns bigint (int8) as strings; our bigints are epoch milliseconds, well inside 2^53.
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));

const STATEMENT_CACHE_SIZE = 512;

/** Runs one compiled statement synchronously: its rows, or the rows it changed. */
export type RunCompiled = (query: CompiledQuery) => { rows: unknown[]; changes: number };

/**
 * Kysely's SQLite driver prepares every query anew; preparing costs more than running most of ours.
 * Statements are reused by their SQL text (bounded: texts with `in (?, ?, …)` vary in length).
 * Reuse is safe because better-sqlite3 runs each statement to completion synchronously.
 */
function withStatementCache(sqlite: SQLite.Database): SqliteDatabase & { prepare(sql: string): SQLite.Statement } {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let statement = cache.get(sql);
      if (!statement) {
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.clear();
        statement = sqlite.prepare(sql);
        cache.set(sql, statement);
      }
      return statement;
    },
  };
}

/** Distinct statement texts PostgreSQL keeps prepared on each connection; texts beyond them are parsed per call. */
export const PREPARED_STATEMENTS_MAX = 256;
const statementNames = new Map<string, string>();

function statementName(text: string): string | undefined {
  if (plannedWithValues(text)) return undefined;
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < PREPARED_STATEMENTS_MAX) {
    name = `sg_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`;
    statementNames.set(text, name);
  }
  return name;
}

/**
 * Whether PostgreSQL refused a named statement that the session had prepared but can no longer run as
 * prepared: its result changed shape since (a migration added a column: 0A000 from RevalidateCachedQuery,
 * "cached plan must not change result type"), or the session no longer holds it (26000, after a
 * DEALLOCATE ALL or DISCARD ALL). node-postgres would send the same name on that connection for good, so
 * every later call would fail the same way; pgjdbc heals both by preparing again, and so do we.
 */
function outdatedStatement(error: unknown): 'changed' | 'gone' | undefined {
  if (!(error instanceof pg.DatabaseError)) return undefined;
  if (error.code === '0A000' && error.routine === 'RevalidateCachedQuery') return 'changed';
  return error.code === '26000' ? 'gone' : undefined;
}

/** 25P02: a statement after a failed one in the same transaction, which PostgreSQL refuses to run. */
const inFailedTransaction = (error: unknown) => error instanceof pg.DatabaseError && error.code === '25P02';

/**
 * PostgreSQL parses and plans every unnamed statement anew, and on a busy box that costs more than running
 * our indexed lookups. Kysely sends each query as text and values; naming it (by a hash of its text) lets
 * node-postgres prepare it once per connection and afterwards send only the values. The first
 * PREPARED_STATEMENTS_MAX texts are named (the hot paths' statements come first and are few); later texts,
 * such as ad-hoc operator filters, stay unnamed, so a connection never holds an unbounded number of plans.
 * Texts marked to be planned with their values (storage/planned-with-values.ts) stay unnamed too.
 * A statement the session can no longer run as prepared (outdatedStatement) is prepared again under a name
 * of this connection's own and run once more: it failed before it ran, so running it again is safe.
 */
function preparingStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (config: unknown, values?: unknown, callback?: unknown) => Promise<unknown>;
  /** Texts this connection prepared again after they became outdated, with the names they have now. */
  const renamed = new Map<string, string>();
  let preparedAgain = 0;
  const prepareAgain = async (text: string, name: string, values: unknown[], outdated: 'changed' | 'gone') => {
    // Longer than every shared name, and never used before on this connection (node-postgres remembers
    // every name it prepared there, so a name cannot be prepared twice).
    preparedAgain += 1;
    const fresh = `${statementName(text) ?? name}_r${preparedAgain}`;
    renamed.set(text, fresh);
    // The outdated statement would stay in the session until the connection ends; an error here only
    // means the transaction it is in has failed, which the run below reports.
    if (outdated === 'changed') await query(`DEALLOCATE "${name}"`).catch(() => {});
    return query({ name: fresh, text, values });
  };
  // The overloads of pg's query cannot be restated one by one; this keeps every call shape and only
  // rewrites Kysely's (text, values) calls.
  const named = (config: unknown, values?: unknown, callback?: unknown): unknown => {
    if (typeof config === 'string' && Array.isArray(values) && values.length > 0 && callback === undefined) {
      const name = renamed.get(config) ?? statementName(config);
      if (name !== undefined)
        return query({ name, text: config, values }).catch((error: unknown) => {
          const outdated = outdatedStatement(error);
          if (outdated === undefined) throw error;
          // Inside a transaction the failure has ended it: what follows fails as 25P02, and the first
          // error is the one that says what happened.
          return prepareAgain(config, name, values, outdated).catch((again: unknown) => {
            throw inFailedTransaction(again) ? error : again;
          });
        });
    }
    return query(config, values, callback);
  };
  client.query = named as typeof client.query;
}

export interface StoreOptions {
  poolSize?: number;
  /** SQLite file, serving process: checkpoint the log in a worker thread (storage/sqlite-checkpointer.ts). */
  backgroundCheckpoints?: boolean;
  /** Told when the checkpoint worker stops and the serving connection checkpoints inside its commits again. */
  onCheckpointFault?: (error: Error) => void;
  /** Log frames at which the checkpoint worker restarts the log (storage/sqlite-checkpointer.ts). */
  restartLogFrames?: number;
  /** PostgreSQL: how long a serving statement may take before it is abandoned (default 5 s). */
  queryTimeoutMs?: number;
}

/** A store that does not answer must become a verdict ("unavailable"), never a hang. */
const QUERY_TIMEOUT_MS = 5000;
/** Migrations build indexes over tables that a busy deployment has made large. */
const MIGRATION_TIMEOUT_MS = 30 * 60_000;

export function openStore(databaseUrl: string, options: StoreOptions = {}): Store {
  if (databaseUrl.startsWith('sqlite:')) {
    const path = databaseUrl.slice('sqlite:'.length);
    if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
    const sqlite = new SQLite(path);
    sqlite.pragma('journal_mode = WAL');
    // NORMAL is durable across application crashes in WAL mode; only an OS crash may lose the last commit.
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    // Reading pages through a memory map avoids a system call per page (costly on virtualised disks).
    sqlite.pragma('mmap_size = 268435456');
    // A statement that needs a temporary b-tree (a window count, GROUP BY, an ORDER BY no index covers)
    // otherwise opens a temporary file for it: a member's first page with its total took 270 µs, 35 µs in memory.
    // The trade: a statement that sorts or groups many rows without an index holds them in memory while it runs.
    sqlite.pragma('temp_store = MEMORY');
    const statements = withStatementCache(sqlite);
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }), plugins: [new InlineLimitsPlugin()] });
    const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
    const runStatement = statementRunner(sqlite);
    const run: RunCompiled = (query) => runStatement(query.sql, query.parameters);
    registerSynchronousRunner(db, <R>(query: CompiledQuery<R>) => {
      if (sqlite.inTransaction) return undefined;
      const { rows, changes } = run(query);
      return { rows: rows as R[], numAffectedRows: BigInt(changes) };
    });
    const checkpoints =
      options.backgroundCheckpoints && path !== ':memory:'
        ? startCheckpointer(
            path,
            (pages) => {
              if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${pages}`);
            },
            { onFault: options.onCheckpointFault, restartLogFrames: options.restartLogFrames },
          )
        : undefined;
    return {
      db,
      dialect: 'sqlite',
      externalWriteVersion: () => dataVersion.get() as number,
      // better-sqlite3 turns a transaction inside a transaction into a savepoint.
      sqliteTransaction: (work) => sqlite.transaction(() => work(run))(),
      ...(checkpoints ? { checkpoints } : {}),
      close: async () => {
        await checkpoints?.stop();
        await db.destroy();
      },
    };
  }
  const pool = postgresPool(databaseUrl, options.poolSize ?? 10, options.queryTimeoutMs ?? QUERY_TIMEOUT_MS);
  pool.on('connect', (client) => {
    // Queued before any statement of the pool's; a server without the setting (before PostgreSQL 11) has no JIT.
    client.query(WITHOUT_JIT).catch(() => {});
    preparingStatements(client);
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const poolStats = () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount });
  const forMigrations = () => {
    const migrating = new Kysely<Database>({ dialect: new PostgresDialect({ pool: postgresPool(databaseUrl, 1, MIGRATION_TIMEOUT_MS) }) });
    return { db: migrating, close: () => migrating.destroy() };
  };
  return { db, dialect: 'postgres', poolStats, forMigrations, close: () => db.destroy() };
}

/**
 * Set on each serving connection: JIT compilation off. PostgreSQL compiles a query whose estimated cost
 * passes `jit_above_cost`, on every run (a prepared statement keeps no compiled code), and a list whose
 * LIMIT stops a walk the planner cannot bound is estimated far above it: a form of the unanswered comments'
 * page tried while rewriting it took 434 ms, 389 of them compiling, 25 ms without. No serving query runs
 * long enough for compiled code to pay back; migrations keep the server's default for their backfills.
 */
const WITHOUT_JIT = 'set jit = off';

function postgresPool(databaseUrl: string, max: number, queryTimeoutMs: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl, max, connectionTimeoutMillis: 2000, query_timeout: queryTimeoutMs });
  // A client that loses its server must not crash the process, idle (the pool's 'error') or checked out
  // between two statements of a transaction (its own 'error'); the next query reports the fault, and the
  // pool discards a client that can no longer be queried when it is released.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}
