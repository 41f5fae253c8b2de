// The statements a piece of code sends through a database handle, for tests that check what runs (how many
// searches, which probes), not only what comes back.
import type { CompiledQuery, Kysely, KyselyPlugin } from 'kysely';
import type { Database } from '../../src/storage/schema.js';

/**
 * A handle on `db` that records each statement it executes, compiled with its parameters, in the order they
 * ran. A subquery built on the handle is compiled on its own as well, but only the statements executed are
 * recorded (with their subqueries inside).
 */
export function recordingStatements(db: Kysely<Database>): { db: Kysely<Database>; executed: CompiledQuery[] } {
  const compiled = new Map<unknown, CompiledQuery>();
  const executed: CompiledQuery[] = [];
  const plugin: KyselyPlugin = {
    transformQuery(args) {
      compiled.set(args.queryId, db.getExecutor().compileQuery(args.node, args.queryId));
      return args.node;
    },
    async transformResult(args) {
      const query = compiled.get(args.queryId);
      if (query) executed.push(query);
      return args.result;
    },
  };
  return { db: db.withPlugin(plugin), executed };
}
