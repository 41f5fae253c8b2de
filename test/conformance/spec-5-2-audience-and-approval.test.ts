// SPEC 5.2 and 5.5 at the authorization endpoint: member applications hold only identity and
// `account:*` scopes, and only those their operator granted; operator clients (the `demo-vendor`
// integration) never hold `account:*` (`invalid_scope`). Who may approve: a member application, anyone
// with a role at the site; an operator client, only an owner or admin of the site; anyone else gets
// `access_denied` on the redirect.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemberApp } from '../../src/clients/member-apps.repository.js';
import { hashToken } from '../../src/kernel/hashing.js';
import { authorizationUrl, expectCodeAt, expectErrorAt, expectErrorRedirect, isConsentPage } from '../helpers/authorization-url.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { person } from '../helpers/person.js';

const NARROW_APP = 'academy-narrow-app';

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`SPEC 5.2 audiences, scopes and who may approve (${dialect})`, () => {
    let server: DemoServer;
    beforeAll(async () => {
      server = await startDemoServer(dialect);
      // A member application whose operator granted it less than every member scope.
      const academy = await server.store.db.selectFrom('sites').select('id').where('origin', '=', server.academy).executeTakeFirstOrThrow();
      await createMemberApp(
        server.store.db,
        {
          siteId: academy.id,
          clientId: NARROW_APP,
          name: 'Narrow App',
          kind: 'public',
          redirectUris: ['http://127.0.0.1/callback'],
          scopes: ['openid', 'account:read'],
        },
        server.clock,
      );
    });
    afterAll(() => server?.close());

    const grantedScope = async (code: string) =>
      (
        await server.store.db
          .selectFrom('authorization_codes')
          .select('scope')
          .where('code_hash', '=', hashToken(code))
          .executeTakeFirstOrThrow()
      ).scope;

    describe('scope policy', () => {
      it('refuses an operator scope (courses:read) for a member app with invalid_scope', async () => {
        const url = authorizationUrl(server.academy, 'academy-member-app', { scope: 'openid courses:read' });
        const params = expectErrorRedirect(await person('owner').request(url), url, 'invalid_scope');
        expect(params.get('error_description')).toContain('courses:read');
      });

      it('refuses account:read for the operator client demo-vendor with invalid_scope', async () => {
        const url = authorizationUrl(server.academy, 'demo-vendor', { scope: 'openid account:read' });
        const params = expectErrorRedirect(await person('owner').request(url), url, 'invalid_scope');
        expect(params.get('error_description')).toContain('account:read');
      });

      it('refuses account:write for the operator client demo-vendor with invalid_scope, at both sites', async () => {
        for (const origin of [server.academy, server.studio]) {
          const url = authorizationUrl(origin, 'demo-vendor', { scope: 'courses:read account:write' });
          expectErrorRedirect(await person('owner').request(url), url, 'invalid_scope');
        }
      });

      it('refuses a scope the operator did not grant the member app with invalid_scope', async () => {
        const url = authorizationUrl(server.academy, NARROW_APP, {
          redirect_uri: 'http://127.0.0.1:50505/callback',
          scope: 'openid account:read account:write',
        });
        const params = expectErrorRedirect(await person('student').request(url), url, 'invalid_scope');
        expect(params.get('error_description')).toContain('account:write');
      });

      it('gives a member app a code for exactly the scopes it was granted', async () => {
        const url = authorizationUrl(server.academy, NARROW_APP, {
          redirect_uri: 'http://127.0.0.1:50505/callback',
          scope: 'account:read openid',
        });
        const code = expectCodeAt(await person('student').authorize(url), url);
        expect((await grantedScope(code)).split(' ').sort()).toEqual(['account:read', 'openid']);
      });

      it('gives a demo member app a code for every member scope (openid profile email account:read account:write)', async () => {
        const url = authorizationUrl(server.academy, 'academy-member-app', { scope: 'openid profile email account:read account:write' });
        const code = expectCodeAt(await person('student').authorize(url), url);
        expect((await grantedScope(code)).split(' ').sort()).toEqual(['account:read', 'account:write', 'email', 'openid', 'profile']);
      });
    });

    describe('who may approve', () => {
      it('denies a person with no role at the site (visitor at Demo Academy) a member app: access_denied on the redirect', async () => {
        const url = authorizationUrl(server.academy, 'academy-member-app');
        expectErrorAt(await person('visitor').authorize(url), url, 'access_denied');
      });

      it('does not show the consent page to a person who may not approve', async () => {
        const visitor = person('visitor');
        await visitor.authorize(authorizationUrl(server.academy, 'academy-member-app'));
        const url = authorizationUrl(server.academy, 'academy-member-app');
        const step = await visitor.request(url);
        expect(isConsentPage(step)).toBe(false);
        expectErrorRedirect(step, url, 'access_denied');
      });

      it('lets the visitor authorize a member app where they hold a role (student at Demo Studio)', async () => {
        const url = authorizationUrl(server.studio, 'studio-member-app');
        expectCodeAt(await person('visitor').authorize(url), url);
      });

      it('denies a student the operator client demo-vendor: access_denied on the redirect', async () => {
        const url = authorizationUrl(server.academy, 'demo-vendor', { scope: 'courses:read' });
        expectErrorAt(await person('student').authorize(url), url, 'access_denied');
      });

      it('denies a lecturer the operator client demo-vendor: access_denied on the redirect', async () => {
        const url = authorizationUrl(server.academy, 'demo-vendor', { scope: 'courses:read' });
        expectErrorAt(await person('lecturer').authorize(url), url, 'access_denied');
      });

      it('gives the owner a code for demo-vendor with courses:read (redirect 127.0.0.1 on any port)', async () => {
        const url = authorizationUrl(server.academy, 'demo-vendor', {
          scope: 'courses:read',
          redirect_uri: 'http://127.0.0.1:45678/callback',
        });
        const code = expectCodeAt(await person('owner').authorize(url), url);
        expect(await grantedScope(code)).toBe('courses:read');
      });

      it('gives an admin a code for demo-vendor (owner@demo.test is admin at Demo Studio)', async () => {
        const url = authorizationUrl(server.studio, 'demo-vendor', { scope: 'openid courses:read students:read' });
        expectCodeAt(await person('owner').authorize(url), url);
      });

      it('lets a lecturer authorize a member app', async () => {
        const url = authorizationUrl(server.academy, 'academy-member-app');
        expectCodeAt(await person('lecturer').authorize(url), url);
      });

      it('denies the lecturer a member app of Demo Studio, where they hold no role', async () => {
        const url = authorizationUrl(server.studio, 'studio-member-app');
        expectErrorAt(await person('lecturer').authorize(url), url, 'access_denied');
      });

      it('checks the role on every authorization: a remembered consent does not outlive the role', async () => {
        const db = server.store.db;
        const lecturer = person('lecturer');
        await lecturer.authorize(authorizationUrl(server.academy, 'academy-member-app'));
        const url = authorizationUrl(server.academy, 'academy-member-app', { prompt: 'none' });
        expectCodeAt((await lecturer.request(url)).location, url);
        const role = await db
          .selectFrom('site_roles')
          .innerJoin('people', 'people.id', 'site_roles.person_id')
          .innerJoin('sites', 'sites.id', 'site_roles.site_id')
          .select(['site_roles.site_id', 'site_roles.person_id', 'site_roles.role', 'site_roles.created_at'])
          .where('people.email', '=', 'lecturer@demo.test')
          .where('sites.origin', '=', server.academy)
          .executeTakeFirstOrThrow();
        await db.deleteFrom('site_roles').where('site_id', '=', role.site_id).where('person_id', '=', role.person_id).execute();
        try {
          const again = authorizationUrl(server.academy, 'academy-member-app', { prompt: 'none' });
          expectErrorRedirect(await lecturer.request(again), again, 'access_denied');
        } finally {
          await db.insertInto('site_roles').values(role).execute();
        }
      });

      it('remembers no consent and issues no code for a refused approver', async () => {
        const url = authorizationUrl(server.academy, 'academy-member-app', { scope: 'openid profile' });
        expectErrorAt(await person('visitor').authorize(url), url, 'access_denied');
        const visitorId = (
          await server.store.db.selectFrom('people').select('id').where('email', '=', 'visitor@demo.test').executeTakeFirstOrThrow()
        ).id;
        const academyId = (
          await server.store.db.selectFrom('sites').select('id').where('origin', '=', server.academy).executeTakeFirstOrThrow()
        ).id;
        const consents = await server.store.db
          .selectFrom('consents')
          .select('client_id')
          .where('person_id', '=', visitorId)
          .where('site_id', '=', academyId)
          .execute();
        expect(consents).toEqual([]);
        const codes = await server.store.db
          .selectFrom('authorization_codes')
          .select('client_id')
          .where('person_id', '=', visitorId)
          .where('site_id', '=', academyId)
          .execute();
        expect(codes).toEqual([]);
      });
    });
  });
}
