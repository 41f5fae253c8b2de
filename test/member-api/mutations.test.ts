// Variant A mutations (SPEC 4.3): they change only the signed-in member's inbox and settings at this site,
// and return the changed objects re-read. Variant B has no mutations.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import {
  createDemoWorld,
  type DemoWorld,
  memberContext,
  openSchoolStore,
  runMember,
  type SchoolStore,
  TEST_NOW,
} from '../helpers/school-fixtures.js';

const LATER = TEST_NOW + 60_000;

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`member API mutations (${dialect})`, () => {
    let s: SchoolStore;
    let world: DemoWorld;
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      world = await createDemoWorld(s.db);
    });
    afterAll(() => s?.close());

    const student = (now = LATER) => memberContext(s.db, world.academySiteId, world.studentId, now);
    const unread = async () => {
      const result = await runMember(
        'A',
        student(),
        '{ viewer { unreadNotificationCount notifications(first: 100) { nodes { id read } } } }',
      );
      return (result.data as { viewer: { unreadNotificationCount: number; notifications: { nodes: { id: string; read: boolean }[] } } })
        .viewer;
    };

    it('marks one notification read and returns it re-read', async () => {
      const before = await unread();
      const target = before.notifications.nodes.find((n) => !n.read)!;
      const result = await runMember('A', student(), 'mutation($id: ID!) { markNotificationRead(id: $id) { id read readAt title } }', {
        id: target.id,
      });
      expect(result.errors).toBeUndefined();
      expect(result.data?.markNotificationRead).toEqual({
        id: target.id,
        read: true,
        readAt: new Date(LATER).toISOString(),
        title: expect.any(String),
      });
      expect((await unread()).unreadNotificationCount).toBe(before.unreadNotificationCount - 1);
    });

    it('keeps the first read time when a notification is marked read again', async () => {
      const [read] = (await unread()).notifications.nodes.filter((n) => n.read);
      const first = await runMember('A', student(LATER), 'mutation($id: ID!) { markNotificationRead(id: $id) { readAt } }', {
        id: read!.id,
      });
      const again = await runMember('A', student(LATER + 1000), 'mutation($id: ID!) { markNotificationRead(id: $id) { readAt } }', {
        id: read!.id,
      });
      expect(again.data?.markNotificationRead).toEqual(first.data?.markNotificationRead);
    });

    it('refuses to mark another member’s notification and leaves it unread', async () => {
      const result = await runMember('A', student(), 'mutation { markNotificationRead(id: "ntf_other") { id read } }');
      expect(result.data).toBeNull();
      expect(result.errors?.[0]?.message).toBe('No notification with this id in your inbox.');
      expect(result.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
      const other = await s.db.selectFrom('notifications').where('id', '=', 'ntf_other').select('read_at').executeTakeFirstOrThrow();
      expect(other.read_at).toBeNull();
    });

    it('marks all of the member’s notifications read, returning the count and the re-read inbox', async () => {
      const unreadBefore = (await unread()).unreadNotificationCount;
      expect(unreadBefore).toBeGreaterThan(0);
      const result = await runMember(
        'A',
        student(),
        'mutation { markAllNotificationsRead { markedCount unreadNotificationCount viewer { unreadNotificationCount notifications { nodes { read } } } } }',
      );
      expect(result.errors).toBeUndefined();
      const payload = result.data?.markAllNotificationsRead as {
        markedCount: number;
        unreadNotificationCount: number;
        viewer: { unreadNotificationCount: number; notifications: { nodes: { read: boolean }[] } };
      };
      expect(payload.markedCount).toBe(unreadBefore);
      expect(payload.unreadNotificationCount).toBe(0);
      expect(payload.viewer.unreadNotificationCount).toBe(0);
      expect(payload.viewer.notifications.nodes.every((n) => n.read)).toBe(true);
    });

    it('leaves other members’ notifications unread when one member marks all read', async () => {
      const rows = await s.db
        .selectFrom('notifications')
        .where('person_id', '!=', world.studentId)
        .where('read_at', 'is', null)
        .select('id')
        .execute();
      expect(rows.map((r) => r.id)).toEqual(expect.arrayContaining(['ntf_other']));
    });

    it('turns a subscription on and off and returns it re-read', async () => {
      const on = await runMember(
        'A',
        student(),
        'mutation { updateNotificationSubscription(kind: NEW_LECTURE, channel: IN_APP, enabled: true) { kind channel enabled updatedAt } }',
      );
      expect(on.errors).toBeUndefined();
      expect(on.data?.updateNotificationSubscription).toEqual({
        kind: 'NEW_LECTURE',
        channel: 'IN_APP',
        enabled: true,
        updatedAt: new Date(LATER).toISOString(),
      });
      const off = await runMember(
        'A',
        student(LATER + 1),
        'mutation { updateNotificationSubscription(kind: COURSE_UPDATE, channel: EMAIL, enabled: false) { kind channel enabled } }',
      );
      expect(off.data?.updateNotificationSubscription).toEqual({ kind: 'COURSE_UPDATE', channel: 'EMAIL', enabled: false });
      const list = await runMember('A', student(), '{ viewer { notificationSubscriptions { kind channel enabled } } }');
      expect((list.data as { viewer: { notificationSubscriptions: unknown[] } }).viewer.notificationSubscriptions).toEqual([
        { kind: 'COURSE_UPDATE', channel: 'EMAIL', enabled: false },
        { kind: 'NEW_LECTURE', channel: 'IN_APP', enabled: true },
        { kind: 'EVENT_REMINDER', channel: 'IN_APP', enabled: true },
      ]);
    });

    it('changes no other member’s subscriptions', async () => {
      const rows = await s.db
        .selectFrom('notification_subscriptions')
        .where('person_id', '=', world.otherStudentId)
        .select(['kind', 'channel', 'enabled'])
        .execute();
      expect(rows).toEqual([{ kind: 'new_lecture', channel: 'email', enabled: 1 }]);
    });

    it('refuses an unknown notification kind before running anything', async () => {
      const result = await runMember(
        'A',
        student(),
        'mutation { updateNotificationSubscription(kind: SPAM, channel: EMAIL, enabled: true) { kind } }',
      );
      expect(result.data).toBeUndefined();
      expect(result.errors?.[0]?.message).toMatch(/SPAM/);
    });

    it('offers no mutations on variant B', async () => {
      const before = await s.db.selectFrom('notifications').where('read_at', 'is', null).select('id').execute();
      const result = await runMember(
        'B',
        memberContext(s.db, world.studioSiteId, world.studentId),
        'mutation { markAllNotificationsRead { markedCount } }',
      );
      expect(result.errors?.[0]?.message).toMatch(/mutation/i);
      const after = await s.db.selectFrom('notifications').where('read_at', 'is', null).select('id').execute();
      expect(after).toEqual(before);
    });
  });
}
