// The member API's viewer and every node field (SPEC 2.1, 2.2, 4.3), on both variants and both dialects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import {
  ACADEMY_ORIGIN,
  createDemoWorld,
  DAY,
  type DemoWorld,
  memberContext,
  openSchoolStore,
  runMember,
  type SchoolStore,
  TEST_NOW,
} from '../helpers/school-fixtures.js';

const ENROLLMENT_FIELDS = `
  id slug expireDate hasLifetimeAccess accessState progressPercent completedLectures totalLectures
  startedAt completedAt lastActivityAt
  lastWatchedLecture { lectureId positionSeconds title durationSeconds }
  course { id slug title subtitle coverImageUrl lectureCount }`;

const COMMON_VIEWER = `
  id name email
  enrolledCourses(first: 100) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id } } nodes { ${ENROLLMENT_FIELDS} } }
  digitalProducts { totalCount pageInfo { hasNextPage endCursor } nodes { id productId title kind purchasedAt } }
  consultingServices { totalCount nodes { id serviceId title kind durationMinutes purchasedAt } }
  eventRegistrations { totalCount nodes { id eventId title description startsAt endsAt timeZone location joinUrl registeredAt } }`;

const VARIANT_A_QUERY = `query Everything { viewer { ${COMMON_VIEWER}
  schools { name origin roles current }
  notifications { totalCount pageInfo { hasNextPage endCursor } nodes { id kind title body link read readAt createdAt } }
  unreadNotificationCount
  notificationSubscriptions { kind channel enabled updatedAt }
} }`;

const VARIANT_B_QUERY = `query Everything { viewer { ${COMMON_VIEWER} } }`;

const iso = (ms: number) => new Date(ms).toISOString();

// The shape the GraphQL result has; assertions below read it without casts at each step.
interface Json {
  [key: string]: Json | Json[] | string | number | boolean | null | undefined;
}

function viewerOf(result: { data?: Record<string, unknown> | null; errors?: readonly unknown[] }): Json {
  expect(result.errors).toBeUndefined();
  return (result.data as { viewer: Json }).viewer;
}

function nodes(connection: Json[string]): Json[] {
  return (connection as { nodes: Json[] }).nodes;
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`member API viewer (${dialect})`, () => {
    let s: SchoolStore;
    let world: DemoWorld;
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      world = await createDemoWorld(s.db);
    });
    afterAll(() => s?.close());

    describe('variant A at Demo Academy, as the demo student', () => {
      let viewer: Json;
      beforeAll(async () => {
        viewer = viewerOf(await runMember('A', memberContext(s.db, world.academySiteId, world.studentId), VARIANT_A_QUERY));
      });

      it('returns the member’s id, name and email', () => {
        expect(viewer.id).toBe(world.studentId);
        expect(viewer.name).toBe('Sam Student');
        expect(viewer.email).toBe('student@demo.test');
      });

      it('lists every school where the member holds a role, this one first, with role names', () => {
        expect(viewer.schools).toEqual([
          { name: 'Demo Academy', origin: ACADEMY_ORIGIN, roles: ['student'], current: true },
          { name: 'Demo Studio', origin: 'http://127.0.0.1:3000', roles: ['student'], current: false },
        ]);
      });

      it('returns enrolments with totalCount, paging info and edges matching nodes', () => {
        const connection = viewer.enrolledCourses as Json;
        expect(connection.totalCount).toBe(4);
        expect(connection.pageInfo).toEqual({ hasNextPage: false, endCursor: expect.any(String) });
        const edges = connection.edges as Json[];
        expect(edges.map((e) => (e.node as Json).id)).toEqual(nodes(connection).map((n) => n.id));
        expect(edges.at(-1)?.cursor).toBe((connection.pageInfo as Json).endCursor);
      });

      it('shows a lifetime enrolment with no expiry, progress and the last-watched lecture for resuming', () => {
        const node = nodes(viewer.enrolledCourses).find((n) => n.slug === 'typescript-fundamentals')!;
        expect(node).toMatchObject({
          expireDate: null,
          hasLifetimeAccess: true,
          accessState: 'ACTIVE',
          progressPercent: 50,
          completedLectures: 5,
          totalLectures: 10,
          startedAt: iso(TEST_NOW - 120 * DAY),
          completedAt: null,
          lastActivityAt: iso(TEST_NOW - 2 * DAY),
          lastWatchedLecture: {
            lectureId: expect.stringMatching(/^lec_/),
            positionSeconds: 754,
            title: 'Generics in practice',
            durationSeconds: 1140,
          },
          course: {
            id: expect.stringMatching(/^crs_/),
            slug: 'typescript-fundamentals',
            title: 'TypeScript Fundamentals',
            subtitle: 'Types, generics and the compiler, from zero to confident',
            coverImageUrl: `${ACADEMY_ORIGIN}/media/courses/typescript-fundamentals.jpg`,
            lectureCount: 10,
          },
        });
      });

      it('shows an enrolment expiring in the future as ACTIVE with its expireDate', () => {
        const node = nodes(viewer.enrolledCourses).find((n) => n.slug === 'web-accessibility-essentials')!;
        expect(node).toMatchObject({ expireDate: iso(TEST_NOW + 60 * DAY), hasLifetimeAccess: false, accessState: 'ACTIVE' });
      });

      it('shows an enrolment whose expireDate has passed as EXPIRED', () => {
        const node = nodes(viewer.enrolledCourses).find((n) => n.slug === 'sql-for-analysts')!;
        expect(node).toMatchObject({ expireDate: iso(TEST_NOW - 35 * DAY), hasLifetimeAccess: false, accessState: 'EXPIRED' });
      });

      it('shows a completed course at 100 percent with its completion time', () => {
        const node = nodes(viewer.enrolledCourses).find((n) => n.slug === 'product-photography-at-home')!;
        expect(node).toMatchObject({ progressPercent: 100, completedLectures: 4, totalLectures: 4, completedAt: iso(TEST_NOW - 70 * DAY) });
      });

      it('lists owned digital products with title, kind and purchase date', () => {
        expect((viewer.digitalProducts as Json).totalCount).toBe(2);
        expect(nodes(viewer.digitalProducts)).toEqual([
          {
            id: expect.any(String),
            productId: expect.any(String),
            title: 'Accessible Component Templates',
            kind: 'template',
            purchasedAt: iso(TEST_NOW - 25 * DAY),
          },
          {
            id: expect.any(String),
            productId: expect.any(String),
            title: 'TypeScript Cheat Sheet',
            kind: 'ebook',
            purchasedAt: iso(TEST_NOW - 100 * DAY),
          },
        ]);
      });

      it('lists consulting services with title, kind, length and purchase date', () => {
        expect(nodes(viewer.consultingServices)).toEqual([
          {
            id: expect.any(String),
            serviceId: expect.any(String),
            title: '1:1 Code Review',
            kind: 'code_review',
            durationMinutes: 45,
            purchasedAt: iso(TEST_NOW - 12 * DAY),
          },
        ]);
      });

      it('lists event registrations with start, end, time zone and place or join link', () => {
        const [online, inPerson] = nodes(viewer.eventRegistrations);
        expect(online).toMatchObject({
          title: 'Live Q&A: Migrating to TypeScript 6',
          startsAt: '2026-03-08T16:00:00.000Z',
          endsAt: '2026-03-08T17:00:00.000Z',
          timeZone: 'Europe/Berlin',
          location: null,
          joinUrl: 'https://meet.demo-academy.test/live-qa-typescript-6',
          registeredAt: iso(TEST_NOW - 4 * DAY),
        });
        expect(inPerson).toMatchObject({ title: 'Demo Academy Meetup Berlin', location: expect.stringContaining('Berlin'), joinUrl: null });
      });

      it('lists notifications newest first with kind, absolute link and read state', () => {
        const list = nodes(viewer.notifications);
        expect((viewer.notifications as Json).totalCount).toBe(6);
        expect(list[0]).toEqual({
          id: expect.stringMatching(/^ntf_/),
          kind: 'NEW_LECTURE',
          title: 'New lecture in TypeScript Fundamentals',
          body: expect.any(String),
          link: `${ACADEMY_ORIGIN}/courses/typescript-fundamentals`,
          read: false,
          readAt: null,
          createdAt: iso(TEST_NOW - 3 * 3_600_000),
        });
        const created = list.map((n) => Date.parse(n.createdAt as string));
        expect(created).toEqual([...created].sort((a, b) => b - a));
        expect(list.filter((n) => n.read === false)).toHaveLength(3);
        expect(list.find((n) => n.read === true)?.readAt).toEqual(expect.any(String));
      });

      it('counts unread notifications', () => {
        expect(viewer.unreadNotificationCount).toBe(3);
      });

      it('lists notification subscriptions with kind, channel and state', () => {
        expect(viewer.notificationSubscriptions).toEqual([
          { kind: 'COURSE_UPDATE', channel: 'EMAIL', enabled: true, updatedAt: iso(TEST_NOW - 90 * DAY) },
          { kind: 'EVENT_REMINDER', channel: 'IN_APP', enabled: true, updatedAt: iso(TEST_NOW - 90 * DAY) },
        ]);
      });
    });

    it('lists the owner’s roles at each school', async () => {
      const result = await runMember('A', memberContext(s.db, world.academySiteId, world.ownerId), '{ viewer { schools { name roles } } }');
      expect(viewerOf(result).schools).toEqual([
        { name: 'Demo Academy', roles: ['owner'] },
        { name: 'Demo Studio', roles: ['admin'] },
      ]);
    });

    it('returns an empty connection, not an error, for a member with no rows', async () => {
      const result = await runMember(
        'A',
        memberContext(s.db, world.academySiteId, world.ownerId),
        '{ viewer { enrolledCourses { totalCount nodes { slug } pageInfo { hasNextPage endCursor } } } }',
      );
      expect(viewerOf(result).enrolledCourses).toEqual({ totalCount: 0, nodes: [], pageInfo: { hasNextPage: false, endCursor: null } });
    });

    it('answers the common viewer fields on variant B at Demo Studio', async () => {
      const viewer = viewerOf(await runMember('B', memberContext(s.db, world.studioSiteId, world.visitorId), VARIANT_B_QUERY));
      expect(viewer.email).toBe('visitor@demo.test');
      expect(nodes(viewer.enrolledCourses).map((n) => n.slug)).toEqual(['logo-design-sprint', 'portrait-lighting']);
      const portrait = nodes(viewer.enrolledCourses).find((n) => n.slug === 'portrait-lighting')!;
      expect(portrait).toMatchObject({
        hasLifetimeAccess: true,
        expireDate: null,
        lastWatchedLecture: { positionSeconds: 415, title: 'Split lighting', durationSeconds: 700 },
        course: { coverImageUrl: 'http://127.0.0.1:3000/media/courses/portrait-lighting.jpg' },
      });
      expect(nodes(viewer.digitalProducts).map((n) => n.title)).toEqual(['Procreate Watercolor Brush Pack']);
      expect(nodes(viewer.consultingServices).map((n) => n.title)).toEqual(['Portfolio Review']);
      expect(nodes(viewer.eventRegistrations).map((n) => n.title)).toEqual(['Open Studio Night']);
    });

    it('returns null lastWatchedLecture for an enrolment not started yet', async () => {
      const viewer = viewerOf(
        await runMember(
          'B',
          memberContext(s.db, world.studioSiteId, world.visitorId),
          '{ viewer { enrolledCourses { nodes { slug lastWatchedLecture { lectureId } } } } }',
        ),
      );
      expect(nodes(viewer.enrolledCourses).find((n) => n.slug === 'logo-design-sprint')?.lastWatchedLecture).toBeNull();
    });

    it('refuses the inbox fields on variant B', async () => {
      for (const field of [
        'schools { name }',
        'notifications { totalCount }',
        'unreadNotificationCount',
        'notificationSubscriptions { kind }',
      ]) {
        const result = await runMember('B', memberContext(s.db, world.studioSiteId, world.studentId), `{ viewer { ${field} } }`);
        expect(result.errors?.[0]?.message, field).toMatch(/Cannot query field/);
      }
    });

    it('answers viewer with an error when the person no longer exists', async () => {
      const result = await runMember('A', memberContext(s.db, world.academySiteId, 'per_gone'), '{ viewer { id } }');
      expect(result.data).toBeNull();
      expect(result.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    });
  });
}
