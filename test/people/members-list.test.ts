// The members list (CONTRACT 6 members): people holding a role here, or one role, by when they first got
// one here, newest first, paged by cursor, with the total. A person holding several roles comes once, at
// their first role's time (the lower role on a tie); other sites' roles count nowhere. Each page is a walk
// of migration 047's index of roles by time from the cursor, and the total comes from the kept counts and
// the staff's roles, never from every role of the site.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countMembers, type Member, pageMembers } from '../../src/people/members.repository.js';
import type { Role } from '../../src/people/people.repository.js';
import type { Page } from '../../src/school/paging.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { grantRole, insertPerson, insertSite, openSchoolStore, type SchoolStore, TEST_NOW } from '../helpers/school-fixtures.js';
import { plansOf } from '../helpers/sqlite-plans.js';

const MINUTE = 60_000;

/** [person, role, minutes before TEST_NOW] at site_a; ties and people with several roles included. */
const ROLES_AT_A: Array<[string, Role, number]> = [
  ['per_01', 'owner', 500],
  ['per_02', 'student', 400],
  ['per_02', 'lecturer', 100],
  ['per_03', 'student', 300],
  ['per_04', 'student', 300],
  ['per_05', 'admin', 250],
  ['per_05', 'lecturer', 250],
  ['per_05', 'student', 50],
  ['per_06', 'student', 200],
  ['per_07', 'lecturer', 150],
  ['per_08', 'student', 20],
  ['per_09', 'student', 10],
];

/** The rule, from the rows: each person at their earliest role's time, newest first, then by id, descending. */
function expected(role: Role | undefined): Array<{ id: string; since: number; memberSince: number; roles: Role[] }> {
  const byPerson = new Map<string, { since: number; memberSince: number; roles: Set<Role> }>();
  for (const [id, r, minutes] of ROLES_AT_A) {
    const entry = byPerson.get(id) ?? { since: Number.POSITIVE_INFINITY, memberSince: Number.POSITIVE_INFINITY, roles: new Set<Role>() };
    entry.roles.add(r);
    entry.memberSince = Math.min(entry.memberSince, TEST_NOW - minutes * MINUTE);
    if (role === undefined || r === role) entry.since = Math.min(entry.since, TEST_NOW - minutes * MINUTE);
    byPerson.set(id, entry);
  }
  return [...byPerson]
    .filter(([, e]) => role === undefined || e.roles.has(role))
    .map(([id, e]) => ({
      id,
      since: e.since,
      memberSince: e.memberSince,
      roles: (['owner', 'admin', 'lecturer', 'student'] as Role[]).filter((r) => e.roles.has(r)),
    }))
    .sort((a, b) => b.since - a.since || (a.id < b.id ? 1 : -1));
}

async function everyPage(s: SchoolStore, role: Role | undefined, first: number): Promise<Member[]> {
  const members: Member[] = [];
  let after: string | null = null;
  for (let guard = 0; guard < 50; guard++) {
    const page: Page<Member> = await pageMembers({ db: s.db, siteId: 'site_a' }, role, { first, after });
    members.push(...page.edges.map((e) => e.node));
    if (!page.hasNextPage) return members;
    after = page.endCursor;
  }
  throw new Error('the pages never ended');
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`the members list (${dialect})`, () => {
    let s: SchoolStore;
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      await insertSite(s.db, { id: 'site_a', name: 'A', origin: 'http://a.test', variant: 'A' });
      await insertSite(s.db, { id: 'site_b', name: 'B', origin: 'http://b.test', variant: 'A' });
      for (let i = 1; i <= 10; i++) {
        const id = `per_${String(i).padStart(2, '0')}`;
        await insertPerson(s.db, { id, email: `${id}@a.test`, name: `Person ${i}` });
      }
      for (const [id, role, minutes] of ROLES_AT_A) await grantRole(s.db, 'site_a', id, role, TEST_NOW - minutes * MINUTE);
      // Elsewhere: a role at site_b only, and an earlier one there for a member of site_a.
      await grantRole(s.db, 'site_b', 'per_10', 'student', TEST_NOW);
      await grantRole(s.db, 'site_b', 'per_09', 'admin', TEST_NOW - 1_000 * MINUTE);
    }, 60_000);
    afterAll(() => s?.close());

    for (const role of [undefined, 'owner', 'admin', 'lecturer', 'student'] as const) {
      it(`people holding ${role ?? 'any role'} here come once each, by their first such role, newest first, across pages; the total counts them`, async () => {
        const rule = expected(role);
        for (const first of [1, 2, 3, 100]) {
          const members = await everyPage(s, role, first);
          expect(members.map((m) => [m.id, m.memberSince, m.roles])).toEqual(rule.map((r) => [r.id, r.memberSince, r.roles]));
        }
        expect(await countMembers({ db: s.db, siteId: 'site_a' }, role)).toBe(rule.length);
      });
    }

    it('a site with no members lists and counts none', async () => {
      const page = await pageMembers({ db: s.db, siteId: 'site_none' }, undefined, { first: 10 });
      expect(page.edges).toEqual([]);
      expect(await countMembers({ db: s.db, siteId: 'site_none' }, undefined)).toBe(0);
    });

    if (dialect === 'sqlite') {
      it('a page walks migration 047’s index by time and a total reads the kept counts and the staff’s roles, never every role of the site', async () => {
        const scope = (db: typeof s.db) => ({ db, siteId: 'site_a' });
        const page = await plansOf(s.db, '"site_roles"', (db) => pageMembers(scope(db), undefined, { first: 2 }));
        expect(page[0]).toMatch(/^SEARCH r USING INDEX site_roles_site_created \(site_id=\?\)/);
        const after = (await pageMembers(scope(s.db), undefined, { first: 2 })).endCursor;
        const next = await plansOf(s.db, '"site_roles"', (db) => pageMembers(scope(db), undefined, { first: 2, after }));
        expect(next[0]).toMatch(/^SEARCH r USING INDEX site_roles_site_created \(site_id=\? AND \(created_at,person_id\)<\(\?,\?\)\)/);
        const count = await plansOf(s.db, '"site_roles"', (db) => countMembers(scope(db), undefined));
        const roleCount = await plansOf(s.db, '"site_roles"', (db) => countMembers(scope(db), 'student'));
        for (const plan of [...page, ...next, ...count])
          expect(plan).not.toMatch(/SCAN|TEMP B-TREE|USING (COVERING )?INDEX site_roles_site_role_created \(site_id=\?\)/);
        expect(roleCount).toEqual([]);
      });
    }
  });
}
