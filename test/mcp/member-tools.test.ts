// SPEC 2.1, 2.2, 4.3, 5.2, 5.5: a member token adds the member's own tools: enrolments with access expiry
// and progress, purchases, event registrations and, on variant A, the inbox (marking read with
// account:write). The answers equal what the domain functions behind the member GraphQL API give.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  completedLectureCounts,
  countEnrollments,
  lectureCountsByCourse,
  lecturesByIds,
  listEnrollments,
  progressPercent,
} from '../../src/school/enrollments.repository.js';
import { listEventRegistrations } from '../../src/school/event-registrations.repository.js';
import { countUnreadNotifications, findNotification, listNotifications } from '../../src/school/notifications.repository.js';
import { listConsultingPurchases, listDigitalProductPurchases } from '../../src/school/purchases.repository.js';
import type { MemberScope } from '../../src/school/scope.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { connectMcp, demoSiteIds, errorText, mcpPost, personId, structured, toolCall, toolNames } from '../helpers/mcp.js';
import { DEMO, person } from '../helpers/person.js';
import { DEMO_CLIENTS, getTokens } from '../helpers/token-flow.js';

const PUBLIC_TOOLS = ['get_course', 'get_school', 'list_upcoming_events', 'search_courses'];
const MEMBER_READ_TOOLS = ['list_my_enrollments', 'list_my_event_registrations', 'list_my_purchases'];
const INBOX_READ_TOOLS = ['list_my_notifications'];

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

interface Paged<T> {
  total: number;
  nextCursor: string | null;
  items: T[];
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`member tools (${dialect})`, () => {
    let server: DemoServer;
    let student: MemberScope;
    let studioStudent: MemberScope;
    let reader: Client;
    let writer: Client;
    let studio: Client;
    let narrow: Client;
    beforeAll(async () => {
      server = await startDemoServer(dialect);
      const ids = await demoSiteIds(server);
      const studentId = await personId(server, DEMO.student.email);
      student = { db: server.store.db, siteId: ids.academy, personId: studentId };
      studioStudent = { db: server.store.db, siteId: ids.studio, personId: studentId };
      const who = person('student');
      const read = await getTokens(server, DEMO_CLIENTS.academyApp, { scope: 'openid account:read', who });
      const write = await getTokens(server, DEMO_CLIENTS.academyApp, { scope: 'openid account:read account:write', who });
      const atStudio = await getTokens(server, DEMO_CLIENTS.studioApp, { scope: 'openid account:read account:write', who });
      const openidOnly = await getTokens(server, DEMO_CLIENTS.academyApp, { scope: 'openid', who });
      reader = await connectMcp(server.academy, read.access_token);
      writer = await connectMcp(server.academy, write.access_token);
      studio = await connectMcp(server.studio, atStudio.access_token);
      narrow = await connectMcp(server.academy, openidOnly.access_token);
    });
    afterAll(async () => {
      for (const client of [reader, writer, studio, narrow]) await client?.close();
      await server?.close();
    });

    it('lists the public tools plus the member read tools (inbox included on variant A) for account:read', async () => {
      expect(await toolNames(reader)).toEqual([...PUBLIC_TOOLS, ...INBOX_READ_TOOLS, ...MEMBER_READ_TOOLS].sort());
    });

    it('adds mark_notifications_read, and only it, for account:write', async () => {
      expect(await toolNames(writer)).toEqual(
        [...PUBLIC_TOOLS, ...INBOX_READ_TOOLS, ...MEMBER_READ_TOOLS, 'mark_notifications_read'].sort(),
      );
      const mark = (await writer.listTools()).tools.find((t) => t.name === 'mark_notifications_read');
      expect(mark?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    });

    it('answers members who call at once with the same request id each with their own data (one server, ids of its own)', async () => {
      const mine = await getTokens(server, DEMO_CLIENTS.academyApp, { scope: 'openid account:read', who: person('student') });
      const theirs = await getTokens(server, DEMO_CLIENTS.academyApp, { scope: 'openid account:read', who: person('owner') });
      const call = (token: string) => mcpPost(server.academy, toolCall('list_my_enrollments', { limit: 100 }, 1), { token });
      const alone = [await call(mine.access_token), await call(theirs.access_token)].map((answer) => answer.body);
      // The two members hold different enrolments, or the test could not tell their answers apart.
      expect(alone[0]).not.toEqual(alone[1]);
      const tokens = Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? mine.access_token : theirs.access_token));
      const together = await Promise.all(tokens.map(call));
      together.forEach((answer, i) => {
        expect(answer.status).toBe(200);
        expect(answer.body).toEqual(alone[i % 2]);
      });
    });

    it('has no inbox tools on variant B, even with account:read account:write', async () => {
      expect(await toolNames(studio)).toEqual([...PUBLIC_TOOLS, ...MEMBER_READ_TOOLS].sort());
      expect(errorText(await studio.callTool({ name: 'list_my_notifications', arguments: {} }))).toMatch(/not found/);
    });

    it('lists only the public tools for a token without account:read', async () => {
      expect(await toolNames(narrow)).toEqual(PUBLIC_TOOLS);
    });

    it('list_my_enrollments gives the member’s own enrolments with expiry, progress and resume point, as the domain does', async () => {
      const answer = structured<Paged<Record<string, unknown>>>(await reader.callTool({ name: 'list_my_enrollments', arguments: {} }));
      const page = await listEnrollments(student, { first: 100 }, server.clock.now());
      const records = page.edges.map((e) => e.node);
      const totals = await lectureCountsByCourse(
        student,
        records.map((r) => r.course.id),
      );
      const completed = await completedLectureCounts(
        student,
        records.map((r) => r.id),
      );
      const lectures = await lecturesByIds(
        student,
        records.flatMap((r) => (r.lastLectureId ? [r.lastLectureId] : [])),
      );
      expect(answer.total).toBe(records.length);
      expect(answer.nextCursor).toBeNull();
      expect(answer.items).toEqual(
        records.map((r) => {
          const last = r.lastLectureId ? lectures.get(r.lastLectureId) : undefined;
          return expect.objectContaining({
            id: r.id,
            course: expect.objectContaining({ slug: r.course.slug }),
            accessExpiresAt: iso(r.accessExpiresAt),
            hasLifetimeAccess: r.hasLifetimeAccess,
            accessState: r.accessState,
            completedLectures: completed.get(r.id) ?? 0,
            totalLectures: totals.get(r.course.id) ?? 0,
            progressPercent: progressPercent(completed.get(r.id) ?? 0, totals.get(r.course.id) ?? 0),
            lastWatchedLecture: last
              ? { lectureId: last.id, title: last.title, positionSeconds: r.lastPositionSeconds, durationSeconds: last.durationSeconds }
              : null,
          });
        }),
      );
      // The demo student has an expired enrolment and a lifetime one: both states come through.
      expect(new Set(answer.items.map((i) => i.accessState))).toEqual(new Set(['ACTIVE', 'EXPIRED']));
    });

    it('pages list_my_enrollments with a cursor to the end, with the total on every page', async () => {
      const expected = await countEnrollments(student);
      expect(expected).toBeGreaterThan(1);
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = structured<Paged<{ id: string }>>(
          await reader.callTool({ name: 'list_my_enrollments', arguments: { limit: 1, ...(cursor ? { cursor } : {}) } }),
        );
        expect(page.total).toBe(expected);
        seen.push(...page.items.map((i) => i.id));
        cursor = page.nextCursor ?? undefined;
        pages++;
      } while (cursor && pages < 10);
      expect(pages).toBe(expected);
      expect(new Set(seen).size).toBe(expected);
    });

    it('list_my_purchases gives both lists with their totals, and one list on request', async () => {
      const both = structured<{ digitalProducts: Paged<{ id: string }>; consultingServices: Paged<{ id: string }> }>(
        await reader.callTool({ name: 'list_my_purchases', arguments: {} }),
      );
      const products = await listDigitalProductPurchases(student, { first: 100 });
      const services = await listConsultingPurchases(student, { first: 100 });
      expect(both.digitalProducts.items.map((p) => p.id)).toEqual(products.edges.map((e) => e.node.id));
      expect(both.digitalProducts.total).toBe(products.edges.length);
      expect(both.consultingServices.items.map((s) => s.id)).toEqual(services.edges.map((e) => e.node.id));
      const one = structured(await reader.callTool({ name: 'list_my_purchases', arguments: { kind: 'consulting_services' } }));
      expect(Object.keys(one).sort()).toEqual(['_note', 'consultingServices']);
      expect(errorText(await reader.callTool({ name: 'list_my_purchases', arguments: { cursor: 'x' } }))).toMatch(/pass kind/);
    });

    it('list_my_event_registrations gives the member’s registrations with join links, at each site its own', async () => {
      const academy = structured<Paged<{ id: string; joinUrl: string | null }>>(
        await reader.callTool({ name: 'list_my_event_registrations', arguments: {} }),
      );
      const expected = await listEventRegistrations(student, { first: 100 });
      expect(academy.items.map((r) => r.id)).toEqual(expected.edges.map((e) => e.node.id));
      expect(academy.items.map((r) => r.joinUrl)).toEqual(expected.edges.map((e) => e.node.joinUrl));
      const atStudio = structured<Paged<{ id: string }>>(await studio.callTool({ name: 'list_my_event_registrations', arguments: {} }));
      const studioExpected = await listEventRegistrations(studioStudent, { first: 100 });
      expect(atStudio.items.map((r) => r.id)).toEqual(studioExpected.edges.map((e) => e.node.id));
    });

    it('list_my_notifications gives the inbox with the unread count, links made absolute, and counts only with limit 0', async () => {
      const answer = structured<Paged<{ id: string; link: string | null; read: boolean }> & { unreadCount: number; _note: string }>(
        await reader.callTool({ name: 'list_my_notifications', arguments: { limit: 100 } }),
      );
      const expected = await listNotifications(student, { first: 100 });
      expect(answer.items.map((n) => n.id)).toEqual(expected.edges.map((e) => e.node.id));
      expect(answer.unreadCount).toBe(await countUnreadNotifications(student));
      expect(answer.items.every((n) => n.link === null || n.link.startsWith(`${server.academy}/`))).toBe(true);
      expect(answer._note).toMatch(/items\[\]\.body/);
      const counts = structured<Paged<unknown> & { unreadCount: number }>(
        await reader.callTool({ name: 'list_my_notifications', arguments: { limit: 0 } }),
      );
      expect(counts.items).toEqual([]);
      expect(counts.total).toBe(answer.total);
      expect(counts.unreadCount).toBe(answer.unreadCount);
    });

    it('mark_notifications_read marks one read, re-reads it, reports what changed, and changes nothing the second time', async () => {
      const before = await countUnreadNotifications(student);
      const unread = (await listNotifications(student, { first: 100 })).edges.map((e) => e.node).find((n) => n.readAt === null);
      if (!unread) throw new Error('the demo student has no unread notification');
      const first = structured<{ markedCount: number; unreadCount: number; notifications: { id: string; changedNow: boolean }[] }>(
        await writer.callTool({ name: 'mark_notifications_read', arguments: { ids: [unread.id, 'ntf_not_mine'] } }),
      );
      expect(first).toMatchObject({
        markedCount: 1,
        unreadCount: before - 1,
        notifications: [{ id: unread.id, changedNow: true }],
        notFound: ['ntf_not_mine'],
      });
      expect((await findNotification(student, unread.id))?.readAt).not.toBeNull();
      const listed = structured<Paged<{ id: string; read: boolean }>>(
        await reader.callTool({ name: 'list_my_notifications', arguments: {} }),
      );
      expect(listed.items.find((n) => n.id === unread.id)?.read).toBe(true);
      const again = structured(await writer.callTool({ name: 'mark_notifications_read', arguments: { ids: [unread.id] } }));
      expect(again).toMatchObject({ markedCount: 0, unreadCount: before - 1, notifications: [{ id: unread.id, changedNow: false }] });
    });

    it('mark_notifications_read with all: true empties the unread count; it refuses neither or both arguments', async () => {
      const before = await countUnreadNotifications(student);
      const all = structured(await writer.callTool({ name: 'mark_notifications_read', arguments: { all: true } }));
      expect(all).toMatchObject({ markedCount: before, unreadCount: 0 });
      expect(await countUnreadNotifications(student)).toBe(0);
      expect(errorText(await writer.callTool({ name: 'mark_notifications_read', arguments: {} }))).toMatch(/either ids/);
      expect(errorText(await writer.callTool({ name: 'mark_notifications_read', arguments: { ids: ['a'], all: true } }))).toMatch(
        /either ids/,
      );
    });

    it('cannot reach another person’s notification: the owner’s id is reported not found', async () => {
      const ownerId = await personId(server, DEMO.owner.email);
      const owners = await listNotifications({ ...student, personId: ownerId }, { first: 10 });
      const foreign = owners.edges[0]?.node;
      if (!foreign) throw new Error('the demo owner has no notification');
      const answer = structured(await writer.callTool({ name: 'mark_notifications_read', arguments: { ids: [foreign.id] } }));
      expect(answer).toMatchObject({ markedCount: 0, notFound: [foreign.id] });
      expect((await findNotification({ ...student, personId: ownerId }, foreign.id))?.readAt).toBeNull();
    });
  });
}
