// Isolation (issue 3 section 1): the API reads only the context's site and person, so another member's or
// another site's rows never appear, whichever person and site the request is for.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/storage/schema.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import {
  createDemoWorld,
  type DemoWorld,
  memberContext,
  openSchoolStore,
  runMember,
  type SchoolStore,
} from '../helpers/school-fixtures.js';

const CONNECTIONS = {
  enrolledCourses: 'enrollments',
  digitalProducts: 'digital_product_purchases',
  consultingServices: 'consulting_purchases',
  eventRegistrations: 'event_registrations',
  notifications: 'notifications',
} as const satisfies Record<string, keyof Database>;

type ConnectionName = keyof typeof CONNECTIONS;

function queryFor(variant: 'A' | 'B'): string {
  const names = (Object.keys(CONNECTIONS) as ConnectionName[]).filter((n) => variant === 'A' || n !== 'notifications');
  const extra = variant === 'A' ? 'unreadNotificationCount notificationSubscriptions { kind channel }' : '';
  return `{ viewer { id ${names.map((n) => `${n}(first: 100) { totalCount nodes { id } }`).join(' ')} ${extra} } }`;
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`member API isolation (${dialect})`, () => {
    let s: SchoolStore;
    let world: DemoWorld;
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      world = await createDemoWorld(s.db);
    });
    afterAll(() => s?.close());

    it('returns exactly the rows of the context’s person at the context’s site, for every person and site', async () => {
      const people = [world.studentId, world.otherStudentId, world.ownerId, world.lecturerId, world.visitorId];
      const sites: [string, 'A' | 'B'][] = [
        [world.academySiteId, 'A'],
        [world.studioSiteId, 'B'],
      ];
      let nonEmpty = 0;
      for (const [siteId, variant] of sites) {
        for (const personId of people) {
          const result = await runMember(variant, memberContext(s.db, siteId, personId), queryFor(variant));
          expect(result.errors).toBeUndefined();
          const viewer = (result.data as { viewer: Record<string, { totalCount: number; nodes: { id: string }[] }> }).viewer;
          for (const [field, table] of Object.entries(CONNECTIONS)) {
            if (variant === 'B' && field === 'notifications') continue;
            const expected = await s.db
              .selectFrom(table)
              .where('site_id', '=', siteId)
              .where('person_id', '=', personId)
              .select('id')
              .execute();
            const got = viewer[field]!.nodes.map((n) => n.id).sort();
            expect(got, `${field} of ${personId} at ${siteId}`).toEqual(expected.map((r) => r.id).sort());
            expect(viewer[field]!.totalCount).toBe(expected.length);
            nonEmpty += got.length > 0 ? 1 : 0;
          }
        }
      }
      // The check above is only meaningful because several of these lists hold rows.
      expect(nonEmpty).toBeGreaterThan(8);
    });

    it('never shows the second student’s rows to the demo student at the same site', async () => {
      const result = await runMember('A', memberContext(s.db, world.academySiteId, world.studentId), queryFor('A'));
      const text = JSON.stringify(result.data);
      for (const id of ['enr_other', 'dpp_other', 'csp_other', 'reg_other', 'ntf_other']) expect(text).not.toContain(id);
      const viewer = (result.data as { viewer: { notificationSubscriptions: { kind: string; channel: string }[] } }).viewer;
      expect(viewer.notificationSubscriptions).not.toContainEqual({ kind: 'NEW_LECTURE', channel: 'EMAIL' });
    });

    it('shows the same person different data at each site', async () => {
      const titles = async (siteId: string, variant: 'A' | 'B') => {
        const result = await runMember(
          variant,
          memberContext(s.db, siteId, world.studentId),
          '{ viewer { enrolledCourses { nodes { slug } } } }',
        );
        return (result.data as { viewer: { enrolledCourses: { nodes: { slug: string }[] } } }).viewer.enrolledCourses.nodes.map(
          (n) => n.slug,
        );
      };
      const academy = await titles(world.academySiteId, 'A');
      const studio = await titles(world.studioSiteId, 'B');
      expect(studio).toEqual(['watercolor-basics']);
      expect(academy).not.toContain('watercolor-basics');
      expect(academy.length).toBeGreaterThanOrEqual(3);
    });

    it('gives a person without a role at the site no data there', async () => {
      const result = await runMember('A', memberContext(s.db, world.academySiteId, world.visitorId), queryFor('A'));
      const viewer = (result.data as { viewer: Record<string, { totalCount: number }> & { unreadNotificationCount: number } }).viewer;
      for (const field of Object.keys(CONNECTIONS)) expect(viewer[field]?.totalCount, field).toBe(0);
      expect(viewer.unreadNotificationCount).toBe(0);
    });
  });
}
