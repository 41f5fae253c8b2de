// The admin's connections page (issue 11): each app holding live grants at a site, with how many people,
// which scopes, its first and last live grant and three of its people by name. Revoked grants, other sites'
// grants and apps left with no live grant count nowhere. The list is stepped through migration 046's
// indexes of live grants, never by reading every grant of the site.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connection, listConnections } from '../../src/clients/connections.js';
import type { GrantsTable } from '../../src/storage/schema.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { insertPerson, insertSite, openSchoolStore, type SchoolStore, TEST_NOW } from '../helpers/school-fixtures.js';
import { plansOf } from '../helpers/sqlite-plans.js';

const SCOPES = ['openid account:read', 'openid profile', 'openid courses:read account:read'];
const PEOPLE = 9;

/**
 * site_a: app_1 with every person, some twice, some grants revoked; app_2 with a few; app_3 whose only
 * grants are revoked. site_b: app_1 with one person. Names sort differently from ids.
 */
function grantRows(): GrantsTable[] {
  const rows: GrantsTable[] = [];
  const add = (site: string, client: string, person: number, k: number, revoked: boolean) =>
    rows.push({
      id: `grt_${site}_${client}_${person}_${k}`,
      site_id: site,
      client_id: client,
      person_id: `per_${person}`,
      scope: SCOPES[(person + k) % SCOPES.length] as string,
      resource: '',
      created_at: TEST_NOW - (person * 10 + k) * 60_000,
      revoked_at: revoked ? TEST_NOW : null,
    });
  for (let p = 0; p < PEOPLE; p++) {
    add('site_a', 'app_1', p, 0, p % 4 === 0);
    if (p % 3 === 0) add('site_a', 'app_1', p, 1, false);
    if (p % 2 === 1) add('site_a', 'app_2', p, 0, p === 1);
  }
  add('site_a', 'app_3', 2, 0, true);
  add('site_b', 'app_1', 5, 0, false);
  return rows;
}

/** The rule, from the rows: live grants of the site grouped by app. */
function expected(rows: GrantsTable[], siteId: string, names: Map<string, string>): Connection[] {
  const live = rows.filter((r) => r.site_id === siteId && r.revoked_at === null);
  const apps = [...new Set(live.map((r) => r.client_id))];
  return apps
    .map((clientId) => {
      const own = live.filter((r) => r.client_id === clientId);
      const people = [...new Set(own.map((r) => r.person_id))].sort();
      return {
        clientId,
        people: people.length,
        somePeople: people
          .slice(0, 3)
          .map((id) => ({ id, name: names.get(id) as string, email: `${id}@a.test` }))
          .sort((a, b) => a.name.localeCompare(b.name)),
        scopes: [...new Set(own.flatMap((r) => r.scope.split(' ')))].sort(),
        firstGrantedAt: Math.min(...own.map((r) => r.created_at)),
        lastGrantedAt: Math.max(...own.map((r) => r.created_at)),
      };
    })
    .sort((a, b) => b.lastGrantedAt - a.lastGrantedAt);
}

const sortedScopes = (list: Connection[]) => list.map((c) => ({ ...c, scopes: [...c.scopes].sort() }));

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`the apps connected to a site (${dialect})`, () => {
    let s: SchoolStore;
    const rows = grantRows();
    // Names in the reverse order of the ids, so the page's order by name is not the order by id.
    const names = new Map(Array.from({ length: PEOPLE }, (_, p) => [`per_${p}`, `Learner ${String.fromCharCode(90 - p)}`]));
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      await insertSite(s.db, { id: 'site_a', name: 'A', origin: 'http://a.test', variant: 'A' });
      await insertSite(s.db, { id: 'site_b', name: 'B', origin: 'http://b.test', variant: 'A' });
      for (const [id, name] of names) await insertPerson(s.db, { id, email: `${id}@a.test`, name });
      await s.db.insertInto('grants').values(rows).execute();
    }, 60_000);
    afterAll(() => s?.close());

    it('each app with live grants here: its people, three of them by name, its scopes, its first and last live grant; revoked grants and other sites count nowhere', async () => {
      const list = await listConnections(s.db, 'site_a');
      expect(list.map((c) => c.clientId)).toEqual(['app_1', 'app_2']);
      expect(sortedScopes(list)).toEqual(expected(rows, 'site_a', names));
      expect(sortedScopes(await listConnections(s.db, 'site_b'))).toEqual(expected(rows, 'site_b', names));
    });

    it('an app whose last live grant here is revoked leaves the list, and a site with none lists nothing', async () => {
      await s.db
        .transaction()
        .execute(async (trx) => {
          await trx
            .updateTable('grants')
            .set({ revoked_at: TEST_NOW })
            .where('site_id', '=', 'site_a')
            .where('client_id', '=', 'app_2')
            .execute();
          expect((await listConnections(trx, 'site_a')).map((c) => c.clientId)).toEqual(['app_1']);
          await trx.updateTable('grants').set({ revoked_at: TEST_NOW }).where('site_id', '=', 'site_b').execute();
          expect(await listConnections(trx, 'site_b')).toEqual([]);
          throw new RollBack();
        })
        .catch((err: unknown) => {
          if (!(err instanceof RollBack)) throw err;
        });
      expect((await listConnections(s.db, 'site_a')).map((c) => c.clientId)).toEqual(['app_1', 'app_2']);
    });

    if (dialect === 'sqlite') {
      it('the list reads migration 046’s indexes of live grants, and never every grant of the site', async () => {
        const plans = await plansOf(s.db, 'grants', (db) => listConnections(db, 'site_a'));
        expect(plans).toHaveLength(3);
        for (const plan of plans) {
          expect(plan).toMatch(/USING (COVERING )?INDEX grants_live_/);
          expect(plan).not.toMatch(/SCAN (grants|g)\b/);
          expect(plan).not.toMatch(/grants_site_client|grants_site_person/);
        }
      });
    }
  });
}

class RollBack extends Error {}
