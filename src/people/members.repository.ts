// A site's members as its operators manage them (CONTRACT 6 members): people holding any role here, their
// roles, and suspension. Suspending ends the person's sessions here in the same transaction; their tokens
// here are refused by the standing check (oauth/standing.ts) from the next call on.
import type { ExpressionBuilder } from 'kysely';
import type { Database } from '../storage/schema.js';
import { type Page, type PageRequest, pageQuery, toPage } from '../school/paging.js';
import type { SiteScope } from '../school/scope.js';
import { ROLES, type Role, STAFF_ROLES } from './people.repository.js';

export interface Member {
  id: string;
  name: string;
  email: string;
  roles: Role[];
  /** When the person first got a role here. */
  memberSince: number;
  suspendedAt: number | null;
  suspensionReason: string | null;
}

const LIST = 'operator_members';

function byPerson(rows: ReadonlyArray<{ id: string; role: Role; created_at: number }>): Map<string, { roles: Set<Role>; since: number }> {
  const map = new Map<string, { roles: Set<Role>; since: number }>();
  for (const r of rows) {
    const entry = map.get(r.id) ?? { roles: new Set<Role>(), since: r.created_at };
    entry.roles.add(r.role);
    entry.since = Math.min(entry.since, r.created_at);
    map.set(r.id, entry);
  }
  return map;
}

async function hydrate(scope: SiteScope, ids: readonly string[]): Promise<Member[]> {
  if (ids.length === 0) return [];
  const [people, roles, suspensions] = await Promise.all([
    scope.db
      .selectFrom('people')
      .select(['id', 'name', 'email'])
      .where('id', 'in', [...ids])
      .execute(),
    scope.db
      .selectFrom('site_roles')
      .select(['person_id as id', 'role', 'created_at'])
      .where('site_id', '=', scope.siteId)
      .where('person_id', 'in', [...ids])
      .execute(),
    scope.db
      .selectFrom('site_suspensions')
      .select(['person_id', 'suspended_at', 'reason'])
      .where('site_id', '=', scope.siteId)
      .where('person_id', 'in', [...ids])
      .execute(),
  ]);
  const held = byPerson(roles);
  const suspended = new Map(suspensions.map((s) => [s.person_id, s]));
  const found = new Map(people.map((p) => [p.id, p]));
  return ids.flatMap((id) => {
    const person = found.get(id);
    const entry = held.get(id);
    if (!person || !entry) return [];
    const suspension = suspended.get(id);
    return [
      {
        id,
        name: person.name,
        email: person.email,
        roles: ROLES.filter((r) => entry.roles.has(r)),
        memberSince: entry.since,
        suspendedAt: suspension?.suspended_at ?? null,
        suspensionReason: suspension?.reason ?? null,
      },
    ];
  });
}

/**
 * Whether a role row is its person's first here (earliest, the lower role on a tie): the row a person is
 * listed by. A scalar subquery of the person's few roles, by 047's index of roles by person and time: as
 * NOT EXISTS, PostgreSQL may make it an anti-join that reads the site's every role.
 */
function firstRoleOfPerson(eb: ExpressionBuilder<Database & { r: Database['site_roles'] }, 'r'>) {
  return eb(
    'r.role',
    '=',
    eb
      .selectFrom('site_roles as e')
      .select('e.role')
      .whereRef('e.site_id', '=', 'r.site_id')
      .whereRef('e.person_id', '=', 'r.person_id')
      .orderBy('e.created_at')
      .orderBy('e.role')
      .limit(1),
  );
}

/**
 * People with a role here (or with `role`), by when they first got one, newest first. A walk of an index
 * by time from the cursor on: with a role, 004's index of that role's rows (a person holds a role once);
 * without, 047's index of all roles, each row kept when it is its person's first. Grouping the site's roles
 * by person for each page read all of them (100,000 students: 35-57 ms on SQLite).
 */
export async function pageMembers(scope: SiteScope, role: Role | undefined, request: PageRequest): Promise<Page<Member>> {
  const { size, after } = pageQuery(LIST, request);
  const rows = await scope.db
    .selectFrom('site_roles as r')
    .where('r.site_id', '=', scope.siteId)
    .$if(role !== undefined, (qb) => qb.where('r.role', '=', role ?? 'student'))
    .$if(role === undefined, (qb) => qb.where(firstRoleOfPerson))
    .$if(after !== null, (qb) =>
      qb.where((eb) => eb(eb.refTuple('r.created_at', 'r.person_id'), '<', eb.tuple(after?.sort ?? 0, after?.id ?? ''))),
    )
    .select(['r.person_id', 'r.created_at as since'])
    .orderBy('r.created_at', 'desc')
    .orderBy('r.person_id', 'desc')
    .limit(size + 1)
    .execute();
  const members = await hydrate(
    scope,
    rows.slice(0, size).map((r) => r.person_id),
  );
  const since = new Map(rows.map((r) => [r.person_id, Number(r.since)]));
  return toPage(LIST, members, size, (m) => ({ sort: since.get(m.id) ?? m.memberSince, id: m.id }), rows.length > size);
}

/**
 * How many people hold a role here (or `role`). A role's count is kept by 004's triggers (one row per
 * person and role). All roles' is their sum less each person's roles after their first, and a person with
 * more than one role holds a staff role (every role but the students'), so those are found from the staff.
 */
export async function countMembers(scope: SiteScope, role: Role | undefined): Promise<number> {
  const counted = scope.db
    .selectFrom('site_role_counts')
    .where('site_id', '=', scope.siteId)
    .$if(role !== undefined, (qb) => qb.where('role', '=', role ?? 'student'))
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('n'), eb.lit(0)).as('n'))
    .executeTakeFirstOrThrow();
  if (role !== undefined) return Number((await counted).n);
  const repeated = scope.db
    .selectFrom('site_roles as r')
    .where('r.site_id', '=', scope.siteId)
    .where(
      'r.person_id',
      'in',
      scope.db.selectFrom('site_roles as s').select('s.person_id').where('s.site_id', '=', scope.siteId).where('s.role', 'in', STAFF_ROLES),
    )
    .where((eb) => eb.not(firstRoleOfPerson(eb)))
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  const [all, extra] = await Promise.all([counted, repeated]);
  return Number(all.n) - Number(extra.n);
}

export async function findMember(scope: SiteScope, id: string): Promise<Member | null> {
  return (await hydrate(scope, [id]))[0] ?? null;
}

/** How many people hold `owner` here and are not suspended. */
export async function activeOwnerCount(scope: SiteScope): Promise<number> {
  const row = await scope.db
    .selectFrom('site_roles as r')
    .leftJoin('site_suspensions as s', (join) => join.onRef('s.person_id', '=', 'r.person_id').on('s.site_id', '=', scope.siteId))
    .where('r.site_id', '=', scope.siteId)
    .where('r.role', '=', 'owner')
    .where('s.person_id', 'is', null)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Makes the person's roles here exactly `roles`. */
export async function setRoles(scope: SiteScope, id: string, roles: readonly Role[], now: number): Promise<void> {
  const current = await scope.db
    .selectFrom('site_roles')
    .select('role')
    .where('site_id', '=', scope.siteId)
    .where('person_id', '=', id)
    .execute();
  const have = new Set(current.map((r) => r.role));
  const removed = [...have].filter((r) => !roles.includes(r));
  const added = roles.filter((r) => !have.has(r));
  if (removed.length > 0)
    await scope.db
      .deleteFrom('site_roles')
      .where('site_id', '=', scope.siteId)
      .where('person_id', '=', id)
      .where('role', 'in', removed)
      .execute();
  if (added.length > 0)
    await scope.db
      .insertInto('site_roles')
      .values(added.map((role) => ({ site_id: scope.siteId, person_id: id, role, created_at: now })))
      .onConflict((oc) => oc.doNothing())
      .execute();
}

/** Suspends the person here and ends their sessions here; a second suspension keeps the first date. */
export async function suspend(scope: SiteScope, id: string, reason: string, now: number): Promise<void> {
  await scope.db
    .insertInto('site_suspensions')
    .values({ site_id: scope.siteId, person_id: id, suspended_at: now, reason })
    .onConflict((oc) => oc.columns(['site_id', 'person_id']).doUpdateSet({ reason }))
    .execute();
  await scope.db.deleteFrom('sessions').where('site_id', '=', scope.siteId).where('person_id', '=', id).execute();
}

export async function unsuspend(scope: SiteScope, id: string): Promise<void> {
  await scope.db.deleteFrom('site_suspensions').where('site_id', '=', scope.siteId).where('person_id', '=', id).execute();
}
