// The school domain's tables (SPEC 1, 2.1, 2.2). Kysely's schema builder only, so both dialects share it.
import { type Kysely, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

const site = 'sites.id';
const person = 'people.id';

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('courses')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references(site).onDelete('cascade'))
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('subtitle', 'text')
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('cover_image_url', 'text')
    .addColumn('price_cents', 'integer', (c) => c.notNull().check(sql`price_cents >= 0`))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('published', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('courses_site_slug', ['site_id', 'slug'])
    .execute();
  await db.schema.createIndex('courses_site_published').on('courses').columns(['site_id', 'published', 'created_at']).execute();

  await db.schema
    .createTable('course_sections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references(site).onDelete('cascade'))
    .addColumn('course_id', 'text', (c) => c.notNull().references('courses.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('course_sections_course').on('course_sections').columns(['site_id', 'course_id', 'position']).execute();

  await db.schema
    .createTable('lectures')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references(site).onDelete('cascade'))
    .addColumn('course_id', 'text', (c) => c.notNull().references('courses.id').onDelete('cascade'))
    .addColumn('section_id', 'text', (c) => c.notNull().references('course_sections.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('duration_seconds', 'integer', (c) => c.notNull().check(sql`duration_seconds >= 0`))
    .execute();
  await db.schema.createIndex('lectures_course').on('lectures').columns(['site_id', 'course_id', 'position']).execute();
  await db.schema.createIndex('lectures_section').on('lectures').columns(['section_id']).execute();
  // Loaders ask for lectures by id within a site; without this, SQLite's planner picks lectures_course
  // for the site_id equality and scans every lecture of the site.
  await db.schema.createIndex('lectures_site_id').on('lectures').columns(['site_id', 'id']).execute();

  await db.schema
    .createTable('enrollments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references(site).onDelete('cascade'))
    .addColumn('person_id', 'text', (c) => c.notNull().references(person).onDelete('cascade'))
    .addColumn('course_id', 'text', (c) => c.notNull().references('courses.id').onDelete('cascade'))
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('access_expires_at', 'bigint')
    .addColumn('lifetime_access', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('completed_at', 'bigint')
    .addColumn('last_lecture_id', 'text', (c) => c.references('lectures.id').onDelete('set null'))
    .addColumn('last_position_seconds', 'integer')
    .addColumn('last_activity_at', 'bigint')
    .addUniqueConstraint('enrollments_site_person_course', ['site_id', 'person_id', 'course_id'])
    .execute();
  await db.schema.createIndex('enrollments_member_page').on('enrollments').columns(['site_id', 'person_id', 'started_at', 'id']).execute();
  await db.schema.createIndex('enrollments_course').on('enrollments').columns(['course_id']).execute();

  await db.schema
    .createTable('lecture_progress')
    .addColumn('site_id', 'text', (c) => c.notNull().references(site).onDelete('cascade'))
    .addColumn('enrollment_id', 'text', (c) => c.notNull().references('enrollments.id').onDelete('cascade'))
    .addColumn('lecture_id', 'text', (c) => c.notNull().references('lectures.id').onDelete('cascade'))
    .addColumn('completed_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('lecture_progress_pk', ['enrollment_id', 'lecture_id'])
    .execute();
  await db.schema.createIndex('lecture_progress_lecture').on('lecture_progress').columns(['lecture_id']).execute();

  for (const [table, withMinutes] of [
    ['digital_products', false],
    ['consulting_services', true],
  ] as const) {
    let builder = db.schema
      .createTable(table)
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('site_id', 'text', (c) => c.notNull().references(site).onDelete('cascade'))
      .addColumn('slug', 'text', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull());
    if (withMinutes) builder = builder.addColumn('duration_minutes', 'integer', (c) => c.notNull());
    await builder
      .addColumn('price_cents', 'integer', (c) => c.notNull().check(sql`price_cents >= 0`))
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('published', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint(`${table}_site_slug`, ['site_id', 'slug'])
      .execute();
  }

  // Purchases record what a member owns, never an order: no number, coupon, refund or invoice (SPEC 2.2).
  for (const [table, itemColumn, itemTable] of [
    ['digital_product_purchases', 'product_id', 'digital_products'],
    ['consulting_purchases', 'service_id', 'consulting_services'],
  ] as const) {
    await db.schema
      .createTable(table)
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('site_id', 'text', (c) => c.notNull().references(site).onDelete('cascade'))
      .addColumn('person_id', 'text', (c) => c.notNull().references(person).onDelete('cascade'))
      .addColumn(itemColumn, 'text', (c) => c.notNull().references(`${itemTable}.id`))
      .addColumn('purchased_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex(`${table}_member_page`).on(table).columns(['site_id', 'person_id', 'purchased_at', 'id']).execute();
    await db.schema.createIndex(`${table}_item`).on(table).columns([itemColumn]).execute();
  }

  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references(site).onDelete('cascade'))
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('starts_at', 'bigint', (c) => c.notNull())
    .addColumn('ends_at', 'bigint', (c) => c.notNull())
    .addColumn('time_zone', 'text', (c) => c.notNull())
    .addColumn('location', 'text')
    .addColumn('join_url', 'text')
    .addColumn('is_public', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('published', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('events_site_slug', ['site_id', 'slug'])
    .addCheckConstraint('events_ends_after_start', sql`ends_at >= starts_at`)
    .execute();
  await db.schema.createIndex('events_site_upcoming').on('events').columns(['site_id', 'published', 'is_public', 'ends_at']).execute();

  await db.schema
    .createTable('event_registrations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references(site).onDelete('cascade'))
    .addColumn('person_id', 'text', (c) => c.notNull().references(person).onDelete('cascade'))
    .addColumn('event_id', 'text', (c) => c.notNull().references('events.id').onDelete('cascade'))
    .addColumn('registered_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('event_registrations_site_person_event', ['site_id', 'person_id', 'event_id'])
    .execute();
  await db.schema.createIndex('event_registrations_event').on('event_registrations').columns(['event_id']).execute();

  await db.schema
    .createTable('notifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references(site).onDelete('cascade'))
    .addColumn('person_id', 'text', (c) => c.notNull().references(person).onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('link', 'text')
    .addColumn('read_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('notifications_member_page')
    .on('notifications')
    .columns(['site_id', 'person_id', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('notifications_member_unread').on('notifications').columns(['site_id', 'person_id', 'read_at']).execute();

  await db.schema
    .createTable('notification_subscriptions')
    .addColumn('site_id', 'text', (c) => c.notNull().references(site).onDelete('cascade'))
    .addColumn('person_id', 'text', (c) => c.notNull().references(person).onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull().check(sql`channel in ('email', 'in_app')`))
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('notification_subscriptions_pk', ['site_id', 'person_id', 'kind', 'channel'])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  for (const table of [
    'notification_subscriptions',
    'notifications',
    'event_registrations',
    'events',
    'consulting_purchases',
    'consulting_services',
    'digital_product_purchases',
    'digital_products',
    'lecture_progress',
    'enrollments',
    'lectures',
    'course_sections',
    'courses',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
