// Group commit (issue 12). On SQLite a write transaction's commit costs more than its writes (a WAL write
// per commit: about 100 µs of a rotation's 157 µs here, measured with better-sqlite3 alone), so refresh
// rotations that arrive together share one transaction: while one batch waits for the connection or
// commits, the next gathers. A batch runs synchronously on the connection (holding Kysely's connection,
// so no other statement can slip into it). A unit that throws leaves no write behind and the others still
// commit: the batch first runs as one plain transaction, and only if a unit throws is it rolled back and
// run again with each unit under its own savepoint (a savepoint per unit on every batch cost 3-5% of a
// rotation, and units rarely throw). No caller hears its result before the commit that holds it, so a
// crash loses only rotations nobody was answered for. Units are written once as a sequence of compiled
// statements (a generator), run synchronously on SQLite and awaited on PostgreSQL, where each unit is its
// own transaction (its connections commit concurrently).
import type { CompiledQuery, Kysely, Transaction } from 'kysely';
import type { RunCompiled, Store } from './connect.js';
import type { Database } from './schema.js';

/** What a statement of a unit answers: its rows, or how many rows it changed. */
export interface StepResult {
  rows: unknown[];
  changes: number;
}

/**
 * A unit of work: yields compiled statements (built against the executor it is given) and receives each
 * one's result; returns its outcome or throws to undo its own writes. A unit may be run a second time
 * (after a unit beside it threw), so it must have no effect beyond the statements it yields.
 */
export type Unit<T> = (db: Kysely<Database> | Transaction<Database>) => Generator<CompiledQuery, T, StepResult>;

/** Units per transaction: a bound on how long one commit keeps the others waiting. */
export const GROUP_COMMIT_MAX = 64;

interface Pending {
  unit: Unit<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Thrown out of the plain transaction when a unit threw there, told apart from a failed commit. */
const UNIT_THREW = new Error('a unit of the batch threw; the batch runs again unit by unit');

function runSync<T>(steps: Generator<CompiledQuery, T, StepResult>, run: RunCompiled): T {
  let step = steps.next();
  while (!step.done) step = steps.next(run(step.value));
  return step.value;
}

async function runAsync<T>(steps: Generator<CompiledQuery, T, StepResult>, trx: Transaction<Database>): Promise<T> {
  let step = steps.next();
  while (!step.done) {
    const result = await trx.executeQuery(step.value);
    step = steps.next({ rows: result.rows, changes: Number(result.numAffectedRows ?? 0n) });
  }
  return step.value;
}

export class GroupCommit {
  private queue: Pending[] = [];
  private scheduled = false;
  /**
   * Transactions and units so far (SQLite): units per transaction is the batching achieved; `reruns`
   * counts batches run again unit by unit because a unit threw.
   */
  readonly stats = { transactions: 0, units: 0, reruns: 0 };

  constructor(private readonly store: Pick<Store, 'db' | 'sqliteTransaction' | 'checkpoints'>) {}

  /** Runs `unit` in a transaction (shared with the units beside it on SQLite); answers after the commit. */
  run<T>(unit: Unit<T>): Promise<T> {
    const { sqliteTransaction } = this.store;
    if (!sqliteTransaction) return this.store.db.transaction().execute((trx) => runAsync(unit(trx), trx));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ unit: unit as Unit<unknown>, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // After the I/O callbacks of this turn, so the requests that arrived together join one batch.
        setImmediate(() => void this.flush(sqliteTransaction));
      }
    });
  }

  /**
   * One batch, committed: as one plain transaction, or, when a unit throws there (its throw rolls the whole
   * transaction back), once more with each unit under a savepoint, so that a throw undoes that unit alone.
   * Throws only when the commit itself fails.
   */
  private runTogether(batch: Pending[], sqliteTransaction: NonNullable<Store['sqliteTransaction']>): Outcome[] {
    const db = this.store.db;
    try {
      return sqliteTransaction((run) =>
        batch.map((pending): Outcome => {
          try {
            return { ok: true, value: runSync(pending.unit(db), run) };
          } catch {
            throw UNIT_THREW;
          }
        }),
      );
    } catch (error) {
      if (error !== UNIT_THREW) throw error;
    }
    this.stats.reruns += 1;
    const outcomes: Outcome[] = [];
    sqliteTransaction(() => {
      for (const pending of batch) {
        try {
          // A transaction inside a transaction is a savepoint: a throw undoes this unit alone.
          outcomes.push({ ok: true, value: sqliteTransaction((inner) => runSync(pending.unit(db), inner)) });
        } catch (error) {
          outcomes.push({ ok: false, error });
        }
      }
    });
    return outcomes;
  }

  private async flush(sqliteTransaction: NonNullable<Store['sqliteTransaction']>): Promise<void> {
    try {
      // The checkpoint worker may be restarting the log (storage/sqlite-checkpointer.ts): the batch gathers meanwhile.
      const paused = this.store.checkpoints?.writesPaused();
      if (paused) await paused;
      // Holding Kysely's one connection keeps every other statement out of the batch's transaction.
      await this.store.db.connection().execute(async () => {
        while (this.queue.length > 0) {
          const batch = this.queue.splice(0, GROUP_COMMIT_MAX);
          this.stats.transactions += 1;
          this.stats.units += batch.length;
          let outcomes: Outcome[];
          try {
            outcomes = this.runTogether(batch, sqliteTransaction);
          } catch (error) {
            for (const pending of batch) pending.reject(error);
            continue;
          }
          batch.forEach((pending, i) => {
            const outcome = outcomes[i];
            if (outcome?.ok) pending.resolve(outcome.value);
            else pending.reject(outcome ? outcome.error : new Error('group commit lost a unit'));
          });
        }
      });
    } catch (error) {
      for (const pending of this.queue.splice(0)) pending.reject(error);
    } finally {
      this.scheduled = false;
      if (this.queue.length > 0) {
        this.scheduled = true;
        setImmediate(() => void this.flush(sqliteTransaction));
      }
    }
  }
}
