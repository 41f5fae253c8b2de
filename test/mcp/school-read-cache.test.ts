// school/school-read-cache.ts: the public tools' catalogue reads (search_courses, get_course) are kept
// between calls, yet an operator's change shows at the very next call, on the node that wrote it and, over
// Redis, on every other node; while no node can hear another (PostgreSQL without Redis) nothing is kept.
// Over real HTTP: the operator API with a token from the real flow, /mcp as a stateless client calls it.
import { request } from 'node:http';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { TTL_MS } from '../../src/school/school-read-cache.js';
import { openStore, type Store } from '../../src/storage/connect.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { skipDialect, type TestDialect } from '../helpers/dialects.js';
import { mcpPost, toolCall } from '../helpers/mcp.js';
import { ALL_REST_SCOPES, call, VENDOR } from '../helpers/operator-api.js';
import { person } from '../helpers/person.js';
import { REDIS_URL, redisAvailable } from '../helpers/redis.js';
import { getTokens } from '../helpers/token-flow.js';

const redis = await redisAvailable();

interface Listing {
  slug: string;
  title: string;
}
interface ToolAnswer<T> {
  result: { isError?: boolean; structuredContent: T };
}

let serial = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${serial++}`;

async function tool<T>(origin: string, name: string, args: Record<string, unknown>): Promise<ToolAnswer<T>['result']> {
  const answer = await mcpPost(origin, toolCall(name, args));
  expect(answer.status).toBe(200);
  return (answer.body as ToolAnswer<T>).result;
}

const search = async (origin: string, query: string) =>
  (await tool<{ items: Listing[]; total: number }>(origin, 'search_courses', { query })).structuredContent;

/** POSTs a tool call to a node's own port, naming the site's origin in Host, as a load balancer would. */
function toolCallVia(port: number, siteHost: string, name: string, args: Record<string, unknown>): Promise<ToolAnswer<unknown>['result']> {
  const body = JSON.stringify(toolCall(name, args));
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        headers: {
          host: siteHost,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve((JSON.parse(text) as ToolAnswer<unknown>).result));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Another node of the same deployment: its own process state, the same database, Redis and clock. */
async function secondNode(server: DemoServer): Promise<{ app: FastifyInstance; store: Store; port: number }> {
  const store = openStore(server.config.databaseUrl, { poolSize: 3 });
  const app = await buildApp({ config: server.config, store, clock: server.clock, logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  for (let i = 0; !app.services.signals.reliable() && i < 100; i++) await new Promise((r) => setTimeout(r, 20));
  const address = app.server.address();
  return { app, store, port: typeof address === 'object' && address ? address.port : 0 };
}

/** Other test files' servers share this Redis: their writes' signals would empty these caches mid-test. */
const OWN_REDIS = { REDIS_URL, REDIS_PREFIX: `catalogue-cache-test-${process.pid}` };

const deployments: Array<{ name: string; dialect: TestDialect; env: Record<string, string>; cached: boolean; skip: boolean }> = [
  { name: 'SQLite', dialect: 'sqlite', env: {}, cached: true, skip: skipDialect('sqlite') },
  { name: 'PostgreSQL with Redis', dialect: 'postgres', env: OWN_REDIS, cached: true, skip: skipDialect('postgres') || !redis },
  { name: 'PostgreSQL without Redis', dialect: 'postgres', env: {}, cached: false, skip: skipDialect('postgres') },
];

for (const deployment of deployments) {
  describe.skipIf(deployment.skip)(`the public catalogue cache (${deployment.name})`, () => {
    let server: DemoServer;
    let operator: string;

    beforeAll(async () => {
      server = await startDemoServer(deployment.dialect, { env: deployment.env });
      operator = (await getTokens(server, VENDOR('academy'), { scope: ALL_REST_SCOPES, who: person('owner') })).access_token;
    });
    afterAll(() => server?.close());

    const createPublished = async (title: string) => {
      const slug = unique('cached');
      const created = await call(server.academy, 'POST', '/courses', operator, { title, slug });
      expect(created.status).toBe(201);
      const id = (created.body.course as { id: string }).id;
      expect((await call(server.academy, 'POST', `/courses/${id}/publish`, operator)).status).toBe(200);
      return { id, slug };
    };

    it(`${deployment.cached ? 'answers' : 'never answers'} a repeated search from memory, and shows an operator's edit at the next call`, async () => {
      const word = unique('zebrafish');
      const { id } = await createPublished(`Keeping ${word}`);
      const stats = server.app.services.catalogue.stats;
      expect((await search(server.academy, word)).items.map((c) => c.title)).toEqual([`Keeping ${word}`]);
      const hitsBefore = stats.hits;
      expect((await search(server.academy, word)).items.map((c) => c.title)).toEqual([`Keeping ${word}`]);
      expect(stats.hits - hitsBefore).toBe(deployment.cached ? 1 : 0);

      const renamed = await call(server.academy, 'PATCH', `/courses/${id}`, operator, { title: `Breeding ${word}` }, { 'if-match': '*' });
      expect(renamed.status).toBe(200);
      expect((await search(server.academy, word)).items.map((c) => c.title)).toEqual([`Breeding ${word}`]);
    });

    it('a course unpublished by an operator is gone from search_courses and get_course at the next call; published again, it is back', async () => {
      const word = unique('axolotl');
      const { id, slug } = await createPublished(`All about ${word}`);
      for (let i = 0; i < 2; i++) {
        expect((await search(server.academy, word)).total).toBe(1);
        expect((await tool(server.academy, 'get_course', { slug })).isError).toBeFalsy();
      }
      expect((await call(server.academy, 'POST', `/courses/${id}/unpublish`, operator)).status).toBe(200);
      expect((await search(server.academy, word)).total).toBe(0);
      expect((await tool(server.academy, 'get_course', { slug })).isError).toBe(true);
      // The answer "no such course" is kept too, and forgotten as well when the course comes back.
      expect((await tool(server.academy, 'get_course', { slug })).isError).toBe(true);
      expect((await call(server.academy, 'POST', `/courses/${id}/publish`, operator)).status).toBe(200);
      expect((await search(server.academy, word)).total).toBe(1);
      expect((await tool(server.academy, 'get_course', { slug })).isError).toBeFalsy();
    });

    it("an operator's write at one school forgets that school's answers only: another school's are still kept", async () => {
      const studio = await server.store.db
        .selectFrom('courses')
        .innerJoin('sites', 'sites.id', 'courses.site_id')
        .select(['courses.id', 'courses.slug'])
        .where('sites.origin', '=', server.studio)
        .where('courses.published', '=', 1)
        .executeTakeFirstOrThrow();
      expect((await tool(server.studio, 'get_course', { slug: studio.slug })).isError).toBeFalsy();
      // Unpublished behind the service's back: only the cache can still answer with the course.
      await server.store.db.updateTable('courses').set({ published: 0 }).where('id', '=', studio.id).execute();
      try {
        await createPublished(`Elsewhere ${unique('okapi')}`);
        expect(Boolean((await tool(server.studio, 'get_course', { slug: studio.slug })).isError)).toBe(!deployment.cached);
      } finally {
        await server.store.db.updateTable('courses').set({ published: 1 }).where('id', '=', studio.id).execute();
        server.clock.advance(TTL_MS);
      }
    });

    it('keeps an answer no longer than its time to live, whatever changed the catalogue', async () => {
      const word = unique('narwhal');
      const { id } = await createPublished(`Watching ${word}`);
      expect((await search(server.academy, word)).total).toBe(1);
      // Written behind the service's back (as a seed or a migration would), so no signal tells the cache.
      await server.store.db.updateTable('courses').set({ published: 0 }).where('id', '=', id).execute();
      expect((await search(server.academy, word)).total).toBe(deployment.cached ? 1 : 0);
      server.clock.advance(TTL_MS);
      expect((await search(server.academy, word)).total).toBe(0);
    });
  });
}

describe.skipIf(skipDialect('postgres') || !redis)('the public catalogue cache across two nodes (PostgreSQL with Redis)', () => {
  let server: DemoServer;
  let node: Awaited<ReturnType<typeof secondNode>>;
  let operator: string;

  beforeAll(async () => {
    server = await startDemoServer('postgres', { env: OWN_REDIS });
    node = await secondNode(server);
    operator = (await getTokens(server, VENDOR('academy'), { scope: ALL_REST_SCOPES, who: person('owner') })).access_token;
  });
  afterAll(async () => {
    await node?.app.close();
    await node?.store.close();
    await server?.close();
  });

  it("an operator's edit at one node shows in the other node's search at once, though that node had the old answer in memory", async () => {
    const word = unique('platypus');
    const created = await call(server.academy, 'POST', '/courses', operator, { title: `On ${word}`, slug: unique('platypus') });
    const id = (created.body.course as { id: string }).id;
    expect((await call(server.academy, 'POST', `/courses/${id}/publish`, operator)).status).toBe(200);
    const viaSecond = async () =>
      (
        (await toolCallVia(node.port, new URL(server.academy).host, 'search_courses', { query: word })).structuredContent as {
          items: Listing[];
        }
      ).items.map((c) => c.title);
    expect(await viaSecond()).toEqual([`On ${word}`]);
    const hits = node.app.services.catalogue.stats.hits;
    expect(await viaSecond()).toEqual([`On ${word}`]);
    expect(node.app.services.catalogue.stats.hits).toBe(hits + 1);
    expect((await call(server.academy, 'PATCH', `/courses/${id}`, operator, { title: `Beyond ${word}` }, { 'if-match': '*' })).status).toBe(
      200,
    );
    expect(await viaSecond()).toEqual([`Beyond ${word}`]);
  });
});
