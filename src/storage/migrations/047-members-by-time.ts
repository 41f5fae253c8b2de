// The members list pages a site's people by when they first got a role here, newest first, and its query
// grouped the site's every role by person for each page (100,000 students: 35-57 ms on SQLite). The first
// index holds the site's roles by time, whatever the role, so a page is a walk from the cursor on. The
// second holds each person's roles here by time: it finds whether a row is its person's first role, and a
// page's members' roles, by key. Without it SQLite, which keeps no statistics here, read those from the
// index by role, every role of the site for each (17 ms for a page's members at 100,000 students), because
// that index holds the time and the primary key does not. Roles are written when a person joins or an
// operator changes them, never on a hot path.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

const INDEXES = [
  ['site_roles_site_created', ['site_id', 'created_at', 'person_id']],
  ['site_roles_site_person_created', ['site_id', 'person_id', 'created_at', 'role']],
] as const;

export async function up(db: AnyDb): Promise<void> {
  for (const [name, columns] of INDEXES)
    await db.schema
      .createIndex(name)
      .ifNotExists()
      .on('site_roles')
      .columns([...columns])
      .execute();
}

export async function down(db: AnyDb): Promise<void> {
  for (const [name] of INDEXES) await db.schema.dropIndex(name).ifExists().execute();
}
