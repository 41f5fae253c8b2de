// RFC 8707 at the authorization endpoint (SPEC 4.2, CONTRACT 5, INTEROP "resource"): `resource` is
// required and compared as an origin; the bare origin and the origin with a trailing slash are the same
// resource; a path, a query, a fragment, another origin, none or two are `invalid_target`, and the
// description names the one accepted value.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/kernel/hashing.js';
import { authorizationUrl, expectCodeAt, expectErrorRedirect, isSignInForm } from '../helpers/authorization-url.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { person } from '../helpers/person.js';

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`RFC 8707 resource at the authorization endpoint (${dialect})`, () => {
    let server: DemoServer;
    beforeAll(async () => {
      server = await startDemoServer(dialect);
    });
    afterAll(() => server?.close());

    const invalidTarget = async (resource: string | string[] | null, origin = server.academy) => {
      const clientId = origin === server.academy ? 'academy-member-app' : 'studio-member-app';
      const url = authorizationUrl(origin, clientId, { resource });
      const params = expectErrorRedirect(await person('student').request(url), url, 'invalid_target');
      expect(params.get('error_description')).toContain(origin);
      return params;
    };

    const boundResource = async (code: string) =>
      (
        await server.store.db
          .selectFrom('authorization_codes')
          .select('resource')
          .where('code_hash', '=', hashToken(code))
          .executeTakeFirstOrThrow()
      ).resource;

    it('accepts the bare origin and binds the code to it', async () => {
      const url = authorizationUrl(server.academy, 'academy-member-app', { resource: server.academy });
      const code = expectCodeAt(await person('student').authorize(url), url);
      expect(await boundResource(code)).toBe(server.academy);
    });

    it('accepts the origin with a trailing slash as the same resource, bound as the bare origin', async () => {
      const url = authorizationUrl(server.academy, 'academy-member-app', { resource: `${server.academy}/` });
      const code = expectCodeAt(await person('student').authorize(url), url);
      expect(await boundResource(code)).toBe(server.academy);
    });

    it('accepts new URL(origin).href, what JavaScript clients send, at both demo sites', async () => {
      for (const [origin, clientId] of [
        [server.academy, 'academy-member-app'],
        [server.studio, 'studio-member-app'],
      ] as const) {
        const step = await person('student').request(authorizationUrl(origin, clientId, { resource: new URL(origin).href }));
        expect(isSignInForm(step), origin).toBe(true);
      }
    });

    it('refuses a path (/mcp) with invalid_target naming the accepted origin', async () => {
      await invalidTarget(`${server.academy}/mcp`);
    });

    it('refuses the GraphQL path with invalid_target naming the accepted origin', async () => {
      await invalidTarget(`${server.academy}/member/graphql`);
    });

    it('refuses a query (?utm_source=x) with invalid_target naming the accepted origin', async () => {
      await invalidTarget(`${server.academy}/?utm_source=x`);
      await invalidTarget(`${server.academy}?utm_source=x`);
    });

    it('refuses an empty query or fragment marker with invalid_target', async () => {
      await invalidTarget(`${server.academy}/?`);
      await invalidTarget(`${server.academy}/#`);
    });

    it('refuses a fragment with invalid_target naming the accepted origin', async () => {
      await invalidTarget(`${server.academy}/#top`);
    });

    it('refuses another origin with invalid_target: the other demo site, another scheme, another host', async () => {
      await invalidTarget(server.studio);
      await invalidTarget(server.academy, server.studio);
      await invalidTarget(server.academy.replace('http:', 'https:'));
      await invalidTarget('https://school.example');
    });

    it('refuses a resource that is not an absolute URI with invalid_target', async () => {
      await invalidTarget('/');
      await invalidTarget('localhost');
    });

    it('refuses a missing resource with invalid_target naming the accepted origin', async () => {
      const params = await invalidTarget(null);
      expect(params.get('error_description')).toContain('resource');
    });

    it('refuses an empty resource with invalid_target', async () => {
      await invalidTarget('');
    });

    it('refuses two resources with invalid_target naming the accepted origin', async () => {
      await invalidTarget([server.academy, server.studio]);
    });

    it('refuses the origin given twice with invalid_target (exactly one resource per request)', async () => {
      await invalidTarget([server.academy, `${server.academy}/`]);
    });
  });
}
