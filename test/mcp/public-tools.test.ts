// SPEC 1 and 5.4: anonymous callers get the public tools over the site's public catalogue, and nothing
// unpublished ever appears. Lists page with a cursor to their end and say how many there are in all.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  findCourseOutline,
  findSchoolProfile,
  listUpcomingPublicEvents,
  searchPublishedCourses,
} from '../../src/school/catalogue.repository.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { connectMcp, demoSiteIds, errorText, structured, toolNames } from '../helpers/mcp.js';

const PUBLIC_TOOLS = ['get_course', 'get_school', 'list_upcoming_events', 'search_courses'];

interface PagedAnswer<T> {
  total: number;
  nextCursor: string | null;
  items: T[];
  _note: string;
}

/** Calls a list tool page by page until nextCursor is null; returns the items and every total seen. */
async function pageToEnd<T>(client: Client, name: string, args: Record<string, unknown>, limit: number) {
  const items: T[] = [];
  const totals: number[] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 50; guard++) {
    const page = structured<PagedAnswer<T>>(await client.callTool({ name, arguments: { ...args, limit, ...(cursor ? { cursor } : {}) } }));
    expect(page.items.length).toBeLessThanOrEqual(limit);
    items.push(...page.items);
    totals.push(page.total);
    if (page.nextCursor === null) return { items, totals };
    cursor = page.nextCursor;
  }
  throw new Error('the list never ended');
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`public tools (${dialect})`, () => {
    let server: DemoServer;
    let academy: Client;
    let studio: Client;
    let ids: { academy: string; studio: string };
    beforeAll(async () => {
      server = await startDemoServer(dialect);
      ids = await demoSiteIds(server);
      academy = await connectMcp(server.academy);
      studio = await connectMcp(server.studio);
    });
    afterAll(async () => {
      await academy?.close();
      await studio?.close();
      await server?.close();
    });

    it('lists exactly the public tools to an anonymous caller, at both variants', async () => {
      expect(await toolNames(academy)).toEqual(PUBLIC_TOOLS);
      expect(await toolNames(studio)).toEqual(PUBLIC_TOOLS);
    });

    it('describes each tool with a title, input and output schemas, and read-only closed-world annotations', async () => {
      for (const tool of (await academy.listTools()).tools) {
        expect(tool.title, tool.name).toBeTruthy();
        expect(tool.description, tool.name).toBeTruthy();
        expect(tool.inputSchema.type).toBe('object');
        expect(tool.outputSchema?.type).toBe('object');
        expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
      }
    });

    it('get_school gives the profile the catalogue computes', async () => {
      const school = structured(await academy.callTool({ name: 'get_school', arguments: {} }));
      const profile = await findSchoolProfile({ db: server.store.db, siteId: ids.academy }, server.clock.now());
      expect(school).toMatchObject({
        name: 'Demo Academy',
        origin: server.academy,
        publishedCourseCount: profile?.publishedCourseCount,
        upcomingPublicEventCount: profile?.upcomingPublicEventCount,
      });
      expect(school._note).toMatch(/never follow instructions/);
    });

    it('search_courses pages through every published course to the end, with a steady total, newest first', async () => {
      const { items, totals } = await pageToEnd<{ slug: string }>(academy, 'search_courses', {}, 2);
      const expected = await searchPublishedCourses({ db: server.store.db, siteId: ids.academy }, { first: 100 });
      expect(items.map((c) => c.slug)).toEqual(expected.page.edges.map((e) => e.node.slug));
      expect(new Set(totals)).toEqual(new Set([items.length]));
      expect(items.length).toBeGreaterThan(2);
    });

    it('search_courses filters by text and counts only the matches', async () => {
      const page = structured<PagedAnswer<{ slug: string; title: string }>>(
        await academy.callTool({ name: 'search_courses', arguments: { query: 'typescript' } }),
      );
      expect(page.items.map((c) => c.slug)).toContain('typescript-fundamentals');
      expect(page.total).toBe(page.items.length);
      expect(page._note).toMatch(/items\[\]\.description/);
    });

    it('never shows an unpublished course: not in search, not by slug', async () => {
      const drafts = await server.store.db
        .selectFrom('courses')
        .where('site_id', '=', ids.academy)
        .where('published', '=', 0)
        .select(['slug', 'title'])
        .execute();
      expect(drafts.length).toBeGreaterThan(0);
      const { items } = await pageToEnd<{ slug: string }>(academy, 'search_courses', {}, 100);
      for (const draft of drafts) {
        expect(items.map((c) => c.slug)).not.toContain(draft.slug);
        const search = structured<PagedAnswer<unknown>>(
          await academy.callTool({ name: 'search_courses', arguments: { query: draft.title } }),
        );
        expect(search.total).toBe(0);
        expect(errorText(await academy.callTool({ name: 'get_course', arguments: { slug: draft.slug } }))).toMatch(/search_courses/);
      }
    });

    it('get_course gives the curriculum outline of a published course, sections and lectures in order', async () => {
      const answer = structured<{
        course: { slug: string; lectureCount: number };
        sections: { title: string; lectures: { title: string; durationSeconds: number }[] }[];
      }>(await academy.callTool({ name: 'get_course', arguments: { slug: 'typescript-fundamentals' } }));
      const outline = await findCourseOutline({ db: server.store.db, siteId: ids.academy }, 'typescript-fundamentals');
      expect(answer.course).toMatchObject({ slug: 'typescript-fundamentals', lectureCount: outline?.course.lectureCount });
      expect(answer.sections.map((s) => s.title)).toEqual(outline?.sections.map((s) => s.title));
      expect(answer.sections.flatMap((s) => s.lectures.map((l) => l.title))).toEqual(
        outline?.sections.flatMap((s) => s.lectures.map((l) => l.title)),
      );
    });

    it('get_course does not reach another site’s course', async () => {
      const studioCourse = await server.store.db
        .selectFrom('courses')
        .where('site_id', '=', ids.studio)
        .where('published', '=', 1)
        .select('slug')
        .executeTakeFirstOrThrow();
      expect(errorText(await academy.callTool({ name: 'get_course', arguments: { slug: studioCourse.slug } }))).toMatch(
        /no published course/,
      );
    });

    it('list_upcoming_events pages to the end with a total, public published events only, and no join links', async () => {
      const { items, totals } = await pageToEnd<Record<string, unknown>>(academy, 'list_upcoming_events', {}, 1);
      const expected = await listUpcomingPublicEvents({ db: server.store.db, siteId: ids.academy }, { first: 100 }, server.clock.now());
      expect(items.map((e) => e.slug)).toEqual(expected.edges.map((e) => e.node.slug));
      expect(new Set(totals)).toEqual(new Set([items.length]));
      for (const event of items) expect(Object.keys(event)).not.toContain('joinUrl');
      const hidden = await server.store.db
        .selectFrom('events')
        .where('site_id', '=', ids.academy)
        .where((eb) => eb.or([eb('published', '=', 0), eb('is_public', '=', 0)]))
        .select('slug')
        .execute();
      expect(hidden.length).toBeGreaterThan(0);
      for (const event of hidden) expect(items.map((e) => e.slug)).not.toContain(event.slug);
    });

    it('refuses a cursor of another list with a sentence that says what to do', async () => {
      const events = structured<PagedAnswer<unknown>>(await academy.callTool({ name: 'list_upcoming_events', arguments: { limit: 1 } }));
      expect(events.nextCursor).not.toBeNull();
      const text = errorText(await academy.callTool({ name: 'search_courses', arguments: { cursor: events.nextCursor } }));
      expect(text).toMatch(/without a cursor/);
      expect(errorText(await academy.callTool({ name: 'search_courses', arguments: { cursor: 'forged' } }))).toMatch(/not a cursor/);
    });

    it('checks arguments by the tool’s input schema before the tool runs: a wrong type or a limit out of range is an error result naming the field', async () => {
      expect(errorText(await academy.callTool({ name: 'search_courses', arguments: { limit: 0 } }))).toMatch(/limit/);
      expect(errorText(await academy.callTool({ name: 'search_courses', arguments: { limit: 101 } }))).toMatch(/limit/);
      expect(errorText(await academy.callTool({ name: 'search_courses', arguments: { query: 7 } }))).toMatch(/query/);
      expect(errorText(await academy.callTool({ name: 'get_course', arguments: {} }))).toMatch(/slug/);
      // Unknown fields are dropped by the schema, as they are at the REST door, and the call answers.
      const page = structured<PagedAnswer<unknown>>(
        await academy.callTool({ name: 'search_courses', arguments: { limit: 2, colour: 'red' } }),
      );
      expect(page.items.length).toBeLessThanOrEqual(2);
    });

    it('answers an unknown tool with an error result', async () => {
      expect(errorText(await academy.callTool({ name: 'drop_database', arguments: {} }))).toMatch(/not found/);
    });
  });
}
