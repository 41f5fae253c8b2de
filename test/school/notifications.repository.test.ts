// The notification inbox and subscriptions (SPEC 2.1, 4.3): newest first, reads and writes scoped to one member.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  countNotifications,
  countUnreadNotifications,
  findNotification,
  listNotifications,
  listNotificationSubscriptions,
  markAllNotificationsRead,
  markNotificationRead,
  updateNotificationSubscription,
} from '../../src/school/notifications.repository.js';
import type { NotificationKind } from '../../src/storage/school-schema.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import {
  createDemoWorld,
  type DemoWorld,
  grantRole,
  insertPerson,
  openSchoolStore,
  type SchoolStore,
  TEST_NOW,
} from '../helpers/school-fixtures.js';

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`notifications repository (${dialect})`, () => {
    let s: SchoolStore;
    let world: DemoWorld;
    const readerId = 'per_reader';
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      world = await createDemoWorld(s.db);
      await insertPerson(s.db, { id: readerId, email: 'reader@demo.test', name: 'Rita Reader' });
      await grantRole(s.db, world.academySiteId, readerId, 'student');
      // 30 notifications, in pairs sharing a timestamp, so paging must break ties by id.
      await s.db
        .insertInto('notifications')
        .values(
          Array.from({ length: 30 }, (_, i) => ({
            id: `ntf_reader_${String(i).padStart(2, '0')}`,
            site_id: world.academySiteId,
            person_id: readerId,
            kind: 'announcement' as NotificationKind,
            title: `Notice ${i}`,
            body: 'Body',
            link: null,
            read_at: null,
            created_at: TEST_NOW - Math.floor(i / 2) * 1000,
          })),
        )
        .execute();
      // The student also has one notification at Demo Studio: marking all read at the Academy must not touch it.
      await s.db
        .insertInto('notifications')
        .values({
          id: 'ntf_studio_student',
          site_id: world.studioSiteId,
          person_id: world.studentId,
          kind: 'announcement',
          title: 'Studio news',
          body: 'Body',
          link: null,
          read_at: null,
          created_at: TEST_NOW,
        })
        .execute();
    });
    afterAll(() => s?.close());

    const scopeOf = (personId: string, siteId = world.academySiteId) => ({ db: s.db, siteId, personId });

    it('lists the inbox newest first and pages through it to the end', async () => {
      const seen: { id: string; createdAt: number }[] = [];
      let after: string | null = null;
      for (let round = 0; round < 10; round += 1) {
        const page = await listNotifications(scopeOf(readerId), { first: 7, after });
        seen.push(...page.edges.map((e) => e.node));
        if (!page.hasNextPage) break;
        after = page.endCursor;
      }
      expect(seen).toHaveLength(30);
      expect(new Set(seen.map((n) => n.id)).size).toBe(30);
      const created = seen.map((n) => n.createdAt);
      expect(created).toEqual([...created].sort((a, b) => b - a));
      expect(await countNotifications(scopeOf(readerId))).toBe(30);
    });

    it('marks one notification read, keeping the first read time', async () => {
      const first = await markNotificationRead(scopeOf(readerId), 'ntf_reader_00', TEST_NOW + 10);
      expect(first?.readAt).toBe(TEST_NOW + 10);
      const again = await markNotificationRead(scopeOf(readerId), 'ntf_reader_00', TEST_NOW + 20);
      expect(again?.readAt).toBe(TEST_NOW + 10);
    });

    it('does not mark or reveal another member’s notification', async () => {
      expect(await markNotificationRead(scopeOf(world.studentId), 'ntf_other', TEST_NOW)).toBeNull();
      expect(await findNotification(scopeOf(world.studentId), 'ntf_other')).toBeNull();
      expect((await findNotification(scopeOf(world.otherStudentId), 'ntf_other'))?.readAt).toBeNull();
    });

    it('does not mark the member’s notification of another site', async () => {
      expect(await markNotificationRead(scopeOf(world.studentId), 'ntf_studio_student', TEST_NOW)).toBeNull();
      expect((await findNotification(scopeOf(world.studentId, world.studioSiteId), 'ntf_studio_student'))?.readAt).toBeNull();
    });

    it('marks all of one member’s notifications at one site read, and nobody else’s', async () => {
      const unreadBefore = await countUnreadNotifications(scopeOf(world.studentId));
      expect(unreadBefore).toBeGreaterThanOrEqual(3);
      expect(await markAllNotificationsRead(scopeOf(world.studentId), TEST_NOW)).toBe(unreadBefore);
      expect(await countUnreadNotifications(scopeOf(world.studentId))).toBe(0);
      expect(await countUnreadNotifications(scopeOf(world.otherStudentId))).toBe(1);
      expect(await countUnreadNotifications(scopeOf(world.studentId, world.studioSiteId))).toBe(1);
      expect(await markAllNotificationsRead(scopeOf(world.studentId), TEST_NOW)).toBe(0);
    });

    it('creates and updates a subscription for the member only', async () => {
      const created = await updateNotificationSubscription(
        scopeOf(world.studentId),
        { kind: 'new_lecture', channel: 'email', enabled: true },
        TEST_NOW,
      );
      expect(created).toEqual({ kind: 'new_lecture', channel: 'email', enabled: true, updatedAt: TEST_NOW });
      const updated = await updateNotificationSubscription(
        scopeOf(world.studentId),
        { kind: 'new_lecture', channel: 'email', enabled: false },
        TEST_NOW + 1,
      );
      expect(updated).toEqual({ kind: 'new_lecture', channel: 'email', enabled: false, updatedAt: TEST_NOW + 1 });
      const other = await listNotificationSubscriptions(scopeOf(world.otherStudentId));
      expect(other).toEqual([expect.objectContaining({ kind: 'new_lecture', channel: 'email', enabled: true })]);
    });

    it('lists subscriptions in catalogue order of kind, then channel', async () => {
      const subscriptions = await listNotificationSubscriptions(scopeOf(world.studentId));
      expect(subscriptions.map((x) => `${x.kind}/${x.channel}`)).toEqual([
        'course_update/email',
        'new_lecture/email',
        'event_reminder/in_app',
      ]);
    });

    it('refuses an unknown kind or channel', async () => {
      await expect(
        updateNotificationSubscription(
          scopeOf(world.studentId),
          { kind: 'spam' as NotificationKind, channel: 'email', enabled: true },
          TEST_NOW,
        ),
      ).rejects.toThrow(RangeError);
    });
  });
}
