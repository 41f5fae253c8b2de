// Migration 017: on SQLite the token tables are rowid tables with a unique index on the hash (rows appended
// in order; issue 12), and the rebuild keeps every row, constraint and index. On PostgreSQL it changes nothing.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGrant, mintTokenPair, writeTokenPair } from '../../src/oauth/tokens/tokens.repository.js';
import * as m017 from '../../src/storage/migrations/017-token-tables-by-rowid.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { indexNames } from '../helpers/index-names.js';
import { insertPerson, insertSite, openSchoolStore, type SchoolStore, TEST_NOW } from '../helpers/school-fixtures.js';

const clock = { now: () => TEST_NOW };
const TABLES = ['access_tokens', 'refresh_tokens'] as const;

async function tokenRows(s: SchoolStore) {
  return {
    access: await s.db.selectFrom('access_tokens').selectAll().orderBy('token_hash').execute(),
    refresh: await s.db.selectFrom('refresh_tokens').selectAll().orderBy('token_hash').execute(),
  };
}

/** SQLite's own word on a table: 1 when it keeps its rows WITHOUT ROWID. */
async function withoutRowid(s: SchoolStore, table: string): Promise<number | undefined> {
  const r = await sql<{ wr: number }>`select wr from pragma_table_list where name = ${table}`.execute(s.db);
  return r.rows[0]?.wr;
}

/** The table's indexes; the table itself must exist (an index list of a missing table is empty too). */
async function indexNamesOf(s: SchoolStore, table: string): Promise<string[]> {
  const tables = await s.db.introspection.getTables();
  expect(tables.some((t) => t.name === table)).toBe(true);
  return indexNames(s, table);
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`migration 017, the token tables' layout (${dialect})`, () => {
    let s: SchoolStore;
    let grantId: string;
    const issue = (g: string) => ({
      siteId: 'site_a',
      clientId: 'app',
      personId: 'per_1',
      scope: 'openid profile',
      accessScope: 'openid',
      resource: 'http://a.test',
      grantId: g,
      accessLifetimeSeconds: 600,
      refreshLifetimeSeconds: 86_400,
    });

    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      await insertSite(s.db, { id: 'site_a', name: 'A', origin: 'http://a.test', variant: 'A' });
      await insertPerson(s.db, { id: 'per_1', email: 'p@a.test', name: 'P' });
      grantId = await createGrant(s.db, issue(''), clock);
    });
    afterAll(() => s?.close());

    if (dialect === 'sqlite') {
      it('keeps the token tables as rowid tables, each with its unique hash index and its expiry index (none by grant: migration 050)', async () => {
        for (const table of TABLES) {
          expect(await withoutRowid(s, table), table).toBe(0);
          expect(await indexNamesOf(s, table)).toEqual([`${table}_expires`, `sqlite_autoindex_${table}_1`]);
        }
      });
    }

    it('keeps every token row, index and constraint across the migration down and up again', async () => {
      await m017.down(s.db);
      if (dialect === 'sqlite') for (const table of TABLES) expect(await withoutRowid(s, table), table).toBe(1);
      // The key's own index exists only in the rowid layout; every index we named must come back.
      const named = async () =>
        (await Promise.all(TABLES.map((t) => indexNamesOf(s, t)))).map((names) => names.filter((n) => !n.startsWith('sqlite_')));
      const indexesBefore = await named();
      for (let i = 0; i < 3; i++) await writeTokenPair(s.db, issue(grantId), mintTokenPair(), clock);
      await s.db
        .updateTable('refresh_tokens')
        .set({ rotated_at: TEST_NOW, replay_sealed: 'sealed', replay_until: TEST_NOW + 1 })
        .execute();
      const before = await tokenRows(s);
      expect(before.access).toHaveLength(3);

      await m017.up(s.db);
      if (dialect === 'sqlite') for (const table of TABLES) expect(await withoutRowid(s, table), table).toBe(0);
      expect(await tokenRows(s)).toEqual(before);
      expect(await named()).toEqual(indexesBefore);

      const taken = before.access[0];
      if (!taken) throw new Error('no row');
      // The hash stays the key: unique and never null.
      await expect(s.db.insertInto('access_tokens').values(taken).execute()).rejects.toThrow();
      await expect(
        s.db
          .insertInto('access_tokens')
          .values({ ...taken, token_hash: null as unknown as string })
          .execute(),
      ).rejects.toThrow();
      // The references stay: a token of a site that does not exist is refused.
      await expect(
        s.db
          .insertInto('refresh_tokens')
          .values({ ...(before.refresh[0] ?? taken), token_hash: 'another', site_id: 'site_missing' })
          .execute(),
      ).rejects.toThrow();
    });
  });
}
