// SPEC 4.4, CONTRACT 6 (issue 9, "one definition, three doors"): every operator operation of the registry is
// reachable at its method and path under /api/admin/v1 and documented in /openapi.json with its scopes as
// an oauth2 security requirement; the bearer, scope and role checks are those of every resource; every
// other error is an RFC 9457 problem with a stable code. Over real HTTP, with real operator tokens.
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LARGE_ANSWER_UNITS } from '../../src/http/answer-bytes.js';
import { REST_OPERATIONS } from '../../src/operations/registry.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { challengeParams, connectMcp, structured } from '../helpers/mcp.js';
import { person } from '../helpers/person.js';
import { ADMIN_BASE, ALL_REST_SCOPES, call, expectProblem, VENDOR } from '../helpers/operator-api.js';
import { DEMO_CLIENTS, getTokens } from '../helpers/token-flow.js';

const BASE = ADMIN_BASE;

/** A path of the operation with its `{id}` parameters filled. */
function concrete(path: string): string {
  return path.replace(/\{\w+\}/g, 'nothing-here');
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`operator REST API door (${dialect})`, () => {
    let server: DemoServer;
    let operator: string;
    let narrow: string;
    let studioOperator: string;
    let member: string;

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      const owner = person('owner');
      operator = (await getTokens(server, VENDOR('academy'), { scope: ALL_REST_SCOPES, who: owner })).access_token;
      narrow = (await getTokens(server, VENDOR('academy'), { scope: 'courses:read', who: owner })).access_token;
      studioOperator = (await getTokens(server, VENDOR('studio'), { scope: ALL_REST_SCOPES, who: owner })).access_token;
      member = (await getTokens(server, DEMO_CLIENTS.academyApp, { who: person('student') })).access_token;
    });
    afterAll(() => server?.close());

    it('reaches every registered REST operation at its method and path with an operator token', async () => {
      expect(REST_OPERATIONS.length).toBeGreaterThan(0);
      for (const op of REST_OPERATIONS) {
        const route = op.rest;
        if (!route) throw new Error('unreachable');
        const answer = await call(server.academy, route.method, concrete(route.path), operator, route.method === 'GET' ? undefined : {});
        // Reached: the answer is the operation's own (a result, or its validation or lookup problem), never the door's 404.
        // An upload takes a file, not JSON: its own answer to `{}` is 415.
        expect(route.upload ? [415] : [200, 201, 400, 404], `${route.method} ${route.path}`).toContain(answer.status);
        if (answer.status === 404) expect(answer.body.detail, op.name).not.toMatch(/No operator API operation/);
      }
    });

    it('documents every REST operation in /openapi.json with its scopes as an oauth2 requirement, in a valid OpenAPI 3.1 document', async () => {
      const document = (await (await fetch(`${server.academy}/openapi.json`)).json()) as {
        paths: Record<string, Record<string, { operationId: string; security: Array<Record<string, string[]>> }>>;
        components: {
          securitySchemes: { oauth2: { flows: { authorizationCode: { authorizationUrl: string; scopes: Record<string, string> } } } };
        };
      };
      for (const op of REST_OPERATIONS) {
        const route = op.rest;
        if (!route) continue;
        const entry = document.paths[`${BASE}${route.path}`]?.[route.method.toLowerCase()];
        expect(entry, `${route.method} ${route.path}`).toBeDefined();
        expect(entry?.operationId).toBe(op.name);
        expect(entry?.security).toEqual([{ oauth2: [...op.scopes] }]);
      }
      const flow = document.components.securitySchemes.oauth2.flows.authorizationCode;
      expect(flow.authorizationUrl).toBe(`${server.academy}/oauth/authorize`);
      expect(Object.keys(flow.scopes)).toContain('courses:write');
      const validator = new Validator();
      const result = await validator.validate(document as unknown as Record<string, unknown>);
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
    });

    it('answers a missing or foreign token with 401 invalid_token and WWW-Authenticate (RFC 6750)', async () => {
      for (const token of [undefined, 'sga_not-a-real-token', studioOperator]) {
        const answer = await call(server.academy, 'GET', '/courses', token);
        expect(answer.status).toBe(401);
        expect(challengeParams(answer.headers.get('www-authenticate')).error).toBe('invalid_token');
      }
    });

    it('answers a token without the operation scope, member tokens included, with 403 insufficient_scope naming it', async () => {
      for (const [token, path] of [
        [narrow, '/students'],
        [member, '/courses'],
      ] as const) {
        const answer = await call(server.academy, 'GET', path, token);
        expect(answer.status).toBe(403);
        const challenge = challengeParams(answer.headers.get('www-authenticate'));
        expect(challenge.error).toBe('insufficient_scope');
        expect(challenge.scope).toBe(path === '/students' ? 'students:read' : 'courses:read');
      }
    });

    it('creates a course draft with POST (201) that the same operation lists over REST and over MCP', async () => {
      const created = await call(server.academy, 'POST', '/courses', operator, { title: 'Door Test Course', priceCents: 1500 });
      expect(created.status).toBe(201);
      const course = (created.body as { course: { id: string; slug: string; published: boolean; currency: string } }).course;
      expect(course).toMatchObject({ slug: 'door-test-course', published: false });
      const listed = await call(server.academy, 'GET', '/courses?limit=100', operator);
      expect((listed.body.items as Array<{ id: string }>).map((c) => c.id)).toContain(course.id);
      const mcp = await connectMcp(server.academy, operator);
      try {
        const viaTool = structured<{ items: Array<{ id: string }> }>(
          await mcp.callTool({ name: 'list_courses', arguments: { limit: 100 } }),
        );
        expect(viaTool.items.map((c) => c.id)).toContain(course.id);
      } finally {
        await mcp.close();
      }
      expectProblem(await call(server.academy, 'POST', '/courses', operator, { title: 'Door Test Course' }), 409, 'conflict');
    });

    it('sends text beyond Latin-1 as UTF-8 with a Content-Length counting its bytes, small answers and large, over REST (GET and HEAD) and MCP', async () => {
      // A large answer leaves as bytes and a small one as a string (http/answer-bytes.ts): either way the
      // length must be the bytes', not the characters'.
      const title = 'Çà et là — 学ぶ 🎓';
      const headers = { authorization: `Bearer ${operator}` };
      /** The answer's bytes, checked against its Content-Length, and the text they hold. */
      const fetched = async (url: string, init: RequestInit = {}) => {
        const res = await fetch(url, { ...init, headers: { ...headers, ...(init.headers as Record<string, string>) } });
        const bytes = Buffer.from(await res.arrayBuffer());
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
        const text = bytes.toString('utf8');
        expect(bytes.length).toBeGreaterThan(text.length);
        return text;
      };
      const ids: string[] = [];
      const description = `${'Für Anfänger — 学ぶ 🎓. '.repeat(450)}`.slice(0, 10_000);
      // Enough long descriptions for a page of courses to pass LARGE_ANSWER_UNITS.
      const titles = [
        title,
        ...Array.from({ length: Math.ceil(LARGE_ANSWER_UNITS / description.length) + 1 }, (_, i) => `${title} ${i + 2}`),
      ];
      for (const [i, t] of titles.entries()) {
        const created = await call(server.academy, 'POST', '/courses', operator, { title: t, ...(i > 0 ? { description } : {}) });
        expect(created.status).toBe(201);
        ids.push((created.body.course as { id: string }).id);
      }

      const one = `${server.academy}${BASE}/courses/${ids[0]}`;
      const small = await fetched(one);
      expect(small.length).toBeLessThan(LARGE_ANSWER_UNITS);
      expect((JSON.parse(small) as { course: { title: string } }).course.title).toBe(title);
      const head = await fetch(one, { method: 'HEAD', headers });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(small)));

      const list = `${server.academy}${BASE}/courses?limit=100`;
      const large = await fetched(list);
      expect(large.length).toBeGreaterThanOrEqual(LARGE_ANSWER_UNITS);
      const items = (JSON.parse(large) as { items: Array<{ id: string; title: string; description: string }> }).items;
      expect(items.find((c) => c.id === ids[0])?.title).toBe(title);
      expect(items.find((c) => c.id === ids[2])?.description).toBe(description);
      const largeHead = await fetch(list, { method: 'HEAD', headers });
      expect(largeHead.headers.get('content-length')).toBe(String(Buffer.byteLength(large)));

      const toolCall = (name: string, args: Record<string, unknown>) =>
        fetched(`${server.academy}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2025-11-25',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
        });
      type Listed = {
        result: {
          structuredContent: { items: Array<{ id: string; title: string; description: string }> };
          content: Array<{ text: string }>;
        };
      };
      const listed = JSON.parse(await toolCall('list_courses', { limit: 100 })) as Listed;
      expect(JSON.stringify(listed).length).toBeGreaterThanOrEqual(LARGE_ANSWER_UNITS);
      expect(listed.result.structuredContent.items.find((c) => c.id === ids[0])?.title).toBe(title);
      expect(listed.result.structuredContent.items.find((c) => c.id === ids[1])?.description).toBe(description);
      expect(listed.result.content[0]?.text).toContain(description);
    });

    it('answers invalid input with 400 invalid_argument naming each field as a JSON pointer', async () => {
      const missing = await call(server.academy, 'POST', '/courses', operator, {});
      expectProblem(missing, 400, 'invalid_argument');
      expect(missing.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ pointer: '/title' })]));
      for (const query of ['limit=0', 'limit=101', 'limit=abc', 'limit=5&limit=6', 'cursor=forged']) {
        const answer = await call(server.academy, 'GET', `/courses?${query}`, operator);
        expectProblem(answer, 400, 'invalid_argument');
      }
      const limit = await call(server.academy, 'GET', '/courses?limit=0', operator);
      expect(limit.body.errors).toEqual([expect.objectContaining({ pointer: '/limit' })]);
    });

    it('answers malformed bodies and unknown paths with problems, never a 500', async () => {
      expectProblem(await call(server.academy, 'POST', '/courses', operator, '{"title": '), 400, 'invalid_json');
      expectProblem(await call(server.academy, 'POST', '/courses', operator, [1, 2]), 400, 'invalid_argument');
      expectProblem(
        await call(server.academy, 'POST', '/courses', operator, 'title=x', { 'content-type': 'application/x-www-form-urlencoded' }),
        415,
        'unsupported_media_type',
      );
      expectProblem(await call(server.academy, 'POST', '/courses', operator, { title: 'x'.repeat(70 * 1024) }), 413, 'payload_too_large');
      expectProblem(await call(server.academy, 'GET', '/no-such-family', operator), 404, 'not_found');
    });

    it('answers a method a path does not take with 405 and Allow naming the ones it does (RFC 9110 15.5.6)', async () => {
      const listed = await call(server.academy, 'DELETE', '/courses', operator);
      expectProblem(listed, 405, 'method_not_allowed');
      expect(listed.headers.get('allow')).toBe('GET, HEAD, POST');
      const one = await call(server.academy, 'PUT', '/courses/crs_anything', operator);
      expectProblem(one, 405, 'method_not_allowed');
      expect(one.headers.get('allow')).toBe('GET, HEAD, PATCH');
      // A path no operation has, under any method, stays 404.
      expectProblem(await call(server.academy, 'DELETE', '/courses/crs_anything/nothing', operator), 404, 'not_found');
    });
  });
}
