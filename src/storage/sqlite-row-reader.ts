// Rows of the hot statements, read as arrays and turned into objects by a constructor made for each
// statement. better-sqlite3 builds each row object by adding its columns one at a time, which makes V8
// change the object's shape per column; that was half the cost of a member's page of enrolments (30 µs
// against 20 µs for the same rows read as arrays and built by an object literal of the statement's columns).
import type SQLite from 'better-sqlite3';

export type RowReader = (parameters: readonly unknown[]) => unknown[];

/** Statements kept; past it the cache starts over (texts with `in (?, ?, …)` vary in length). */
const READERS_MAX = 512;

function rowBuilder(columns: readonly string[]): ((row: unknown[]) => unknown) | undefined {
  // A column named __proto__ would set the prototype in an object literal; such a statement keeps object rows.
  if (columns.includes('__proto__')) return undefined;
  const fields = columns.map((name, i) => `${JSON.stringify(name)}: row[${i}]`).join(', ');
  // The names are the statement's own column names (our SQL), written as JSON string literals.
  return new Function('row', `return { ${fields} };`) as (row: unknown[]) => unknown;
}

/** A reader per text of a statement that returns rows: the same objects as `statement.all`, faster. */
export function rowReaders(sqlite: SQLite.Database): (sql: string) => RowReader {
  const readers = new Map<string, RowReader>();
  return (sql) => {
    let reader = readers.get(sql);
    if (!reader) {
      if (readers.size >= READERS_MAX) readers.clear();
      const statement = sqlite.prepare(sql);
      const build = rowBuilder(statement.columns().map((c) => c.name));
      if (build) {
        statement.raw(true);
        reader = (parameters) => (statement.all(parameters) as unknown[][]).map(build);
      } else {
        reader = (parameters) => statement.all(parameters);
      }
      readers.set(sql, reader);
    }
    return reader;
  };
}
