// No N+1 (issue 3): a viewer query over several connections runs the same number of SQL queries whether
// the member has 2 rows per list or 25, because per-row data comes from joins and per-request DataLoaders.
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/storage/schema.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import {
  countingDatabase,
  DAY,
  grantRole,
  insertPerson,
  insertSite,
  memberContext,
  openSchoolStore,
  runMember,
  type SchoolStore,
  TEST_NOW,
} from '../helpers/school-fixtures.js';

const SITE = 'site_count';

/** Gives a member `rows` rows in every list: enrolments (with progress and a last-watched lecture), purchases, registrations, notifications. */
async function giveRows(db: Kysely<Database>, personId: string, rows: number): Promise<void> {
  for (let i = 0; i < rows; i += 1) {
    const key = `${personId}_${i}`;
    const t = TEST_NOW - (i + 1) * DAY;
    await db
      .insertInto('courses')
      .values({
        id: `crs_${key}`,
        site_id: SITE,
        slug: `course-${key}`,
        title: `Course ${i}`,
        subtitle: null,
        description: 'A course.',
        cover_image_url: `/media/${key}.jpg`,
        price_cents: 1000,
        currency: 'EUR',
        published: 1,
        created_at: t,
      })
      .execute();
    await db
      .insertInto('course_sections')
      .values({ id: `sec_${key}`, site_id: SITE, course_id: `crs_${key}`, position: 1, title: 'Section' })
      .execute();
    await db
      .insertInto('lectures')
      .values(
        [1, 2].map((n) => ({
          id: `lec_${key}_${n}`,
          site_id: SITE,
          course_id: `crs_${key}`,
          section_id: `sec_${key}`,
          position: n,
          title: `Lecture ${n}`,
          duration_seconds: 600,
        })),
      )
      .execute();
    await db
      .insertInto('enrollments')
      .values({
        id: `enr_${key}`,
        site_id: SITE,
        person_id: personId,
        course_id: `crs_${key}`,
        started_at: t,
        access_expires_at: i % 2 === 0 ? null : TEST_NOW + DAY,
        lifetime_access: i % 2 === 0 ? 1 : 0,
        completed_at: null,
        last_lecture_id: `lec_${key}_2`,
        last_position_seconds: 30,
        last_activity_at: t,
      })
      .execute();
    await db
      .insertInto('lecture_progress')
      .values({ site_id: SITE, enrollment_id: `enr_${key}`, lecture_id: `lec_${key}_1`, completed_at: t })
      .execute();
    await db
      .insertInto('digital_products')
      .values({
        id: `dpr_${key}`,
        site_id: SITE,
        slug: `p-${key}`,
        title: `Product ${i}`,
        kind: 'ebook',
        description: '',
        price_cents: 100,
        currency: 'EUR',
        published: 1,
        created_at: t,
      })
      .execute();
    await db
      .insertInto('digital_product_purchases')
      .values({ id: `dpp_${key}`, site_id: SITE, person_id: personId, product_id: `dpr_${key}`, purchased_at: t })
      .execute();
    await db
      .insertInto('consulting_services')
      .values({
        id: `csv_${key}`,
        site_id: SITE,
        slug: `s-${key}`,
        title: `Service ${i}`,
        kind: 'one_on_one',
        description: '',
        duration_minutes: 30,
        price_cents: 100,
        currency: 'EUR',
        published: 1,
        created_at: t,
      })
      .execute();
    await db
      .insertInto('consulting_purchases')
      .values({ id: `csp_${key}`, site_id: SITE, person_id: personId, service_id: `csv_${key}`, purchased_at: t })
      .execute();
    await db
      .insertInto('events')
      .values({
        id: `evt_${key}`,
        site_id: SITE,
        slug: `e-${key}`,
        title: `Event ${i}`,
        description: '',
        starts_at: TEST_NOW + (i + 1) * DAY,
        ends_at: TEST_NOW + (i + 1) * DAY + 3_600_000,
        time_zone: 'Europe/Berlin',
        location: null,
        join_url: 'https://meet.example/x',
        is_public: 1,
        published: 1,
        created_at: t,
      })
      .execute();
    await db
      .insertInto('event_registrations')
      .values({ id: `reg_${key}`, site_id: SITE, person_id: personId, event_id: `evt_${key}`, registered_at: t })
      .execute();
    await db
      .insertInto('notifications')
      .values({
        id: `ntf_${key}`,
        site_id: SITE,
        person_id: personId,
        kind: 'announcement',
        title: `N ${i}`,
        body: '',
        link: '/x',
        read_at: null,
        created_at: t,
      })
      .execute();
  }
}

const EVERYTHING = `{ viewer {
  id name email schools { name roles }
  enrolledCourses(first: 100) {
    totalCount pageInfo { hasNextPage endCursor }
    edges { cursor node { slug lastWatchedLecture { title durationSeconds } } }
    nodes {
      slug expireDate hasLifetimeAccess accessState progressPercent completedLectures totalLectures startedAt completedAt lastActivityAt
      lastWatchedLecture { lectureId positionSeconds title durationSeconds }
      course { id slug title coverImageUrl lectureCount }
    }
  }
  digitalProducts(first: 100) { totalCount nodes { title kind purchasedAt } }
  consultingServices(first: 100) { totalCount nodes { title kind purchasedAt } }
  eventRegistrations(first: 100) { totalCount nodes { title startsAt endsAt timeZone location joinUrl } }
  notifications(first: 100) { totalCount nodes { title link read } }
  unreadNotificationCount
  notificationSubscriptions { kind channel enabled }
} }`;

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`member API query count (${dialect})`, () => {
    let s: SchoolStore;
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      await insertSite(s.db, { id: SITE, name: 'Count School', origin: 'http://count.test', variant: 'A' });
      for (const [id, rows] of [
        ['per_few', 2],
        ['per_many', 25],
      ] as const) {
        await insertPerson(s.db, { id, email: `${id}@count.test`, name: id });
        await grantRole(s.db, SITE, id, 'student');
        await giveRows(s.db, id, rows);
      }
    });
    afterAll(() => s?.close());

    async function queriesFor(personId: string): Promise<{ queries: number; enrolments: number }> {
      const counting = countingDatabase(s.db);
      const result = await runMember('A', memberContext(counting.db, SITE, personId), EVERYTHING);
      expect(result.errors).toBeUndefined();
      const enrolments = (result.data as { viewer: { enrolledCourses: { nodes: unknown[] } } }).viewer.enrolledCourses.nodes.length;
      return { queries: counting.count(), enrolments };
    }

    it('runs the same number of queries for 2 rows per list as for 25', async () => {
      const few = await queriesFor('per_few');
      const many = await queriesFor('per_many');
      expect(few.enrolments).toBe(2);
      expect(many.enrolments).toBe(25);
      expect(many.queries).toBe(few.queries);
    });

    it('reads no lecture for a resume point asked for by id and position only (the page row holds both)', async () => {
      const counting = countingDatabase(s.db);
      const query = '{ viewer { enrolledCourses(first: 100) { nodes { slug lastWatchedLecture { lectureId positionSeconds } } } } }';
      const result = await runMember('A', memberContext(counting.db, SITE, 'per_many'), query);
      expect(result.errors).toBeUndefined();
      const nodes = (result.data as { viewer: { enrolledCourses: { nodes: Array<{ lastWatchedLecture: unknown }> } } }).viewer
        .enrolledCourses.nodes;
      expect(nodes.some((n) => n.lastWatchedLecture !== null)).toBe(true);
      // The viewer and the enrolment page, no lecture.
      expect(counting.count()).toBe(2);
    });

    it('answers a viewer query over every connection with a small, fixed number of queries', async () => {
      // viewer, site origin, schools, 5 pages, 5 counts, unread count, subscriptions, and 3 batched loaders.
      const { queries } = await queriesFor('per_many');
      expect(queries).toBeGreaterThanOrEqual(15);
      expect(queries).toBeLessThanOrEqual(18);
    });
  });
}
