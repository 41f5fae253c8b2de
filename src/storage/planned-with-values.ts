// Statements PostgreSQL plans with the values of each call. The store prepares every statement under a
// name (storage/connect.ts), and after five runs of a named statement PostgreSQL may keep a generic plan,
// made without the values, when it guesses that plan no dearer. For an operator list whose best plan
// depends on the values that guess can be ruinous: with the generic plans forced (plan_cache_mode), a
// page of the 15 students inactive for a year took 116 ms instead of 1.5 ms, walking all 100,000 students,
// and the refunded orders 539 ms instead of 0.8 ms (bench/RESULTS.md, seventeenth session; left to
// choose, PostgreSQL kept planning these with their values in every run there). Such statements carry a
// marker, and the store sends a marked text unnamed: PostgreSQL plans an unnamed statement with its values
// every time, at a planning cost that an operator's request can afford and a hot path cannot (in
// bench:operator on PostgreSQL, the rarest students filter went from 3,381 to 1,229-1,369 req/s, p99 5 →
// 12-14 ms; most paths lost 5-10%).
import {
  type Kysely,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  RawNode,
  type RootOperationNode,
  SelectModifierNode,
  SelectQueryNode,
  type UnknownRow,
} from 'kysely';
import { isSqlite } from './dialect.js';
import type { Database } from './schema.js';

/** Ends the text of a statement to be planned with its values (a comment: the statement itself is unchanged). */
export const PLANNED_WITH_VALUES = ' /* planned with its values */';

/** Whether a statement's text asks to be planned with its values. */
export function plannedWithValues(text: string): boolean {
  return text.endsWith(PLANNED_WITH_VALUES);
}

/** The text without the marker: for statements compiled once and shared by every caller (storage/precompiled.ts). */
export function withoutPlanMarker(text: string): string {
  return plannedWithValues(text) ? text.slice(0, -PLANNED_WITH_VALUES.length) : text;
}

// Kysely hands a plugin every query built from its database, subqueries too, so a subquery carries the
// marker as well; a comment inside a statement changes nothing, and only the statement's end is read.
class PlannedWithValuesPlugin implements KyselyPlugin {
  transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
    // The marker goes last; the compiler puts a select's end modifiers after its LIMIT and OFFSET.
    if (SelectQueryNode.is(node))
      return {
        ...node,
        endModifiers: [
          ...(node.endModifiers ?? []),
          SelectModifierNode.createWithExpression(RawNode.createWithSql(PLANNED_WITH_VALUES.trim())),
        ],
      };
    if (RawNode.is(node)) {
      const fragments = [...node.sqlFragments];
      fragments[fragments.length - 1] = `${fragments.at(-1) ?? ''}${PLANNED_WITH_VALUES}`;
      return RawNode.create(fragments, node.parameters);
    }
    return node;
  }

  async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return result;
  }
}

const PLUGIN = new PlannedWithValuesPlugin();
const planned = new WeakMap<Kysely<Database>, Kysely<Database>>();

/**
 * The database whose statements PostgreSQL plans with their values. SQLite keeps no plan made without
 * values (and the operator repositories fix its join orders themselves), so it gets the database unchanged.
 */
export function planningWithValues(db: Kysely<Database>): Kysely<Database> {
  if (isSqlite(db)) return db;
  let marked = planned.get(db);
  if (marked === undefined) {
    marked = db.withPlugin(PLUGIN);
    planned.set(db, marked);
  }
  return marked;
}
