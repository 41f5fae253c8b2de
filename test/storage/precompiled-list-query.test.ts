// storage/precompiled.ts defineListQuery: an `in (…)` query compiled once per list length answers exactly
// the rows of its list, for an empty list, short lists reused across values, and lists past the kept forms.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/storage/connect.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { defineListQuery, LIST_FORMS_KEPT } from '../../src/storage/precompiled.js';
import { DIALECTS, freshDatabaseUrl, skipDialect } from '../helpers/dialects.js';

const peopleByIds = defineListQuery(['domain'], (db, p, ids) =>
  db.selectFrom('people').select('id').where('email', 'like', p.domain).where('id', 'in', ids).orderBy('id'),
);

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`precompiled list queries (${dialect})`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    const ids = Array.from({ length: LIST_FORMS_KEPT + 20 }, (_, i) => `p_${String(i).padStart(4, '0')}`);
    beforeAll(async () => {
      const db = await freshDatabaseUrl(dialect);
      cleanup = db.cleanup;
      store = openStore(db.url);
      await migrateToLatest(store);
      await store.db
        .insertInto('people')
        .values(ids.map((id) => ({ id, email: `${id}@list.test`, name: id, picture_url: null, password_hash: 'x', created_at: 1 })))
        .execute();
    });
    afterAll(async () => {
      await store?.close();
      await cleanup?.();
    });

    it('answers exactly the listed rows for empty, short, repeated and longer-than-kept lists', async () => {
      const rows = async (list: string[]) => (await peopleByIds.rows(store.db, { domain: '%@list.test' }, list)).map((r) => r.id);
      expect(await rows([])).toEqual([]);
      expect(await rows([ids[3] as string, ids[1] as string])).toEqual([ids[1], ids[3]]);
      // The same length with other values reuses the compiled form and must not keep the old values.
      expect(await rows([ids[5] as string, 'p_missing'])).toEqual([ids[5]]);
      expect(await rows(ids.slice(0, LIST_FORMS_KEPT + 10))).toEqual(ids.slice(0, LIST_FORMS_KEPT + 10));
    });
  });
}
