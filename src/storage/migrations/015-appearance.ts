// A site's appearance (issue 10, CONTRACT 6 appearance): its logo (an uploaded image asset; deleting the
// asset removes it here), two colours, a font stack and the navigation of its pages. No row: the defaults.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('site_appearance')
    .addColumn('site_id', 'text', (c) => c.primaryKey().references('sites.id').onDelete('cascade'))
    .addColumn('logo_asset_id', 'text', (c) => c.references('assets.id').onDelete('set null'))
    .addColumn('primary_color', 'text')
    .addColumn('background_color', 'text')
    .addColumn('font', 'text', (c) => c.notNull())
    /** JSON: [{ "label", "url" }], in order. */
    .addColumn('navigation', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('site_appearance').execute();
}
