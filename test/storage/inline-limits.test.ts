// storage/inline-limits.ts and storage/precompiled.ts: SQLite re-plans a statement on every run when its
// LIMIT or OFFSET is a bound parameter, so on SQLite integer limits are written into the SQL (one cached
// statement per page size), precompiled queries keep a form per written value, and every form answers
// exactly its own page. PostgreSQL keeps them bound (its prepared statements do not re-plan on binding).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/storage/connect.js';
import { defineQuery, WRITTEN_FORMS_KEPT } from '../../src/storage/precompiled.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { openPeopleStore } from '../helpers/people-store.js';

const pageOfPeople = defineQuery(['domain', 'limit', 'offset'], (db, p) =>
  db.selectFrom('people').select('id').where('email', 'like', p.domain).orderBy('id').limit(p.limit).offset(p.offset),
);

const createdBeforeWithLimit = defineQuery(['n'], (db, p) =>
  db.selectFrom('people').select('id').where('created_at', '<', p.n).orderBy('id').limit(p.n),
);

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`LIMIT and OFFSET values (${dialect})`, () => {
    let store: Store;
    let close: () => Promise<void>;
    const ids = Array.from({ length: WRITTEN_FORMS_KEPT + 20 }, (_, i) => `p_${String(i).padStart(4, '0')}`);
    beforeAll(async () => {
      ({ store, close } = await openPeopleStore(dialect, ids, 'limits.test'));
    });
    afterAll(async () => {
      await close?.();
    });

    it(`are ${dialect === 'sqlite' ? 'written into the SQL text' : 'bound parameters'} of a built query`, () => {
      const { sql, parameters } = store.db.selectFrom('people').select('id').limit(5).offset(10).compile();
      if (dialect === 'sqlite') {
        expect(sql).toMatch(/limit 5 offset 10$/);
        expect(parameters).toEqual([]);
      } else {
        expect(sql).toMatch(/limit \$1 offset \$2$/);
        expect(parameters).toEqual([5, 10]);
      }
    });

    it('a value that is not a safe integer stays bound', () => {
      const { sql, parameters } = store.db.selectFrom('people').select('id').limit(2.5).compile();
      expect(sql).not.toMatch(/limit 2\.5/);
      expect(parameters).toEqual([2.5]);
    });

    it(`a precompiled query ${dialect === 'sqlite' ? 'keeps a form per page size' : 'keeps one form'} and answers each page exactly`, async () => {
      const page = async (limit: number, offset: number) =>
        (await pageOfPeople.rows(store.db, { domain: '%@limits.test', limit, offset })).map((r) => r.id);
      const bound = pageOfPeople.bind(store.db, { domain: '%@limits.test', limit: 3, offset: 4 });
      if (dialect === 'sqlite') {
        expect(bound.sql).toMatch(/limit 3 offset 4$/);
        expect(bound.parameters).toEqual(['%@limits.test']);
      } else {
        expect(bound.parameters).toEqual(['%@limits.test', 3, 4]);
      }
      expect(await page(3, 4)).toEqual(ids.slice(4, 7));
      // Other values must not be answered by an earlier form.
      expect(await page(2, 0)).toEqual(ids.slice(0, 2));
      expect(await page(3, 4)).toEqual(ids.slice(4, 7));
      // One parameter both bound in a condition and used as the LIMIT.
      expect((await createdBeforeWithLimit.rows(store.db, { n: 2 })).map((r) => r.id)).toEqual(ids.slice(0, 2));
      expect((await createdBeforeWithLimit.rows(store.db, { n: 3 })).map((r) => r.id)).toEqual(ids.slice(0, 3));
      // Past the kept forms, each further value is compiled per call and still exact.
      for (let limit = 1; limit <= WRITTEN_FORMS_KEPT + 10; limit++) expect(await page(limit, 1)).toEqual(ids.slice(1, 1 + limit));
    });
  });
}
