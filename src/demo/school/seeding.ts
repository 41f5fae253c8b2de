// Helpers of the demo seed: a seedable generator (the same seed gives the same history) and batched inserts.
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';

/** mulberry32: a small, fast, seedable generator; the same seed gives the same history. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export async function insertAll<T extends keyof Database & string>(
  db: Kysely<Database>,
  table: T,
  rows: readonly Record<string, unknown>[],
): Promise<void> {
  // Small batches: PostgreSQL allows 65,535 parameters per statement, SQLite 32,766. The rows are built for
  // this table's columns by each caller; the generic table name leaves Kysely no row type to check them by.
  for (let i = 0; i < rows.length; i += 400) {
    await db
      .insertInto(table)
      .values(rows.slice(i, i + 400) as never)
      .execute();
  }
}
