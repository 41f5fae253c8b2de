// school/school-read-cache.ts, members' side: a member's page of enrolments (the member API's viewer
// query, the list_my_enrollments tool) is kept between requests, yet an operator's change to the member's
// enrolments shows at the very next request; access that ends while a page is kept shows as ended; one
// member's page is never another's; and while no node can hear another (PostgreSQL without Redis) nothing
// is kept. Over real HTTP: the operator API and /member/graphql with tokens from the real flow, /mcp as a
// stateless client calls it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { progressPercent } from '../../src/school/enrollments.repository.js';
import { TTL_MS } from '../../src/school/school-read-cache.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { skipDialect, type TestDialect } from '../helpers/dialects.js';
import { mcpPost, personId, toolCall } from '../helpers/mcp.js';
import { ALL_REST_SCOPES, call, VENDOR } from '../helpers/operator-api.js';
import { DEMO, person } from '../helpers/person.js';
import { REDIS_URL, redisAvailable } from '../helpers/redis.js';
import { DEMO_CLIENTS, getTokens } from '../helpers/token-flow.js';
import { GRAPHQL_PATH, type Json, send } from './graphql-http.js';

const redis = await redisAvailable();

/** Other test files' servers share this Redis: their writes' signals would empty these caches mid-test. */
const OWN_REDIS = { REDIS_URL, REDIS_PREFIX: `learning-cache-test-${process.pid}` };

const deployments: Array<{ name: string; dialect: TestDialect; env: Record<string, string>; cached: boolean; skip: boolean }> = [
  { name: 'SQLite', dialect: 'sqlite', env: {}, cached: true, skip: skipDialect('sqlite') },
  { name: 'PostgreSQL with Redis', dialect: 'postgres', env: OWN_REDIS, cached: true, skip: skipDialect('postgres') || !redis },
  { name: 'PostgreSQL without Redis', dialect: 'postgres', env: {}, cached: false, skip: skipDialect('postgres') },
];

interface ViewerEnrollment {
  slug: string;
  expireDate: string | null;
  hasLifetimeAccess: boolean;
  accessState: string;
}

interface ToolEnrollment {
  id: string;
  course: { slug: string };
  accessExpiresAt: string | null;
  hasLifetimeAccess: boolean;
  accessState: string;
}

const VIEWER_QUERY = '{ viewer { enrolledCourses(first: 20) { nodes { slug expireDate hasLifetimeAccess accessState } } } }';

interface ProgressEnrollment {
  slug: string;
  progressPercent: number;
  completedLectures: number;
  course: { id: string; lectureCount: number };
  lastWatchedLecture: { lectureId: string; title: string } | null;
}

const PROGRESS_QUERY =
  '{ viewer { enrolledCourses(first: 20) { nodes { slug progressPercent completedLectures course { id lectureCount } lastWatchedLecture { lectureId title } } } } }';

for (const deployment of deployments) {
  describe.skipIf(deployment.skip)(`the member learning cache (${deployment.name})`, () => {
    let server: DemoServer;
    let operator: string;
    let student: string;
    let studentId: string;

    beforeAll(async () => {
      server = await startDemoServer(deployment.dialect, { env: deployment.env });
      operator = (await getTokens(server, VENDOR('academy'), { scope: ALL_REST_SCOPES, who: person('owner') })).access_token;
      student = (await getTokens(server, DEMO_CLIENTS.academyApp, { scope: 'openid account:read', who: person('student') })).access_token;
      studentId = await personId(server, DEMO.student.email);
    });
    afterAll(() => server?.close());

    const viewer = async (token: string): Promise<ViewerEnrollment[]> => {
      const answer = await send(`${server.academy}${GRAPHQL_PATH.academy}`, { query: VIEWER_QUERY }, { token });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.json?.errors).toBeUndefined();
      const viewerData = answer.json?.data?.viewer as Json;
      return (viewerData.enrolledCourses as Json).nodes as unknown as ViewerEnrollment[];
    };
    const tool = async (token: string): Promise<{ total: number; items: ToolEnrollment[] }> => {
      const answer = await mcpPost(server.academy, toolCall('list_my_enrollments', {}), { token });
      expect(answer.status).toBe(200);
      const result = (answer.body as { result: { isError?: boolean; structuredContent: { total: number; items: ToolEnrollment[] } } })
        .result;
      expect(result.isError).toBeFalsy();
      return result.structuredContent;
    };
    const hits = () => server.app.services.learning.stats.hits;

    /** A course of the academy the student is not enrolled in yet, new for each test. */
    let serial = 0;
    const newCourse = async (): Promise<{ id: string; slug: string }> => {
      const slug = `learning-cache-${process.pid}-${serial++}`;
      const created = await call(server.academy, 'POST', '/courses', operator, { title: `Course ${slug}`, slug });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return { id: (created.body.course as { id: string }).id, slug };
    };
    const enroll = async (courseId: string, access: Record<string, unknown>): Promise<string> => {
      const granted = await call(server.academy, 'POST', '/enrollments', operator, { studentId, courseId, ...access });
      expect(granted.status, JSON.stringify(granted.body)).toBe(201);
      return (granted.body.enrollment as { id: string }).id;
    };

    it(`${deployment.cached ? 'answers' : 'never answers'} a member's repeated viewer query and list_my_enrollments from memory, and shows an operator's change at the next request`, async () => {
      const course = await newCourse();
      const enrollmentId = await enroll(course.id, { expiresAt: new Date(server.clock.now() + 30 * 86_400_000).toISOString() });
      const ofCourse = (list: ViewerEnrollment[]) => list.find((e) => e.slug === course.slug);

      expect(ofCourse(await viewer(student))?.hasLifetimeAccess).toBe(false);
      let before = hits();
      expect(ofCourse(await viewer(student))?.hasLifetimeAccess).toBe(false);
      expect(hits() - before).toBe(deployment.cached ? 1 : 0);

      const listed = (await tool(student)).items.find((e) => e.course.slug === course.slug);
      expect(listed?.hasLifetimeAccess).toBe(false);
      before = hits();
      await tool(student);
      expect(hits() - before).toBe(deployment.cached ? 1 : 0);

      const changed = await call(
        server.academy,
        'PATCH',
        `/enrollments/${enrollmentId}`,
        operator,
        { lifetime: true },
        { 'if-match': '*' },
      );
      expect(changed.status, JSON.stringify(changed.body)).toBe(200);
      expect(ofCourse(await viewer(student))).toMatchObject({ hasLifetimeAccess: true, expireDate: null, accessState: 'ACTIVE' });
      expect((await tool(student)).items.find((e) => e.course.slug === course.slug)).toMatchObject({
        hasLifetimeAccess: true,
        accessExpiresAt: null,
      });
    });

    it(`${deployment.cached ? 'keeps' : 'never keeps'} the per-enrolment facts of a repeated query (lecture counts, completed lectures, the last lecture) and shows an operator's curriculum change at the next request`, async () => {
      const progress = async (): Promise<ProgressEnrollment[]> => {
        const answer = await send(`${server.academy}${GRAPHQL_PATH.academy}`, { query: PROGRESS_QUERY }, { token: student });
        expect(answer.json?.errors).toBeUndefined();
        const viewerData = answer.json?.data?.viewer as Json;
        return (viewerData.enrolledCourses as Json).nodes as unknown as ProgressEnrollment[];
      };
      const first = await progress();
      const watched = first.find((e) => e.lastWatchedLecture !== null && e.completedLectures > 0);
      if (!watched?.lastWatchedLecture) throw new Error('the demo student has no enrolment with progress and a last lecture');
      const stats = server.app.services.learning.stats;
      const [hitsBefore, missesBefore] = [stats.hits, stats.misses];
      expect(await progress()).toEqual(first);
      // The page and the three batches (lecture counts, completed lectures, lectures) all from memory.
      if (deployment.cached) {
        expect(stats.hits - hitsBefore).toBeGreaterThanOrEqual(4);
        expect(stats.misses).toBe(missesBefore);
      } else expect(stats.hits).toBe(hitsBefore);

      const title = `Renamed lecture ${process.pid}`;
      const renamed = await call(
        server.academy,
        'PATCH',
        `/lectures/${watched.lastWatchedLecture.lectureId}`,
        operator,
        { title },
        { 'if-match': '*' },
      );
      expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
      expect((await progress()).find((e) => e.slug === watched.slug)?.lastWatchedLecture?.title).toBe(title);

      const outline = await call(server.academy, 'GET', `/courses/${watched.course.id}/curriculum`, operator);
      const sectionId = ((outline.body.curriculum as { sections: Array<{ id: string }> }).sections[0] as { id: string }).id;
      const added = await call(server.academy, 'POST', `/sections/${sectionId}/lectures`, operator, {
        title: 'One more',
        durationSeconds: 60,
      });
      expect(added.status, JSON.stringify(added.body)).toBe(201);
      const after = (await progress()).find((e) => e.slug === watched.slug);
      expect(after?.course.lectureCount).toBe(watched.course.lectureCount + 1);
      expect(after?.progressPercent).toBe(progressPercent(watched.completedLectures, watched.course.lectureCount + 1));
    });

    it('shows access that ended while a page was kept as EXPIRED: the access state is worked out at every answer', async () => {
      const course = await newCourse();
      const endsAt = server.clock.now() + TTL_MS / 2;
      await enroll(course.id, { expiresAt: new Date(endsAt).toISOString() });
      expect((await viewer(student)).find((e) => e.slug === course.slug)?.accessState).toBe('ACTIVE');
      expect((await tool(student)).items.find((e) => e.course.slug === course.slug)?.accessState).toBe('ACTIVE');

      server.clock.advance(TTL_MS / 2 + 1);
      const before = hits();
      expect((await viewer(student)).find((e) => e.slug === course.slug)?.accessState).toBe('EXPIRED');
      expect((await tool(student)).items.find((e) => e.course.slug === course.slug)?.accessState).toBe('EXPIRED');
      expect(hits() - before).toBe(deployment.cached ? 2 : 0);
    });

    it("never answers one member with another's kept page", async () => {
      const owner = (await getTokens(server, DEMO_CLIENTS.academyApp, { scope: 'openid account:read', who: person('owner') })).access_token;
      const mine = await viewer(student);
      expect(mine.length).toBeGreaterThan(0);
      await viewer(student);
      const ownerId = await personId(server, DEMO.owner.email);
      const ownersOwn = await server.store.db
        .selectFrom('enrollments')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('site_id', '=', server.siteIdOf(server.academy))
        .where('person_id', '=', ownerId)
        .executeTakeFirstOrThrow();
      expect((await viewer(owner)).length).toBe(Number(ownersOwn.n));
      expect((await tool(owner)).total).toBe(Number(ownersOwn.n));
      expect(Number(ownersOwn.n)).not.toBe(mine.length);
    });

    it('keeps only the first page of the default size (what apps ask for again and again): another size or a later page is read every time', async () => {
      const query = (after: string | null) =>
        `{ viewer { enrolledCourses(first: 1${after ? `, after: "${after}"` : ''}) { nodes { slug } pageInfo { endCursor } } } }`;
      const page = async (after: string | null) => {
        const answer = await send(`${server.academy}${GRAPHQL_PATH.academy}`, { query: query(after) }, { token: student });
        expect(answer.json?.errors).toBeUndefined();
        const viewerData = answer.json?.data?.viewer as Json;
        return (viewerData.enrolledCourses as Json).pageInfo as Json;
      };
      const before = hits();
      const misses = server.app.services.learning.stats.misses;
      const first = await page(null);
      await page(null);
      await page(String(first.endCursor));
      await page(String(first.endCursor));
      await mcpPost(server.academy, toolCall('list_my_enrollments', { limit: 2 }), { token: student });
      await mcpPost(server.academy, toolCall('list_my_enrollments', { limit: 2 }), { token: student });
      expect(hits()).toBe(before);
      expect(server.app.services.learning.stats.misses).toBe(misses);
    });

    it('keeps a page no longer than its time to live, whatever changed the enrolments', async () => {
      const course = await newCourse();
      const enrollmentId = await enroll(course.id, { expiresAt: new Date(server.clock.now() + 30 * 86_400_000).toISOString() });
      expect((await viewer(student)).find((e) => e.slug === course.slug)?.hasLifetimeAccess).toBe(false);
      // Written behind the service's back (as a seed or a migration would), so no signal tells the cache.
      await server.store.db.updateTable('enrollments').set({ lifetime_access: 1 }).where('id', '=', enrollmentId).execute();
      expect((await viewer(student)).find((e) => e.slug === course.slug)?.hasLifetimeAccess).toBe(!deployment.cached);
      server.clock.advance(TTL_MS);
      expect((await viewer(student)).find((e) => e.slug === course.slug)?.hasLifetimeAccess).toBe(true);
    });
  });
}
