// The operator API's spine (issue 9, CONTRACT 6): audit events name their target and request, replayable
// answers for Idempotency-Key, single-use records of MCP confirmation tokens, and the course lifecycle
// (archived, last change), revoked enrollments (progress kept) and operators' notes on students.
import type { Kysely } from 'kysely';

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

export async function down(db: AnyDb): Promise<void> {
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
