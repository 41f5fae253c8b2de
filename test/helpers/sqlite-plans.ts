// SQLite's query plans of what a repository function actually sends, for tests that check an index is
// used: the queries are captured as they run and explained afterwards with their own parameters.
import { CompiledQuery, type Kysely, type KyselyPlugin } from 'kysely';
import type { Database } from '../../src/storage/schema.js';

/**
 * SQLite's plans (EXPLAIN QUERY PLAN, steps joined by " | ") of the queries that `run` sends through the
 * database it is given and whose SQL contains `marker`, in the order they ran. A subquery built on that
 * database is captured on its own as well.
 */
export async function plansOf(db: Kysely<Database>, marker: string, run: (db: Kysely<Database>) => Promise<unknown>): Promise<string[]> {
  const plans: string[] = [];
  for (const q of await queriesOf(db, marker, run)) {
    const explained = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${q.sql}`, [...q.parameters]));
    plans.push(explained.rows.map((r) => r.detail).join(' | '));
  }
  return plans;
}

/** The queries that `run` sends through the database it is given and whose SQL contains `marker`, as they ran. */
export async function queriesOf(
  db: Kysely<Database>,
  marker: string,
  run: (db: Kysely<Database>) => Promise<unknown>,
): Promise<CompiledQuery[]> {
  const queries: CompiledQuery[] = [];
  const plugin: KyselyPlugin = {
    transformQuery(args) {
      queries.push(db.getExecutor().compileQuery(args.node, args.queryId));
      return args.node;
    },
    async transformResult(args) {
      return args.result;
    },
  };
  await run(db.withPlugin(plugin));
  return queries.filter((q) => q.sql.includes(marker));
}
