// Issue 11: the app usage log behind "requests in the last 7 days" and a member's access log. Counting is
// in memory and written in batches; every node adds its own counts; only real things are named; the
// janitor keeps the configured number of days.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Janitor } from '../../src/maintenance/janitor.js';
import { UsageRecorder } from '../../src/usage/usage-recorder.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { person } from '../helpers/person.js';
import { DEMO_CLIENTS, FULL_SCOPE, getTokens } from '../helpers/token-flow.js';

const DAY = 86_400_000;

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`app usage log (${dialect})`, () => {
    let server: DemoServer;
    let siteId: string;
    beforeAll(async () => {
      server = await startDemoServer(dialect);
      siteId = (await server.store.db.selectFrom('sites').select('id').where('slug', '=', 'demo-academy').executeTakeFirstOrThrow()).id;
    });
    afterAll(async () => {
      await server?.close();
    });

    const rowsOf = (clientId: string) =>
      server.store.db
        .selectFrom('app_usage')
        .selectAll()
        .where('site_id', '=', siteId)
        .where('client_id', '=', clientId)
        .orderBy('what')
        .execute();

    it('adds the counts of every flush and of every node into one row per app, person, day and thing', async () => {
      const actor = { siteId, clientId: 'usage-test-app', personId: 'p-usage' };
      const nodeA = new UsageRecorder(server.store.db, server.clock);
      const nodeB = new UsageRecorder(server.store.db, server.clock);
      nodeA.record(actor, ['graphql:viewer.name'], false);
      nodeA.record(actor, ['graphql:viewer.name', 'graphql:viewer.email'], false);
      await nodeA.flush();
      nodeA.record(actor, ['graphql:viewer.name'], false);
      nodeB.record(actor, ['graphql:viewer.name'], true);
      await Promise.all([nodeA.flush(), nodeB.flush()]);
      const rows = await rowsOf('usage-test-app');
      expect(rows.map((r) => [r.what, Number(r.requests), r.write])).toEqual([
        ['graphql:viewer.email', 1, 0],
        ['graphql:viewer.name', 4, 1],
      ]);
      expect(rows[0]?.day).toBe(new Date(server.clock.now()).toISOString().slice(0, 10));
    });

    it('names only tools that exist: a made-up tool name is counted as a plain MCP request', async () => {
      const tokens = await getTokens(server, DEMO_CLIENTS.academyApp, { who: person('student'), scope: FULL_SCOPE });
      const call = (name: string) =>
        fetch(`${server.academy}/mcp`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${tokens.access_token}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } }),
        });
      await call('no_such_tool_<script>');
      await call('list_my_notifications');
      await server.app.services.usage.flush();
      const things = (await rowsOf('academy-member-app')).map((r) => r.what);
      expect(things).toContain('mcp');
      expect(things).toContain('mcp:list_my_notifications');
      expect(things.some((t) => t.includes('no_such_tool'))).toBe(false);
    });

    it('the janitor purges usage days older than access_log_retention_days and keeps the rest', async () => {
      const now = server.clock.now();
      const day = (ago: number) => new Date(now - ago * DAY).toISOString().slice(0, 10);
      const row = (ago: number) => ({
        site_id: siteId,
        client_id: 'retention-app',
        person_id: 'p-retention',
        day: day(ago),
        what: 'userinfo',
        write: 0,
        requests: 1,
        last_at: now - ago * DAY,
      });
      await server.store.db
        .insertInto('app_usage')
        .values([row(2), row(9), row(11), row(40)])
        .execute();
      const janitor = new Janitor(server.store.db, server.store.dialect, server.clock, undefined, {
        batchSize: 2,
        pauseMs: 0,
        share: 1,
        accessLogRetentionDays: 10,
        tokenEventRetentionDays: 90,
      });
      const report = await janitor.runOnce();
      expect(report?.app_usage).toBeGreaterThanOrEqual(2);
      expect((await rowsOf('retention-app')).map((r) => r.day)).toEqual([day(9), day(2)].sort());
    });
  });
}
