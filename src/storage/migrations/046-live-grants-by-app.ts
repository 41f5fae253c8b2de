// The admin's connections page lists each app holding live grants at a site: how many people, which scopes,
// its first and last grant, three names. It read every live grant of the site three times (100,000 grants:
// 250 ms on SQLite, 200-250 ms on PostgreSQL). These partial indexes hold only live grants, by app: the
// apps, each app's first and last grant and its first people are seeks, and an app's people and scopes are
// read from its own entries. A grant is written when a code is exchanged and when it is revoked, never by a
// refresh rotation, so the hot write path is unchanged.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

const INDEXES = [
  ['grants_live_people', ['site_id', 'client_id', 'person_id']],
  ['grants_live_scopes', ['site_id', 'client_id', 'scope']],
  ['grants_live_times', ['site_id', 'client_id', 'created_at']],
] as const;

export async function up(db: AnyDb): Promise<void> {
  for (const [name, columns] of INDEXES)
    await db.schema
      .createIndex(name)
      .ifNotExists()
      .on('grants')
      .columns([...columns])
      .where(sql.ref('revoked_at'), 'is', null)
      .execute();
}

export async function down(db: AnyDb): Promise<void> {
  for (const [name] of INDEXES) await db.schema.dropIndex(name).ifExists().execute();
}
