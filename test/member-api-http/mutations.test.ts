// Variant A mutations over real HTTP (SPEC 4.3; issue 3 section 2): with an account:write token from the real
// flow they change the demo student's own inbox and settings in the database, and nobody else's; a resolver
// fault is answered without its detail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { person } from '../helpers/person.js';
import { DEMO_CLIENTS, getTokens } from '../helpers/token-flow.js';
import { dataOf, graphql, type Json, nodesOf, viewerOf } from './graphql-http.js';

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`member GraphQL API mutations over HTTP (${dialect})`, () => {
    let server: DemoServer;
    let token: string;
    let studentId: string;
    let academyId: string;

    const unread = async () =>
      viewerOf(await graphql(server, 'academy', token, '{ viewer { unreadNotificationCount } }')).unreadNotificationCount;
    const notificationRow = (id: string) =>
      server.store.db.selectFrom('notifications').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      token = (await getTokens(server, DEMO_CLIENTS.academyApp, { who: person('student') })).access_token;
      studentId = String(viewerOf(await graphql(server, 'academy', token, '{ viewer { id } }')).id);
      academyId = (await server.store.db.selectFrom('sites').select('id').where('origin', '=', server.academy).executeTakeFirstOrThrow())
        .id;
    });
    afterAll(() => server?.close());

    it('markNotificationRead marks one unread notification read in the database and returns it re-read', async () => {
      const before = await unread();
      const inbox = nodesOf(
        viewerOf(await graphql(server, 'academy', token, '{ viewer { notifications { nodes { id read } } } }')).notifications,
      );
      const target = inbox.find((n) => n.read === false);
      expect(target).toBeDefined();
      const answer = await graphql(
        server,
        'academy',
        token,
        'mutation Read($id: ID!) { markNotificationRead(id: $id) { id read readAt } }',
        {
          variables: { id: target?.id },
        },
      );
      expect(dataOf(answer).markNotificationRead).toEqual({ id: target?.id, read: true, readAt: expect.any(String) });
      expect(await unread()).toBe((before as number) - 1);
      expect((await notificationRow(String(target?.id))).read_at).not.toBeNull();
    });

    it('markNotificationRead cannot reach another person’s notification: NOT_FOUND, and it stays unread', async () => {
      const others = await server.store.db
        .selectFrom('notifications')
        .select(['id', 'read_at'])
        .where('site_id', '=', academyId)
        .where('person_id', '!=', studentId)
        .where('read_at', 'is', null)
        .execute();
      expect(others.length).toBeGreaterThan(0);
      const id = others[0]?.id as string;
      const answer = await graphql(server, 'academy', token, `mutation { markNotificationRead(id: "${id}") { id } }`);
      expect(answer.json?.data).toBeNull();
      expect(answer.json?.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
      expect((await notificationRow(id)).read_at).toBeNull();
    });

    it('updateNotificationSubscription turns a kind of notice off on one channel, stored and re-read', async () => {
      const answer = await graphql(
        server,
        'academy',
        token,
        'mutation { updateNotificationSubscription(kind: COURSE_UPDATE, channel: EMAIL, enabled: false) { kind channel enabled } }',
      );
      expect(dataOf(answer).updateNotificationSubscription).toEqual({ kind: 'COURSE_UPDATE', channel: 'EMAIL', enabled: false });
      const row = await server.store.db
        .selectFrom('notification_subscriptions')
        .select('enabled')
        .where('site_id', '=', academyId)
        .where('person_id', '=', studentId)
        .where('kind', '=', 'course_update')
        .where('channel', '=', 'email')
        .executeTakeFirstOrThrow();
      expect(Number(row.enabled)).toBe(0);
      const subscriptions = viewerOf(
        await graphql(server, 'academy', token, '{ viewer { notificationSubscriptions { kind channel enabled } } }'),
      );
      expect(subscriptions.notificationSubscriptions).toContainEqual({ kind: 'COURSE_UPDATE', channel: 'EMAIL', enabled: false });
    });

    it('markAllNotificationsRead empties the unread count and can re-read the viewer in the same request', async () => {
      const before = (await unread()) as number;
      expect(before).toBeGreaterThan(0);
      const answer = await graphql(
        server,
        'academy',
        token,
        'mutation { markAllNotificationsRead { markedCount unreadNotificationCount viewer { unreadNotificationCount } } }',
      );
      expect(dataOf(answer).markAllNotificationsRead).toEqual({
        markedCount: before,
        unreadNotificationCount: 0,
        viewer: { unreadNotificationCount: 0 },
      });
      const left = await server.store.db
        .selectFrom('notifications')
        .select('id')
        .where('site_id', '=', academyId)
        .where('person_id', '=', studentId)
        .where('read_at', 'is', null)
        .execute();
      expect(left).toEqual([]);
      // Other people's inboxes are untouched.
      const othersUnread = await server.store.db
        .selectFrom('notifications')
        .select('id')
        .where('person_id', '!=', studentId)
        .where('read_at', 'is', null)
        .execute();
      expect(othersUnread.length).toBeGreaterThan(0);
    });

    // Last: it breaks a table of this server's database on purpose.
    it('answers a resolver fault with "Internal server error" and no detail of the cause', async () => {
      await server.store.db.schema.dropTable('notification_subscriptions').execute();
      const answer = await graphql(server, 'academy', token, '{ viewer { email notificationSubscriptions { kind } } }');
      expect(answer.status).toBe(200);
      expect(answer.json?.data).toBeNull();
      expect(answer.json?.errors).toEqual([
        {
          message: 'Internal server error',
          locations: [{ line: 1, column: 18 }],
          path: ['viewer', 'notificationSubscriptions'],
          extensions: { code: 'INTERNAL_SERVER_ERROR' },
        },
      ]);
      expect(answer.text).not.toMatch(/notification_subscriptions|relation|table|SQL/i);
      // Fields that do not touch the broken table still answer.
      expect((viewerOf(await graphql(server, 'academy', token, '{ viewer { email } }')) as Json).email).toBe('student@demo.test');
    });
  });
}
