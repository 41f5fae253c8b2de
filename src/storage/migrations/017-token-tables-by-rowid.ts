// SQLite: the token tables become rowid tables with a unique index on the hash (issue 12). Migration 001
// kept their rows in the hash's own b-tree (WITHOUT ROWID) so that an insert writes one b-tree, but the
// hash is random: every new token, and every rotated refresh token (its row grows by the sealed replay),
// lands on its own wide leaf page, and each such page is a WAL frame at the commit and again at the
// checkpoint. In a rowid table the rows are appended in order, a refresh token is rotated soon after it
// was written (on the same few tail pages), and only the narrow hash index takes a random page. Measured
// on the deployed server under the refresh benchmark: 410-422 µs of CPU per rotation against 462-496.
// PostgreSQL's tables were always heaps with an index on the key; nothing changes there.
import type { Kysely } from 'kysely';
import { isSqlite } from '../dialect.js';
import { rebuildSqliteTable } from './sqlite-table-rebuild.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

const TABLES = ['access_tokens', 'refresh_tokens'] as const;

// A rowid table's non-integer primary key admits NULL (an SQLite quirk WITHOUT ROWID does not have), so
// the rebuilt column says NOT NULL itself.
const KEY_IN_WITHOUT_ROWID = '"token_hash" text primary key';
const KEY_IN_ROWID = '"token_hash" text not null primary key';

type Layout = 'rowid' | 'without rowid';

/** The table's CREATE statement for the other layout; throws if the stored text is not ours. */
function createStatement(stored: string, table: string, layout: Layout): string {
  const from = layout === 'rowid' ? KEY_IN_WITHOUT_ROWID : KEY_IN_ROWID;
  const to = layout === 'rowid' ? KEY_IN_ROWID : KEY_IN_WITHOUT_ROWID;
  if (!stored.includes(from)) throw new Error(`${table} is not as migration 001 created it: ${stored}`);
  const body = stored.replace(/\s+without rowid\s*$/i, '').replace(from, to);
  return layout === 'rowid' ? body : `${body} without rowid`;
}

/** Copies the table into the layout, keeping its columns, constraints and indexes, in one unit. */
async function rebuild(db: AnyDb, table: string, layout: Layout): Promise<void> {
  await rebuildSqliteTable(db, table, { create: (stored) => createStatement(stored, table, layout) });
}

export async function up(db: AnyDb): Promise<void> {
  if (!isSqlite(db)) return;
  for (const table of TABLES) await rebuild(db, table, 'rowid');
}

export async function down(db: AnyDb): Promise<void> {
  if (!isSqlite(db)) return;
  for (const table of TABLES) await rebuild(db, table, 'without rowid');
}
