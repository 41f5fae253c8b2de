// People (one account across sites) and their roles per site (issue 2, section 2).
import type { Kysely } from 'kysely';
import type { Clock } from '../kernel/clock.js';
import { hashPassword } from '../kernel/password.js';
import { newId } from '../kernel/random.js';
import { defineQuery } from '../storage/precompiled.js';
import type { Database, SiteRolesTable } from '../storage/schema.js';

export type Role = SiteRolesTable['role'];
export const ROLES: readonly Role[] = ['owner', 'admin', 'lecturer', 'student'];
/** Roles that operate a site: only they may authorize operator clients (SPEC 5.2). */
export const OPERATOR_ROLES: readonly Role[] = ['owner', 'admin'];
/**
 * The school's staff: every role but the students'. Their replies answer a comment's thread, and a person
 * holding two roles holds one of them (the members' count relies on it), so it is derived, not listed.
 */
export const STAFF_ROLES: readonly Role[] = ROLES.filter((role) => role !== 'student');

export interface Person {
  id: string;
  email: string;
  name: string;
  pictureUrl: string | null;
}

/** The longest display name a person may have, however it is set (operator API, CLI). */
export const PERSON_NAME_MAX_LENGTH = 200;

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function findPersonByEmail(db: Kysely<Database>, email: string) {
  return db.selectFrom('people').selectAll().where('email', '=', normaliseEmail(email)).executeTakeFirst();
}

export async function findPersonById(db: Kysely<Database>, id: string): Promise<Person | undefined> {
  const row = await db.selectFrom('people').select(['id', 'email', 'name', 'picture_url']).where('id', '=', id).executeTakeFirst();
  return row ? { id: row.id, email: row.email, name: row.name, pictureUrl: row.picture_url } : undefined;
}

export interface NewPerson {
  email: string;
  name: string;
  password: string;
  pictureUrl?: string | null;
}

export async function insertPerson(db: Kysely<Database>, input: NewPerson, clock: Clock): Promise<Person> {
  const row = {
    id: newId('per'),
    email: normaliseEmail(input.email),
    name: input.name,
    picture_url: input.pictureUrl ?? null,
    password_hash: await hashPassword(input.password),
    created_at: clock.now(),
  };
  await db.insertInto('people').values(row).execute();
  return { id: row.id, email: row.email, name: row.name, pictureUrl: row.picture_url };
}

/**
 * Grants a role. Serving processes cache people with their roles (storage/coherent-cache.ts): a caller
 * outside the CLI must publish a `flush` revocation signal after its commit, as the CLI does.
 */
export async function grantRole(db: Kysely<Database>, siteId: string, personId: string, role: Role, clock: Clock): Promise<void> {
  await db
    .insertInto('site_roles')
    .values({ site_id: siteId, person_id: personId, role, created_at: clock.now() })
    .onConflict((oc) => oc.columns(['site_id', 'person_id', 'role']).doNothing())
    .execute();
}

/**
 * Takes a role away; true when the person held it. The same announcement duty as grantRole applies:
 * the bearer check reads roles on every call through the cache that flush empties (oauth/standing.ts).
 */
export async function revokeRole(db: Kysely<Database>, siteId: string, personId: string, role: Role): Promise<boolean> {
  const result = await db
    .deleteFrom('site_roles')
    .where('site_id', '=', siteId)
    .where('person_id', '=', personId)
    .where('role', '=', role)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

const rolesOfPerson = defineQuery(['siteId', 'personId'], (db, p) =>
  db.selectFrom('site_roles').select('role').where('site_id', '=', p.siteId).where('person_id', '=', p.personId),
);

/** The person's roles at one site, in catalogue order. */
export async function rolesAtSite(db: Kysely<Database>, siteId: string, personId: string): Promise<Role[]> {
  const rows = await rolesOfPerson.rows(db, { siteId, personId });
  const held = new Set(rows.map((r) => r.role));
  return ROLES.filter((r) => held.has(r));
}

/** A person with their roles at one site. */
export type PersonWithRoles = Person & {
  roles: Role[];
  /** Suspended at this site by its operators: no sign-in here, no token here works. */
  suspended: boolean;
};

/** Finds a person with their roles at one site (a repository read, or a cached one: services.ts). */
export type PersonLookup = ((siteId: string, personId: string) => Promise<PersonWithRoles | undefined>) & {
  /** The person when a cache holds them now, so hot paths need not wait; undefined when it does not. */
  known?: (siteId: string, personId: string) => PersonWithRoles | undefined;
};

const personWithRoles = defineQuery(['siteId', 'personId'], (db, p) =>
  db
    .selectFrom('people')
    .leftJoin('site_roles', (join) => join.onRef('site_roles.person_id', '=', 'people.id').on('site_roles.site_id', '=', p.siteId))
    .leftJoin('site_suspensions', (join) =>
      join.onRef('site_suspensions.person_id', '=', 'people.id').on('site_suspensions.site_id', '=', p.siteId),
    )
    .select(['people.id', 'people.email', 'people.name', 'people.picture_url', 'site_roles.role', 'site_suspensions.suspended_at'])
    .where('people.id', '=', p.personId),
);

/** A person with their roles at one site, read in one query (the UserInfo and ID token hot path). */
export async function findPersonWithRoles(db: Kysely<Database>, siteId: string, personId: string): Promise<PersonWithRoles | undefined> {
  const rows = await personWithRoles.rows(db, { siteId, personId });
  const first = rows[0];
  if (!first) return undefined;
  const held = new Set(rows.map((r) => r.role));
  return {
    id: first.id,
    email: first.email,
    name: first.name,
    pictureUrl: first.picture_url,
    roles: ROLES.filter((r) => held.has(r)),
    suspended: first.suspended_at !== null,
  };
}
