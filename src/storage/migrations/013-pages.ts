// Pages (issue 10, CONTRACT 6 pages): a school's own pages (about, imprint, FAQ), drafts until published.
// Every change of a page's content is a numbered revision holding the whole content, so any revision can
// be read and restored (as a new revision: history is never rewritten).
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('pages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('revision', 'integer', (c) => c.notNull())
    .addColumn('published_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint')
    .addUniqueConstraint('pages_site_slug', ['site_id', 'slug'])
    .execute();
  await db.schema.createIndex('pages_site_created').on('pages').columns(['site_id', 'created_at', 'id']).execute();
  await db.schema
    .createTable('page_revisions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('page_id', 'text', (c) => c.notNull().references('pages.id').onDelete('cascade'))
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('author_person_id', 'text', (c) => c.references('people.id').onDelete('set null'))
    /** The revision this one restored, when it was a restore. */
    .addColumn('restored_from', 'integer')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('page_revisions_page_number', ['page_id', 'number'])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('page_revisions').execute();
  await db.schema.dropTable('pages').execute();
}
