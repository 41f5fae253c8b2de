// The operator API's spine (issue 9, CONTRACT 6): audit events name their target and request, replayable
// answers for Idempotency-Key, single-use records of MCP confirmation tokens, and the course lifecycle
// (archived, last change), revoked enrollments (progress kept) and operators' notes on students.
import { type Kysely, sql } from 'kysely';
import { isSqlite } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable('audit_events').addColumn('target', 'text').execute();
  await db.schema.alterTable('audit_events').addColumn('request_id', 'text').execute();
  // GET /audit_events pages newest first by id, optionally for one action or actor.
  await db.schema.createIndex('audit_events_site_id').on('audit_events').columns(['site_id', 'id']).execute();
  await db.schema.createIndex('audit_events_site_kind').on('audit_events').columns(['site_id', 'kind', 'id']).execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    /** SHA-256 of method, path and body: the same key with another request is refused. */
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    /** Null while the first request runs. */
    .addColumn('status', 'integer')
    .addColumn('body', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['site_id', 'client_id', 'idempotency_key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_expires').on('idempotency_keys').column('expires_at').execute();

  await db.schema
    .createTable('confirmation_uses')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('confirmation_uses_expires').on('confirmation_uses').column('expires_at').execute();

  await db.schema.alterTable('courses').addColumn('archived_at', 'bigint').execute();
  await db.schema.alterTable('courses').addColumn('updated_at', 'bigint').execute();

  await db.schema.alterTable('enrollments').addColumn('revoked_at', 'bigint').execute();
  // The students list pages a site's people of one role, newest first, and counts them.
  await db.schema
    .createIndex('site_roles_site_role_created')
    .on('site_roles')
    .columns(['site_id', 'role', 'created_at', 'person_id'])
    .execute();
  await countRoles(db);
  // Course rosters and the at-risk and inactivity filters read enrollments by site and course or activity.
  await db.schema.createIndex('enrollments_site_course').on('enrollments').columns(['site_id', 'course_id', 'started_at']).execute();
  await db.schema.createIndex('enrollments_site_activity').on('enrollments').columns(['site_id', 'last_activity_at']).execute();

  await db.schema
    .createTable('student_notes')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('person_id', 'text', (c) => c.notNull().references('people.id').onDelete('cascade'))
    .addColumn('note', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('student_notes_pk', ['site_id', 'person_id'])
    .execute();

  // A suspended person keeps their roles but cannot sign in here, and their tokens here stop working.
  await db.schema
    .createTable('site_suspensions')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('person_id', 'text', (c) => c.notNull().references('people.id').onDelete('cascade'))
    .addColumn('suspended_at', 'bigint', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('site_suspensions_pk', ['site_id', 'person_id'])
    .execute();

  // Lecturer profiles (optionally a person with an account) and who teaches which course, in order.
  await db.schema
    .createTable('lecturers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('person_id', 'text', (c) => c.references('people.id').onDelete('set null'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('headline', 'text', (c) => c.notNull())
    .addColumn('bio', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint')
    .execute();
  await db.schema.createIndex('lecturers_site').on('lecturers').columns(['site_id', 'created_at']).execute();
  await db.schema
    .createTable('course_lecturers')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('course_id', 'text', (c) => c.notNull().references('courses.id').onDelete('cascade'))
    .addColumn('lecturer_id', 'text', (c) => c.notNull().references('lecturers.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('course_lecturers_pk', ['course_id', 'lecturer_id'])
    .execute();
  await db.schema.createIndex('course_lecturers_lecturer').on('course_lecturers').columns(['lecturer_id']).execute();

  // School settings beside the site row (whose name they share): locale, time zone, currency, contact.
  await db.schema
    .createTable('site_settings')
    .addColumn('site_id', 'text', (c) => c.primaryKey().references('sites.id').onDelete('cascade'))
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('time_zone', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('contact_email', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

/**
 * How many people hold each role at each site, kept by triggers so every writer (the domain, the CLI, the
 * demo seed, a bulk import) keeps it in step: a list's total of 100,000 students is one row, not a scan.
 */
async function countRoles(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('site_role_counts')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('site_role_counts_pk', ['site_id', 'role'])
    .execute();
  await sql`insert into site_role_counts (site_id, role, n) select site_id, role, count(*) from site_roles group by site_id, role`.execute(
    db,
  );
  if (isSqlite(db)) {
    await sql`create trigger site_roles_counted_insert after insert on site_roles begin
      insert into site_role_counts (site_id, role, n) values (new.site_id, new.role, 1)
        on conflict (site_id, role) do update set n = n + 1;
    end`.execute(db);
    await sql`create trigger site_roles_counted_delete after delete on site_roles begin
      update site_role_counts set n = n - 1 where site_id = old.site_id and role = old.role;
    end`.execute(db);
    await sql`create trigger site_roles_counted_update after update of site_id, role on site_roles begin
      update site_role_counts set n = n - 1 where site_id = old.site_id and role = old.role;
      insert into site_role_counts (site_id, role, n) values (new.site_id, new.role, 1)
        on conflict (site_id, role) do update set n = n + 1;
    end`.execute(db);
    return;
  }
  await sql`create function site_roles_count() returns trigger language plpgsql as $$
    begin
      if tg_op in ('DELETE', 'UPDATE') then
        update site_role_counts set n = n - 1 where site_id = old.site_id and role = old.role;
      end if;
      if tg_op in ('INSERT', 'UPDATE') then
        insert into site_role_counts (site_id, role, n) values (new.site_id, new.role, 1)
          on conflict (site_id, role) do update set n = site_role_counts.n + 1;
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger site_roles_counted after insert or update or delete on site_roles
    for each row execute function site_roles_count()`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  if (isSqlite(db)) {
    for (const t of ['insert', 'delete', 'update']) await sql.raw(`drop trigger if exists site_roles_counted_${t}`).execute(db);
  } else {
    await sql`drop trigger if exists site_roles_counted on site_roles`.execute(db);
    await sql`drop function if exists site_roles_count()`.execute(db);
  }
  await db.schema.dropTable('site_role_counts').execute();
  await db.schema.dropTable('site_settings').execute();
  await db.schema.dropTable('course_lecturers').execute();
  await db.schema.dropTable('lecturers').execute();
  await db.schema.dropTable('site_suspensions').execute();
  await db.schema.dropTable('student_notes').execute();
  await db.schema.dropIndex('enrollments_site_activity').execute();
  await db.schema.dropIndex('enrollments_site_course').execute();
  await db.schema.alterTable('enrollments').dropColumn('revoked_at').execute();
  await db.schema.dropIndex('site_roles_site_role_created').execute();
  await db.schema.alterTable('courses').dropColumn('updated_at').execute();
  await db.schema.alterTable('courses').dropColumn('archived_at').execute();
  await db.schema.dropTable('confirmation_uses').execute();
  await db.schema.dropTable('idempotency_keys').execute();
  await db.schema.dropIndex('audit_events_site_kind').execute();
  await db.schema.dropIndex('audit_events_site_id').execute();
  await db.schema.alterTable('audit_events').dropColumn('request_id').execute();
  await db.schema.alterTable('audit_events').dropColumn('target').execute();
}
