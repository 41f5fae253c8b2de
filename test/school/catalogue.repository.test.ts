// The public catalogue (SPEC 1, for the anonymous /mcp tools): published courses only, no join links, one site only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  findCourseOutline,
  findSchoolProfile,
  listUpcomingPublicEvents,
  searchPublishedCourses,
} from '../../src/school/catalogue.repository.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import {
  ACADEMY_ORIGIN,
  createDemoWorld,
  type DemoWorld,
  openSchoolStore,
  type SchoolStore,
  TEST_NOW,
} from '../helpers/school-fixtures.js';

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`catalogue repository (${dialect})`, () => {
    let s: SchoolStore;
    let world: DemoWorld;
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      world = await createDemoWorld(s.db);
    });
    afterAll(() => s?.close());

    const academy = () => ({ db: s.db, siteId: world.academySiteId });

    it('finds published courses by text in any case', async () => {
      const { page } = await searchPublishedCourses(academy(), { text: 'TYPESCRIPT' });
      expect(page.edges.map((e) => e.node.slug)).toEqual(['typescript-fundamentals']);
      expect(page.edges[0]?.node.lectureCount).toBe(10);
      expect(page.edges[0]?.node.totalDurationSeconds).toBeGreaterThan(0);
    });

    it('gives every listed course its lecture count and length as its outline has them, on first and later pages', async () => {
      let after: string | null = null;
      let seen = 0;
      for (let round = 0; round < 10; round += 1) {
        const { page, total } = await searchPublishedCourses(academy(), { first: 2, after });
        for (const { node } of page.edges) {
          const outline = await findCourseOutline(academy(), node.slug);
          expect(node.lectureCount, node.slug).toBe(outline?.course.lectureCount);
          expect(node.totalDurationSeconds, node.slug).toBe(outline?.course.totalDurationSeconds);
          seen += 1;
        }
        expect(total).toBeGreaterThan(2);
        if (!page.hasNextPage) break;
        after = page.endCursor;
      }
      expect(seen).toBeGreaterThan(2);
      // Another site's lectures never count: its courses are listed with their own.
      const studio = await searchPublishedCourses({ db: s.db, siteId: world.studioSiteId }, { first: 100 });
      for (const { node } of studio.page.edges) {
        const outline = await findCourseOutline({ db: s.db, siteId: world.studioSiteId }, node.slug);
        expect(node.lectureCount).toBe(outline?.course.lectureCount);
      }
    });

    it('matches the subtitle and description too', async () => {
      const { page } = await searchPublishedCourses(academy(), { text: 'window functions' });
      expect(page.edges.map((e) => e.node.slug)).toEqual(['sql-for-analysts']);
    });

    it('never returns an unpublished course, even when the text matches', async () => {
      expect((await searchPublishedCourses(academy(), { text: 'Performance Workshop' })).page.edges).toEqual([]);
      expect(await findCourseOutline(academy(), 'nodejs-performance-workshop')).toBeNull();
    });

    it('treats % and _ in the search text literally', async () => {
      expect((await searchPublishedCourses(academy(), { text: '%' })).page.edges).toEqual([]);
      expect((await searchPublishedCourses(academy(), { text: '_' })).page.edges).toEqual([]);
      expect((await searchPublishedCourses(academy(), { text: "\\' or 1=1 --" })).page.edges).toEqual([]);
    });

    it('matches a text inside a word, in any case', async () => {
      const { page } = await searchPublishedCourses(academy(), { text: 'ypeScrip' });
      expect(page.edges.map((e) => e.node.slug)).toEqual(['typescript-fundamentals']);
    });

    it('pages through all published courses with after', async () => {
      const slugs: string[] = [];
      let after: string | null = null;
      for (let round = 0; round < 10; round += 1) {
        const { page } = await searchPublishedCourses(academy(), { first: 2, after });
        slugs.push(...page.edges.map((e) => e.node.slug));
        if (!page.hasNextPage) break;
        after = page.endCursor;
      }
      expect(slugs).toHaveLength(6);
      expect(new Set(slugs).size).toBe(6);
    });

    it('counts every match over all pages, on a first page and on a later one, with and without a text', async () => {
      for (const text of [null, 'e']) {
        const first = await searchPublishedCourses(academy(), { text, first: 1 });
        const all = await searchPublishedCourses(academy(), { text, first: 100 });
        expect(all.page.hasNextPage).toBe(false);
        expect(first.total).toBe(all.page.edges.length);
        const later = await searchPublishedCourses(academy(), { text, first: 1, after: first.page.endCursor });
        expect(later.total).toBe(all.page.edges.length);
        expect(later.page.edges[0]?.node.slug).toBe(all.page.edges[1]?.node.slug);
      }
      expect((await searchPublishedCourses(academy(), { text: 'no course says this' })).total).toBe(0);
      expect((await searchPublishedCourses(academy(), { text: 'TYPESCRIPT' })).total).toBe(1);
    });

    it('returns a course outline with sections and lectures in order', async () => {
      const outline = await findCourseOutline(academy(), 'typescript-fundamentals');
      expect(outline?.sections.map((x) => x.title)).toEqual(['Getting started', 'Working with types', 'Real projects']);
      expect(outline?.sections[1]?.lectures.map((l) => l.title)).toEqual([
        'Unions and narrowing',
        'Interfaces or type aliases?',
        'Generics in practice',
        'Utility types',
      ]);
      expect(outline?.course.lectureCount).toBe(10);
    });

    it('does not find another site’s course by slug', async () => {
      expect(await findCourseOutline(academy(), 'watercolor-basics')).toBeNull();
      expect(await findCourseOutline({ db: s.db, siteId: world.studioSiteId }, 'watercolor-basics')).not.toBeNull();
    });

    it('lists upcoming public published events soonest first, without join links', async () => {
      const page = await listUpcomingPublicEvents(academy(), {}, TEST_NOW);
      const events = page.edges.map((e) => e.node);
      expect(events.map((e) => e.slug)).toEqual(['live-qa-typescript-6', 'accessibility-audit-workshop', 'academy-meetup-berlin']);
      for (const event of events) {
        expect(event).not.toHaveProperty('joinUrl');
        expect(event).not.toHaveProperty('join_url');
        expect(JSON.stringify(event)).not.toContain('meet.demo-academy.test');
      }
      expect(events[0]?.online).toBe(true);
      expect(events[2]?.online).toBe(false);
    });

    it('pages through upcoming events with after', async () => {
      const first = await listUpcomingPublicEvents(academy(), { first: 2 }, TEST_NOW);
      const rest = await listUpcomingPublicEvents(academy(), { first: 2, after: first.endCursor }, TEST_NOW);
      expect(first.hasNextPage).toBe(true);
      expect(rest.hasNextPage).toBe(false);
      expect(rest.edges.map((e) => e.node.slug)).toEqual(['academy-meetup-berlin']);
    });

    it('describes the school with its published course and upcoming event counts', async () => {
      expect(await findSchoolProfile(academy(), TEST_NOW)).toEqual({
        siteId: world.academySiteId,
        name: 'Demo Academy',
        origin: ACADEMY_ORIGIN,
        publishedCourseCount: 6,
        upcomingPublicEventCount: 3,
      });
      expect(await findSchoolProfile({ db: s.db, siteId: 'site_missing' }, TEST_NOW)).toBeNull();
    });
  });
}
