// Comments and forms (issue 10, CONTRACT 6 comments and forms; both read by operators). A comment is on a
// lecture (and so its course) or on a post, and a reply names the comment it answers, so a thread is one
// root and its replies. A form has its fields; its submissions keep what was sent, as sent.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('comments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('person_id', 'text', (c) => c.notNull().references('people.id').onDelete('cascade'))
    .addColumn('course_id', 'text', (c) => c.references('courses.id').onDelete('cascade'))
    .addColumn('lecture_id', 'text', (c) => c.references('lectures.id').onDelete('cascade'))
    .addColumn('post_id', 'text', (c) => c.references('posts.id').onDelete('cascade'))
    /** The thread's first comment; null for that first comment itself. */
    .addColumn('root_id', 'text', (c) => c.references('comments.id').onDelete('cascade'))
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('comments_site_created').on('comments').columns(['site_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('comments_site_course').on('comments').columns(['site_id', 'course_id', 'created_at']).execute();
  await db.schema.createIndex('comments_site_post').on('comments').columns(['site_id', 'post_id', 'created_at']).execute();
  await db.schema.createIndex('comments_root').on('comments').columns(['root_id', 'created_at']).execute();

  await db.schema
    .createTable('forms')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    /** JSON: [{ "name", "label", "type", "required" }], in order. */
    .addColumn('fields', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('forms_site_created').on('forms').columns(['site_id', 'created_at', 'id']).execute();
  await db.schema
    .createTable('form_submissions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('form_id', 'text', (c) => c.notNull().references('forms.id').onDelete('cascade'))
    .addColumn('person_id', 'text', (c) => c.references('people.id').onDelete('set null'))
    /** JSON object of field name to the value sent. */
    .addColumn('answers', 'text', (c) => c.notNull())
    .addColumn('submitted_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('form_submissions_form_at')
    .on('form_submissions')
    .columns(['site_id', 'form_id', 'submitted_at', 'id'])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('form_submissions').execute();
  await db.schema.dropTable('forms').execute();
  await db.schema.dropTable('comments').execute();
}
