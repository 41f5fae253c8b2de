// A site's members as its operators manage them (CONTRACT 6 members): people holding any role here, their
// roles, and suspension. Suspending ends the person's sessions here in the same transaction; their tokens
// here are refused by the standing check (oauth/standing.ts) from the next call on.
import { sql } from 'kysely';
import { type Page, type PageRequest, pageQuery, toPage } from '../school/paging.js';
import type { SiteScope } from '../school/scope.js';
import { ROLES, type Role } from './people.repository.js';

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

/** People with a role here (or with `role`), by when they first got one, newest first. */
export async function pageMembers(scope: SiteScope, role: Role | undefined, request: PageRequest): Promise<Page<Member>> {
  const { size, after } = pageQuery(LIST, request);
  const rows = await scope.db
    .selectFrom('site_roles')
    .where('site_id', '=', scope.siteId)
    .$if(role !== undefined, (qb) => qb.where('role', '=', role ?? 'student'))
    .groupBy('person_id')
    .select(['person_id', (eb) => eb.fn.min<number>('created_at').as('since')])
    .$if(after !== null, (qb) =>
      qb.having((eb) =>
        eb.or([
          eb(eb.fn.min('created_at'), '<', after?.sort ?? 0),
          eb.and([eb(eb.fn.min('created_at'), '=', after?.sort ?? 0), eb('person_id', '<', after?.id ?? '')]),
        ]),
      ),
    )
    .orderBy('since', 'desc')
    .orderBy('person_id', 'desc')
    .limit(size + 1)
    .execute();
  const members = await hydrate(
    scope,
    rows.slice(0, size).map((r) => r.person_id),
  );
  return toPage(
    LIST,
    members,
    size,
    (m) => ({ sort: Number(rows.find((r) => r.person_id === m.id)?.since ?? m.memberSince), id: m.id }),
    rows.length > size,
  );
}

export async function countMembers(scope: SiteScope, role: Role | undefined): Promise<number> {
  const row = await scope.db
    .selectFrom('site_roles')
    .where('site_id', '=', scope.siteId)
    .$if(role !== undefined, (qb) => qb.where('role', '=', role ?? 'student'))
    .select(sql<number>`count(distinct person_id)`.as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
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
