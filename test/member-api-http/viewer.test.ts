// What a member reads through the GraphQL API over real HTTP (SPEC 2.1, 2.2, 4.3; CONTRACT 3; issue 3 sections
// 2 and 4): the viewer's fields for the demo student at both variants with tokens from the real flow, the
// variant A extras that variant B does not have, paging through `after` to the end, the `first`, depth and
// cost limits as GraphQL errors, and isolation: each token reads one person's rows at one site.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { person } from '../helpers/person.js';
import { DEMO_CLIENTS, getTokens } from '../helpers/token-flow.js';
import { aliases, expectGraphqlErrors, graphql, type Json, nodesOf, SITES, viewerOf } from './graphql-http.js';

const ENROLLMENT_FIELDS = `id slug expireDate hasLifetimeAccess accessState progressPercent completedLectures totalLectures
  startedAt completedAt lastActivityAt lastWatchedLecture { lectureId positionSeconds title durationSeconds }
  course { id slug title subtitle coverImageUrl lectureCount }`;

const COMMON_VIEWER = `id name email
  enrolledCourses(first: 100) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id } } nodes { ${ENROLLMENT_FIELDS} } }
  digitalProducts { totalCount nodes { id productId title kind purchasedAt } }
  consultingServices { totalCount nodes { id serviceId title kind durationMinutes purchasedAt } }
  eventRegistrations { totalCount nodes { id eventId title description startsAt endsAt timeZone location joinUrl registeredAt } }`;

const VARIANT_A_QUERY = `query Everything { viewer { ${COMMON_VIEWER}
  schools { name origin roles current }
  notifications(first: 100) { totalCount nodes { id kind title body link read readAt createdAt } }
  unreadNotificationCount
  notificationSubscriptions { kind channel enabled updatedAt } } }`;

const VARIANT_B_QUERY = `query Everything { viewer { ${COMMON_VIEWER} } }`;

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

function bySlug(viewer: Json, slug: string): Json {
  const node = nodesOf(viewer.enrolledCourses).find((n) => n.slug === slug);
  expect(node, slug).toBeDefined();
  return node as Json;
}

/** Every id in a viewer answer, connection by connection. */
function rowIds(viewer: Json): Record<string, string[]> {
  const ids: Record<string, string[]> = {};
  for (const key of ['enrolledCourses', 'digitalProducts', 'consultingServices', 'eventRegistrations', 'notifications']) {
    if (viewer[key]) ids[key] = nodesOf(viewer[key]).map((n) => String(n.id));
  }
  return ids;
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`member GraphQL API viewer over HTTP (${dialect})`, () => {
    let server: DemoServer;
    let token: { academy: string; studio: string; lecturer: string; visitor: string };
    let now: number;

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      const student = person('student');
      token = {
        academy: (await getTokens(server, DEMO_CLIENTS.academyApp, { who: student })).access_token,
        studio: (await getTokens(server, DEMO_CLIENTS.studioApp, { who: student })).access_token,
        lecturer: (await getTokens(server, DEMO_CLIENTS.academyApp, { who: person('lecturer') })).access_token,
        visitor: (await getTokens(server, DEMO_CLIENTS.studioApp, { who: person('visitor') })).access_token,
      };
      now = server.clock.now();
    });
    afterAll(() => server?.close());

    describe('variant A (Demo Academy, /member/graphql) as the demo student', () => {
      let viewer: Json;
      beforeAll(async () => {
        viewer = viewerOf(await graphql(server, 'academy', token.academy, VARIANT_A_QUERY));
      });

      it('returns the member’s id, name and email', () => {
        expect(viewer.id).toEqual(expect.any(String));
        expect(viewer.name).toEqual(expect.any(String));
        expect(viewer.email).toBe('student@demo.test');
      });

      it('returns schools: every site where the member holds a role, this one first, with role names', () => {
        expect(viewer.schools).toEqual([
          { name: 'Demo Academy', origin: server.academy, roles: ['student'], current: true },
          { name: 'Demo Studio', origin: server.studio, roles: ['student'], current: false },
        ]);
      });

      it('returns enrolledCourses with totalCount, pageInfo and edges whose cursors match the nodes', () => {
        const connection = viewer.enrolledCourses as Json;
        expect(connection.totalCount).toBeGreaterThanOrEqual(3);
        expect(nodesOf(connection)).toHaveLength(connection.totalCount as number);
        expect(connection.pageInfo).toEqual({ hasNextPage: false, endCursor: expect.any(String) });
        const edges = connection.edges as Json[];
        expect(edges.map((e) => (e.node as Json).id)).toEqual(nodesOf(connection).map((n) => n.id));
        expect(edges.at(-1)?.cursor).toBe((connection.pageInfo as Json).endCursor);
      });

      it('shows lifetime access with no expireDate, and the last-watched lecture with its position (SPEC 2.2)', () => {
        expect(bySlug(viewer, 'typescript-fundamentals')).toMatchObject({
          expireDate: null,
          hasLifetimeAccess: true,
          accessState: 'ACTIVE',
          progressPercent: 50,
          completedLectures: 5,
          totalLectures: 10,
          startedAt: expect.stringMatching(ISO),
          lastWatchedLecture: { lectureId: expect.any(String), positionSeconds: 754, title: 'Generics in practice', durationSeconds: 1140 },
          course: {
            slug: 'typescript-fundamentals',
            title: 'TypeScript Fundamentals',
            coverImageUrl: `${server.academy}/media/courses/typescript-fundamentals.jpg`,
            lectureCount: 10,
          },
        });
      });

      it('shows an expiry in the future as ACTIVE and one in the past as EXPIRED', () => {
        const future = bySlug(viewer, 'web-accessibility-essentials');
        expect(future).toMatchObject({ hasLifetimeAccess: false, accessState: 'ACTIVE', expireDate: expect.stringMatching(ISO) });
        expect(Date.parse(future.expireDate as string)).toBeGreaterThan(now);
        const past = bySlug(viewer, 'sql-for-analysts');
        expect(past).toMatchObject({ hasLifetimeAccess: false, accessState: 'EXPIRED', expireDate: expect.stringMatching(ISO) });
        expect(Date.parse(past.expireDate as string)).toBeLessThan(now);
      });

      it('returns digitalProducts, consultingServices and eventRegistrations of the member', () => {
        expect(nodesOf(viewer.digitalProducts).map((n) => n.title)).toEqual(['Accessible Component Templates', 'TypeScript Cheat Sheet']);
        expect(nodesOf(viewer.consultingServices)).toEqual([
          expect.objectContaining({
            title: '1:1 Code Review',
            kind: 'code_review',
            durationMinutes: 45,
            purchasedAt: expect.stringMatching(ISO),
          }),
        ]);
        const events = nodesOf(viewer.eventRegistrations);
        expect(events).toHaveLength(2);
        for (const event of events) expect(event).toMatchObject({ startsAt: expect.stringMatching(ISO), timeZone: expect.any(String) });
        // The place or the join link, because the member is registered.
        expect(events.some((e) => typeof e.joinUrl === 'string')).toBe(true);
        expect(events.some((e) => typeof e.location === 'string')).toBe(true);
      });

      it('returns notifications newest first, unreadNotificationCount and notificationSubscriptions', () => {
        const inbox = nodesOf(viewer.notifications);
        expect(inbox.length).toBeGreaterThanOrEqual(5);
        const created = inbox.map((n) => Date.parse(n.createdAt as string));
        expect(created).toEqual([...created].sort((a, b) => b - a));
        expect(viewer.unreadNotificationCount).toBe(inbox.filter((n) => n.read === false).length);
        expect(viewer.unreadNotificationCount).toBeGreaterThanOrEqual(3);
        expect(inbox[0]?.link).toEqual(expect.stringMatching(new RegExp(`^${server.academy}/`)));
        expect(viewer.notificationSubscriptions).toEqual([
          { kind: 'COURSE_UPDATE', channel: 'EMAIL', enabled: true, updatedAt: expect.stringMatching(ISO) },
          { kind: 'EVENT_REMINDER', channel: 'IN_APP', enabled: true, updatedAt: expect.stringMatching(ISO) },
        ]);
      });

      it('carries no order fields on purchases (SPEC 2.2 rule), as introspection shows', async () => {
        const query = `{ p: __type(name: "PurchasedDigitalProduct") { fields { name } } c: __type(name: "PurchasedConsultingService") { fields { name } } }`;
        const data = (await graphql(server, 'academy', token.academy, query)).json?.data as Record<string, { fields: { name: string }[] }>;
        for (const type of [data.p, data.c]) {
          for (const { name } of type?.fields ?? []) expect(name).not.toMatch(/order|coupon|refund|invoice/i);
        }
      });
    });

    describe('variant B (Demo Studio, /account/graphql) as the demo student', () => {
      it('returns the common viewer fields', async () => {
        const viewer = viewerOf(await graphql(server, 'studio', token.studio, VARIANT_B_QUERY));
        expect(viewer.email).toBe('student@demo.test');
        expect(nodesOf(viewer.enrolledCourses).map((n) => n.slug)).toEqual(['watercolor-basics']);
        expect(bySlug(viewer, 'watercolor-basics')).toMatchObject({
          hasLifetimeAccess: false,
          accessState: 'ACTIVE',
          expireDate: expect.stringMatching(ISO),
          lastWatchedLecture: { positionSeconds: 205, title: 'Flat and graded washes' },
          course: { coverImageUrl: `${server.studio}/media/courses/watercolor-basics.jpg` },
        });
        expect((viewer.digitalProducts as Json).totalCount).toBe(0);
        expect(nodesOf(viewer.eventRegistrations).map((n) => n.title)).toEqual(['Open Studio Night']);
      });

      it('refuses the variant A fields as unknown fields (schools, notifications, unreadNotificationCount, notificationSubscriptions)', async () => {
        for (const field of [
          'schools { name }',
          'notifications { totalCount }',
          'unreadNotificationCount',
          'notificationSubscriptions { kind }',
        ]) {
          const [error] = expectGraphqlErrors(await graphql(server, 'studio', token.studio, `{ viewer { ${field} } }`), 400);
          expect(error?.message, field).toMatch(/^Cannot query field "\w+" on type "Viewer"\./);
        }
      });

      it('has no mutation type: a mutation is refused with a GraphQL error and no data', async () => {
        const answer = await graphql(server, 'studio', token.studio, 'mutation { markAllNotificationsRead { markedCount } }');
        // graphql 16 refuses it at execution (17 moves this to validation), so the status is 200 with data null.
        expect(answer.status).toBe(200);
        expect(answer.json?.data).toBeNull();
        expect(answer.json?.errors?.map((e) => e.message)).toEqual(['Schema is not configured to execute mutation operation.']);
        const introspected = await graphql(server, 'studio', token.studio, '{ __schema { mutationType { name } } }');
        expect(introspected.json?.data).toEqual({ __schema: { mutationType: null } });
      });
    });

    for (const site of SITES) {
      describe(`paging and limits at Demo ${site === 'academy' ? 'Academy' : 'Studio'}`, () => {
        const tokenOf = () => (site === 'academy' ? token.academy : token.visitor);

        it('pages through enrolledCourses with first: 1 and after to the end, matching one full page', async () => {
          const all = nodesOf(
            viewerOf(await graphql(server, site, tokenOf(), '{ viewer { enrolledCourses(first: 100) { nodes { id } } } }')).enrolledCourses,
          ).map((n) => n.id);
          expect(all.length).toBeGreaterThanOrEqual(2);
          const query =
            'query Page($after: String) { viewer { enrolledCourses(first: 1, after: $after) { totalCount nodes { id } pageInfo { hasNextPage endCursor } } } }';
          const seen: unknown[] = [];
          let after: string | null = null;
          let hasNextPage = true;
          for (let i = 0; hasNextPage && i <= all.length; i++) {
            const page = viewerOf(await graphql(server, site, tokenOf(), query, { variables: { after } })).enrolledCourses as Json;
            expect(page.totalCount).toBe(all.length);
            expect(nodesOf(page)).toHaveLength(1);
            seen.push(...nodesOf(page).map((n) => n.id));
            const info = page.pageInfo as { hasNextPage: boolean; endCursor: string };
            ({ hasNextPage } = info);
            after = info.endCursor;
          }
          expect(hasNextPage).toBe(false);
          expect(seen).toEqual(all);
          // After the last item: an empty page, with nothing after it.
          const end = viewerOf(await graphql(server, site, tokenOf(), query, { variables: { after } })).enrolledCourses as Json;
          expect(nodesOf(end)).toEqual([]);
          expect(end.pageInfo).toEqual({ hasNextPage: false, endCursor: null });
        });

        it('refuses first: 101 with a GraphQL error naming the limit', async () => {
          const answer = await graphql(server, site, tokenOf(), '{ viewer { enrolledCourses(first: 101) { nodes { slug } } } }');
          expect(answer.status).toBe(200);
          expect(answer.json?.data).toBeNull();
          const [error] = answer.json?.errors ?? [];
          expect(error?.message).toContain('100');
          expect(error?.extensions?.code).toBe('BAD_USER_INPUT');
          expect(error?.path).toEqual(['viewer', 'enrolledCourses']);
        });

        it('refuses a malformed after cursor with a GraphQL error', async () => {
          const answer = await graphql(server, site, tokenOf(), '{ viewer { enrolledCourses(after: "not a cursor") { nodes { slug } } } }');
          expect(answer.json?.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
        });

        it('refuses a query nested deeper than the depth limit with 400 QUERY_TOO_DEEP', async () => {
          // The real schema is at most 7 deep; deeper selections are refused whatever they name.
          const query = '{ viewer { enrolledCourses { edges { node { course { a { b { c { d } } } } } } } } }';
          const errors = expectGraphqlErrors(await graphql(server, site, tokenOf(), query), 400);
          expect(errors.find((e) => e.extensions?.code === 'QUERY_TOO_DEEP')?.message).toBe(
            'The operation is nested 9 levels deep; the maximum depth is 8.',
          );
        });

        it('refuses a query above the cost limit with 400 QUERY_TOO_COSTLY, costing first at the variable’s value', async () => {
          const query = `query Q($n: Int) { viewer { enrolledCourses(first: $n) { nodes { ${aliases('slug', 50)} } } } }`;
          const [error] = expectGraphqlErrors(await graphql(server, site, tokenOf(), query, { variables: { n: 100 } }), 400);
          expect(error?.extensions?.code).toBe('QUERY_TOO_COSTLY');
          expect(error?.message).toContain('costs 5102');
          // The same selection with a small page is affordable.
          expect((await graphql(server, site, tokenOf(), query, { variables: { n: 2 } })).status).toBe(200);
        });
      });
    }

    describe('isolation: a token reads one person’s rows at one site', () => {
      it('at Demo Studio, the visitor and the student see only their own rows', async () => {
        const visitor = viewerOf(await graphql(server, 'studio', token.visitor, VARIANT_B_QUERY));
        const student = viewerOf(await graphql(server, 'studio', token.studio, VARIANT_B_QUERY));
        expect(visitor.email).toBe('visitor@demo.test');
        expect(visitor.id).not.toBe(student.id);
        expect(
          nodesOf(visitor.enrolledCourses)
            .map((n) => n.slug)
            .sort(),
        ).toEqual(['logo-design-sprint', 'portrait-lighting']);
        expect(nodesOf(visitor.digitalProducts).map((n) => n.title)).toEqual(['Procreate Watercolor Brush Pack']);
        expect(nodesOf(student.enrolledCourses).map((n) => n.slug)).toEqual(['watercolor-basics']);
        expect(nodesOf(student.digitalProducts)).toEqual([]);
        const mine = rowIds(visitor);
        const theirs = rowIds(student);
        for (const key of Object.keys(mine)) for (const id of mine[key] ?? []) expect(theirs[key], key).not.toContain(id);
      });

      it('at Demo Academy, the lecturer never sees the student’s rows, nor the student the lecturer’s', async () => {
        const lecturer = viewerOf(await graphql(server, 'academy', token.lecturer, VARIANT_A_QUERY));
        const student = viewerOf(await graphql(server, 'academy', token.academy, VARIANT_A_QUERY));
        expect(lecturer.email).toBe('lecturer@demo.test');
        expect(nodesOf(lecturer.enrolledCourses).map((n) => n.slug)).toEqual(['public-speaking-for-engineers']);
        expect(nodesOf(student.enrolledCourses).map((n) => n.slug)).not.toContain('public-speaking-for-engineers');
        expect(lecturer.schools).toEqual([{ name: 'Demo Academy', origin: server.academy, roles: ['lecturer'], current: true }]);
        const mine = rowIds(lecturer);
        const theirs = rowIds(student);
        for (const key of Object.keys(mine)) for (const id of mine[key] ?? []) expect(theirs[key], key).not.toContain(id);
      });

      it('the same person reads different rows at each site: Demo Academy’s enrolments never appear at Demo Studio', async () => {
        const academy = viewerOf(await graphql(server, 'academy', token.academy, VARIANT_A_QUERY));
        const studio = viewerOf(await graphql(server, 'studio', token.studio, VARIANT_B_QUERY));
        expect(academy.id).toBe(studio.id);
        const studioIds = rowIds(studio);
        for (const [key, ids] of Object.entries(rowIds(academy))) for (const id of ids) expect(studioIds[key] ?? [], key).not.toContain(id);
      });
    });
  });
}
