// The member GraphQL endpoint as an HTTP resource (SPEC 1, 4.3; issue 3 section 2): POST with a JSON body at
// the variant's path only, 405 for other methods, 404 for the other variant's path, 415 for other content
// types, 413 over the body limit, batching refused, request errors as GraphQL errors, never cached.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { person } from '../helpers/person.js';
import { DEMO_CLIENTS, getTokens } from '../helpers/token-flow.js';
import { dataOf, expectGraphqlErrors, GRAPHQL_PATH, graphql, type Json, OTHER_PATH, SITES, send } from './graphql-http.js';

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`member GraphQL endpoint over HTTP (${dialect})`, () => {
    let server: DemoServer;
    let token: Record<'academy' | 'studio', string>;

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      token = {
        academy: (await getTokens(server, DEMO_CLIENTS.academyApp, { who: person('student') })).access_token,
        studio: (await getTokens(server, DEMO_CLIENTS.studioApp, { who: person('student') })).access_token,
      };
    });
    afterAll(() => server?.close());

    for (const site of SITES) {
      const url = () => `${server[site]}${GRAPHQL_PATH[site]}`;

      describe(`at Demo ${site === 'academy' ? 'Academy' : 'Studio'} (${GRAPHQL_PATH[site]})`, () => {
        it('answers POST with a JSON GraphQL result, Cache-Control: no-store', async () => {
          const answer = await graphql(server, site, token[site], '{ viewer { email } }');
          expect(dataOf(answer)).toEqual({ viewer: { email: 'student@demo.test' } });
          expect(answer.headers.get('cache-control')).toBe('no-store');
          expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
        });

        it('takes variables and operationName, running the named operation of several', async () => {
          const query = 'query Mine($n: Int) { viewer { enrolledCourses(first: $n) { nodes { slug } } } } query Email { viewer { email } }';
          const one = await graphql(server, site, token[site], query, { variables: { n: 1 }, operationName: 'Mine' });
          expect(((dataOf(one).viewer as Json).enrolledCourses as { nodes: Json[] }).nodes).toHaveLength(1);
          expect(dataOf(await graphql(server, site, token[site], query, { operationName: 'Email' }))).toEqual({
            viewer: { email: 'student@demo.test' },
          });
        });

        it('answers GET with 405 and Allow: POST (no GraphiQL, no GET queries)', async () => {
          for (const method of ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH']) {
            const res = await fetch(`${url()}?query=${encodeURIComponent('{ viewer { id } }')}`, {
              method,
              headers: { authorization: `Bearer ${token[site]}` },
            });
            expect(res.status, method).toBe(405);
            expect(res.headers.get('allow'), method).toBe('POST');
            expect(res.headers.get('cache-control'), method).toBe('no-store');
            if (method !== 'HEAD') expect(((await res.json()) as { errors: { message: string }[] }).errors[0]?.message).toContain('POST');
          }
        });

        it('answers the other variant’s path with the same 404 as any unknown path', async () => {
          const unknown = await send(`${server[site]}/no-such-endpoint`, { query: '{ viewer { id } }' }, { token: token[site] });
          expect(unknown.status).toBe(404);
          for (const method of ['POST', 'GET']) {
            const answer = await send(`${server[site]}${OTHER_PATH[site]}`, { query: '{ viewer { id } }' }, { token: token[site], method });
            expect(answer.status, method).toBe(404);
            expect(answer.text, method).toBe(unknown.text);
            expect(answer.headers.get('content-type'), method).toBe(unknown.headers.get('content-type'));
            expect(answer.headers.get('www-authenticate'), method).toBeNull();
          }
          // Even without a token, and with a body this path would refuse: the path simply is not there.
          const anonymous = await send(`${server[site]}${OTHER_PATH[site]}`, 'x', { headers: { 'content-type': 'text/plain' } });
          expect(anonymous.status).toBe(404);
          expect(anonymous.text).toBe(unknown.text);
        });

        it('refuses a body that is not application/json with 415 and a GraphQL error', async () => {
          for (const [type, body] of [
            ['text/plain', '{ viewer { id } }'],
            ['application/graphql', '{ viewer { id } }'],
            ['application/x-www-form-urlencoded', 'query=%7B%20viewer%20%7B%20id%20%7D%20%7D'],
          ] as const) {
            const answer = await send(url(), body, { token: token[site], headers: { 'content-type': type } });
            expect(expectGraphqlErrors(answer, 415)[0]?.message, type).toContain('application/json');
          }
        });

        it('refuses a body over 64 KiB with 413 and a GraphQL error', async () => {
          const query = `{ viewer { id } } # ${'x'.repeat(64 * 1024)}`;
          const answer = await send(url(), { query }, { token: token[site] });
          expect(expectGraphqlErrors(answer, 413)[0]?.message).toContain('65536 bytes');
          // Just under the limit is read.
          expect((await send(url(), { query: `{ viewer { id } } # ${'x'.repeat(60 * 1024)}` }, { token: token[site] })).status).toBe(200);
        });

        it('refuses a batch (a JSON array of operations) with 400 and a clear GraphQL error', async () => {
          const answer = await send(url(), [{ query: '{ viewer { id } }' }, { query: '{ viewer { email } }' }], { token: token[site] });
          const [error] = expectGraphqlErrors(answer, 400);
          expect(error?.message).toMatch(/^Batched queries are not supported/);
          expect(error?.extensions?.code).toBe('BATCHING_NOT_SUPPORTED');
        });

        it('refuses a body without a string query, or with malformed variables or operationName, with 400', async () => {
          for (const body of [
            {},
            { query: 42 },
            { query: '' },
            { query: '{ viewer { id } }', variables: [1] },
            { query: '{ viewer { id } }', operationName: 7 },
          ]) {
            expectGraphqlErrors(await send(url(), body, { token: token[site] }), 400);
          }
          expect(expectGraphqlErrors(await send(url(), '{"query": ', { token: token[site] }), 400)[0]?.message).toBe(
            'The body is not valid JSON.',
          );
        });

        it('answers a syntax error with 400 and a GraphQL error locating it', async () => {
          const [error] = expectGraphqlErrors(await graphql(server, site, token[site], '{ viewer { id '), 400);
          expect(error?.message).toMatch(/^Syntax Error/);
          expect(error?.locations).toEqual([{ line: 1, column: 15 }]);
        });

        it('answers a query that does not validate with 400 and the validation errors, without data', async () => {
          const answer = await graphql(server, site, token[site], '{ viewer { noSuchField } }');
          expect(expectGraphqlErrors(answer, 400)[0]?.message).toBe('Cannot query field "noSuchField" on type "Viewer".');
          expect(answer.json?.data).toBeUndefined();
        });

        it('answers variables of the wrong type, and an unknown operationName, with 400', async () => {
          const query = 'query Q($n: Int) { viewer { enrolledCourses(first: $n) { totalCount } } }';
          expectGraphqlErrors(await graphql(server, site, token[site], query, { variables: { n: 'many' } }), 400);
          expect(
            expectGraphqlErrors(await graphql(server, site, token[site], query, { operationName: 'Nope' }), 400)[0]?.message,
          ).toContain('Nope');
        });

        it('serves introspection (the schema is the API’s documentation), with descriptions', async () => {
          const data = dataOf(
            await graphql(
              server,
              site,
              token[site],
              '{ __schema { description queryType { name } } __type(name: "Viewer") { description fields { name description } } }',
            ),
          );
          const schema = data.__schema as Json;
          expect(schema.description).toMatch(site === 'academy' ? /^Member API/ : /^Account API/);
          const fields = (data.__type as { fields: { name: string; description: string }[] }).fields;
          for (const field of fields) expect(field.description, field.name).toEqual(expect.any(String));
          const names = fields.map((f) => f.name);
          if (site === 'academy') expect(names).toEqual(expect.arrayContaining(['schools', 'notifications', 'unreadNotificationCount']));
          else expect(names).not.toEqual(expect.arrayContaining(['schools']));
        });
      });
    }
  });
}
