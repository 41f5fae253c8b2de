// Issue 12, PostgreSQL close to SQLite: statements are prepared once per connection (named by a hash of
// their text) instead of parsed and planned on every call; at most PREPARED_STATEMENTS_MAX texts are
// named, so a connection never holds an unbounded number of plans, and later texts still run.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, PREPARED_STATEMENTS_MAX, type Store } from '../../src/storage/connect.js';
import { freshDatabaseUrl, skipDialect } from '../helpers/dialects.js';

describe.skipIf(skipDialect('postgres'))('prepared statements (postgres)', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    const db = await freshDatabaseUrl('postgres');
    cleanup = db.cleanup;
    // One connection, so every statement below meets the same session's prepared statements.
    store = openStore(db.url, { poolSize: 1 });
  });
  afterAll(async () => {
    await store?.close();
    await cleanup?.();
  });

  const prepared = async (like: string) =>
    (
      await sql<{
        statement: string;
      }>`select statement from pg_prepared_statements where name like 'sg\\_%' and statement like ${like}`.execute(store.db)
    ).rows;

  it('prepares a statement with values once and answers each call with its own values', async () => {
    for (const value of [1, 2, 3]) {
      const rows = (await sql<{ n: number }>`select ${value}::int + 1 as n /* prepared-once */`.execute(store.db)).rows;
      expect(rows).toEqual([{ n: value + 1 }]);
    }
    expect(await prepared('%prepared-once%')).toHaveLength(1);
  });

  it(`names at most ${PREPARED_STATEMENTS_MAX} texts; the ones after them run unnamed`, async () => {
    const texts = PREPARED_STATEMENTS_MAX + 20;
    for (let i = 0; i < texts; i++) {
      const rows = (await sql<{ n: number }>`select ${i}::int as n /* ${sql.raw(`bounded-${i}`)} */`.execute(store.db)).rows;
      expect(rows).toEqual([{ n: i }]);
    }
    const named = await prepared('%bounded-%');
    expect(named.length).toBeGreaterThan(0);
    expect(named.length).toBeLessThanOrEqual(PREPARED_STATEMENTS_MAX);
    expect(await prepared(`%bounded-${texts - 1} %`)).toHaveLength(0);
  });
});
