// CONTRACT 6 members (issue 9): people with a role here, their roles, suspension. A suspended person's
// tokens at this site stop working at once, their sessions here end and they cannot sign in here, while
// other sites are untouched; unsuspending restores the same tokens. Only an owner acts on the owner role,
// the last owner keeps it. Over real HTTP on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { personId } from '../helpers/mcp.js';
import { ALL_REST_SCOPES, type Answer, call, expectProblem, VENDOR } from '../helpers/operator-api.js';
import { hiddenFields, person } from '../helpers/person.js';
import { authorizationUrl, DEMO_CLIENTS, getTokens, pkcePair, userInfo } from '../helpers/token-flow.js';

interface Member {
  id: string;
  roles: string[];
  suspended: boolean;
  suspensionReason: string | null;
}
const memberOf = (answer: Answer) => answer.body.member as Member;

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`operator API: members (${dialect})`, () => {
    let server: DemoServer;
    let owner: string;
    let ids: Record<'owner' | 'student' | 'lecturer', string>;

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      owner = (await getTokens(server, VENDOR('academy'), { scope: ALL_REST_SCOPES, who: person('owner') })).access_token;
      ids = {
        owner: await personId(server, 'owner@demo.test'),
        student: await personId(server, 'student@demo.test'),
        lecturer: await personId(server, 'lecturer@demo.test'),
      };
    });
    afterAll(() => server?.close());

    it('lists the people with a role here, filtered by role, with totals', async () => {
      // Every page, by cursor: no one twice, everyone counted in total.
      const listed: Member[] = [];
      let cursor: unknown = null;
      let total = 0;
      do {
        const page = await call(server.academy, 'GET', `/members?limit=100${cursor ? `&cursor=${cursor}` : ''}`, owner);
        listed.push(...(page.body.items as Member[]));
        cursor = page.body.nextCursor;
        total = page.body.total as number;
      } while (cursor);
      expect(listed.map((m) => m.id)).toEqual(expect.arrayContaining([ids.owner, ids.student, ids.lecturer]));
      expect(new Set(listed.map((m) => m.id)).size).toBe(listed.length);
      expect(total).toBe(listed.length);
      expect(listed.find((m) => m.id === ids.owner)?.roles).toContain('owner');
      const students = await call(server.academy, 'GET', '/members?role=student&limit=100', owner);
      expect((students.body.items as Member[]).every((m) => m.roles.includes('student'))).toBe(true);
      const page1 = await call(server.academy, 'GET', '/members?limit=1', owner);
      const page2 = await call(server.academy, 'GET', `/members?limit=1&cursor=${page1.body.nextCursor}`, owner);
      expect((page2.body.items as Member[])[0]?.id).not.toBe((page1.body.items as Member[])[0]?.id);
    });

    it('suspends a member: their tokens here stop at once, their session here ends, they cannot sign in here; other sites are untouched; unsuspend restores the same tokens', async () => {
      const student = person('student');
      const here = await getTokens(server, DEMO_CLIENTS.academyApp, { scope: 'openid account:read', who: student });
      const elsewhere = await getTokens(server, DEMO_CLIENTS.studioApp, { scope: 'openid account:read', who: student });
      expect((await userInfo(server.academy, here.access_token)).status).toBe(200);

      const suspended = await call(server.academy, 'POST', `/members/${ids.student}/suspend`, owner, { reason: 'Chargeback under review' });
      expect(memberOf(suspended)).toMatchObject({ suspended: true, suspensionReason: 'Chargeback under review' });
      const refused = await userInfo(server.academy, here.access_token);
      expect(refused.status).toBe(403);
      expect((await userInfo(server.studio, elsewhere.access_token)).status).toBe(200);

      // The session here is gone: the authorization request shows the sign-in form again, which refuses them.
      const page = await student.request(authorizationUrl(server, DEMO_CLIENTS.academyApp, pkcePair().challenge));
      expect(page.html).toContain('name="password"');
      const signIn = await student.request(`${server.academy}/oauth/sign-in`, {
        form: { ...hiddenFields(page.html), email: student.email, password: student.password },
      });
      expect(signIn.status).toBe(403);
      expect(signIn.html).toMatch(/suspended at Demo Academy/);
      // A wrong password says only that it is wrong: suspension is told to the account holder alone.
      const wrong = await student.request(`${server.academy}/oauth/sign-in`, {
        form: { ...hiddenFields(page.html), email: student.email, password: 'not-the-password' },
      });
      expect(wrong.status).toBe(401);

      expect(memberOf(await call(server.academy, 'POST', `/members/${ids.student}/unsuspend`, owner))).toMatchObject({ suspended: false });
      expect((await userInfo(server.academy, here.access_token)).status).toBe(200);
      const audit = (await call(server.academy, 'GET', '/audit_events?action=operator.&limit=2', owner)).body.items as Array<{
        action: string;
        target: string;
      }>;
      expect(audit.map((e) => e.action)).toEqual(['operator.unsuspend_member', 'operator.suspend_member']);
      expect(audit[0]?.target).toBe(`member:${ids.student}`);
    });

    it('sets roles exactly, honouring If-Match; an admin may not give the owner role; the last owner keeps it; nobody suspends themselves', async () => {
      const tag = (await call(server.academy, 'GET', `/members/${ids.lecturer}`, owner)).headers.get('etag') ?? '';
      const promoted = await call(
        server.academy,
        'PATCH',
        `/members/${ids.lecturer}`,
        owner,
        { roles: ['admin', 'lecturer'] },
        { 'if-match': tag },
      );
      expect(memberOf(promoted).roles).toEqual(['admin', 'lecturer']);
      expectProblem(
        await call(server.academy, 'PATCH', `/members/${ids.lecturer}`, owner, { roles: ['lecturer'] }, { 'if-match': tag }),
        412,
        'precondition_failed',
      );

      // The new admin acts with their own operator token.
      const admin = (await getTokens(server, VENDOR('academy'), { scope: 'members:read members:write', who: person('lecturer') }))
        .access_token;
      expect((await call(server.academy, 'GET', '/members', admin)).status).toBe(200);
      expectProblem(
        await call(server.academy, 'PATCH', `/members/${ids.lecturer}`, admin, { roles: ['owner', 'admin', 'lecturer'] }),
        403,
        'forbidden',
      );
      expectProblem(await call(server.academy, 'POST', `/members/${ids.owner}/suspend`, admin), 403, 'forbidden');

      expectProblem(await call(server.academy, 'PATCH', `/members/${ids.owner}`, owner, { roles: ['admin'] }), 409, 'conflict');
      expectProblem(await call(server.academy, 'POST', `/members/${ids.owner}/suspend`, owner), 409, 'conflict');
      expectProblem(
        await call(server.academy, 'PATCH', `/members/${ids.lecturer}`, owner, { roles: ['janitor'] }),
        400,
        'invalid_argument',
      );

      // Demoted, the admin's next call is refused.
      expect(memberOf(await call(server.academy, 'PATCH', `/members/${ids.lecturer}`, owner, { roles: ['lecturer'] })).roles).toEqual([
        'lecturer',
      ]);
      expect((await call(server.academy, 'GET', '/members', admin)).status).toBe(403);
    });

    it('answers 404 for a person without a role here, the same as for nobody', async () => {
      const visitor = await personId(server, 'visitor@demo.test');
      const roles = await server.store.db
        .selectFrom('site_roles')
        .innerJoin('sites', 'sites.id', 'site_roles.site_id')
        .select('sites.origin')
        .where('person_id', '=', visitor)
        .execute();
      if (!roles.some((r) => r.origin === server.academy))
        expectProblem(await call(server.academy, 'GET', `/members/${visitor}`, owner), 404, 'not_found');
      expectProblem(await call(server.academy, 'GET', '/members/per_nobody', owner), 404, 'not_found');
      expectProblem(await call(server.academy, 'POST', '/members/per_nobody/suspend', owner), 404, 'not_found');
    });
  });
}
