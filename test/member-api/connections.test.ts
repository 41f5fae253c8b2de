// Connection arguments and paging of the member API (issue 3): first (default 20, at most 100), after, totalCount.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import {
  createDemoWorld,
  type DemoWorld,
  grantRole,
  insertPerson,
  memberContext,
  openSchoolStore,
  runMember,
  type SchoolStore,
  TEST_NOW,
} from '../helpers/school-fixtures.js';

interface PageResult {
  totalCount: number;
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  edges: { cursor: string; node: { id: string } }[];
  nodes: { id: string }[];
}

const NOTIFICATION_PAGE = `query Page($first: Int, $after: String) {
  viewer { notifications(first: $first, after: $after) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id } } nodes { id } } }
}`;

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`member API connections (${dialect})`, () => {
    let s: SchoolStore;
    let world: DemoWorld;
    const busyId = 'per_busy';
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      world = await createDemoWorld(s.db);
      await insertPerson(s.db, { id: busyId, email: 'busy@demo.test', name: 'Bo Busy' });
      await grantRole(s.db, world.academySiteId, busyId, 'student');
      await s.db
        .insertInto('notifications')
        .values(
          Array.from({ length: 45 }, (_, i) => ({
            id: `ntf_busy_${String(i).padStart(2, '0')}`,
            site_id: world.academySiteId,
            person_id: busyId,
            kind: 'announcement' as const,
            title: `Notice ${i}`,
            body: 'Body',
            link: null,
            read_at: null,
            // Groups of three share a timestamp, so the cursor must carry the id to break ties.
            created_at: TEST_NOW - Math.floor(i / 3) * 60_000,
          })),
        )
        .execute();
    });
    afterAll(() => s?.close());

    const busy = () => memberContext(s.db, world.academySiteId, busyId);
    const page = async (variables: Record<string, unknown>) => {
      const result = await runMember('A', busy(), NOTIFICATION_PAGE, variables);
      return { result, page: (result.data as { viewer: { notifications: PageResult } } | null)?.viewer.notifications };
    };

    it('returns 20 items when first is omitted', async () => {
      const { page: first } = await page({});
      expect(first?.nodes).toHaveLength(20);
      expect(first?.pageInfo.hasNextPage).toBe(true);
    });

    it('pages through after to the end, each item once, with a constant totalCount', async () => {
      const seen: string[] = [];
      const sizes: number[] = [];
      let after: string | null = null;
      for (let round = 0; round < 10; round += 1) {
        const { page: current } = await page({ first: 20, after });
        expect(current?.totalCount).toBe(45);
        seen.push(...(current?.nodes.map((n) => n.id) ?? []));
        sizes.push(current?.nodes.length ?? 0);
        if (!current?.pageInfo.hasNextPage) break;
        after = current.pageInfo.endCursor;
      }
      expect(sizes).toEqual([20, 20, 5]);
      expect(new Set(seen).size).toBe(45);
    });

    it('continues after an edge cursor, not only after endCursor', async () => {
      const { page: first } = await page({ first: 5 });
      const { page: next } = await page({ first: 2, after: first?.edges[2]?.cursor });
      expect(next?.nodes.map((n) => n.id)).toEqual(first?.nodes.slice(3, 5).map((n) => n.id));
    });

    it('accepts first: 100', async () => {
      const { result, page: all } = await page({ first: 100 });
      expect(result.errors).toBeUndefined();
      expect(all?.nodes).toHaveLength(45);
      expect(all?.pageInfo.hasNextPage).toBe(false);
    });

    it('returns no items but the totalCount for first: 0', async () => {
      const { page: none } = await page({ first: 0 });
      expect(none).toEqual({ totalCount: 45, pageInfo: { hasNextPage: true, endCursor: null }, edges: [], nodes: [] });
    });

    it('refuses first above 100 with a GraphQL error', async () => {
      const { result } = await page({ first: 101 });
      expect(result.errors).toHaveLength(1);
      expect(result.errors?.[0]?.message).toBe('"first" must be an integer from 0 to 100; got 101.');
      expect(result.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(result.errors?.[0]?.path).toEqual(['viewer', 'notifications']);
    });

    it('refuses first above 100 written inline in the query', async () => {
      const result = await runMember('A', busy(), '{ viewer { enrolledCourses(first: 500) { totalCount } } }');
      expect(result.errors?.[0]?.message).toMatch(/from 0 to 100; got 500/);
    });

    it('refuses a negative first', async () => {
      const { result } = await page({ first: -1 });
      expect(result.errors?.[0]?.message).toMatch(/from 0 to 100; got -1/);
    });

    it('refuses an after that is not a cursor', async () => {
      const { result } = await page({ after: 'bm90LWEtY3Vyc29y' });
      expect(result.errors?.[0]?.message).toMatch(/not a cursor of this list/);
      expect(result.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    });

    it('refuses a cursor of another connection', async () => {
      const { page: notifications } = await page({ first: 1 });
      const result = await runMember(
        'A',
        memberContext(s.db, world.academySiteId, world.studentId),
        'query($after: String) { viewer { enrolledCourses(after: $after) { totalCount } } }',
        { after: notifications?.pageInfo.endCursor },
      );
      expect(result.errors?.[0]?.message).toMatch(/not a cursor of this list/);
    });

    it('pages every connection with first and after', async () => {
      const student = memberContext(s.db, world.academySiteId, world.studentId);
      for (const field of ['enrolledCourses', 'digitalProducts', 'eventRegistrations', 'consultingServices']) {
        const seen: string[] = [];
        let after: string | null = null;
        let total = 0;
        for (let round = 0; round < 10; round += 1) {
          const result = await runMember(
            'A',
            student,
            `query($after: String) { viewer { ${field}(first: 1, after: $after) { totalCount pageInfo { hasNextPage endCursor } nodes { id } } } }`,
            { after },
          );
          expect(result.errors, field).toBeUndefined();
          const current = (result.data as { viewer: Record<string, PageResult> }).viewer[field]!;
          total = current.totalCount;
          seen.push(...current.nodes.map((n) => n.id));
          if (!current.pageInfo.hasNextPage) break;
          after = current.pageInfo.endCursor;
        }
        expect(seen.length, field).toBe(total);
        expect(new Set(seen).size, field).toBe(total);
      }
    });
  });
}
