// Issue 12, PostgreSQL close to SQLite: statements are prepared once per connection (named by a hash of
// their text) instead of parsed and planned on every call; at most PREPARED_STATEMENTS_MAX texts are
// named, so a connection never holds an unbounded number of plans, and later texts still run.
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, PREPARED_STATEMENTS_MAX, type Store } from '../../src/storage/connect.js';
import { freshDatabaseUrl, skipDialect } from '../helpers/dialects.js';

describe.skipIf(skipDialect('postgres'))('prepared statements (postgres)', () => {
  let store: Store;
  let url: string;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    const db = await freshDatabaseUrl('postgres');
    url = db.url;
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

  /** What another session does meanwhile (`schoolgate migrate` while the nodes serve, say). */
  const elsewhere = async (statement: string) => {
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      await other.query(statement);
    } finally {
      await other.end();
    }
  };

  it('a statement whose result a migration changed (ALTER TABLE … ADD COLUMN) is prepared again and answers, instead of failing with "cached plan must not change result type" on that connection for good', async () => {
    await sql`create table reshaped (id int primary key, name text)`.execute(store.db);
    await sql`insert into reshaped values (1, 'one')`.execute(store.db);
    const read = async () => (await sql<Record<string, unknown>>`select * from reshaped where id = ${1}`.execute(store.db)).rows;
    expect(await read()).toEqual([{ id: 1, name: 'one' }]);
    await elsewhere(`alter table reshaped add column extra text not null default 'x'`);
    expect(await read()).toEqual([{ id: 1, name: 'one', extra: 'x' }]);
    expect(await read()).toEqual([{ id: 1, name: 'one', extra: 'x' }]);
    // Prepared once more under a name of its own; the outdated one is gone from the session.
    expect(await prepared('%from reshaped%')).toHaveLength(1);
    // A second migration outdates the statement again: it heals again, under yet another name.
    await elsewhere('alter table reshaped add column more int not null default 2');
    expect(await read()).toEqual([{ id: 1, name: 'one', extra: 'x', more: 2 }]);
    expect(await read()).toEqual([{ id: 1, name: 'one', extra: 'x', more: 2 }]);
    expect(await prepared('%from reshaped%')).toHaveLength(1);
  });

  it('a statement the session no longer holds (DEALLOCATE ALL, as a pooler may send) is prepared again and answers', async () => {
    const read = async () => (await sql<{ n: number }>`select ${5}::int as n /* forgotten */`.execute(store.db)).rows;
    expect(await read()).toEqual([{ n: 5 }]);
    await sql`deallocate all`.execute(store.db);
    expect(await read()).toEqual([{ n: 5 }]);
    expect(await prepared('%forgotten%')).toHaveLength(1);
  });

  it('inside a transaction the outdated statement fails that transaction with its own error (nothing can run after it there), and the next one heals', async () => {
    await sql`create table reshaped_in_transaction (id int primary key)`.execute(store.db);
    const read = (db: typeof store.db) => sql<Record<string, unknown>>`select * from reshaped_in_transaction where id >= ${0}`.execute(db);
    await read(store.db);
    await elsewhere('alter table reshaped_in_transaction add column extra int');
    await expect(store.db.transaction().execute(async (trx) => read(trx))).rejects.toThrow(/cached plan must not change result type/);
    expect((await store.db.transaction().execute(async (trx) => read(trx))).rows).toEqual([]);
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
