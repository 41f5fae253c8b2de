// storage/precompiled.ts defineListQuery: an `in (…)` query compiled once per list length answers exactly
// the rows of its list, for an empty list, short lists reused across values, and lists past the kept forms.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/storage/connect.js';
import { defineListQuery, LIST_FORMS_KEPT } from '../../src/storage/precompiled.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { openPeopleStore } from '../helpers/people-store.js';

const peopleByIds = defineListQuery(['domain'], (db, p, ids) =>
  db.selectFrom('people').select('id').where('email', 'like', p.domain).where('id', 'in', ids).orderBy('id'),
);

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`precompiled list queries (${dialect})`, () => {
    let store: Store;
    let close: () => Promise<void>;
    const ids = Array.from({ length: LIST_FORMS_KEPT + 20 }, (_, i) => `p_${String(i).padStart(4, '0')}`);
    beforeAll(async () => {
      ({ store, close } = await openPeopleStore(dialect, ids, 'list.test'));
    });
    afterAll(async () => {
      await close?.();
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
