// Who the viewer is, and the schools where they hold a role (SPEC 2.1: viewer id, name, email, schools).
import type { MemberScope, SiteScope } from './scope.js';
import { defineQuery } from '../storage/precompiled.js';

export interface MemberProfile {
  id: string;
  name: string;
  email: string;
  pictureUrl: string | null;
}

export interface MemberSchool {
  siteId: string;
  name: string;
  origin: string;
  /** Role names at that site, e.g. ["student"] or ["owner", "lecturer"]. */
  roles: string[];
  /** True for the site the request was made to. */
  current: boolean;
}

/** The member's profile; null when the person no longer exists. */
// Read by nearly every viewer query: compiled once.
const memberProfile = defineQuery(['personId'], (db, p) =>
  db.selectFrom('people').where('id', '=', p.personId).select(['id', 'name', 'email', 'picture_url']),
);

export async function findMemberProfile(scope: MemberScope): Promise<MemberProfile | null> {
  const row = await memberProfile.first(scope.db, { personId: scope.personId });
  return row ? { id: row.id, name: row.name, email: row.email, pictureUrl: row.picture_url } : null;
}

const ROLE_ORDER = ['owner', 'admin', 'lecturer', 'student'];

/**
 * Every site where the member holds a role, the current site first, then by name. This is the one member
 * read that crosses sites, and SPEC 2.1 asks for exactly that; it still reads only this person's roles.
 */
export async function listMemberSchools(scope: MemberScope): Promise<MemberSchool[]> {
  const rows = await scope.db
    .selectFrom('site_roles as r')
    .innerJoin('sites as s', 's.id', 'r.site_id')
    .where('r.person_id', '=', scope.personId)
    .select(['s.id', 's.name', 's.origin', 'r.role'])
    .execute();
  const bySite = new Map<string, MemberSchool>();
  for (const row of rows) {
    let school = bySite.get(row.id);
    if (!school) {
      school = { siteId: row.id, name: row.name, origin: row.origin, roles: [], current: row.id === scope.siteId };
      bySite.set(row.id, school);
    }
    school.roles.push(row.role);
  }
  const schools = [...bySite.values()];
  for (const school of schools) school.roles.sort((a, b) => ROLE_ORDER.indexOf(a) - ROLE_ORDER.indexOf(b));
  return schools.sort((a, b) => Number(b.current) - Number(a.current) || a.name.localeCompare(b.name) || a.siteId.localeCompare(b.siteId));
}

/** The site's origin, against which stored relative links (cover images, notification links) resolve. */
export async function findSiteOrigin(scope: SiteScope): Promise<string | null> {
  const row = await scope.db.selectFrom('sites').where('id', '=', scope.siteId).select('origin').executeTakeFirst();
  return row?.origin ?? null;
}
