// The tenant seam (ARCHITECTURE rule 3): school repositories take one of these, never a bare database,
// so every query they write has the site (and, for member data, the person) in hand to filter by.
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { SchoolReadCache } from './school-read-cache.js';

/** One site's catalogue: public reads. */
export interface SiteScope {
  readonly db: Kysely<Database>;
  readonly siteId: string;
}

/** One person's own data at one site: member reads and writes. */
export interface MemberScope extends SiteScope {
  readonly personId: string;
  /**
   * Where the member's pages of enrolments are kept between requests (school/school-read-cache.ts), for
   * the callers that serve members; without it they are read from the database every time.
   */
  readonly learning?: SchoolReadCache;
}
