// CONTRACT 6 posts (issue 10): drafts by default; publish now or at publishAt, and a scheduled post becomes
// published on time and is announced to the school's members with no request triggering it (the
// scheduler, on the server's clock); announced once, to members who have not turned announcements off,
// only where there is an inbox (variant A). Edit under If-Match, delete, publish_post's confirmation
// through MCP, scope, site and input checks. Real HTTP, real tokens, both dialects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostAnnouncer } from '../../src/maintenance/post-announcer.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { connectMcp, demoSiteIds, personId, structured } from '../helpers/mcp.js';
import { ALL_REST_SCOPES, call, expectProblem, VENDOR } from '../helpers/operator-api.js';
import { person } from '../helpers/person.js';
import { getTokens } from '../helpers/token-flow.js';

interface Post {
  id: string;
  slug: string;
  title: string;
  state: 'draft' | 'scheduled' | 'published';
  publishAt: string | null;
  announcedAt: string | null;
  authorId: string | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`operator API: posts (${dialect})`, () => {
    let server: DemoServer;
    let operator: string;
    let reader: string;
    let studioOperator: string;
    let ids: { academy: string; studio: string };

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      operator = (await getTokens(server, VENDOR('academy'), { scope: ALL_REST_SCOPES, who: person('owner') })).access_token;
      reader = (await getTokens(server, VENDOR('academy'), { scope: 'posts:read', who: person('owner') })).access_token;
      studioOperator = (await getTokens(server, VENDOR('studio'), { scope: ALL_REST_SCOPES, who: person('owner') })).access_token;
      ids = await demoSiteIds(server);
    });
    afterAll(async () => {
      await server?.app.services.postAnnouncer.stop();
      await server?.close();
    });

    const draft = async (title: string, origin = server.academy, token = operator) => {
      const answer = await call(origin, 'POST', '/posts', token, { title, body: `# ${title}\n\nNews from the school.` });
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      return answer.body.post as Post;
    };
    const announcements = (postSlug: string) =>
      server.store.db.selectFrom('notifications').select(['person_id', 'site_id']).where('link', '=', `/posts/${postSlug}`).execute();

    it('lists the demo’s posts in each state: published, scheduled and draft', async () => {
      const states = async (state: string) =>
        ((await call(server.academy, 'GET', `/posts?state=${state}&limit=100`, reader)).body.items as Post[]).map((p) => p.slug);
      expect(await states('published')).toEqual(expect.arrayContaining(['spring-sale', 'welcome-to-demo-academy']));
      expect(await states('scheduled')).toEqual(['live-qa-next-week']);
      expect(await states('draft')).toEqual(['summer-plans']);
    });

    it('drafts a post by default, by its author, listed under its state and not announced', async () => {
      const post = await draft('Spring news');
      expect(post).toMatchObject({ slug: 'spring-news', state: 'draft', publishAt: null, announcedAt: null });
      expect(post.authorId).toBe(await personId(server, 'owner@demo.test'));
      const drafts = await call(server.academy, 'GET', '/posts?state=draft&limit=100', reader);
      expect((drafts.body.items as Post[]).map((p) => p.id)).toContain(post.id);
      const published = await call(server.academy, 'GET', '/posts?state=published&limit=100', reader);
      expect((published.body.items as Post[]).map((p) => p.id)).not.toContain(post.id);
    });

    it('publishes a scheduled post on time and announces it once, with no request, to members who did not opt out (variant A)', async () => {
      const student = await personId(server, 'student@demo.test');
      await server.store.db
        .insertInto('notification_subscriptions')
        .values({ site_id: ids.academy, person_id: student, kind: 'announcement', channel: 'in_app', enabled: 0, updated_at: Date.now() })
        .onConflict((oc) => oc.columns(['site_id', 'person_id', 'kind', 'channel']).doUpdateSet({ enabled: 0 }))
        .execute();
      const post = await draft('Summer school opens');
      const studioPost = await draft('Studio summer', server.studio, studioOperator);
      const at = new Date(server.clock.now() + 60_000).toISOString();
      const scheduled = await call(server.academy, 'POST', `/posts/${post.id}/publish`, operator, { publishAt: at });
      expect(scheduled.body.post).toMatchObject({ state: 'scheduled', publishAt: at, announcedAt: null });
      await call(server.studio, 'POST', `/posts/${studioPost.id}/publish`, studioOperator, { publishAt: at });

      server.app.services.postAnnouncer.start(50, (err) => {
        throw err;
      });
      await sleep(300);
      expect(await announcements(post.slug)).toEqual([]);
      server.clock.advance(61_000);
      // No request from here on until the announcement is there.
      let told: Array<{ person_id: string }> = [];
      for (let i = 0; i < 60 && told.length === 0; i++) {
        await sleep(50);
        told = await announcements(post.slug);
      }
      await sleep(300);
      told = await announcements(post.slug);
      const members = await server.store.db
        .selectFrom('site_roles')
        .select('person_id')
        .distinct()
        .where('site_id', '=', ids.academy)
        .execute();
      expect(told.map((t) => t.person_id).sort()).toEqual(
        members
          .map((m) => m.person_id)
          .filter((p) => p !== student)
          .sort(),
      );
      expect(await announcements(studioPost.slug)).toEqual([]);
      const read = (await call(server.academy, 'GET', `/posts/${post.id}`, reader)).body.post as Post;
      expect(read.state).toBe('published');
      expect(read.announcedAt).not.toBeNull();
      expect(((await call(server.studio, 'GET', `/posts/${studioPost.id}`, studioOperator)).body.post as Post).announcedAt).not.toBeNull();
      await server.app.services.postAnnouncer.stop();
    });

    it('publishes now, refuses publishing again (409) or in the past (400), edits under If-Match (stale: 412)', async () => {
      const post = await draft('Open day');
      expectProblem(
        await call(server.academy, 'POST', `/posts/${post.id}/publish`, operator, {
          publishAt: new Date(server.clock.now() - 60_000).toISOString(),
        }),
        400,
        'invalid_argument',
      );
      const now = await call(server.academy, 'POST', `/posts/${post.id}/publish`, operator, {});
      expect(now.body.post).toMatchObject({ state: 'published' });
      expectProblem(await call(server.academy, 'POST', `/posts/${post.id}/publish`, operator, {}), 409, 'conflict');
      const tag = (await call(server.academy, 'GET', `/posts/${post.id}`, reader)).headers.get('etag') ?? '';
      const edited = await call(
        server.academy,
        'PATCH',
        `/posts/${post.id}`,
        operator,
        { title: 'Open day (updated)' },
        { 'if-match': tag },
      );
      expect(edited.body.post).toMatchObject({ title: 'Open day (updated)', state: 'published' });
      expectProblem(
        await call(server.academy, 'PATCH', `/posts/${post.id}`, operator, { title: 'Stale' }, { 'if-match': tag }),
        412,
        'precondition_failed',
      );
      expectProblem(
        await call(server.academy, 'POST', '/posts', operator, { title: 'Open day', body: 'x', slug: 'open-day' }),
        409,
        'conflict',
      );
    });

    it('deletes a scheduled post so it is never published or announced, and answers 404 after', async () => {
      const post = await draft('Never mind');
      await call(server.academy, 'POST', `/posts/${post.id}/publish`, operator, {
        publishAt: new Date(server.clock.now() + 1000).toISOString(),
      });
      expect((await call(server.academy, 'DELETE', `/posts/${post.id}`, operator)).body).toEqual({ deleted: true, id: post.id });
      server.clock.advance(2000);
      await server.app.services.postAnnouncer.runOnce();
      expect(await announcements(post.slug)).toEqual([]);
      expectProblem(await call(server.academy, 'GET', `/posts/${post.id}`, reader), 404, 'not_found');
    });

    it('announces a due post once when two nodes’ schedulers run at the same moment', async () => {
      const post = await draft('Raced news');
      await call(server.academy, 'POST', `/posts/${post.id}/publish`, operator, {});
      const otherNode = new PostAnnouncer(server.store.db, server.clock);
      await Promise.all([server.app.services.postAnnouncer.runOnce(), otherNode.runOnce(), otherNode.runOnce()]);
      const told = await announcements(post.slug);
      expect(told.length).toBeGreaterThan(0);
      expect(new Set(told.map((t) => t.person_id)).size).toBe(told.length);
    });

    it('answers another school’s post like none (404), refuses bad input naming the field, and needs posts:write', async () => {
      const post = await draft('Academy only post');
      expectProblem(await call(server.studio, 'GET', `/posts/${post.id}`, studioOperator), 404, 'not_found');
      expectProblem(await call(server.studio, 'POST', `/posts/${post.id}/publish`, studioOperator, {}), 404, 'not_found');
      const missing = await call(server.academy, 'POST', '/posts', operator, { title: 'No body' });
      expectProblem(missing, 400, 'invalid_argument');
      expect(missing.body.errors).toEqual([expect.objectContaining({ pointer: '/body' })]);
      expectProblem(await call(server.academy, 'GET', '/posts?state=archived', reader), 400, 'invalid_argument');
      const denied = await call(server.academy, 'POST', '/posts', reader, { title: 'x', body: 'y' });
      expect(denied.status).toBe(403);
      expect(denied.headers.get('www-authenticate')).toContain('scope="posts:write"');
    });

    it('drafts through MCP and publishes only after a confirmation bound to the same arguments', async () => {
      const client = await connectMcp(server.academy, operator);
      try {
        const drafted = structured<{ post: Post }>(
          await client.callTool({ name: 'draft_post', arguments: { title: 'Agent-written news', body: 'Hello.' } }),
        );
        expect(drafted.post.state).toBe('draft');
        const preview = structured<{ confirmationRequired: boolean; confirmationToken: string; preview: { summary: string } }>(
          await client.callTool({ name: 'publish_post', arguments: { id: drafted.post.id } }),
        );
        expect(preview.confirmationRequired).toBe(true);
        expect(preview.preview.summary).toMatch(/Publish the post "Agent-written news" now/);
        expect(((await call(server.academy, 'GET', `/posts/${drafted.post.id}`, reader)).body.post as Post).state).toBe('draft');
        const done = structured<{ post: Post }>(
          await client.callTool({ name: 'publish_post', arguments: { id: drafted.post.id, confirmationToken: preview.confirmationToken } }),
        );
        expect(done.post.state).toBe('published');
      } finally {
        await client.close();
      }
    });
  });
}
