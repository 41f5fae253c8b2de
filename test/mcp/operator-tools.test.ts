// SPEC 4.4, 5.2, 5.5: an operator token (the vendor client demo-vendor, authorized by an owner or admin)
// adds one tool per operator scope it holds: courses, students and events of its site, drafts included,
// and creating a course draft that stays unpublished and is returned as stored.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countAllCourses } from '../../src/school/operator-catalogue.repository.js';
import { countAllEvents } from '../../src/school/operator-events.repository.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { connectMcp, demoSiteIds, errorText, structured, toolNames } from '../helpers/mcp.js';
import { person } from '../helpers/person.js';
import { type DemoClient, getTokens } from '../helpers/token-flow.js';

const PUBLIC_TOOLS = ['get_course', 'get_school', 'list_upcoming_events', 'search_courses'];
const OPERATOR_SCOPE = 'openid courses:read students:read events:read courses:write curriculum:read';

const DEMO_VENDOR_AT = (site: 'academy' | 'studio'): DemoClient => ({
  site,
  clientId: 'demo-vendor',
  redirectUri: 'http://127.0.0.1:61000/callback',
});

interface Paged<T> {
  total: number;
  nextCursor: string | null;
  items: T[];
}

interface Course {
  id: string;
  slug: string;
  title: string;
  published: boolean;
  priceCents: number;
  currency: string;
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`operator tools (${dialect})`, () => {
    let server: DemoServer;
    let ids: { academy: string; studio: string };
    let operator: Client;
    let coursesOnly: Client;
    let studioOperator: Client;
    beforeAll(async () => {
      server = await startDemoServer(dialect);
      ids = await demoSiteIds(server);
      const owner = person('owner');
      const full = await getTokens(server, DEMO_VENDOR_AT('academy'), { scope: OPERATOR_SCOPE, who: owner });
      const narrow = await getTokens(server, DEMO_VENDOR_AT('academy'), { scope: 'courses:read', who: owner });
      const atStudio = await getTokens(server, DEMO_VENDOR_AT('studio'), { scope: OPERATOR_SCOPE, who: owner });
      operator = await connectMcp(server.academy, full.access_token);
      coursesOnly = await connectMcp(server.academy, narrow.access_token);
      studioOperator = await connectMcp(server.studio, atStudio.access_token);
    });
    afterAll(async () => {
      for (const client of [operator, coursesOnly, studioOperator]) await client?.close();
      await server?.close();
    });

    it('lists the public tools plus one operator tool per granted scope, and no member tools', async () => {
      expect(await toolNames(operator)).toEqual(
        [
          ...PUBLIC_TOOLS,
          'create_course_draft',
          'get_course_outline',
          'get_student',
          'list_course_enrollments',
          'list_courses',
          'list_event_registrations',
          'list_events',
          'list_students',
          'publish_course',
          'unpublish_course',
        ].sort(),
      );
      expect(await toolNames(coursesOnly)).toEqual([...PUBLIC_TOOLS, 'list_courses'].sort());
      // Variant B has the same operator tools.
      expect(await toolNames(studioOperator)).toEqual(await toolNames(operator));
    });

    it('list_courses includes unpublished drafts, with the total of all the site’s courses', async () => {
      const answer = structured<Paged<Course>>(await operator.callTool({ name: 'list_courses', arguments: { limit: 100 } }));
      expect(answer.total).toBe(await countAllCourses({ db: server.store.db, siteId: ids.academy }));
      expect(answer.items.length).toBe(answer.total);
      expect(answer.items.some((c) => !c.published)).toBe(true);
      expect(answer.items.map((c) => c.slug)).toContain('nodejs-performance-workshop');
    });

    it('list_courses at another site shows that site’s courses only', async () => {
      const answer = structured<Paged<Course>>(await studioOperator.callTool({ name: 'list_courses', arguments: { limit: 100 } }));
      expect(answer.total).toBe(await countAllCourses({ db: server.store.db, siteId: ids.studio }));
      expect(answer.items.map((c) => c.slug)).not.toContain('typescript-fundamentals');
    });

    it('list_students lists the site’s students with enrolment counts and nothing secret', async () => {
      const answer = structured<Paged<Record<string, unknown>>>(await operator.callTool({ name: 'list_students', arguments: {} }));
      const rows = await server.store.db
        .selectFrom('site_roles')
        .where('site_id', '=', ids.academy)
        .where('role', '=', 'student')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      expect(answer.total).toBe(Number(rows.n));
      expect(answer.items.map((s) => s.email)).toContain('student@demo.test');
      // The owner and the lecturer are not students at Demo Academy.
      expect(answer.items.map((s) => s.email)).not.toContain('owner@demo.test');
      for (const student of answer.items) {
        expect(Object.keys(student).sort()).toEqual(['email', 'enrollmentCount', 'id', 'name', 'studentSince']);
      }
      const sam = answer.items.find((s) => s.email === 'student@demo.test');
      expect(sam?.enrollmentCount).toBe(4);
    });

    it('list_events pages every event, private and unpublished ones too, with registration counts', async () => {
      const seen: { slug: string; published: boolean; isPublic: boolean; registrationCount: number }[] = [];
      let cursor: string | null = null;
      do {
        const page: Paged<{ slug: string; published: boolean; isPublic: boolean; registrationCount: number }> = structured(
          await operator.callTool({ name: 'list_events', arguments: { limit: 2, ...(cursor ? { cursor } : {}) } }),
        );
        expect(page.total).toBe(await countAllEvents({ db: server.store.db, siteId: ids.academy }));
        seen.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor !== null);
      expect(seen.length).toBe(await countAllEvents({ db: server.store.db, siteId: ids.academy }));
      expect(seen.some((e) => !e.published)).toBe(true);
      expect(seen.some((e) => !e.isPublic)).toBe(true);
      expect(seen.reduce((sum, e) => sum + e.registrationCount, 0)).toBeGreaterThan(0);
    });

    it('create_course_draft creates an unpublished course, returns it re-read, and the public never sees it', async () => {
      const before = await countAllCourses({ db: server.store.db, siteId: ids.academy });
      const created = structured<{ course: Course; _note: string }>(
        await operator.callTool({
          name: 'create_course_draft',
          arguments: { title: 'Kysely in Practice!', subtitle: 'Typed SQL', description: 'Draft outline.' },
        }),
      );
      expect(created.course).toMatchObject({ slug: 'kysely-in-practice', title: 'Kysely in Practice!', published: false, priceCents: 0 });
      expect(created.course.currency).toBe('EUR');
      const row = await server.store.db
        .selectFrom('courses')
        .where('id', '=', created.course.id)
        .select(['site_id', 'published', 'slug'])
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ site_id: ids.academy, published: 0, slug: 'kysely-in-practice' });
      expect(await countAllCourses({ db: server.store.db, siteId: ids.academy })).toBe(before + 1);

      const anonymous = await connectMcp(server.academy);
      try {
        const search = structured<Paged<Course>>(await anonymous.callTool({ name: 'search_courses', arguments: { query: 'kysely' } }));
        expect(search.total).toBe(0);
        expect(errorText(await anonymous.callTool({ name: 'get_course', arguments: { slug: 'kysely-in-practice' } }))).toMatch(
          /no published course/,
        );
      } finally {
        await anonymous.close();
      }
      const listed = structured<Paged<Course>>(await operator.callTool({ name: 'list_courses', arguments: { limit: 1 } }));
      expect(listed.items[0]?.id).toBe(created.course.id);
    });

    it('create_course_draft refuses a slug the site already uses, saying what to do, and accepts it at another site', async () => {
      const text = errorText(
        await operator.callTool({ name: 'create_course_draft', arguments: { title: 'Again', slug: 'typescript-fundamentals' } }),
      );
      expect(text).toMatch(/already has a course with the slug "typescript-fundamentals".*another slug/);
      const elsewhere = structured<{ course: Course }>(
        await studioOperator.callTool({
          name: 'create_course_draft',
          arguments: { title: 'TS for artists', slug: 'typescript-fundamentals' },
        }),
      );
      expect(elsewhere.course).toMatchObject({ slug: 'typescript-fundamentals', published: false });
    });

    it('create_course_draft validates its input with a message naming the field', async () => {
      expect(errorText(await operator.callTool({ name: 'create_course_draft', arguments: { title: 'X', slug: 'Not A Slug' } }))).toMatch(
        /slug/,
      );
      expect(errorText(await operator.callTool({ name: 'create_course_draft', arguments: { title: '!!!' } }))).toMatch(/pass a slug/);
    });
  });
}
