// Serving statements on PostgreSQL are abandoned after a few seconds (a store that does not answer becomes
// "unavailable", never a hang), but a migration may build an index over a table of millions of rows for
// longer than that: migrations run on a connection of their own without that limit.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/storage/connect.js';
import { migrateToLatest, registeredMigrations } from '../../src/storage/migrate.js';
import { skipDialect } from '../helpers/dialects.js';
import { createTestDatabase } from '../helpers/postgres.js';

describe.skipIf(skipDialect('postgres'))('migrations outlive the serving statements’ time limit (postgres)', () => {
  let store: Store;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    // A limit far below any migration's statements, so one run through it would fail.
    store = openStore(database.url, { queryTimeoutMs: 1 });
  });
  afterAll(async () => {
    await store?.close();
    await drop?.();
  });

  it('a serving statement over the limit is abandoned; the same statement on the migrations’ connection completes', async () => {
    await expect(sql`select pg_sleep(0.2)`.execute(store.db)).rejects.toThrow(/timeout/i);
    const migrating = store.forMigrations?.();
    expect(migrating).toBeDefined();
    try {
      await expect(sql`select pg_sleep(0.2), 1 as done`.execute(migrating?.db ?? store.db)).resolves.toMatchObject({ rows: [{ done: 1 }] });
    } finally {
      await migrating?.close();
    }
  });

  it('every migration runs to the end on a store whose serving statements may take 1 ms', async () => {
    const applied = await migrateToLatest(store);
    expect(applied).toEqual(Object.keys(registeredMigrations()));
    expect(await migrateToLatest(store)).toEqual([]);
  });
});
