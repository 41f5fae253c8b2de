// Tokens are no longer found by their grant (issue 12). Each token table kept an index by grant, and each
// refresh grant's rotation appended to its grant's run in both: about 20 µs of the 75-94 µs a rotation
// spends inside its SQLite transaction (bench/RESULTS.md, thirty-second and thirty-third sessions). The
// indexes served revocation (which wrote every token of the grant), the foreign keys' cascade when a grant
// was deleted, and the janitor's "no token left" check. Now a token is judged by its grant when it is
// looked up (the lookups in oauth/tokens/tokens.repository.ts join the grant), so revoking a grant writes
// the grant alone; and the janitor deletes a grant when the refresh token at the head of its family
// expires, which it finds by expiry. The references from the tokens to the grants go, since a deleted
// grant would otherwise have its tokens searched for without an index; a token whose grant is gone is
// refused.
import { type Kysely, sql } from 'kysely';
import { isSqlite } from '../dialect.js';
import { rebuildSqliteTable } from './sqlite-table-rebuild.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

const TABLES = ['access_tokens', 'refresh_tokens'] as const;

// The column as migration 001 declared it, and as SQLite keeps its text.
const REFERENCING = '"grant_id" text not null references "grants" ("id") on delete cascade';
const PLAIN = '"grant_id" text not null';

/** The stored CREATE statement with the grant column's declaration swapped; throws if it is not ours. */
function replaced(stored: string, table: string, from: string, to: string): string {
  if (!stored.includes(from)) throw new Error(`${table} is not as migration 001 created it: ${stored}`);
  return stored.replace(from, to);
}

export async function up(db: AnyDb): Promise<void> {
  for (const table of TABLES) {
    if (isSqlite(db)) {
      await rebuildSqliteTable(db, table, {
        create: (stored) => replaced(stored, table, REFERENCING, PLAIN),
        keepIndex: (name) => name !== `${table}_grant`,
      });
    } else {
      await sql.raw(`alter table ${table} drop constraint if exists ${table}_grant_id_fkey`).execute(db);
      await db.schema.dropIndex(`${table}_grant`).ifExists().execute();
    }
  }
}

export async function down(db: AnyDb): Promise<void> {
  for (const table of TABLES) {
    // Tokens whose grant was deleted since would break the reference; nobody could use them anyway.
    await sql.raw(`delete from ${table} where grant_id not in (select id from grants)`).execute(db);
    if (isSqlite(db)) {
      await rebuildSqliteTable(db, table, { create: (stored) => replaced(stored, table, PLAIN, REFERENCING) });
    } else {
      await sql
        .raw(`alter table ${table} add constraint ${table}_grant_id_fkey foreign key (grant_id) references grants (id) on delete cascade`)
        .execute(db);
    }
    await db.schema.createIndex(`${table}_grant`).ifNotExists().on(table).columns(['grant_id']).execute();
  }
}
