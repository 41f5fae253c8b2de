// Suspending a member ends their sessions at this site (SPEC 5.5 members), and only those: the same
// person's sessions at another site and other people's here stay. They are found by migration 045's index
// of sessions by site and person, not by reading every session.
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suspend } from '../../src/people/members.repository.js';
import type { Database } from '../../src/storage/schema.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { insertPerson, insertSite, openSchoolStore, type SchoolStore, TEST_NOW } from '../helpers/school-fixtures.js';
import { plansOf } from '../helpers/sqlite-plans.js';

const SESSIONS = [
  { id_hash: 'h_a1_1', site_id: 'site_a', person_id: 'per_1' },
  { id_hash: 'h_a1_2', site_id: 'site_a', person_id: 'per_1' },
  { id_hash: 'h_a2', site_id: 'site_a', person_id: 'per_2' },
  { id_hash: 'h_b1', site_id: 'site_b', person_id: 'per_1' },
];

async function seed(db: Kysely<Database>): Promise<void> {
  await insertSite(db, { id: 'site_a', name: 'A', origin: 'http://a.test', variant: 'A' });
  await insertSite(db, { id: 'site_b', name: 'B', origin: 'http://b.test', variant: 'A' });
  await insertPerson(db, { id: 'per_1', email: 'one@a.test', name: 'One' });
  await insertPerson(db, { id: 'per_2', email: 'two@a.test', name: 'Two' });
  await db
    .insertInto('sessions')
    .values(SESSIONS.map((s) => ({ ...s, auth_time: TEST_NOW, created_at: TEST_NOW, expires_at: TEST_NOW + 3_600_000 })))
    .execute();
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`suspending a member ends their sessions at the site (${dialect})`, () => {
    let s: SchoolStore;
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      await seed(s.db);
    }, 60_000);
    afterAll(() => s?.close());

    it('a suspension ends every session of the person at this site, and not their sessions elsewhere or anyone else’s', async () => {
      await suspend({ db: s.db, siteId: 'site_a' }, 'per_1', 'test', TEST_NOW);
      const left = await s.db.selectFrom('sessions').select('id_hash').orderBy('id_hash').execute();
      expect(left.map((r) => r.id_hash)).toEqual(['h_a2', 'h_b1']);
    });

    if (dialect === 'sqlite') {
      it('the sessions are found by migration 045’s index by site and person, never by reading every session', async () => {
        const plans = await plansOf(s.db, 'from "sessions"', (db) => suspend({ db, siteId: 'site_a' }, 'per_2', 'test', TEST_NOW));
        expect(plans).toEqual(['SEARCH sessions USING INDEX sessions_site_person (site_id=? AND person_id=?)']);
      });
    }
  });
}
