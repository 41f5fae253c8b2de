// Refresh rotations on PostgreSQL, sent together (issue 12). Each rotation is one statement
// (tokens.repository.ts, ROTATE_MANY), and what a statement costs whatever it writes (its round trip,
// node-postgres's work, PostgreSQL's executor start and commit) was most of a rotation's cost; so the
// rotations that arrive in one turn of the event loop travel as one statement, one round trip and one
// commit for all, each still its own compare-and-swap with its own outcome (server CPU per rotation 362 ->
// 174 µs, bench/RESULTS.md). Batches do not wait for each other: the pool runs them side by side. If a
// batch fails as a whole because of what one of its rotations holds (a unique clash, a deadlock with a
// revocation), nothing of it was written, and its rotations are tried again one by one, so one cannot fail
// the others; a failure of the store itself (no connection, a timeout) fails them all at once.
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';
import { type PostgresRotation, type RotationOutcome, rotateManyOnPostgres } from './tokens.repository.js';

/** Rotations per statement: a bound on the statement's size and on how long its locks are held. */
export const ROTATIONS_PER_STATEMENT = 64;

/**
 * PostgreSQL's error classes a rotation's own rows can cause (22 data exception, 23 integrity constraint,
 * 40 transaction rollback: serialization failure, deadlock); connection failures and timeouts are not.
 */
const FAILS_FOR_ITS_ROWS = /^(22|23|40)[0-9A-Z]{3}$/;

function failedForItsRows(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && FAILS_FOR_ITS_ROWS.test(code);
}

interface Pending {
  rotation: PostgresRotation;
  resolve: (outcome: RotationOutcome) => void;
  reject: (error: unknown) => void;
}

export class PostgresRotations {
  private queue: Pending[] = [];
  private scheduled = false;
  /**
   * As storage/group-commit.ts counts (one metric for both): `transactions` are statements (each its own
   * transaction), `units` rotations, `reruns` statements that failed as a whole and were sent one by one.
   */
  readonly stats = { transactions: 0, units: 0, reruns: 0 };

  constructor(private readonly db: Kysely<Database>) {}

  /** Rotates as rotateManyOnPostgres does, beside the rotations of this turn; answers after their commit. */
  rotate(rotation: PostgresRotation): Promise<RotationOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ rotation, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // After the I/O callbacks of this turn, so the requests that arrived together join one statement.
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    while (this.queue.length > 0) void this.send(this.queue.splice(0, ROTATIONS_PER_STATEMENT));
  }

  private async send(batch: Pending[]): Promise<void> {
    this.stats.transactions += 1;
    this.stats.units += batch.length;
    try {
      const outcomes = await rotateManyOnPostgres(
        this.db,
        batch.map((pending) => pending.rotation),
      );
      for (const [i, pending] of batch.entries()) pending.resolve(outcomes[i] ?? 'lost');
    } catch (error) {
      if (batch.length === 1 || !failedForItsRows(error)) {
        for (const pending of batch) pending.reject(error);
        return;
      }
      this.stats.reruns += 1;
      await Promise.all(batch.map((pending) => this.send([pending])));
    }
  }
}
