// Deleting a row makes the database look for the rows that reference it (each foreign key's ON DELETE),
// on SQLite and PostgreSQL alike, and without an index on the referencing column that look is a scan of
// the whole referencing table, inside the deleting transaction. Three references to rows the school
// deletes had none: an operator deleting a lecture scanned every enrolment (whose last watched lecture
// it clears) and every comment, and deleting a post scanned every comment; on SQLite the single writer
// held up every rotation and sign-in meanwhile (bench/RESULTS.md, thirty-eighth session). The logo
// reference is the fourth, on a table of one row per site. Most rows leave these columns null, so the indexes hold only the rows that name one: an
// equality on the column implies it is not null, so both planners use them for the look above.
// test/storage/references-of-deleted-rows.test.ts checks every reference to a deleted table on both
// dialects.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

/** [index, table, referencing column]; each index holds only the rows whose column names a row. */
export const INDEXES: ReadonlyArray<readonly [string, string, string]> = [
  ['enrollments_last_lecture', 'enrollments', 'last_lecture_id'],
  ['comments_lecture', 'comments', 'lecture_id'],
  ['comments_post', 'comments', 'post_id'],
  ['site_appearance_logo', 'site_appearance', 'logo_asset_id'],
];

export async function up(db: AnyDb): Promise<void> {
  for (const [name, table, column] of INDEXES) {
    await db.schema.createIndex(name).ifNotExists().on(table).column(column).where(column, 'is not', null).execute();
  }
}

export async function down(db: AnyDb): Promise<void> {
  for (const [name] of INDEXES) await db.schema.dropIndex(name).ifExists().execute();
}
