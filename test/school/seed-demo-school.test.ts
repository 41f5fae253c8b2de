// The demo school data of CONTRACT 3, read back through the school repositories on both dialects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCourseOutline, listUpcomingPublicEvents, searchPublishedCourses } from '../../src/school/catalogue.repository.js';
import { listEnrollments } from '../../src/school/enrollments.repository.js';
import { listEventRegistrations } from '../../src/school/event-registrations.repository.js';
import { countUnreadNotifications, listNotifications, listNotificationSubscriptions } from '../../src/school/notifications.repository.js';
import { listConsultingPurchases, listDigitalProductPurchases } from '../../src/school/purchases.repository.js';
import { openStore } from '../../src/storage/connect.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import type { Database } from '../../src/storage/schema.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { createDemoWorld, DAY, type DemoWorld, openSchoolStore, type SchoolStore, TEST_NOW } from '../helpers/school-fixtures.js';

const SEEDED_TABLES = [
  'courses',
  'course_sections',
  'lectures',
  'enrollments',
  'lecture_progress',
  'digital_products',
  'digital_product_purchases',
  'consulting_services',
  'consulting_purchases',
  'events',
  'event_registrations',
  'notifications',
  'notification_subscriptions',
] as const satisfies readonly (keyof Database)[];

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`demo school seed (${dialect})`, () => {
    let s: SchoolStore;
    let world: DemoWorld;
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      world = await createDemoWorld(s.db);
    });
    afterAll(() => s?.close());

    const student = () => ({ db: s.db, siteId: world.academySiteId, personId: world.studentId });

    it('enrols the demo student at Demo Academy in a lifetime, a still-open and an expired course', async () => {
      const page = await listEnrollments(student(), { first: 100 }, TEST_NOW);
      const enrollments = page.edges.map((e) => e.node);
      expect(enrollments.length).toBeGreaterThanOrEqual(3);
      expect(enrollments.some((e) => e.hasLifetimeAccess && e.accessState === 'ACTIVE')).toBe(true);
      expect(enrollments.some((e) => !e.hasLifetimeAccess && e.accessState === 'ACTIVE' && (e.accessExpiresAt ?? 0) > TEST_NOW)).toBe(true);
      expect(enrollments.some((e) => e.accessState === 'EXPIRED' && (e.accessExpiresAt ?? Infinity) < TEST_NOW)).toBe(true);
      expect(enrollments.some((e) => e.lastLectureId !== null && (e.lastPositionSeconds ?? 0) > 0)).toBe(true);
    });

    it('gives the demo student 2 digital products, 1 consulting service and 2 event registrations at Demo Academy', async () => {
      expect((await listDigitalProductPurchases(student(), {})).edges.length).toBeGreaterThanOrEqual(2);
      expect((await listConsultingPurchases(student(), {})).edges).toHaveLength(1);
      expect((await listEventRegistrations(student(), {})).edges).toHaveLength(2);
    });

    it('gives the demo student at least 5 notifications, at least 3 unread, and 2 subscriptions', async () => {
      expect((await listNotifications(student(), {})).edges.length).toBeGreaterThanOrEqual(5);
      expect(await countUnreadNotifications(student())).toBeGreaterThanOrEqual(3);
      expect(await listNotificationSubscriptions(student())).toHaveLength(2);
    });

    it('publishes at least 5 courses at Demo Academy and keeps 1 unpublished', async () => {
      const published = await searchPublishedCourses({ db: s.db, siteId: world.academySiteId }, { first: 100 });
      expect(published.page.edges.length).toBeGreaterThanOrEqual(5);
      const all = await s.db.selectFrom('courses').where('site_id', '=', world.academySiteId).select(['slug', 'published']).execute();
      expect(all.filter((c) => c.published === 0)).toHaveLength(1);
      const draft = all.find((c) => c.published === 0)!;
      expect(await findCourseOutline({ db: s.db, siteId: world.academySiteId }, draft.slug)).toBeNull();
    });

    it('has at least 2 upcoming public events at Demo Academy', async () => {
      const events = await listUpcomingPublicEvents({ db: s.db, siteId: world.academySiteId }, {}, TEST_NOW);
      expect(events.edges.filter((e) => e.node.startsAt > TEST_NOW).length).toBeGreaterThanOrEqual(2);
    });

    it('gives Demo Studio courses with the demo student and the visitor enrolled', async () => {
      const studio = { db: s.db, siteId: world.studioSiteId };
      expect((await searchPublishedCourses(studio, {})).page.edges.length).toBeGreaterThan(0);
      expect((await listEnrollments({ ...studio, personId: world.studentId }, {}, TEST_NOW)).edges.length).toBeGreaterThan(0);
      expect((await listEnrollments({ ...studio, personId: world.visitorId }, {}, TEST_NOW)).edges.length).toBeGreaterThan(0);
    });

    it('gives the visitor nothing at Demo Academy, where they hold no role', async () => {
      const visitor = { db: s.db, siteId: world.academySiteId, personId: world.visitorId };
      expect((await listEnrollments(visitor, {}, TEST_NOW)).edges).toEqual([]);
      expect((await listNotifications(visitor, {})).edges).toEqual([]);
    });

    it('dates everything relative to now', async () => {
      const enrollments = await s.db.selectFrom('enrollments').select(['started_at']).execute();
      for (const e of enrollments) {
        expect(e.started_at).toBeLessThan(TEST_NOW);
        expect(e.started_at).toBeGreaterThan(TEST_NOW - 2 * 365 * DAY);
      }
    });

    it('is deterministic apart from now: the same ids and now give the same rows', async () => {
      const other = openStore('sqlite::memory:');
      try {
        await migrateToLatest(other);
        await createDemoWorld(other.db);
        for (const table of SEEDED_TABLES) {
          const dump = async (db: typeof s.db) =>
            (await db.selectFrom(table).selectAll().execute()).map((row) => JSON.stringify(row, Object.keys(row).sort())).sort();
          expect(await dump(other.db), table).toEqual(await dump(s.db));
        }
      } finally {
        await other.close();
      }
    });
  });
}
