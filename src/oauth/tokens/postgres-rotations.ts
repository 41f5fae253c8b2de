// Refresh rotations on PostgreSQL, sent together (issue 12). Each rotation is already one statement
// (tokens.repository.ts, ROTATE_MANY); under load PostgreSQL's share of the box's CPU went mostly to what
// every statement costs whatever it writes (its protocol messages, executor start, snapshot and commit),
// and the server's to node-postgres's per-query work. So the rotations that arrive in one turn of the event
// loop travel as one statement: one round trip and one commit for all of them, each still its own
// compare-and-swap with its own outcome. Batches do not wait for each other (the pool runs them side by
// side). If a batch fails as a whole (a deadlock with a revocation, say), nothing of it was written, and
// its rotations are tried again one by one, so one cannot fail the others.
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';
import { type PostgresRotation, type RotationOutcome, rotateManyOnPostgres } from './tokens.repository.js';

/** Rotations per statement: a bound on the statement's size and on how long its locks are held. */
export const ROTATIONS_PER_STATEMENT = 64;

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

  /** Rotates as rotateOnPostgres does; answers after the commit of the statement that holds it. */
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
      if (batch.length === 1) {
        batch[0]?.reject(error);
        return;
      }
      this.stats.reruns += 1;
      await Promise.all(batch.map((pending) => this.send([pending])));
    }
  }
}
