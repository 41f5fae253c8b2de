// The member GraphQL API schema per variant (SPEC 1, 2.1, 2.2, 4.3): the signed-in member's own data at one site.
//
// Built with graphql-js type constructors rather than SDL: each field's description, type and resolver sit
// together and are type-checked against the repository records, and variant B is variant A minus a few
// fields chosen in code, with no SDL text to keep in step.
import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLError,
  type GraphQLFieldConfig,
  GraphQLID,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLOutputType,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
  Kind,
} from 'graphql';
import { isoInstant } from '../kernel/instant.js';
import {
  countEnrollments,
  type EnrollmentRecord,
  type LectureSummary,
  listEnrollments,
  progressPercent,
} from '../school/enrollments.repository.js';
import { countEventRegistrations, type EventRegistrationRecord, listEventRegistrations } from '../school/event-registrations.repository.js';
import { listMemberSchools, type MemberProfile, type MemberSchool } from '../school/member-profile.repository.js';
import {
  countNotifications,
  countUnreadNotifications,
  listNotifications,
  listNotificationSubscriptions,
  markAllNotificationsRead,
  markNotificationRead,
  NOTIFICATION_CHANNELS,
  NOTIFICATION_KINDS,
  type NotificationRecord,
  type NotificationSubscriptionRecord,
  updateNotificationSubscription,
} from '../school/notifications.repository.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type Page, type PageRequest, PageRequestError } from '../school/paging.js';
import {
  type ConsultingPurchaseRecord,
  countConsultingPurchases,
  countDigitalProductPurchases,
  type DigitalProductPurchaseRecord,
  listConsultingPurchases,
  listDigitalProductPurchases,
} from '../school/purchases.repository.js';
import type { NotificationChannel, NotificationKind } from '../storage/school-schema.js';
import type { MemberContext } from './context.js';

export type MemberApiVariant = 'A' | 'B';

const nonNull = <T extends GraphQLOutputType>(type: T) => new GraphQLNonNull(type);
const listOf = <T extends GraphQLOutputType>(type: T) => new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(type)));

/** A stored link may be a path on the school's site; clients get an absolute URL. */
async function absoluteUrl(value: string | null, ctx: MemberContext): Promise<string | null> {
  if (value === null) return null;
  const origin = await ctx.loaders.siteOrigin();
  if (origin === null) return value;
  try {
    return new URL(value, origin).toString();
  } catch {
    return value;
  }
}

const DateTime = new GraphQLScalarType<number, string>({
  name: 'DateTime',
  description: 'An instant as an ISO 8601 date-time string in UTC, for example "2026-03-01T17:00:00.000Z".',
  serialize(value) {
    if (typeof value === 'number' && Number.isFinite(value)) return isoInstant(value);
    throw new GraphQLError(`DateTime cannot represent ${String(value)}.`);
  },
  parseValue(value) {
    const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
    if (Number.isNaN(ms)) throw new GraphQLError('DateTime must be an ISO 8601 date-time string.');
    return ms;
  },
  parseLiteral(ast) {
    const ms = ast.kind === Kind.STRING ? Date.parse(ast.value) : Number.NaN;
    if (Number.isNaN(ms)) throw new GraphQLError('DateTime must be an ISO 8601 date-time string.');
    return ms;
  },
});

const PageInfo = new GraphQLObjectType<Page<unknown>, MemberContext>({
  name: 'PageInfo',
  description: 'Where a page of a connection ends, and whether another page follows it.',
  fields: {
    hasNextPage: { type: nonNull(GraphQLBoolean), description: 'True when more items follow this page.' },
    endCursor: {
      type: GraphQLString,
      description: 'Cursor of the last item of this page, to pass as `after` for the next page; null when the page is empty.',
    },
  },
});

/** What a connection field resolves to: the page and a lazily counted total. */
interface ConnectionSource<T> {
  page: Page<T>;
  totalCount: () => Promise<number>;
}

function connectionType<T>(nodeType: GraphQLObjectType<T, MemberContext>, itemsDescription: string) {
  const edge = new GraphQLObjectType<Page<T>['edges'][number], MemberContext>({
    name: `${nodeType.name}Edge`,
    description: `One ${itemsDescription} with its cursor.`,
    fields: {
      cursor: { type: nonNull(GraphQLString), description: 'Opaque cursor of this item; pass it as `after` to continue after it.' },
      node: { type: nonNull(nodeType), description: `The ${itemsDescription}.` },
    },
  });
  return new GraphQLObjectType<ConnectionSource<T>, MemberContext>({
    name: `${nodeType.name}Connection`,
    description: `A page of ${itemsDescription}s, with paging information and the total count.`,
    fields: {
      nodes: {
        type: listOf(nodeType),
        description: `The ${itemsDescription}s of this page.`,
        resolve: (c) => c.page.edges.map((e) => e.node),
      },
      edges: {
        type: listOf(edge),
        description: `The ${itemsDescription}s of this page, each with its cursor.`,
        resolve: (c) => c.page.edges,
      },
      pageInfo: { type: nonNull(PageInfo), description: 'Paging information for this page.', resolve: (c) => c.page },
      totalCount: {
        type: nonNull(GraphQLInt),
        description: `How many ${itemsDescription}s there are in all pages together.`,
        resolve: (c) => c.totalCount(),
      },
    },
  });
}

interface PageArgs {
  first?: number | null;
  after?: string | null;
}

const pageArgs = {
  first: {
    type: GraphQLInt,
    defaultValue: DEFAULT_PAGE_SIZE,
    description: `How many items to return, from 0 to ${MAX_PAGE_SIZE}; ${DEFAULT_PAGE_SIZE} when omitted.`,
  },
  after: { type: GraphQLString, description: 'Return the items after this cursor (an `endCursor` or edge `cursor` of this connection).' },
};

function connectionField<T, S>(
  type: GraphQLObjectType<ConnectionSource<T>, MemberContext>,
  description: string,
  fetch: (ctx: MemberContext, request: PageRequest) => Promise<Page<T>>,
  count: (ctx: MemberContext) => Promise<number>,
): GraphQLFieldConfig<S, MemberContext, PageArgs> {
  return {
    type: nonNull(type),
    description,
    args: pageArgs,
    resolve: async (_source, args, ctx): Promise<ConnectionSource<T>> => {
      try {
        const page = await fetch(ctx, { first: args.first, after: args.after });
        let total: Promise<number> | undefined;
        return { page, totalCount: () => (total ??= count(ctx)) };
      } catch (error) {
        if (error instanceof PageRequestError) {
          throw new GraphQLError(error.message, { extensions: { code: 'BAD_USER_INPUT', reason: error.code } });
        }
        throw error;
      }
    },
  };
}

const AccessState = new GraphQLEnumType({
  name: 'AccessState',
  description: 'Whether the member can still open the course.',
  values: {
    ACTIVE: { value: 'ACTIVE', description: 'Access is open: lifetime access, an expiry still in the future, or no end set.' },
    EXPIRED: { value: 'EXPIRED', description: 'The access expiry date has passed.' },
  },
});

const NOTIFICATION_KIND_DESCRIPTIONS: Record<NotificationKind, string> = {
  announcement: 'News from the school to all its members.',
  course_update: 'A course the member is enrolled in changed (new material, exercises, corrections).',
  new_lecture: 'A lecture was added to or re-recorded in an enrolled course.',
  event_reminder: 'An event the member registered for is coming up.',
  comment_reply: 'Someone replied to the member in a course discussion.',
  access_expiring: 'Access to an enrolled course ends soon.',
};

const NotificationKindEnum = new GraphQLEnumType({
  name: 'NotificationKind',
  description: 'What a notification is about; the same kinds are what a member subscribes to.',
  values: Object.fromEntries(
    NOTIFICATION_KINDS.map((kind) => [kind.toUpperCase(), { value: kind, description: NOTIFICATION_KIND_DESCRIPTIONS[kind] }]),
  ),
});

const NOTIFICATION_CHANNEL_DESCRIPTIONS: Record<NotificationChannel, string> = {
  email: 'By e-mail to the member’s address.',
  in_app: 'In the notification inbox on the school’s site and in apps.',
};

const NotificationChannelEnum = new GraphQLEnumType({
  name: 'NotificationChannel',
  description: 'Where notices of one kind are delivered.',
  values: Object.fromEntries(
    NOTIFICATION_CHANNELS.map((channel) => [
      channel.toUpperCase(),
      { value: channel, description: NOTIFICATION_CHANNEL_DESCRIPTIONS[channel] },
    ]),
  ),
});

const Course = new GraphQLObjectType<EnrollmentRecord['course'], MemberContext>({
  name: 'Course',
  description: 'A course of this school, as seen from an enrolment.',
  fields: {
    id: { type: nonNull(GraphQLID), description: 'Course identifier.' },
    slug: { type: nonNull(GraphQLString), description: 'Course slug, unique within this school.' },
    title: { type: nonNull(GraphQLString), description: 'Course title.' },
    subtitle: { type: GraphQLString, description: 'One-line summary under the title; null when the course has none.' },
    coverImageUrl: {
      type: GraphQLString,
      description: 'Absolute URL of the cover image; null when the course has none.',
      resolve: (course, _args, ctx) => absoluteUrl(course.coverImageUrl, ctx),
    },
    lectureCount: {
      type: nonNull(GraphQLInt),
      description: 'Number of lectures in the course curriculum.',
      resolve: (course, _args, ctx) => ctx.loaders.lectureCountByCourse.load(course.id),
    },
  },
});

interface LastWatchedSource {
  lectureId: string;
  positionSeconds: number;
}

/**
 * The lecture itself, read only when its title or length is asked for: `lectureId` and `positionSeconds`
 * come from the enrolment row, and the row's foreign key clears `last_lecture_id` when the lecture is
 * deleted, so a set id always names an existing lecture of the course.
 */
async function watchedLecture(source: LastWatchedSource, ctx: MemberContext): Promise<LectureSummary> {
  const lecture = await ctx.loaders.lectureById.load(source.lectureId);
  if (lecture === null) throw new GraphQLError('The lecture watched last no longer exists.', { extensions: { code: 'NOT_FOUND' } });
  return lecture;
}

const LastWatchedLecture = new GraphQLObjectType<LastWatchedSource, MemberContext>({
  name: 'LastWatchedLecture',
  description: 'The lecture the member watched last in a course, and where they stopped: what a "resume" button needs.',
  fields: {
    lectureId: { type: nonNull(GraphQLID), description: 'Lecture identifier.' },
    positionSeconds: { type: nonNull(GraphQLInt), description: 'Playback position in the lecture, in seconds.' },
    title: {
      type: nonNull(GraphQLString),
      description: 'Lecture title.',
      resolve: async (source, _args, ctx) => (await watchedLecture(source, ctx)).title,
    },
    durationSeconds: {
      type: nonNull(GraphQLInt),
      description: 'Length of the lecture, in seconds.',
      resolve: async (source, _args, ctx) => (await watchedLecture(source, ctx)).durationSeconds,
    },
  },
});

async function completedOf(enrollment: EnrollmentRecord, ctx: MemberContext): Promise<number> {
  return ctx.loaders.completedLecturesByEnrollment.load(enrollment.id);
}

async function totalOf(enrollment: EnrollmentRecord, ctx: MemberContext): Promise<number> {
  return ctx.loaders.lectureCountByCourse.load(enrollment.course.id);
}

const Enrollment = new GraphQLObjectType<EnrollmentRecord, MemberContext>({
  name: 'Enrollment',
  description: 'The member’s enrolment in one course: access, progress and where they left off.',
  fields: {
    id: { type: nonNull(GraphQLID), description: 'Enrolment identifier.' },
    slug: { type: nonNull(GraphQLString), description: 'Slug of the enrolled course.', resolve: (e) => e.course.slug },
    expireDate: {
      type: DateTime,
      description: 'When access to the course ends; null with lifetime access or when no end is set.',
      resolve: (e) => e.accessExpiresAt,
    },
    hasLifetimeAccess: { type: nonNull(GraphQLBoolean), description: 'True when access never ends.' },
    accessState: { type: nonNull(AccessState), description: 'ACTIVE or EXPIRED, as of this request.' },
    lastWatchedLecture: {
      type: LastWatchedLecture,
      description: 'The lecture watched last, with the playback position; null before the first lecture is opened.',
      resolve: (e): LastWatchedSource | null =>
        e.lastLectureId === null ? null : { lectureId: e.lastLectureId, positionSeconds: e.lastPositionSeconds ?? 0 },
    },
    course: { type: nonNull(Course), description: 'The enrolled course.' },
    progressPercent: {
      type: nonNull(GraphQLInt),
      description: 'Completed lectures as a whole percentage of all lectures, 0 to 100.',
      resolve: async (e, _args, ctx) => {
        const [completed, total] = await Promise.all([completedOf(e, ctx), totalOf(e, ctx)]);
        return progressPercent(completed, total);
      },
    },
    completedLectures: {
      type: nonNull(GraphQLInt),
      description: 'Number of lectures the member completed.',
      resolve: (e, _args, ctx) => completedOf(e, ctx),
    },
    totalLectures: {
      type: nonNull(GraphQLInt),
      description: 'Number of lectures in the course.',
      resolve: (e, _args, ctx) => totalOf(e, ctx),
    },
    startedAt: { type: nonNull(DateTime), description: 'When the member enrolled.' },
    completedAt: { type: DateTime, description: 'When the member completed the course; null while not completed.' },
    lastActivityAt: { type: DateTime, description: 'When the member last studied in this course; null if never.' },
  },
});

const PurchasedDigitalProduct = new GraphQLObjectType<DigitalProductPurchaseRecord, MemberContext>({
  name: 'PurchasedDigitalProduct',
  description: 'A digital product the member owns. It says what was bought and when; it is not an order record.',
  fields: {
    id: { type: nonNull(GraphQLID), description: 'Identifier of the member’s ownership of the product.' },
    productId: { type: nonNull(GraphQLID), description: 'Identifier of the product.' },
    title: { type: nonNull(GraphQLString), description: 'Product title.' },
    kind: { type: nonNull(GraphQLString), description: 'Kind of product, for example "ebook", "template", "audio" or "video".' },
    purchasedAt: { type: nonNull(DateTime), description: 'When the member bought it.' },
  },
});

const PurchasedConsultingService = new GraphQLObjectType<ConsultingPurchaseRecord, MemberContext>({
  name: 'PurchasedConsultingService',
  description: 'A consulting service the member bought. It says what was bought and when; it is not an order record.',
  fields: {
    id: { type: nonNull(GraphQLID), description: 'Identifier of the member’s purchase of the service.' },
    serviceId: { type: nonNull(GraphQLID), description: 'Identifier of the service.' },
    title: { type: nonNull(GraphQLString), description: 'Service title.' },
    kind: { type: nonNull(GraphQLString), description: 'Kind of service, for example "one_on_one" or "code_review".' },
    durationMinutes: { type: nonNull(GraphQLInt), description: 'Length of one session, in minutes.' },
    purchasedAt: { type: nonNull(DateTime), description: 'When the member bought it.' },
  },
});

const EventRegistration = new GraphQLObjectType<EventRegistrationRecord, MemberContext>({
  name: 'EventRegistration',
  description: 'An event the member registered for. The join link is shown because the member is registered.',
  fields: {
    id: { type: nonNull(GraphQLID), description: 'Registration identifier.' },
    eventId: { type: nonNull(GraphQLID), description: 'Event identifier.' },
    title: { type: nonNull(GraphQLString), description: 'Event title.' },
    description: { type: nonNull(GraphQLString), description: 'What the event is about.' },
    startsAt: { type: nonNull(DateTime), description: 'When the event starts.' },
    endsAt: { type: nonNull(DateTime), description: 'When the event ends.' },
    timeZone: {
      type: nonNull(GraphQLString),
      description: 'IANA time zone the event is announced in (for example "Europe/Berlin"); startsAt and endsAt are UTC instants.',
    },
    location: { type: GraphQLString, description: 'Where an in-person event takes place; null for online-only events.' },
    joinUrl: {
      type: GraphQLString,
      description: 'Link to join an online event; null for in-person-only events and once the event is cancelled.',
    },
    registeredAt: { type: nonNull(DateTime), description: 'When the member registered.' },
    cancelledAt: { type: DateTime, description: 'When the school cancelled the event; null while it takes place.' },
    cancelReason: {
      type: GraphQLString,
      description: 'Why the school cancelled the event, as it wrote it; null when not given or not cancelled.',
    },
  },
});

const Notification = new GraphQLObjectType<NotificationRecord, MemberContext>({
  name: 'Notification',
  description: 'A notice in the member’s inbox at this school.',
  fields: {
    id: { type: nonNull(GraphQLID), description: 'Notification identifier, as markNotificationRead takes it.' },
    kind: { type: nonNull(NotificationKindEnum), description: 'What the notification is about.' },
    title: { type: nonNull(GraphQLString), description: 'Short headline.' },
    body: { type: nonNull(GraphQLString), description: 'The notice in plain text.' },
    link: {
      type: GraphQLString,
      description: 'Absolute URL of the page the notice is about; null when there is none.',
      resolve: (n, _args, ctx) => absoluteUrl(n.link, ctx),
    },
    read: { type: nonNull(GraphQLBoolean), description: 'True once the member has read it.', resolve: (n) => n.readAt !== null },
    readAt: { type: DateTime, description: 'When the member first read it; null while unread.' },
    createdAt: { type: nonNull(DateTime), description: 'When the notice was sent.' },
  },
});

const NotificationSubscription = new GraphQLObjectType<NotificationSubscriptionRecord, MemberContext>({
  name: 'NotificationSubscription',
  description: 'Whether the member receives one kind of notice on one channel.',
  fields: {
    kind: { type: nonNull(NotificationKindEnum), description: 'The kind of notice.' },
    channel: { type: nonNull(NotificationChannelEnum), description: 'Where it is delivered.' },
    enabled: { type: nonNull(GraphQLBoolean), description: 'True when the member receives it.' },
    updatedAt: { type: nonNull(DateTime), description: 'When this setting last changed.' },
  },
});

const School = new GraphQLObjectType<MemberSchool, MemberContext>({
  name: 'School',
  description: 'A school (site) where the member holds a role.',
  fields: {
    name: { type: nonNull(GraphQLString), description: 'School name.' },
    origin: { type: nonNull(GraphQLString), description: 'The school’s origin (scheme, host and port), where its APIs are served.' },
    roles: {
      type: listOf(GraphQLString),
      description: 'The member’s role names at that school: "owner", "admin", "lecturer" or "student".',
    },
    current: { type: nonNull(GraphQLBoolean), description: 'True for the school this request was made to.' },
  },
});

const EnrollmentConnection = connectionType(Enrollment, 'enrolment');
const PurchasedDigitalProductConnection = connectionType(PurchasedDigitalProduct, 'owned digital product');
const PurchasedConsultingServiceConnection = connectionType(PurchasedConsultingService, 'purchased consulting service');
const EventRegistrationConnection = connectionType(EventRegistration, 'event registration');
const NotificationConnection = connectionType(Notification, 'notification');

function viewerType(variant: MemberApiVariant): GraphQLObjectType<MemberProfile, MemberContext> {
  return new GraphQLObjectType<MemberProfile, MemberContext>({
    name: 'Viewer',
    description: 'The signed-in member, with their own data at this school.',
    fields: () => ({
      id: { type: nonNull(GraphQLID), description: 'Member identifier (the `sub` of the ID token).' },
      name: { type: nonNull(GraphQLString), description: 'Member’s display name.' },
      email: { type: nonNull(GraphQLString), description: 'Member’s e-mail address.' },
      enrolledCourses: connectionField(
        EnrollmentConnection,
        'The member’s course enrolments at this school, most recently started first.',
        (ctx, request) => listEnrollments(ctx, request, ctx.now),
        countEnrollments,
      ),
      digitalProducts: connectionField(
        PurchasedDigitalProductConnection,
        'Digital products the member owns at this school, most recent purchase first.',
        listDigitalProductPurchases,
        countDigitalProductPurchases,
      ),
      consultingServices: connectionField(
        PurchasedConsultingServiceConnection,
        'Consulting services the member bought at this school, most recent purchase first.',
        listConsultingPurchases,
        countConsultingPurchases,
      ),
      eventRegistrations: connectionField(
        EventRegistrationConnection,
        'Events the member registered for at this school, by start time, soonest first.',
        listEventRegistrations,
        countEventRegistrations,
      ),
      ...(variant === 'A'
        ? {
            schools: {
              type: listOf(School),
              description: 'Every school where the member holds a role, this one first, with the role names.',
              resolve: (_viewer: MemberProfile, _args: unknown, ctx: MemberContext) => listMemberSchools(ctx),
            },
            notifications: connectionField(
              NotificationConnection,
              'The member’s notification inbox at this school, newest first.',
              listNotifications,
              countNotifications,
            ),
            unreadNotificationCount: {
              type: nonNull(GraphQLInt),
              description: 'How many notifications in the inbox are unread.',
              resolve: (_viewer: MemberProfile, _args: unknown, ctx: MemberContext) => countUnreadNotifications(ctx),
            },
            notificationSubscriptions: {
              type: listOf(NotificationSubscription),
              description: 'Which kinds of notice the member receives, on which channel.',
              resolve: (_viewer: MemberProfile, _args: unknown, ctx: MemberContext) => listNotificationSubscriptions(ctx),
            },
          }
        : {}),
    }),
  });
}

async function loadViewer(ctx: MemberContext): Promise<MemberProfile> {
  const profile = await ctx.loaders.profile();
  if (!profile) throw new GraphQLError('The signed-in member no longer exists.', { extensions: { code: 'NOT_FOUND' } });
  return profile;
}

function mutationType(Viewer: GraphQLObjectType<MemberProfile, MemberContext>): GraphQLObjectType<unknown, MemberContext> {
  const MarkAllNotificationsReadPayload = new GraphQLObjectType<{ markedCount: number }, MemberContext>({
    name: 'MarkAllNotificationsReadPayload',
    description: 'The result of marking the whole inbox read.',
    fields: {
      markedCount: { type: nonNull(GraphQLInt), description: 'How many notifications were unread and are now read.' },
      unreadNotificationCount: {
        type: nonNull(GraphQLInt),
        description: 'Unread notifications left, re-read after the change (0 unless new ones arrived meanwhile).',
        resolve: (_payload, _args, ctx) => countUnreadNotifications(ctx),
      },
      viewer: {
        type: nonNull(Viewer),
        description: 'The member, to re-read the inbox in the same request.',
        resolve: (_p, _a, ctx) => loadViewer(ctx),
      },
    },
  });

  return new GraphQLObjectType<unknown, MemberContext>({
    name: 'Mutation',
    description: 'Changes to the member’s own inbox and notification settings (need the account:write scope).',
    fields: {
      markNotificationRead: {
        type: nonNull(Notification),
        description: 'Marks one notification read and returns it re-read. Marking a read notification again changes nothing.',
        args: { id: { type: nonNull(GraphQLID), description: 'The notification’s id.' } },
        resolve: async (_root, args: { id: string }, ctx) => {
          const notification = await markNotificationRead(ctx, args.id, ctx.now);
          if (!notification) {
            throw new GraphQLError('No notification with this id in your inbox.', { extensions: { code: 'NOT_FOUND' } });
          }
          return notification;
        },
      },
      markAllNotificationsRead: {
        type: nonNull(MarkAllNotificationsReadPayload),
        description: 'Marks every unread notification read.',
        resolve: async (_root, _args, ctx) => ({ markedCount: await markAllNotificationsRead(ctx, ctx.now) }),
      },
      updateNotificationSubscription: {
        type: nonNull(NotificationSubscription),
        description: 'Turns one kind of notice on or off on one channel, and returns the setting re-read.',
        args: {
          kind: { type: nonNull(NotificationKindEnum), description: 'The kind of notice.' },
          channel: { type: nonNull(NotificationChannelEnum), description: 'The delivery channel.' },
          enabled: { type: nonNull(GraphQLBoolean), description: 'True to receive it, false to stop.' },
        },
        resolve: (_root, args: { kind: NotificationKind; channel: NotificationChannel; enabled: boolean }, ctx) =>
          updateNotificationSubscription(ctx, args, ctx.now),
      },
    },
  });
}

function buildMemberSchema(variant: MemberApiVariant): GraphQLSchema {
  const Viewer = viewerType(variant);
  const Query = new GraphQLObjectType<unknown, MemberContext>({
    name: 'Query',
    description: 'Reads of the signed-in member’s own data at this school (need the account:read scope).',
    fields: {
      viewer: { type: nonNull(Viewer), description: 'The signed-in member.', resolve: (_root, _args, ctx) => loadViewer(ctx) },
    },
  });
  return new GraphQLSchema({
    description:
      variant === 'A'
        ? 'Member API: the signed-in member’s enrolments, purchases, event registrations, schools and notification inbox at this school.'
        : 'Account API: the signed-in member’s enrolments with access expiry and last-watched lecture, purchases and event registrations at this school.',
    query: Query,
    ...(variant === 'A' ? { mutation: mutationType(Viewer) } : {}),
  });
}

const schemas = new Map<MemberApiVariant, GraphQLSchema>();

/** The member API schema of a variant (SPEC 1 table); built once per variant and shared, as it holds no state. */
export function memberSchema(variant: MemberApiVariant): GraphQLSchema {
  let schema = schemas.get(variant);
  if (!schema) {
    schema = buildMemberSchema(variant);
    schemas.set(variant, schema);
  }
  return schema;
}
