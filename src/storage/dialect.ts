// The few places where SQL differs by dialect ask here, so the rest of the code never does.
import { type Kysely, type RawBuilder, SqliteAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: works on any Kysely instance, including migrations' untyped one
export function isSqlite(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter;
}

/**
 * A group's rows as one JSON object of key to value (SQLite's `json_group_object`, PostgreSQL's
 * `json_object_agg`), so a long series comes back as one row per group rather than one per entry: each
 * row a driver turns into an object costs more than the database's whole scan. Read it with `jsonObject`.
 */
export function jsonObjectOf<V>(
  // biome-ignore lint/suspicious/noExplicitAny: works on any Kysely instance
  db: Kysely<any>,
  key: string,
  value: string,
): RawBuilder<Record<string, V> | string> {
  return isSqlite(db)
    ? sql<string>`json_group_object(${sql.ref(key)}, ${sql.ref(value)})`
    : sql<Record<string, V>>`json_object_agg(${sql.ref(key)}, ${sql.ref(value)})`;
}

/** The object `jsonObjectOf` built: SQLite answers its text, PostgreSQL's driver parses `json` itself. */
export function jsonObject<V>(column: Record<string, V> | string): Record<string, V> {
  return typeof column === 'string' ? (JSON.parse(column) as Record<string, V>) : column;
}

/**
 * Rows whose text column starts with `prefix`, in a form the column's index can serve. SQLite compares
 * text bytewise (BINARY), so the prefix is the range [prefix, prefix with its last character raised): an
 * index search, where its LIKE is a filter over every row of the index's preceding columns (SQLite's LIKE
 * folds ASCII case, which no BINARY index is ordered by). PostgreSQL's order follows the database's
 * collation, under which such a range is not exact, so it keeps LIKE.
 */
export function startsWith(
  // biome-ignore lint/suspicious/noExplicitAny: works on any Kysely instance
  db: Kysely<any>,
  column: string,
  prefix: string,
): RawBuilder<boolean> {
  const last = prefix.charCodeAt(prefix.length - 1);
  if (Number.isNaN(last) || /[%_\\]/.test(prefix)) throw new Error(`startsWith takes a plain, non-empty prefix: ${prefix}`);
  if (!isSqlite(db)) return sql<boolean>`${sql.ref(column)} like ${`${prefix}%`}`;
  const above = prefix.slice(0, -1) + String.fromCharCode(last + 1);
  return sql<boolean>`(${sql.ref(column)} >= ${prefix} and ${sql.ref(column)} < ${above})`;
}
