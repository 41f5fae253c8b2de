// Member operations (SPEC 2.1, 2.2, 4.3, 5.5 `account:read` / `account:write`): the token's person's own
// data at the token's site. They call the same domain functions as the member GraphQL API
// (member-api/schema.ts), so both doors give the same data under the same rules.
import { z } from 'zod';
import { listEnrollmentsWithProgress, progressPercent } from '../school/enrollments.repository.js';
import { countEventRegistrations, listEventRegistrations } from '../school/event-registrations.repository.js';
import {
  countNotifications,
  countUnreadNotifications,
  findNotification,
  listNotifications,
  markAllNotificationsRead,
  markNotificationRead,
  NOTIFICATION_KINDS,
} from '../school/notifications.repository.js';
import { MAX_PAGE_SIZE } from '../school/paging.js';
import {
  countConsultingPurchases,
  countDigitalProductPurchases,
  listConsultingPurchases,
  listDigitalProductPurchases,
} from '../school/purchases.repository.js';
import type { MemberScope } from '../school/scope.js';
import { instant, instantOrNull, iso, isoOrNull, pagedOutput, pageInput, pageRequest, paged } from './lists.js';
import { defineOperation, type Operation, type OperationContext, OperationError, READ_ONLY } from './operation.js';

const ACCOUNT_READ = ['account:read'] as const;
const ACCOUNT_WRITE = ['account:write'] as const;

/** The person's own data at this site; the caller must be a token holder (the HTTP layer made sure). */
function memberScope(ctx: OperationContext): MemberScope {
  if (ctx.personId === null) {
    throw new OperationError('unauthenticated', 'This tool reads your own account: connect with an access token that holds account:read.');
  }
  return { db: ctx.db, siteId: ctx.site.id, personId: ctx.personId, learning: ctx.learning };
}

/** A stored link may be a path on the school's site; callers get an absolute URL, as from the member API. */
function absoluteUrl(value: string | null, origin: string): string | null {
  if (value === null) return null;
  try {
    return new URL(value, origin).toString();
  } catch {
    return value;
  }
}

const enrollmentItem = z.object({
  id: z.string(),
  course: z.object({ id: z.string(), slug: z.string(), title: z.string(), subtitle: z.string().nullable() }),
  startedAt: instant('When the member enrolled'),
  accessExpiresAt: instantOrNull('When access ends; null with lifetime access or when no end is set'),
  hasLifetimeAccess: z.boolean(),
  accessState: z.enum(['ACTIVE', 'EXPIRED']).describe('Whether the member can still open the course, as of now.'),
  progressPercent: z.number().int().min(0).max(100).describe('Completed lectures as a whole percentage of all lectures.'),
  completedLectures: z.number().int(),
  totalLectures: z.number().int(),
  lastWatchedLecture: z
    .object({
      lectureId: z.string(),
      title: z.string(),
      positionSeconds: z.number().int().describe('Where the member stopped, in seconds from the start of the lecture.'),
      durationSeconds: z.number().int(),
    })
    .nullable()
    .describe('The lecture watched last and where the member stopped; null before the first lecture was opened.'),
  completedAt: instantOrNull('When the member completed the course; null while not completed'),
  lastActivityAt: instantOrNull('When the member last studied in this course; null if never'),
});

export const listMyEnrollments = defineOperation({
  name: 'list_my_enrollments',
  title: 'My courses',
  description:
    'The courses you are enrolled in at this school, most recently started first, with access expiry, progress and the lecture to resume. ' +
    'Paged with a total and a nextCursor.',
  audience: 'member',
  scopes: ACCOUNT_READ,
  input: z.object({ ...pageInput }),
  output: z.object(pagedOutput(enrollmentItem, 'enrolments')),
  annotations: READ_ONLY,
  userContent: ['items[].course.title', 'items[].course.subtitle', 'items[].lastWatchedLecture.title'],
  async handle(ctx, input) {
    const { page, total } = await listEnrollmentsWithProgress(memberScope(ctx), pageRequest(input), ctx.clock.now());
    return paged(page, total, (r) => {
      const { totalLectures, completedLectures, lastLecture: last } = r;
      return {
        id: r.id,
        course: { id: r.course.id, slug: r.course.slug, title: r.course.title, subtitle: r.course.subtitle },
        startedAt: iso(r.startedAt),
        accessExpiresAt: isoOrNull(r.accessExpiresAt),
        hasLifetimeAccess: r.hasLifetimeAccess,
        accessState: r.accessState,
        progressPercent: progressPercent(completedLectures, totalLectures),
        completedLectures,
        totalLectures,
        lastWatchedLecture: last
          ? { lectureId: last.id, title: last.title, positionSeconds: r.lastPositionSeconds ?? 0, durationSeconds: last.durationSeconds }
          : null,
        completedAt: isoOrNull(r.completedAt),
        lastActivityAt: isoOrNull(r.lastActivityAt),
      };
    });
  },
});

const productItem = z.object({
  id: z.string(),
  productId: z.string(),
  title: z.string(),
  kind: z.string().describe('e.g. ebook, template, audio, video.'),
  purchasedAt: instant('When the member bought it'),
});
const serviceItem = z.object({
  id: z.string(),
  serviceId: z.string(),
  title: z.string(),
  kind: z.string().describe('e.g. one_on_one, code_review.'),
  durationMinutes: z.number().int(),
  purchasedAt: instant('When the member bought it'),
});

export const listMyPurchases = defineOperation({
  name: 'list_my_purchases',
  title: 'My purchases',
  description:
    'What you bought at this school: digital products and consulting services, most recent first. These say what was bought and when; ' +
    'they are not order records. Without kind, the first page of both lists is returned; to continue one list, pass its kind and its nextCursor.',
  audience: 'member',
  scopes: ACCOUNT_READ,
  input: z.object({
    kind: z.enum(['digital_products', 'consulting_services']).optional().describe('Which list to return; omit for the first page of both.'),
    ...pageInput,
  }),
  output: z.object({
    digitalProducts: z.object(pagedOutput(productItem, 'digital products you own')).optional(),
    consultingServices: z.object(pagedOutput(serviceItem, 'consulting services you bought')).optional(),
  }),
  annotations: READ_ONLY,
  userContent: ['digitalProducts.items[].title', 'consultingServices.items[].title'],
  async handle(ctx, input) {
    const scope = memberScope(ctx);
    if (input.cursor !== undefined && input.kind === undefined) {
      throw new OperationError(
        'invalid_argument',
        'A cursor belongs to one list: pass kind ("digital_products" or "consulting_services") with it.',
      );
    }
    const request = pageRequest(input);
    const [digitalProducts, consultingServices] = await Promise.all([
      input.kind === 'consulting_services'
        ? undefined
        : Promise.all([listDigitalProductPurchases(scope, request), countDigitalProductPurchases(scope)]).then(([page, total]) =>
            paged(page, total, (p) => ({
              id: p.id,
              productId: p.productId,
              title: p.title,
              kind: p.kind,
              purchasedAt: iso(p.purchasedAt),
            })),
          ),
      input.kind === 'digital_products'
        ? undefined
        : Promise.all([listConsultingPurchases(scope, request), countConsultingPurchases(scope)]).then(([page, total]) =>
            paged(page, total, (s) => ({
              id: s.id,
              serviceId: s.serviceId,
              title: s.title,
              kind: s.kind,
              durationMinutes: s.durationMinutes,
              purchasedAt: iso(s.purchasedAt),
            })),
          ),
    ]);
    return {
      ...(digitalProducts === undefined ? {} : { digitalProducts }),
      ...(consultingServices === undefined ? {} : { consultingServices }),
    };
  },
});

export const listMyEventRegistrations = defineOperation({
  name: 'list_my_event_registrations',
  title: 'My event registrations',
  description:
    'Events you registered for at this school, soonest first, with the join link of online events. An event the school cancelled is listed with cancelledAt and the reason, and without a join link. Paged with a total and a nextCursor.',
  audience: 'member',
  scopes: ACCOUNT_READ,
  input: z.object({ ...pageInput }),
  output: z.object(
    pagedOutput(
      z.object({
        id: z.string(),
        eventId: z.string(),
        title: z.string(),
        description: z.string(),
        startsAt: instant('When the event starts'),
        endsAt: instant('When the event ends'),
        timeZone: z.string().describe('IANA time zone the event is announced in.'),
        location: z.string().nullable(),
        joinUrl: z.string().nullable().describe('Link to join an online event; null for in-person events and once the event is cancelled.'),
        registeredAt: instant('When the member registered'),
        cancelledAt: instantOrNull('When the school cancelled the event; null while it takes place'),
        cancelReason: z.string().nullable().describe('Why the school cancelled the event; null when not given or not cancelled.'),
      }),
      'event registrations',
    ),
  ),
  annotations: READ_ONLY,
  userContent: ['items[].title', 'items[].description', 'items[].location', 'items[].cancelReason'],
  async handle(ctx, input) {
    const scope = memberScope(ctx);
    const [page, total] = await Promise.all([listEventRegistrations(scope, pageRequest(input)), countEventRegistrations(scope)]);
    return paged(page, total, (r) => ({
      id: r.id,
      eventId: r.eventId,
      title: r.title,
      description: r.description,
      startsAt: iso(r.startsAt),
      endsAt: iso(r.endsAt),
      timeZone: r.timeZone,
      location: r.location,
      joinUrl: r.joinUrl,
      registeredAt: iso(r.registeredAt),
      cancelledAt: isoOrNull(r.cancelledAt),
      cancelReason: r.cancelReason,
    }));
  },
});

export const listMyNotifications = defineOperation({
  name: 'list_my_notifications',
  title: 'My notifications',
  description:
    'Your notification inbox at this school, newest first, with how many are unread. Paged with a total and a nextCursor; ' +
    'pass limit 0 to get only the counts.',
  audience: 'member',
  scopes: ACCOUNT_READ,
  requires: 'inbox',
  input: z.object({
    ...pageInput,
    limit: z
      .number()
      .int()
      .min(0)
      .max(MAX_PAGE_SIZE)
      .optional()
      .describe(`How many notifications to return, 0 to ${MAX_PAGE_SIZE}; 20 when omitted; 0 returns only the counts.`),
  }),
  output: z.object({
    unreadCount: z.number().int().describe('How many notifications in the whole inbox are unread.'),
    ...pagedOutput(
      z.object({
        id: z.string().describe('Pass to mark_notifications_read.'),
        kind: z.enum(NOTIFICATION_KINDS),
        title: z.string(),
        body: z.string(),
        link: z.string().nullable().describe('Absolute URL of the page the notice is about; null when there is none.'),
        read: z.boolean(),
        readAt: instantOrNull('When the member first read it; null while unread'),
        createdAt: instant('When the notice was sent'),
      }),
      'notifications',
    ),
  }),
  annotations: READ_ONLY,
  userContent: ['items[].title', 'items[].body'],
  async handle(ctx, input) {
    const scope = memberScope(ctx);
    const [page, total, unreadCount] = await Promise.all([
      listNotifications(scope, pageRequest(input)),
      countNotifications(scope),
      countUnreadNotifications(scope),
    ]);
    return {
      unreadCount,
      ...paged(page, total, (n) => ({
        id: n.id,
        kind: n.kind,
        title: n.title,
        body: n.body,
        link: absoluteUrl(n.link, ctx.site.origin),
        read: n.readAt !== null,
        readAt: isoOrNull(n.readAt),
        createdAt: iso(n.createdAt),
      })),
    };
  },
});

export const markNotificationsRead = defineOperation({
  name: 'mark_notifications_read',
  title: 'Mark notifications read',
  description:
    'Marks notifications in your inbox read: either the ones whose ids you pass (from list_my_notifications) or, with all: true, every unread one. ' +
    'Marking a read notification again changes nothing. The answer is re-read after the change and says what changed.',
  audience: 'member',
  scopes: ACCOUNT_WRITE,
  requires: 'inbox',
  input: z.object({
    ids: z.array(z.string().min(1).max(200)).min(1).max(MAX_PAGE_SIZE).optional().describe('Ids of the notifications to mark read.'),
    all: z.boolean().optional().describe('True to mark every unread notification read instead of passing ids.'),
  }),
  output: z.object({
    markedCount: z.number().int().describe('How many notifications were unread and are read now.'),
    unreadCount: z.number().int().describe('Unread notifications left in the inbox, re-read after the change.'),
    notifications: z
      .array(z.object({ id: z.string(), title: z.string(), readAt: instant('When it was first read'), changedNow: z.boolean() }))
      .describe('Each notification named by ids, re-read after the change; empty with all: true.'),
    notFound: z.array(z.string()).describe('Ids not in your inbox; nothing was changed for them.'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  userContent: ['notifications[].title'],
  async handle(ctx, input) {
    const scope = memberScope(ctx);
    const now = ctx.clock.now();
    const byIds = input.ids !== undefined && input.ids.length > 0;
    if (byIds === (input.all === true)) {
      throw new OperationError('invalid_argument', 'Pass either ids (from list_my_notifications) or all: true, not both and not neither.');
    }
    if (!byIds) {
      const markedCount = await markAllNotificationsRead(scope, now);
      return { markedCount, unreadCount: await countUnreadNotifications(scope), notifications: [], notFound: [] };
    }
    const notifications: { id: string; title: string; readAt: string; changedNow: boolean }[] = [];
    const notFound: string[] = [];
    for (const id of new Set(input.ids)) {
      const before = await findNotification(scope, id);
      const after = before === null ? null : await markNotificationRead(scope, id, now);
      if (before === null || after === null || after.readAt === null) {
        notFound.push(id);
        continue;
      }
      notifications.push({ id, title: after.title, readAt: iso(after.readAt), changedNow: before.readAt === null });
    }
    return {
      markedCount: notifications.filter((n) => n.changedNow).length,
      unreadCount: await countUnreadNotifications(scope),
      notifications,
      notFound,
    };
  },
});

export const MEMBER_OPERATIONS: readonly Operation[] = [
  listMyEnrollments,
  listMyPurchases,
  listMyEventRegistrations,
  listMyNotifications,
  markNotificationsRead,
];
