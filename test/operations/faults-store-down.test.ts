// Issue 8, "Faults survived": PostgreSQL taken away under load. Every endpoint answers 503 in its own
// error shape (RFC 6749 5.2 JSON at the OAuth endpoints, RFC 7009 2.2.1's 503 at revocation, a GraphQL
// error, an RFC 9457 problem, an HTML page), never a 500 and never a hang past the store's timeouts;
// /mcp variant A answers 503 temporarily_unavailable without WWW-Authenticate (SPEC 7). When the store
// is back, everything works again without a restart. The store is cut by a TCP proxy in front of it.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { skipDialect } from '../helpers/dialects.js';
import { REDIS_URL } from '../helpers/redis.js';
import { mcpPost, toolCall } from '../helpers/mcp.js';
import { hiddenFields, type Person, person } from '../helpers/person.js';
import { type ProxiedDemoServer, startProxiedDemoServer } from '../helpers/proxied-demo-server.js';
import { authorizationUrl, DEMO_CLIENTS, type DemoClient, getTokens, pkcePair, type TokenSet } from '../helpers/token-flow.js';

const VENDOR: DemoClient = { site: 'academy', clientId: 'demo-vendor', redirectUri: 'http://127.0.0.1:61000/callback' };
const WEB = DEMO_CLIENTS.academyWeb;

interface Answer {
  name: string;
  status: number;
  headers: Headers;
  text: string;
  ms: number;
}

// With Redis, access tokens are cached per node: the bearer check passes from the cache and the fault
// meets each handler's own database work instead.
for (const withRedis of [false, true])
  describe.skipIf(skipDialect('postgres'))(
    `every endpoint with PostgreSQL taken away (through a TCP proxy), ${withRedis ? 'with' : 'without'} Redis`,
    () => {
      let server: ProxiedDemoServer;
      let web: TokenSet;
      let operator: string;
      let graphqlPath: string;
      let visitor: Person;
      let signInFields: Record<string, string>;

      beforeAll(async () => {
        server = await startProxiedDemoServer(withRedis ? { env: { REDIS_URL } } : {});
        const owner = person('owner');
        web = await getTokens(server, WEB, { scope: 'openid profile account:read', who: owner });
        operator = (await getTokens(server, VENDOR, { scope: 'courses:read', who: owner })).access_token;
        graphqlPath = '/member/graphql';
        // A person at the sign-in page when the store goes: their form post must meet a page, not a 500.
        visitor = person('student');
        const page = await visitor.request(authorizationUrl(server, WEB, pkcePair().challenge));
        signInFields = hiddenFields(page.html);
      });
      afterEach(() => server?.proxy.resume());
      afterAll(() => server?.close());

      const form = (path: string, params: Record<string, string>) =>
        fetch(`${server.academy}${path}`, { method: 'POST', body: new URLSearchParams(params), redirect: 'manual' });
      const requests = () => ({
        token: () =>
          form('/api/oauth/token', {
            grant_type: 'refresh_token',
            refresh_token: web.refresh_token ?? '',
            client_id: WEB.clientId,
            client_secret: WEB.secret,
          }),
        revocation: () =>
          form('/api/oauth/revoke', { token: 'an-unknown-token-value', client_id: WEB.clientId, client_secret: WEB.secret }),
        introspection: () => form('/api/oauth/introspect', { token: web.access_token, client_id: WEB.clientId, client_secret: WEB.secret }),
        userinfo: () => fetch(`${server.academy}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${web.access_token}` } }),
        graphql: () =>
          fetch(`${server.academy}${graphqlPath}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${web.access_token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ query: '{ viewer { id } }' }),
          }),
        mcp: () =>
          fetch(`${server.academy}/mcp`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${web.access_token}`,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
            },
            body: JSON.stringify(toolCall('list_my_enrollments', {}, 7)),
          }),
        operator: () => fetch(`${server.academy}/api/admin/v1/courses`, { headers: { authorization: `Bearer ${operator}` } }),
        authorize: () => fetch(authorizationUrl(server, WEB, pkcePair().challenge), { redirect: 'manual' }),
        signIn: async () => {
          const step = await visitor.request(`${server.academy}/oauth/sign-in`, {
            form: { ...signInFields, email: visitor.email, password: visitor.password },
          });
          return new Response(step.html, { status: step.status, headers: step.headers });
        },
        readyz: () => fetch(`${server.academy}/readyz`),
      });

      async function callAll(): Promise<Answer[]> {
        return Promise.all(
          Object.entries(requests()).map(async ([name, send]) => {
            const started = performance.now();
            const res = await send();
            return { name, status: res.status, headers: res.headers, text: await res.text(), ms: performance.now() - started };
          }),
        );
      }

      it('answers each endpoint normally while the store answers', async () => {
        for (const answer of await callAll()) expect(answer.status, `${answer.name}: ${answer.text}`).toBeLessThan(500);
      });

      for (const mode of ['refuse', 'stall'] as const) {
        it(`answers 503 in each endpoint's own shape, never 500, within the store timeouts, when the store ${mode === 'refuse' ? 'refuses connections' : 'hangs'}; recovers without a restart`, async () => {
          await server.proxy.pause(mode);
          // Under load: every endpoint five times at once.
          const rounds = await Promise.all([callAll(), callAll(), callAll(), callAll(), callAll()]);
          for (const answers of rounds) {
            const by = Object.fromEntries(answers.map((a) => [a.name, a]));
            for (const answer of answers) {
              expect(answer.status, `${answer.name}: ${answer.text}`).not.toBe(500);
              expect(answer.text, answer.name).not.toMatch(/at .*\.(ts|js):\d+|ECONNREFUSED|Connection terminated/);
              // pg's connection timeout is 2 s and the query timeout 5 s; nothing waits longer than those.
              expect(answer.ms, answer.name).toBeLessThan(8000);
            }
            // Reads a node can answer from its coherent caches (Redis keeps them honest) may still succeed.
            const servedFromCache = (name: string) =>
              withRedis &&
              ['introspection', 'userinfo', 'mcp', 'graphql', 'operator', 'authorize'].includes(name) &&
              (by[name] as Answer).status < 300;
            // A tool that meets the fault after a cached bearer check answers an MCP tool error asking to retry;
            // one whose page the member learning cache still holds answers the page.
            const mcp = by.mcp as Answer;
            if (servedFromCache('mcp')) {
              const { result } = JSON.parse(mcp.text) as { result: { isError?: boolean; content: Array<{ text: string }> } };
              if (result.isError) expect(result.content[0]?.text).toMatch(/again in a moment/);
              else expect(result).toMatchObject({ structuredContent: { items: expect.any(Array) } });
            }
            for (const name of ['token', 'revocation', 'introspection', 'userinfo', 'mcp']) {
              const answer = by[name] as Answer;
              if (servedFromCache(name)) continue;
              expect(answer.status, `${name}: ${answer.text}`).toBe(503);
              expect(JSON.parse(answer.text), name).toMatchObject({ error: 'temporarily_unavailable' });
              expect(Number(answer.headers.get('retry-after')), name).toBeGreaterThan(0);
              expect(answer.headers.get('www-authenticate'), name).toBeNull();
            }
            const graphql = by.graphql as Answer;
            if (!servedFromCache('graphql')) {
              expect(graphql.status, graphql.text).toBe(503);
              expect(JSON.parse(graphql.text)).toMatchObject({
                errors: [{ message: expect.any(String), extensions: { code: 'UNAVAILABLE' } }],
              });
              expect(Number(graphql.headers.get('retry-after'))).toBeGreaterThan(0);
            }
            const operatorAnswer = by.operator as Answer;
            if (!servedFromCache('operator')) {
              expect(operatorAnswer.status, operatorAnswer.text).toBe(503);
              expect(operatorAnswer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
              expect(JSON.parse(operatorAnswer.text)).toMatchObject({ code: 'unavailable', status: 503 });
            }
            for (const name of ['authorize', 'signIn']) {
              const answer = by[name] as Answer;
              if (servedFromCache(name)) continue;
              expect(answer.status, `${name}: ${answer.text.slice(0, 200)}`).toBe(503);
              expect(answer.headers.get('content-type'), name).toMatch(/^text\/html/);
              expect(answer.text, name).toMatch(/try again/i);
            }
            expect((by.readyz as Answer).status).toBe(503);
          }

          server.proxy.resume();
          const refreshed = await requests().token();
          expect(refreshed.status).toBe(200);
          web = { ...web, ...((await refreshed.json()) as TokenSet) };
          for (const answer of await callAll()) expect(answer.status, `${answer.name}: ${answer.text}`).toBeLessThan(500);
          expect((await mcpPost(server.academy, toolCall('list_my_enrollments', {}, 8), { token: web.access_token })).status).toBe(200);
        }, 60_000);
      }
    },
  );
