// The per-request context of the member GraphQL API (SPEC 4.3): one site, one person, and request-scoped
// loaders, so resolvers read nothing else and a connection of N rows costs a fixed number of queries.
import DataLoader from 'dataloader';
import type { Kysely } from 'kysely';
import { completedLectureCounts, type LectureSummary, lectureCountsByCourse, lecturesByIds } from '../school/enrollments.repository.js';
import { findMemberProfile, findSiteOrigin, type MemberProfile } from '../school/member-profile.repository.js';
import type { MemberScope } from '../school/scope.js';
import type { SchoolReadCache } from '../school/school-read-cache.js';
import type { Database } from '../storage/schema.js';

export interface MemberLoaders {
  /** The viewer's own profile, read at most once per request. */
  profile(): Promise<MemberProfile | null>;
  /** This site's origin, read at most once per request. */
  siteOrigin(): Promise<string | null>;
  /** Lectures per course id (this site). */
  lectureCountByCourse: DataLoader<string, number>;
  /** Completed lectures per enrolment id (this member's enrolments only). */
  completedLecturesByEnrollment: DataLoader<string, number>;
  /** Lectures by id (this site); null for an id the site does not have. */
  lectureById: DataLoader<string, LectureSummary | null>;
}

export interface MemberContext {
  db: Kysely<Database>;
  siteId: string;
  personId: string;
  /** Scopes of the access token; the HTTP layer checks them before execution (see requiredScopes). */
  scopes: readonly string[];
  /** The request's instant (epoch ms): what "expired" is measured against. */
  now: number;
  loaders: MemberLoaders;
  /** Where the member's pages of enrolments are kept between requests (school/school-read-cache.ts). */
  learning?: SchoolReadCache;
}

function once<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= load();
    return pending;
  };
}

/**
 * Builds the context for one request; loaders cache for that request only, so nothing outlives it.
 * `profileOf` reads the viewer's profile where the caller already has it (the HTTP layer's people cache,
 * which the token's standing check has just read); by default it is read from the database.
 */
export function createMemberContext(
  db: Kysely<Database>,
  siteId: string,
  personId: string,
  scopes: readonly string[],
  now: number,
  profileOf?: () => Promise<MemberProfile | null>,
  learning?: SchoolReadCache,
): MemberContext {
  // With the cache, the loaders' batches are kept as the member's first page is (enrollments.repository.ts).
  const scope: MemberScope = learning ? { db, siteId, personId, learning } : { db, siteId, personId };
  const loaders: MemberLoaders = {
    profile: once(profileOf ?? (() => findMemberProfile(scope))),
    siteOrigin: once(() => findSiteOrigin(scope)),
    lectureCountByCourse: new DataLoader(async (ids) => {
      const counts = await lectureCountsByCourse(scope, ids);
      return ids.map((id) => counts.get(id) ?? 0);
    }),
    completedLecturesByEnrollment: new DataLoader(async (ids) => {
      const counts = await completedLectureCounts(scope, ids);
      return ids.map((id) => counts.get(id) ?? 0);
    }),
    lectureById: new DataLoader(async (ids) => {
      const lectures = await lecturesByIds(scope, ids);
      return ids.map((id) => lectures.get(id) ?? null);
    }),
  };
  return { db, siteId, personId, scopes, now, loaders, learning };
}
