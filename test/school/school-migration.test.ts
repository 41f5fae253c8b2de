// Migration 002 (the school tables) on both dialects: up, down, and the per-site uniqueness rules.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as m002 from '../../src/storage/migrations/002-school.js';
import * as m006 from '../../src/storage/migrations/006-activity-bitmap-digests.js';
import { bitmapDigest } from '../../src/school/learner-activity.js';
import { registeredMigrations } from '../../src/storage/migrate.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { insertSite, openSchoolStore, type SchoolStore, TEST_NOW } from '../helpers/school-fixtures.js';

const SCHOOL_TABLES = [
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
];

function course(siteId: string, id: string, slug: string) {
  return {
    id,
    site_id: siteId,
    slug,
    title: slug,
    subtitle: null,
    description: '',
    cover_image_url: null,
    price_cents: 0,
    currency: 'EUR',
    published: 1,
    created_at: TEST_NOW,
  };
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`migration 002-school (${dialect})`, () => {
    let s: SchoolStore;
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      await insertSite(s.db, { id: 'site_a', name: 'A', origin: 'http://a.test', variant: 'A' });
      await insertSite(s.db, { id: 'site_b', name: 'B', origin: 'http://b.test', variant: 'B' });
    });
    afterAll(() => s?.close());

    it('creates every school table', async () => {
      const tables = (await s.db.introspection.getTables()).map((t) => t.name);
      expect(tables).toEqual(expect.arrayContaining(SCHOOL_TABLES));
    });

    it('gives every school table a site_id column', async () => {
      const tables = await s.db.introspection.getTables();
      for (const name of SCHOOL_TABLES) {
        const table = tables.find((t) => t.name === name);
        expect(
          table?.columns.map((c) => c.name),
          name,
        ).toContain('site_id');
      }
    });

    it('keeps purchase tables free of order, coupon, refund and invoice columns', async () => {
      const tables = await s.db.introspection.getTables();
      for (const name of ['digital_product_purchases', 'consulting_purchases']) {
        const columns = tables.find((t) => t.name === name)?.columns.map((c) => c.name) ?? [];
        expect(
          columns.filter((c) => /order|coupon|refund|invoice/i.test(c)),
          name,
        ).toEqual([]);
      }
    });

    it('refuses a second course with the same slug at one site but allows it at another', async () => {
      await s.db
        .insertInto('courses')
        .values(course('site_a', 'crs_1', 'intro'))
        .execute();
      await expect(
        s.db
          .insertInto('courses')
          .values(course('site_a', 'crs_2', 'intro'))
          .execute(),
      ).rejects.toThrow();
      await s.db
        .insertInto('courses')
        .values(course('site_b', 'crs_3', 'intro'))
        .execute();
    });

    it('refuses a notification subscription channel outside email and in_app', async () => {
      await s.db
        .insertInto('people')
        .values({ id: 'per_1', email: 'p@x.test', name: 'P', picture_url: null, password_hash: 'x', created_at: 0 })
        .execute();
      await expect(
        s.db
          .insertInto('notification_subscriptions')
          .values({ site_id: 'site_a', person_id: 'per_1', kind: 'announcement', channel: 'sms' as 'email', enabled: 1, updated_at: 0 })
          .execute(),
      ).rejects.toThrow();
    });

    it('gives bitmaps stored before migration 006 the digest their bits have, so no node trusts a missing one', async () => {
      await m006.down(s.db);
      const bits = Buffer.from([0b1011, 0, 0xff, 7, 1]);
      // The table as migration 005 left it, without the digest column: written in plain SQL.
      await sql`insert into activity_bitmaps (site_id, period, bits) values (${'site_a'}, ${'2026-03'}, ${bits})`.execute(s.db);
      await m006.up(s.db);
      const row = await s.db.selectFrom('activity_bitmaps').select(['digest']).where('period', '=', '2026-03').executeTakeFirstOrThrow();
      expect(row.digest).toBe(bitmapDigest(bits));
      await s.db.deleteFrom('activity_bitmaps').execute();
    });

    it('drops the school tables on down and recreates them on up', async () => {
      // Every later migration goes down first and comes back after, as the migrator would take them.
      const later = Object.entries(registeredMigrations())
        .filter(([name]) => name > '002-school')
        .sort(([a], [b]) => a.localeCompare(b));
      for (const [, migration] of [...later].reverse()) await migration.down?.(s.db);
      await m002.down(s.db);
      let tables = (await s.db.introspection.getTables()).map((t) => t.name);
      expect(tables.filter((t) => SCHOOL_TABLES.includes(t))).toEqual([]);
      expect(tables).toContain('sites');
      await m002.up(s.db);
      for (const [, migration] of later) await migration.up(s.db);
      tables = (await s.db.introspection.getTables()).map((t) => t.name);
      expect(tables).toEqual(expect.arrayContaining(SCHOOL_TABLES));
    });
  });
}
