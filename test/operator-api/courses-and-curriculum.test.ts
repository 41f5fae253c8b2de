// CONTRACT 6 courses and curriculum, and the write spine every family shares (issue 9): drafts by default,
// publish/unpublish/archive, the curriculum tree, ETag and If-Match, Idempotency-Key, the audit log, the
// MCP two-step confirmation; scope, member token, demoted operator, other site, bad input. Over real HTTP
// with tokens from the real flow (the demo vendor as owner@demo.test), on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, cliEnv } from '../cli/cli-harness.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { connectMcp, errorText, mcpPost, structured, toolCall } from '../helpers/mcp.js';
import { ALL_REST_SCOPES, call, expectProblem, VENDOR } from '../helpers/operator-api.js';
import { person } from '../helpers/person.js';
import { DEMO_CLIENTS, getTokens } from '../helpers/token-flow.js';

interface Course {
  id: string;
  slug: string;
  title: string;
  state: string;
  published: boolean;
  priceCents: number;
  updatedAt: string | null;
}
interface Outline {
  sectionCount: number;
  lectureCount: number;
  totalDurationSeconds: number;
  sections: Array<{ id: string; position: number; title: string; lectures: Array<{ id: string; title: string; position: number }> }>;
}

const course = (answer: { body: Record<string, unknown> }) => answer.body.course as Course;
let serial = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${serial++}`;

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`operator API: courses, curriculum and the write spine (${dialect})`, () => {
    let server: DemoServer;
    let operator: string;
    let readOnly: string;
    let studioOperator: string;
    let member: string;

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      const owner = person('owner');
      operator = (await getTokens(server, VENDOR('academy'), { scope: ALL_REST_SCOPES, who: owner })).access_token;
      readOnly = (await getTokens(server, VENDOR('academy'), { scope: 'courses:read curriculum:read', who: owner })).access_token;
      studioOperator = (await getTokens(server, VENDOR('studio'), { scope: ALL_REST_SCOPES, who: owner })).access_token;
      member = (await getTokens(server, DEMO_CLIENTS.academyApp, { who: person('student') })).access_token;
    });
    afterAll(() => server?.close());

    const create = (body: Record<string, unknown>, headers: Record<string, string> = {}, token = operator) =>
      call(server.academy, 'POST', '/courses', token, body, headers);

    it('creates a course as a draft (201) and reads it with an ETag; If-None-Match with that ETag answers 304', async () => {
      const created = await create({ title: 'Rust for Web Developers', priceCents: 4900 });
      expect(created.status).toBe(201);
      expect(course(created)).toMatchObject({ slug: 'rust-for-web-developers', state: 'draft', published: false, priceCents: 4900 });
      const read = await call(server.academy, 'GET', `/courses/${course(created).id}`, operator);
      expect(read.status).toBe(200);
      expect(read.body.course).toEqual(created.body.course);
      const etag = read.headers.get('etag');
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
      expect(created.headers.get('etag')).toBeNull(); // a creation is no representation of an existing resource
      const again = await call(server.academy, 'GET', `/courses/${course(created).id}`, operator, undefined, {
        'if-none-match': etag ?? '',
      });
      expect(again.status).toBe(304);
      expect(again.headers.get('etag')).toBe(etag);
    });

    it('edits with PATCH: a stale If-Match is 412 precondition_failed and changes nothing; the current one succeeds with the ETag a GET then gives', async () => {
      const id = course(await create({ title: unique('Edit me') })).id;
      const first = await call(server.academy, 'GET', `/courses/${id}`, operator);
      const tag = first.headers.get('etag') ?? '';
      const changed = await call(server.academy, 'PATCH', `/courses/${id}`, operator, { priceCents: 1200 }, { 'if-match': tag });
      expect(changed.status).toBe(200);
      expect(course(changed)).toMatchObject({ priceCents: 1200 });
      expect(course(changed).updatedAt).not.toBeNull();
      const now = await call(server.academy, 'GET', `/courses/${id}`, operator);
      expect(changed.headers.get('etag')).toBe(now.headers.get('etag'));
      expect(now.headers.get('etag')).not.toBe(tag);

      const stale = await call(server.academy, 'PATCH', `/courses/${id}`, operator, { priceCents: 9900 }, { 'if-match': tag });
      expectProblem(stale, 412, 'precondition_failed');
      expect(course(await call(server.academy, 'GET', `/courses/${id}`, operator)).priceCents).toBe(1200);
      // A weak tag never matches If-Match (RFC 9110 13.1.1); * matches any current representation.
      expectProblem(
        await call(server.academy, 'PATCH', `/courses/${id}`, operator, { priceCents: 1 }, { 'if-match': `W/${now.headers.get('etag')}` }),
        412,
        'precondition_failed',
      );
      expect(
        (await call(server.academy, 'PATCH', `/courses/${id}`, operator, { subtitle: 'Now with more' }, { 'if-match': '*' })).status,
      ).toBe(200);
    });

    it('publishes, unpublishes and archives; the public catalogue shows the course only while it is published', async () => {
      const slug = unique('lifecycle');
      const id = course(await create({ title: 'Lifecycle', slug })).id;
      const publicView = async () =>
        (await mcpPost(server.academy, toolCall('get_course', { slug }))).body as { result: { isError?: boolean } };
      expect((await publicView()).result.isError).toBe(true);
      expect(course(await call(server.academy, 'POST', `/courses/${id}/publish`, operator))).toMatchObject({
        state: 'published',
        published: true,
      });
      expect((await publicView()).result.isError).toBeFalsy();
      expect(course(await call(server.academy, 'POST', `/courses/${id}/unpublish`, operator))).toMatchObject({ state: 'draft' });
      expect((await publicView()).result.isError).toBe(true);
      expect(course(await call(server.academy, 'POST', `/courses/${id}/archive`, operator))).toMatchObject({
        state: 'archived',
        published: false,
      });
      expect((await publicView()).result.isError).toBe(true);
      expect(course(await call(server.academy, 'POST', `/courses/${id}/publish`, operator))).toMatchObject({ state: 'published' });
    });

    it('replays the first answer for the same Idempotency-Key and body, creating one course; another body under the key is 422', async () => {
      const key = unique('key');
      const slug = unique('idem');
      const first = await create({ title: 'Idempotent', slug }, { 'idempotency-key': key });
      const second = await create({ slug, title: 'Idempotent' }, { 'idempotency-key': key });
      expect(first.status).toBe(201);
      expect(second.status).toBe(201);
      expect(second.body).toEqual(first.body);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const all = await call(server.academy, 'GET', '/courses?limit=100', operator);
      expect((all.body.items as Course[]).filter((c) => c.slug === slug)).toHaveLength(1);

      expectProblem(
        await create({ title: 'Something else', slug: unique('other') }, { 'idempotency-key': key }),
        422,
        'idempotency_key_reused',
      );
      // A refusal is replayed too: the same conflicting request under a new key answers 409 both times.
      const conflictKey = unique('key');
      expectProblem(await create({ title: 'Idempotent', slug }, { 'idempotency-key': conflictKey }), 409, 'conflict');
      const replayedConflict = await create({ title: 'Idempotent', slug }, { 'idempotency-key': conflictKey });
      expectProblem(replayedConflict, 409, 'conflict');
      expect(replayedConflict.headers.get('idempotent-replayed')).toBe('true');
      expectProblem(await create({ title: 'x' }, { 'idempotency-key': 'bad key with spaces' }), 400, 'invalid_argument');
    });

    it('keeps Idempotency-Keys per app and site: the same key at another site is a new request', async () => {
      const key = unique('shared');
      expect((await create({ title: unique('At the academy') }, { 'idempotency-key': key })).status).toBe(201);
      const atStudio = await call(
        server.studio,
        'POST',
        '/courses',
        studioOperator,
        { title: unique('At the studio') },
        { 'idempotency-key': key },
      );
      expect(atStudio.status).toBe(201);
      expect(atStudio.headers.get('idempotent-replayed')).toBeNull();
    });

    it('records every write in the audit log (actor, app, action, target, request id), readable at GET /audit_events', async () => {
      const created = await create({ title: unique('Audited') });
      const id = course(created).id;
      const requestId = created.headers.get('x-request-id');
      await call(server.academy, 'POST', `/courses/${id}/publish`, operator);
      const log = await call(server.academy, 'GET', '/audit_events?action=operator.&limit=10', operator);
      expect(log.status).toBe(200);
      const items = log.body.items as Array<Record<string, unknown>>;
      expect(items[0]).toMatchObject({ action: 'operator.publish_course', target: `course:${id}`, clientId: 'demo-vendor' });
      expect(items[1]).toMatchObject({ action: 'operator.create_course_draft', target: `course:${id}`, requestId });
      expect(items[1]?.actorId).toMatch(/^per_/);
      expect(Date.parse(String(items[1]?.at))).toBeGreaterThan(0);
      // A refused write leaves no audit event.
      const before = (await call(server.academy, 'GET', '/audit_events?action=operator.&limit=1', operator)).body.total;
      await call(server.academy, 'PATCH', `/courses/${id}`, operator, { priceCents: 5 }, { 'if-match': '"stale"' });
      expect((await call(server.academy, 'GET', '/audit_events?action=operator.&limit=1', operator)).body.total).toBe(before);
      // Paging by cursor walks the whole log without repeats.
      const page1 = await call(server.academy, 'GET', '/audit_events?limit=2', operator);
      const page2 = await call(server.academy, 'GET', `/audit_events?limit=2&cursor=${page1.body.nextCursor}`, operator);
      const ids = [...(page1.body.items as Array<{ id: string }>), ...(page2.body.items as Array<{ id: string }>)].map((i) => Number(i.id));
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
      expect(new Set(ids).size).toBe(4);
    });

    it('builds a curriculum in order, reads the whole tree in one call, reorders it in one call and deletes a lecture closing the gap', async () => {
      const id = course(await create({ title: unique('Curriculum') })).id;
      const s1 = (await call(server.academy, 'POST', `/courses/${id}/sections`, operator, { title: 'Basics' })).body.sectionId as string;
      const added = await call(server.academy, 'POST', `/courses/${id}/sections`, operator, { title: 'Preface', position: 0 });
      expect(added.status).toBe(201);
      const s0 = added.body.sectionId as string;
      const lecture = async (section: string, title: string) =>
        (
          (await call(server.academy, 'POST', `/sections/${section}/lectures`, operator, { title, durationSeconds: 300 })).body.lecture as {
            id: string;
          }
        ).id;
      const a = await lecture(s1, 'A');
      const b = await lecture(s1, 'B');
      const c = await lecture(s0, 'C');
      const tree = (await call(server.academy, 'GET', `/courses/${id}/curriculum`, readOnly)).body.curriculum as Outline;
      expect(tree).toMatchObject({ sectionCount: 2, lectureCount: 3, totalDurationSeconds: 900 });
      expect(tree.sections.map((s) => [s.title, s.lectures.map((l) => l.title)])).toEqual([
        ['Preface', ['C']],
        ['Basics', ['A', 'B']],
      ]);

      const tag = (await call(server.academy, 'GET', `/courses/${id}/curriculum`, operator)).headers.get('etag') ?? '';
      const reordered = await call(
        server.academy,
        'POST',
        `/courses/${id}/curriculum/reorder`,
        operator,
        {
          sections: [
            { id: s1, lectureIds: [b, c] },
            { id: s0, lectureIds: [a] },
          ],
        },
        { 'if-match': tag },
      );
      expect(reordered.status).toBe(200);
      const after = reordered.body.curriculum as Outline;
      expect(after.sections.map((s) => [s.title, s.lectures.map((l) => [l.title, l.position])])).toEqual([
        [
          'Basics',
          [
            ['B', 0],
            ['C', 1],
          ],
        ],
        ['Preface', [['A', 0]]],
      ]);
      // The same If-Match again is stale now.
      expectProblem(
        await call(
          server.academy,
          'POST',
          `/courses/${id}/curriculum/reorder`,
          operator,
          {
            sections: [
              { id: s0, lectureIds: [a] },
              { id: s1, lectureIds: [b, c] },
            ],
          },
          { 'if-match': tag },
        ),
        412,
        'precondition_failed',
      );
      const incomplete = await call(server.academy, 'POST', `/courses/${id}/curriculum/reorder`, operator, {
        sections: [
          { id: s1, lectureIds: [b] },
          { id: s0, lectureIds: [a] },
        ],
      });
      expectProblem(incomplete, 400, 'invalid_argument');
      expect(incomplete.body.errors).toEqual([{ pointer: '/sections', detail: expect.stringContaining('lectures exactly once') }]);

      const lectureTag = (await call(server.academy, 'GET', `/lectures/${b}`, operator)).headers.get('etag') ?? '';
      expect(
        (await call(server.academy, 'PATCH', `/lectures/${b}`, operator, { title: 'B2' }, { 'if-match': lectureTag })).body.lecture,
      ).toMatchObject({ title: 'B2' });
      expectProblem(
        await call(server.academy, 'DELETE', `/lectures/${b}`, operator, undefined, { 'if-match': lectureTag }),
        412,
        'precondition_failed',
      );
      expect((await call(server.academy, 'DELETE', `/lectures/${b}`, operator)).body).toEqual({ deleted: true, id: b });
      const final = (await call(server.academy, 'GET', `/courses/${id}/curriculum`, operator)).body.curriculum as Outline;
      expect(final.sections[0]?.lectures.map((l) => [l.title, l.position])).toEqual([['C', 0]]);
      expectProblem(await call(server.academy, 'GET', `/lectures/${b}`, operator), 404, 'not_found');
    });

    it('refuses a token without the scope with 403 insufficient_scope naming it, and a member token likewise', async () => {
      for (const token of [readOnly, member]) {
        const answer = await call(server.academy, 'POST', '/courses', token, { title: 'Nope' });
        expect(answer.status).toBe(403);
        expect(answer.headers.get('www-authenticate')).toMatch(/error="insufficient_scope"/);
        expect(answer.headers.get('www-authenticate')).toMatch(/courses:write/);
      }
    });

    it('answers 404 for another site’s course id, the same answer as for no course at all', async () => {
      const studioCourse = course(await call(server.studio, 'POST', '/courses', studioOperator, { title: unique('Studio only') })).id;
      const foreign = await call(server.academy, 'GET', `/courses/${studioCourse}`, operator);
      const missing = await call(server.academy, 'GET', '/courses/crs_nothing', operator);
      expectProblem(foreign, 404, 'not_found');
      expectProblem(missing, 404, 'not_found');
      expect(foreign.body.detail).toBe(String(missing.body.detail).replace('crs_nothing', studioCourse));
      expectProblem(await call(server.academy, 'POST', `/courses/${studioCourse}/publish`, operator), 404, 'not_found');
      expectProblem(await call(server.academy, 'PATCH', `/courses/${studioCourse}`, operator, { title: 'Hijack' }), 404, 'not_found');
    });

    it('answers bad input with 400 invalid_argument and a pointer per field, never a 500', async () => {
      const bad = await create({ title: '', priceCents: -1, currency: 'euro' });
      expectProblem(bad, 400, 'invalid_argument');
      const pointers = (bad.body.errors as Array<{ pointer: string }>).map((e) => e.pointer).sort();
      expect(pointers).toEqual(['/currency', '/priceCents', '/title']);
      expectProblem(await create({ title: '!!!' }), 400, 'invalid_argument');
      const taken = course(await create({ title: unique('Taken') })).slug;
      expectProblem(await create({ title: 'Dup', slug: taken }), 409, 'conflict');
    });

    it('refuses an operator demoted since the token was issued with 403 at the next call, without a restart', async () => {
      const env = cliEnv(server.config.databaseUrl);
      expect((await cli(['role', 'grant', '--site', 'demo-academy', '--email', 'visitor@demo.test', '--role', 'admin'], env)).code).toBe(0);
      const admin = (await getTokens(server, VENDOR('academy'), { scope: 'courses:read courses:write', who: person('visitor') }))
        .access_token;
      expect((await call(server.academy, 'GET', '/courses', admin)).status).toBe(200);
      expect((await cli(['role', 'revoke', '--site', 'demo-academy', '--email', 'visitor@demo.test', '--role', 'admin'], env)).code).toBe(
        0,
      );
      const refused = await call(server.academy, 'POST', '/courses', admin, { title: 'After demotion' });
      expect(refused.status).toBe(403);
      expect((await call(server.academy, 'GET', '/courses', admin)).status).toBe(403);
    });

    it('publishes through MCP in two steps: a preview that changes nothing, then the call with the token, which works once and only for those arguments', async () => {
      const id = course(await create({ title: unique('Via MCP') })).id;
      const other = course(await create({ title: unique('Other') })).id;
      const client = await connectMcp(server.academy, operator);
      try {
        const preview = structured<{ confirmationRequired: boolean; confirmationToken: string; preview: { summary: string } }>(
          await client.callTool({ name: 'publish_course', arguments: { id } }),
        );
        expect(preview.confirmationRequired).toBe(true);
        expect(preview.preview.summary).toMatch(/Publish the course .* \(now draft\)/);
        expect(course(await call(server.academy, 'GET', `/courses/${id}`, operator)).state).toBe('draft');

        expect(
          errorText(
            await client.callTool({ name: 'publish_course', arguments: { id: other, confirmationToken: preview.confirmationToken } }),
          ),
        ).toMatch(/another call/);
        const done = structured<{ confirmationRequired: boolean; course: Course }>(
          await client.callTool({ name: 'publish_course', arguments: { id, confirmationToken: preview.confirmationToken } }),
        );
        expect(done).toMatchObject({ confirmationRequired: false, course: { id, state: 'published' } });
        expect(
          errorText(await client.callTool({ name: 'publish_course', arguments: { id, confirmationToken: preview.confirmationToken } })),
        ).toMatch(/already been used/);

        // Expired after 5 minutes.
        const late = structured<{ confirmationToken: string }>(await client.callTool({ name: 'unpublish_course', arguments: { id } }));
        server.clock.advance(5 * 60 * 1000 + 1);
        expect(
          errorText(await client.callTool({ name: 'unpublish_course', arguments: { id, confirmationToken: late.confirmationToken } })),
        ).toMatch(/expired/);
        const log = await call(server.academy, 'GET', '/audit_events?action=operator.publish_course&limit=5', operator);
        expect((log.body.items as Array<{ target: string }>).filter((e) => e.target === `course:${id}`)).toHaveLength(1);
      } finally {
        await client.close();
      }
    });
  });
}
