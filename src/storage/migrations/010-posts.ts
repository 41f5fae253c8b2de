// Posts (issue 10, CONTRACT 6 posts): drafts by default, published now or at a chosen moment. A post is
// published from the moment `publish_at` passes, whoever is looking; its announcement to the school's
// members is delivered once (`announced_at`) by the scheduler of whichever node claims it first.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('posts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('author_person_id', 'text', (c) => c.references('people.id').onDelete('set null'))
    /** Null: a draft. In the future: scheduled. Past: published. */
    .addColumn('publish_at', 'bigint')
    .addColumn('announced_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint')
    .addUniqueConstraint('posts_site_slug', ['site_id', 'slug'])
    .execute();
  await db.schema.createIndex('posts_site_created').on('posts').columns(['site_id', 'created_at', 'id']).execute();
  // The scheduler's question, "which posts are due and not yet announced", answered from an index.
  await db.schema.createIndex('posts_due').on('posts').columns(['announced_at', 'publish_at']).execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('posts').execute();
}
