// CONTRACT 6 pages (issue 10): drafts until published; every content change a numbered revision; any
// revision restored as a new one (history never rewritten); publish and unpublish; If-Match; scope, site
// and input checks; audit. Real HTTP, real tokens, both dialects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { ALL_REST_SCOPES, call, expectProblem, VENDOR } from '../helpers/operator-api.js';
import { person } from '../helpers/person.js';
import { getTokens } from '../helpers/token-flow.js';

interface SchoolPage {
  id: string;
  slug: string;
  title: string;
  body: string;
  revision: number;
  state: 'draft' | 'published';
}
interface Revision {
  id: string;
  number: number;
  title: string;
  body: string;
  restoredFrom: number | null;
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`operator API: pages (${dialect})`, () => {
    let server: DemoServer;
    let operator: string;
    let reader: string;
    let studioOperator: string;

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      operator = (await getTokens(server, VENDOR('academy'), { scope: ALL_REST_SCOPES, who: person('owner') })).access_token;
      reader = (await getTokens(server, VENDOR('academy'), { scope: 'pages:read', who: person('owner') })).access_token;
      studioOperator = (await getTokens(server, VENDOR('studio'), { scope: ALL_REST_SCOPES, who: person('owner') })).access_token;
    });
    afterAll(() => server?.close());

    it('lists the demo’s pages with the history of the about page, newest revision first', async () => {
      const pages = (await call(server.academy, 'GET', '/pages', reader)).body.items as SchoolPage[];
      expect(pages.map((p) => [p.slug, p.state])).toEqual(
        expect.arrayContaining([
          ['about', 'published'],
          ['faq', 'draft'],
        ]),
      );
      const history = await call(server.academy, 'GET', '/pages/pag_demo_about/revisions', reader);
      expect(history.body.total).toBe(3);
      expect((history.body.items as Revision[]).map((r) => r.number)).toEqual([3, 2, 1]);
    });

    it('makes every content change a revision and restores an old one as the next, keeping all of them', async () => {
      const created = await call(server.academy, 'POST', '/pages', operator, { title: 'Imprint', body: 'Version one' });
      expect(created.status).toBe(201);
      const page = created.body.page as SchoolPage;
      expect(page).toMatchObject({ slug: 'imprint', revision: 1, state: 'draft' });
      const tag = (await call(server.academy, 'GET', `/pages/${page.id}`, reader)).headers.get('etag') ?? '';
      const second = await call(server.academy, 'PATCH', `/pages/${page.id}`, operator, { body: 'Version two' }, { 'if-match': tag });
      expect(second.body.page).toMatchObject({ body: 'Version two', revision: 2 });
      expectProblem(
        await call(server.academy, 'PATCH', `/pages/${page.id}`, operator, { body: 'Lost edit' }, { 'if-match': tag }),
        412,
        'precondition_failed',
      );
      await call(server.academy, 'PATCH', `/pages/${page.id}`, operator, { title: 'Legal notice', body: 'Version three' });
      const revisions = (await call(server.academy, 'GET', `/pages/${page.id}/revisions`, reader)).body.items as Revision[];
      const first = revisions.find((r) => r.number === 1) as Revision;
      const restored = await call(server.academy, 'POST', `/pages/${page.id}/revisions/${first.id}/restore`, operator, {});
      expect(restored.status).toBe(200);
      expect(restored.body.page).toMatchObject({ title: 'Imprint', body: 'Version one', revision: 4 });
      const after = (await call(server.academy, 'GET', `/pages/${page.id}/revisions`, reader)).body.items as Revision[];
      expect(after.map((r) => [r.number, r.body, r.restoredFrom])).toEqual([
        [4, 'Version one', 1],
        [3, 'Version three', null],
        [2, 'Version two', null],
        [1, 'Version one', null],
      ]);
      const log = await call(server.academy, 'GET', '/audit_events?limit=100', operator);
      const actions = (log.body.items as Array<{ action: string; target: string | null }>)
        .filter((e) => e.target === `page:${page.id}`)
        .map((e) => e.action)
        .sort();
      expect(actions).toEqual(['operator.create_page', 'operator.restore_page_revision', 'operator.update_page', 'operator.update_page']);
    });

    it('publishes and unpublishes without touching the content or its revision', async () => {
      const published = await call(server.academy, 'POST', '/pages/pag_demo_faq/publish', operator, {});
      expect(published.body.page).toMatchObject({ state: 'published', revision: 1 });
      const again = await call(server.academy, 'POST', '/pages/pag_demo_faq/publish', operator, {});
      expect(again.body.page).toEqual(published.body.page);
      const draft = await call(server.academy, 'POST', '/pages/pag_demo_faq/unpublish', operator, {});
      expect(draft.body.page).toMatchObject({ state: 'draft', revision: 1 });
    });

    it('answers another school’s page or revision like none (404), a revision of another page too, and refuses bad input', async () => {
      expectProblem(await call(server.studio, 'GET', '/pages/pag_demo_about', studioOperator), 404, 'not_found');
      expectProblem(await call(server.studio, 'GET', '/pages/pag_demo_about/revisions', studioOperator), 404, 'not_found');
      expectProblem(
        await call(server.academy, 'POST', '/pages/pag_demo_faq/revisions/prv_demo_about_1/restore', operator, {}),
        404,
        'not_found',
      );
      expectProblem(await call(server.academy, 'POST', '/pages', operator, { title: 'About', body: 'x', slug: 'about' }), 409, 'conflict');
      const bad = await call(server.academy, 'POST', '/pages', operator, { title: '', body: 'x' });
      expectProblem(bad, 400, 'invalid_argument');
      expect(bad.body.errors).toEqual([expect.objectContaining({ pointer: '/title' })]);
      const denied = await call(server.academy, 'POST', '/pages', reader, { title: 'x', body: 'y' });
      expect(denied.status).toBe(403);
      expect(denied.headers.get('www-authenticate')).toContain('scope="pages:write"');
    });
  });
}
