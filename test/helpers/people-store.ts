// A fresh, migrated store of one dialect holding only people with the given ids (email `<id>@<domain>`):
// the fixture of the storage tests that page or list rows without a whole demo school.
import { openStore, type Store } from '../../src/storage/connect.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { freshDatabaseUrl, type TestDialect } from './dialects.js';

export async function openPeopleStore(
  dialect: TestDialect,
  ids: readonly string[],
  domain: string,
): Promise<{ store: Store; close: () => Promise<void> }> {
  const db = await freshDatabaseUrl(dialect);
  const store = openStore(db.url);
  await migrateToLatest(store);
  await store.db
    .insertInto('people')
    .values(ids.map((id) => ({ id, email: `${id}@${domain}`, name: id, picture_url: null, password_hash: 'x', created_at: 1 })))
    .execute();
  return {
    store,
    close: async () => {
      await store.close();
      await db.cleanup();
    },
  };
}
