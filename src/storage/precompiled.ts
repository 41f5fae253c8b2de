// Hot-path queries compiled once. Kysely builds and compiles a query on every call, which costs more
// than running our indexed lookups; a precompiled query keeps the type-checked builder and only
// substitutes the parameter values. Each named parameter is compiled from a unique sentinel value, so
// its positions in the SQL are found exactly, whatever the dialect's placeholder syntax. The compiled
// form is kept per dialect adapter, which a transaction shares with its database.
import type { Compilable, CompiledQuery, DialectAdapter, Kysely, QueryResult, Transaction } from 'kysely';
import type { Database } from './schema.js';
import { SENTINEL_PREFIX } from './inline-limits.js';
import { withoutPlanMarker } from './planned-with-values.js';
import { synchronousRunnerOf } from './synchronous-statements.js';

type Executor = Kysely<Database> | Transaction<Database>;
type Params<P extends string> = Record<P, string | number | null>;
/**
 * A parameter inside `build`: a sentinel that stands for a value of whatever type its column needs.
 * Typed `never` because `never` is assignable to every column type.
 */
export type Placeholder = never;

export interface PrecompiledQuery<P extends string, R> {
  /** All rows for these parameter values. */
  rows(db: Executor, params: Params<P>): Promise<R[]>;
  /** The first row, or undefined. */
  first(db: Executor, params: Params<P>): Promise<R | undefined>;
  /** Rows changed by an update or delete. */
  changed(db: Executor, params: Params<P>): Promise<number>;
  /** The compiled query with these values, for a caller that runs it itself (storage/group-commit.ts). */
  bind(db: Executor, params: Params<P>): CompiledQuery<R>;
}

type Slot<P extends string> = { name: P } | { constant: unknown };

interface Compiled<P extends string, R> {
  query: CompiledQuery<R>;
  positions: Slot<P>[];
}

/** One query's compiled forms on one dialect adapter. */
interface Forms<P extends string, R> {
  /** The form with every parameter bound; the only one unless some are written into the SQL. */
  bound: Compiled<P, R>;
  /** Parameters the dialect writes into the SQL text (storage/inline-limits.ts): a form per value. */
  written: P[];
  /** Keyed by the value itself when one parameter is written (the usual LIMIT), else by all of them as JSON. */
  byValue: Map<unknown, Compiled<P, R>>;
}

/** Forms kept per query for parameters written into the SQL (page sizes, in practice); more are compiled per call. */
export const WRITTEN_FORMS_KEPT = 128;

export function defineQuery<P extends string, R>(
  names: readonly P[],
  build: (db: Executor, params: Record<P, Placeholder>) => Compilable<R>,
): PrecompiledQuery<P, R> {
  const sentinels = Object.fromEntries(names.map((n) => [n, `${SENTINEL_PREFIX}${n}\u0000`])) as Record<P, string>;
  const compile = (db: Executor, values: Record<P, unknown>): Compiled<P, R> => {
    const built = build(db, values as Record<P, Placeholder>).compile();
    // Compiled once for every caller of the adapter: a caller planning its own reads with their values
    // must not make every later caller's lookup unprepared.
    const query = { ...built, sql: withoutPlanMarker(built.sql) };
    // A parameter that is no sentinel is a constant of the query itself (a literal null, say).
    const positions = query.parameters.map((value): Slot<P> => {
      const name = names.find((n) => sentinels[n] === value);
      return name === undefined ? { constant: value } : { name };
    });
    return { query, positions };
  };
  const byAdapter = new WeakMap<DialectAdapter, Forms<P, R>>();
  const compiledFor = (db: Executor, params: Params<P>): Compiled<P, R> => {
    const adapter = db.getExecutor().adapter;
    let forms = byAdapter.get(adapter);
    if (!forms) {
      const bound = compile(db, sentinels);
      // A bound parameter leaves only a placeholder in the SQL; a sentinel in the text was written into it.
      const written = names.filter((n) => bound.query.sql.includes(sentinels[n]));
      forms = { bound, written, byValue: new Map() };
      byAdapter.set(adapter, forms);
    }
    if (forms.written.length === 0) return forms.bound;
    const [only, ...more] = forms.written as [P, ...P[]];
    const key = more.length === 0 ? params[only] : JSON.stringify(forms.written.map((n) => params[n]));
    let form = forms.byValue.get(key);
    if (!form) {
      const values: Record<P, unknown> = { ...sentinels };
      for (const n of forms.written) values[n] = params[n];
      form = compile(db, values);
      if (forms.byValue.size < WRITTEN_FORMS_KEPT) forms.byValue.set(key, form);
    }
    return form;
  };
  const bind = (db: Executor, params: Params<P>): CompiledQuery<R> => {
    const { query, positions } = compiledFor(db, params);
    return { ...query, parameters: positions.map((slot) => ('name' in slot ? params[slot.name] : slot.constant)) };
  };
  const execute = (db: Executor, params: Params<P>): QueryResult<R> | Promise<QueryResult<R>> => {
    const query = bind(db, params);
    return synchronousRunnerOf(db)?.(query) ?? db.executeQuery<R>(query);
  };
  return {
    rows: async (db, params) => (await execute(db, params)).rows,
    first: async (db, params) => (await execute(db, params)).rows[0],
    changed: async (db, params) => Number((await execute(db, params)).numAffectedRows ?? 0n),
    bind,
  };
}

/** Lists longer than this are built per call rather than kept compiled (a bound on the forms kept). */
export const LIST_FORMS_KEPT = 100;

export interface PrecompiledListQuery<P extends string, R> {
  /** All rows for these parameter values and this list (`in (…)`); an empty list answers no rows. */
  rows(db: Executor, params: Params<P>, list: readonly string[]): Promise<R[]>;
}

/**
 * A query with an `in (…)` list, compiled once per list length (the SQL differs only in the number of
 * placeholders). `build` gets the list as placeholders to pass to `in`.
 */
export function defineListQuery<P extends string, R>(
  names: readonly P[],
  build: (db: Executor, params: Record<P, Placeholder>, list: Placeholder[]) => Compilable<R>,
): PrecompiledListQuery<P, R> {
  const forms = new Map<number, PrecompiledQuery<string, R>>();
  const formFor = (length: number): PrecompiledQuery<string, R> => {
    let form = forms.get(length);
    if (!form) {
      const itemNames = Array.from({ length }, (_, i) => `item${i}`);
      form = defineQuery<string, R>([...names, ...itemNames], (db, params) =>
        build(
          db,
          params as Record<P, Placeholder>,
          itemNames.map((n) => params[n] as Placeholder),
        ),
      );
      forms.set(length, form);
    }
    return form;
  };
  return {
    async rows(db, params, list) {
      if (list.length === 0) return [];
      if (list.length > LIST_FORMS_KEPT) {
        const literal = Object.fromEntries(Object.entries(params)) as Record<P, Placeholder>;
        return (await db.executeQuery(build(db, literal, [...list] as Placeholder[]).compile())).rows;
      }
      const all: Record<string, string | number | null> = { ...params };
      list.forEach((item, i) => {
        all[`item${i}`] = item;
      });
      return formFor(list.length).rows(db, all);
    },
  };
}
