// Indexes on expiry, so the janitor finds what it may delete without scanning the tables (issue 8).
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

const INDEXES: ReadonlyArray<readonly [string, string, string]> = [
  ['authorization_codes_expires', 'authorization_codes', 'expires_at'],
  ['access_tokens_expires', 'access_tokens', 'expires_at'],
  ['refresh_tokens_expires', 'refresh_tokens', 'expires_at'],
  ['sessions_expires', 'sessions', 'expires_at'],
  ['sign_in_throttle_updated', 'sign_in_throttle', 'updated_at'],
];

export async function up(db: AnyDb): Promise<void> {
  for (const [name, table, column] of INDEXES) await db.schema.createIndex(name).on(table).column(column).execute();
}

export async function down(db: AnyDb): Promise<void> {
  for (const [name] of INDEXES) await db.schema.dropIndex(name).execute();
}
