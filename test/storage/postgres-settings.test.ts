// Issue 12, PostgreSQL close to SQLite: every serving connection has JIT compilation off. PostgreSQL compiles
// a query whose estimated cost passes jit_above_cost on every execution, which made an operator list's page
// take hundreds of milliseconds of compiling (storage/connect.ts).
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/storage/connect.js';
import { freshDatabaseUrl, skipDialect } from '../helpers/dialects.js';

describe.skipIf(skipDialect('postgres'))('serving connections’ settings (postgres)', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    const db = await freshDatabaseUrl('postgres');
    cleanup = db.cleanup;
    store = openStore(db.url, { poolSize: 3 });
  });
  afterAll(async () => {
    await store?.close();
    await cleanup?.();
  });

  it('every serving connection has JIT compilation off, from its first statement on', async () => {
    // Three at once, so the pool opens three connections and each answers its very first statement.
    const settings = await Promise.all(
      [1, 2, 3].map(() => store.db.transaction().execute(async (trx) => (await sql<{ jit: string }>`show jit`.execute(trx)).rows[0]?.jit)),
    );
    expect(settings).toEqual(['off', 'off', 'off']);
  });
});
