// CONTRACT 7 and issue 11 over real HTTP: the admin area and the member's own apps page, on both dialects.
// People drive the real pages (sign-in form, CSRF fields, 303s); apps use real tokens from the real flow.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CimdServer, startCimdServer } from '../helpers/cimd-server.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { formFields, type Person, person, type Step } from '../helpers/person.js';
import { pkcePair } from '../helpers/token-flow.js';
import { DEMO_CLIENTS, FULL_SCOPE, getTokens, userInfo } from '../helpers/token-flow.js';

/** Signs in through the form an admin page shows without a session; answers the page it returns to. */
async function signInAt(who: Person, origin: string, path: string): Promise<Step> {
  const form = await who.request(`${origin}${path}`);
  expect(form.html).toContain('name="password"');
  const signedIn = await who.request(`${origin}/oauth/sign-in`, {
    form: { ...formFields(form.html, '/oauth/sign-in'), email: who.email, password: who.password },
  });
  expect(signedIn.status).toBe(303);
  expect(new URL(signedIn.location as string).pathname + new URL(signedIn.location as string).search).toBe(path);
  return who.request(signedIn.location as string);
}

async function post(
  who: Person,
  origin: string,
  page: string,
  action: string,
  fields: Record<string, string | string[]> = {},
): Promise<Step> {
  const html = (await who.request(`${origin}${page}`)).html;
  return who.request(`${origin}${action}`, { form: { ...formFields(html, action), ...fields } });
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`admin and account pages (${dialect})`, () => {
    let server: DemoServer;
    let cimd: CimdServer;
    let owner: Person;
    beforeAll(async () => {
      [server, cimd] = await Promise.all([startDemoServer(dialect), startCimdServer()]);
      owner = person('owner');
      await signInAt(owner, server.academy, '/admin');
    });
    afterAll(async () => {
      await Promise.all([server?.close(), cimd?.close()]);
    });

    it('shows the sign-in form without a session and returns to the admin page after signing in', async () => {
      const fresh = person('owner');
      const page = await signInAt(fresh, server.academy, '/admin/audit?action=sign_in.succeeded');
      expect(page.status).toBe(200);
      expect(page.html).toContain('<h1>Audit log</h1>');
    });

    it('refuses a student at /admin with a 403 page, and lets them open their own apps', async () => {
      const student = person('student');
      const admin = await signInAt(student, server.academy, '/admin');
      expect(admin.status).toBe(403);
      expect(admin.html).toContain('Only the owner and admins');
      const apps = await student.request(`${server.academy}/account/apps`);
      expect(apps.status).toBe(200);
      expect(apps.html).toContain('<h1>Your apps</h1>');
    });

    it('refuses /account/apps to a person with no role at the site', async () => {
      const visitor = person('visitor');
      const page = await signInAt(visitor, server.academy, '/account/apps');
      expect(page.status).toBe(403);
    });

    it('forbids framing and scripts on every admin page', async () => {
      for (const path of [
        '/admin',
        '/admin/settings/beta',
        '/admin/developers/oauth-applications',
        '/admin/connections',
        '/admin/audit',
        '/account/apps',
      ]) {
        const page = await owner.request(`${server.academy}${path}`);
        expect(page.status, path).toBe(200);
        expect(page.headers.get('x-frame-options')).toBe('DENY');
        expect(page.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
        expect(page.headers.get('content-security-policy')).not.toMatch(/script-src/);
        expect(page.html).not.toMatch(/<script/i);
      }
    });

    it('draws the last 30 days on /admin from the analytics overview, as an SVG with a text alternative and a table', async () => {
      const page = await owner.request(`${server.academy}/admin`);
      expect(page.html).toMatch(/<svg class="chart"[^>]*role="img"[^>]*aria-labelledby="revenue-title revenue-desc"/);
      expect(page.html).toMatch(/<desc id="revenue-desc">30 days from \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d; total/);
      expect((page.html.match(/<rect /g) ?? []).length).toBe(30);
      expect(page.html).toContain('<caption>Revenue per day</caption>');
      // The figures are the operator API's own: compare with GET /analytics/overview through the same code.
      expect(page.html).toMatch(/New enrollments<\/div><div class="value">[\d,]+</);
    });

    it('refuses a form posted without its CSRF token (403) and changes nothing', async () => {
      const refused = await owner.request(`${server.academy}/admin/settings/beta`, { form: { mcp_connections: '' } });
      expect(refused.status).toBe(403);
      const site = await server.store.db
        .selectFrom('sites')
        .select('mcp_beta')
        .where('origin', '=', server.academy)
        .executeTakeFirstOrThrow();
      expect(site.mcp_beta).toBe(1);
    });

    it('creates a confidential member application, shows its secret exactly once and stores only its hash', async () => {
      const path = '/admin/developers/oauth-applications';
      const created = await post(owner, server.academy, path, path, {
        name: 'Study Buddy',
        redirect_uris: 'https://buddy.example/callback\nhttp://127.0.0.1/callback',
        kind: 'confidential',
        scope: ['openid', 'account:read'],
      });
      expect(created.status).toBe(303);
      const shown = await owner.request(created.location as string);
      const secret = /<code id="client-secret">([^<]+)<\/code>/.exec(shown.html)?.[1];
      const clientId = /<code id="created-client-id">([^<]+)<\/code>/.exec(shown.html)?.[1];
      expect(secret).toMatch(/^sgs_/);
      expect(clientId).toMatch(/^app_/);
      const again = await owner.request(`${server.academy}${path}`);
      expect(again.html).not.toContain(secret as string);
      const row = await server.store.db
        .selectFrom('member_clients')
        .selectAll()
        .where('client_id', '=', clientId as string)
        .executeTakeFirstOrThrow();
      expect(row.secret_hash).not.toContain(secret as string);
      expect(row.scopes).toBe('openid account:read');
      const audit = await server.store.db
        .selectFrom('audit_events')
        .selectAll()
        .where('client_id', '=', clientId as string)
        .execute();
      expect(audit.map((a) => a.kind)).toContain('client.created');
      // Rotating shows a new secret once; the old one no longer authenticates.
      const rotated = await post(owner, server.academy, path, `${path}/${clientId}/rotate-secret`);
      expect(rotated.status).toBe(303);
      const newSecret = /<code id="client-secret">([^<]+)<\/code>/.exec((await owner.request(rotated.location as string)).html)?.[1];
      expect(newSecret).toMatch(/^sgs_/);
      expect(newSecret).not.toBe(secret);
      const introspect = (s: string) =>
        fetch(`${server.academy}/api/oauth/introspect`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token: 'x', client_id: clientId as string, client_secret: s }),
        });
      expect((await introspect(secret as string)).status).toBe(401);
      expect((await introspect(newSecret as string)).status).toBe(200);
    });

    it('refuses a member application with a bad redirect URI or an operator scope, saying why (400)', async () => {
      const path = '/admin/developers/oauth-applications';
      const badUri = await post(owner, server.academy, path, path, {
        name: 'Bad',
        redirect_uris: 'http://evil.example/cb',
        kind: 'public',
        scope: ['openid'],
      });
      expect(badUri.status).toBe(400);
      expect(badUri.html).toContain('is not allowed: use https');
      const badScope = await post(owner, server.academy, path, path, {
        name: 'Bad',
        redirect_uris: 'https://ok.example/cb',
        kind: 'public',
        scope: ['courses:write'],
      });
      expect(badScope.status).toBe(400);
      expect(badScope.html).toContain('courses:write not allowed');
      expect(await server.store.db.selectFrom('member_clients').select('client_id').where('name', '=', 'Bad').execute()).toHaveLength(0);
    });

    it('edits redirect URIs with the same validation as the CLI', async () => {
      const path = '/admin/developers/oauth-applications/academy-member-web/redirect-uris';
      const bad = await post(owner, server.academy, path, path, { redirect_uris: 'ftp://x/cb' });
      expect(bad.status).toBe(400);
      const good = await post(owner, server.academy, path, path, {
        redirect_uris: 'http://127.0.0.1:8976/callback\nhttps://web.example/cb',
      });
      expect(good.status).toBe(303);
      const row = await server.store.db
        .selectFrom('member_clients')
        .select('redirect_uris')
        .where('client_id', '=', 'academy-member-web')
        .executeTakeFirstOrThrow();
      expect(JSON.parse(row.redirect_uris)).toEqual(['http://127.0.0.1:8976/callback', 'https://web.example/cb']);
    });

    it('counts an app’s requests for the connections page and revokes every token of the app at once', async () => {
      const student = person('student');
      const tokens = await getTokens(server, DEMO_CLIENTS.academyApp, { who: student, scope: FULL_SCOPE });
      const requestsOnPage = async () => {
        const page = await owner.request(`${server.academy}/admin/connections`);
        const row = page.html.slice(page.html.indexOf('<code>academy-member-app</code>'));
        return { page, row, requests: Number(/<td class="num">([\d,]+)<\/td>/.exec(row)?.[1]?.replace(/,/g, '')) };
      };
      const before = await requestsOnPage();
      for (let i = 0; i < 3; i++) expect((await userInfo(server.academy, tokens.access_token)).status).toBe(200);
      const { page, row, requests } = await requestsOnPage();
      expect(requests - before.requests).toBe(3);
      expect(row).toMatch(/\d+ people/);
      const revoked = await owner.request(`${server.academy}/admin/connections/revoke`, {
        form: { ...formFields(page.html, '/admin/connections/revoke'), client_id: 'academy-member-app' },
      });
      expect(revoked.status).toBe(303);
      expect((await userInfo(server.academy, tokens.access_token)).status).toBe(401);
      const audit = await server.store.db.selectFrom('audit_events').select('kind').where('kind', '=', 'client.revoked').execute();
      expect(audit.length).toBeGreaterThan(0);
    });

    it('turning MCP connections off hides Developers (404), refuses member apps at authorization and stops their tokens; on again restores them', async () => {
      const student = person('student');
      const tokens = await getTokens(server, DEMO_CLIENTS.academyApp, { who: student, scope: FULL_SCOPE });
      expect((await userInfo(server.academy, tokens.access_token)).status).toBe(200);
      const off = await post(owner, server.academy, '/admin/settings/beta', '/admin/settings/beta', {});
      expect(off.status).toBe(303);
      expect((await owner.request(`${server.academy}/admin/developers/oauth-applications`)).status).toBe(404);
      expect((await userInfo(server.academy, tokens.access_token)).status).toBe(403);
      const { challenge } = pkcePair();
      const url = new URL(`${server.academy}/oauth/authorize`);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: 'academy-member-app',
        redirect_uri: DEMO_CLIENTS.academyApp.redirectUri,
        scope: 'openid',
        resource: server.academy,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }).toString();
      const refused = await student.request(url.href);
      expect(refused.status).toBe(400);
      expect(refused.html).toContain('turned off MCP connections');
      const on = await post(owner, server.academy, '/admin/settings/beta', '/admin/settings/beta', { mcp_connections: 'on' });
      expect(on.status).toBe(303);
      expect((await userInfo(server.academy, tokens.access_token)).status).toBe(200);
      expect((await owner.request(`${server.academy}/admin/developers/oauth-applications`)).status).toBe(200);
    });

    it('deleting a member application revokes its tokens and consents', async () => {
      const student = person('student');
      const tokens = await getTokens(server, DEMO_CLIENTS.academyWeb, { who: student, scope: FULL_SCOPE });
      const path = '/admin/developers/oauth-applications';
      const deleted = await post(owner, server.academy, path, `${path}/academy-member-web/delete`);
      expect(deleted.status).toBe(303);
      expect((await userInfo(server.academy, tokens.access_token)).status).toBe(401);
      expect(await server.store.db.selectFrom('consents').selectAll().where('client_id', '=', 'academy-member-web').execute()).toHaveLength(
        0,
      );
    });

    it('lets a member see what an app read and revoke it from /account/apps', async () => {
      const student = person('student');
      const tokens = await getTokens(server, DEMO_CLIENTS.academyApp, { who: student, scope: FULL_SCOPE });
      const graphql = await fetch(`${server.academy}/member/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ viewer { id name } }' }),
      });
      expect(graphql.status).toBe(200);
      const page = await student.request(`${server.academy}/account/apps`);
      expect(page.status).toBe(200);
      expect(page.html).toContain('your name (GraphQL)');
      expect(page.html).toContain('your id (GraphQL)');
      const revoked = await student.request(`${server.academy}/account/apps/revoke`, {
        form: { ...formFields(page.html, '/account/apps/revoke'), client_id: 'academy-member-app' },
      });
      expect(revoked.status).toBe(303);
      expect((await userInfo(server.academy, tokens.access_token)).status).toBe(401);
      const events = await server.store.db.selectFrom('audit_events').select('kind').where('kind', '=', 'consent.withdrawn').execute();
      expect(events.length).toBe(1);
    });

    it('filters the audit log by action and actor, pages it, explains a bad filter and says how long token events are kept', async () => {
      const byAction = await owner.request(`${server.academy}/admin/audit?action=sign_in.succeeded`);
      expect(byAction.html).toContain('<code>sign_in.succeeded</code>');
      expect(byAction.html).not.toContain('<code>client.created</code>');
      // The janitor purges routine token events after token_event_retention_days; the page says so.
      expect(byAction.html).toMatch(/<code>token\.refreshed<\/code>\) are kept for 90 days; every other event is kept for good/);
      const byActor = await owner.request(`${server.academy}/admin/audit?actor=${encodeURIComponent('nobody@demo.test')}`);
      expect(byActor.status).toBe(400);
      const badCursor = await owner.request(`${server.academy}/admin/audit?after=garbage`);
      expect(badCursor.status).toBe(400);
      const badAction = await owner.request(`${server.academy}/admin/audit?action=${encodeURIComponent('<script>')}`);
      expect(badAction.status).toBe(400);
      expect(badAction.html).not.toContain('<script>');
    });

    it('marks a Client ID Metadata Document client reviewed (write scopes allowed) and blocks it (refused, tokens revoked)', async () => {
      const clientId = cimd.serveDocument('/admin-test.json', {
        client_id: cimd.url('/admin-test.json'),
        client_name: 'Admin Test CLI',
        redirect_uris: ['http://127.0.0.1:9999/callback'],
        token_endpoint_auth_method: 'none',
      });
      const { challenge } = pkcePair();
      const authorize = (scope: string) => {
        const url = new URL(`${server.academy}/oauth/authorize`);
        url.search = new URLSearchParams({
          response_type: 'code',
          client_id: clientId,
          redirect_uri: 'http://127.0.0.1:9999/callback',
          scope,
          resource: server.academy,
          code_challenge: challenge,
          code_challenge_method: 'S256',
          state: 's',
        }).toString();
        return owner.request(url.href);
      };
      const before = await authorize('courses:write');
      expect(before.status).toBe(303);
      expect(new URL(before.location as string).searchParams.get('error')).toBe('invalid_scope');
      const page = await owner.request(`${server.academy}/admin/settings/beta`);
      const csrf = formFields(page.html, '/admin/settings/beta').csrf_token as string;
      expect(
        (await owner.request(`${server.academy}/admin/connections/review`, { form: { csrf_token: csrf, client_id: clientId } })).status,
      ).toBe(303);
      const after = await authorize('courses:write');
      expect(after.status).toBe(200);
      expect(after.html).toContain('name="decision"');
      expect(
        (await owner.request(`${server.academy}/admin/connections/block`, { form: { csrf_token: csrf, client_id: clientId } })).status,
      ).toBe(303);
      const blocked = await authorize('courses:read');
      expect(blocked.status).toBe(400);
      expect(blocked.html).toContain('has blocked this application');
    });
  });
}
