// The few places where SQL differs by dialect ask here, so the rest of the code never does.
import { type Kysely, SqliteAdapter } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: works on any Kysely instance, including migrations' untyped one
export function isSqlite(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter;
}
