// A member's notification inbox and subscriptions at one site (SPEC 2.1, 4.3 mutations; variant A).
import type { NotificationChannel, NotificationKind } from '../storage/school-schema.js';
import type { MemberScope } from './scope.js';
import { type Page, type PageRequest, pageQuery, toPage } from './paging.js';

/** Every kind of notice the school sends; the only kinds a member can subscribe to. */
export const NOTIFICATION_KINDS = [
  'announcement',
  'course_update',
  'new_lecture',
  'event_reminder',
  'comment_reply',
  'access_expiring',
] as const satisfies readonly NotificationKind[];

export const NOTIFICATION_CHANNELS = ['email', 'in_app'] as const satisfies readonly NotificationChannel[];

export interface NotificationRecord {
  id: string;
  kind: NotificationKind;
  title: string;
  body: string;
  link: string | null;
  readAt: number | null;
  createdAt: number;
}

export interface NotificationSubscriptionRecord {
  kind: NotificationKind;
  channel: NotificationChannel;
  enabled: boolean;
  updatedAt: number;
}

const LIST = 'notifications';

export function isNotificationKind(value: string): value is NotificationKind {
  return (NOTIFICATION_KINDS as readonly string[]).includes(value);
}

export function isNotificationChannel(value: string): value is NotificationChannel {
  return (NOTIFICATION_CHANNELS as readonly string[]).includes(value);
}

type NotificationRow = {
  id: string;
  kind: NotificationKind;
  title: string;
  body: string;
  link: string | null;
  read_at: number | null;
  created_at: number;
};

function toRecord(row: NotificationRow): NotificationRecord {
  return { id: row.id, kind: row.kind, title: row.title, body: row.body, link: row.link, readAt: row.read_at, createdAt: row.created_at };
}

const NOTIFICATION_COLUMNS = ['id', 'kind', 'title', 'body', 'link', 'read_at', 'created_at'] as const;

/** The member's inbox at this site, newest first. */
export async function listNotifications(scope: MemberScope, request: PageRequest): Promise<Page<NotificationRecord>> {
  const { size, after } = pageQuery(LIST, request);
  const rows = await scope.db
    .selectFrom('notifications')
    .where('site_id', '=', scope.siteId)
    .where('person_id', '=', scope.personId)
    .$if(after !== null, (qb) =>
      qb.where((eb) => eb.or([eb('created_at', '<', after!.sort), eb.and([eb('created_at', '=', after!.sort), eb('id', '<', after!.id)])])),
    )
    .select(NOTIFICATION_COLUMNS)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(size + 1)
    .execute();
  return toPage(LIST, rows.map(toRecord), size, (r) => ({ sort: r.createdAt, id: r.id }));
}

export async function countNotifications(scope: MemberScope): Promise<number> {
  const row = await scope.db
    .selectFrom('notifications')
    .where('site_id', '=', scope.siteId)
    .where('person_id', '=', scope.personId)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function countUnreadNotifications(scope: MemberScope): Promise<number> {
  const row = await scope.db
    .selectFrom('notifications')
    .where('site_id', '=', scope.siteId)
    .where('person_id', '=', scope.personId)
    .where('read_at', 'is', null)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** One of the member's notifications; null when it does not exist or is someone else's (indistinguishable on purpose). */
export async function findNotification(scope: MemberScope, id: string): Promise<NotificationRecord | null> {
  const row = await scope.db
    .selectFrom('notifications')
    .where('site_id', '=', scope.siteId)
    .where('person_id', '=', scope.personId)
    .where('id', '=', id)
    .select(NOTIFICATION_COLUMNS)
    .executeTakeFirst();
  return row ? toRecord(row) : null;
}

/**
 * Marks one of the member's notifications read (keeping the first read time) and returns it re-read;
 * null when the member has no such notification.
 */
export async function markNotificationRead(scope: MemberScope, id: string, now: number): Promise<NotificationRecord | null> {
  await scope.db
    .updateTable('notifications')
    .set({ read_at: now })
    .where('site_id', '=', scope.siteId)
    .where('person_id', '=', scope.personId)
    .where('id', '=', id)
    .where('read_at', 'is', null)
    .execute();
  return findNotification(scope, id);
}

/** Marks every unread notification of the member read; returns how many changed. */
export async function markAllNotificationsRead(scope: MemberScope, now: number): Promise<number> {
  const results = await scope.db
    .updateTable('notifications')
    .set({ read_at: now })
    .where('site_id', '=', scope.siteId)
    .where('person_id', '=', scope.personId)
    .where('read_at', 'is', null)
    .executeTakeFirst();
  return Number(results.numUpdatedRows);
}

/** The member's subscriptions at this site, in catalogue order of kind, then channel. */
export async function listNotificationSubscriptions(scope: MemberScope): Promise<NotificationSubscriptionRecord[]> {
  const rows = await scope.db
    .selectFrom('notification_subscriptions')
    .where('site_id', '=', scope.siteId)
    .where('person_id', '=', scope.personId)
    .select(['kind', 'channel', 'enabled', 'updated_at'])
    .execute();
  const order = (kind: NotificationKind, channel: NotificationChannel) =>
    NOTIFICATION_KINDS.indexOf(kind) * NOTIFICATION_CHANNELS.length + NOTIFICATION_CHANNELS.indexOf(channel);
  return rows
    .map((row) => ({ kind: row.kind, channel: row.channel, enabled: row.enabled === 1, updatedAt: row.updated_at }))
    .sort((a, b) => order(a.kind, a.channel) - order(b.kind, b.channel));
}

export interface SubscriptionChange {
  kind: NotificationKind;
  channel: NotificationChannel;
  enabled: boolean;
}

/** Turns one kind of notice on or off on one channel for the member (creating the row if needed); returns it re-read. */
export async function updateNotificationSubscription(
  scope: MemberScope,
  change: SubscriptionChange,
  now: number,
): Promise<NotificationSubscriptionRecord> {
  // Checked here too, not only by the API's enums: the MCP tools and the CLI reach this function with plain strings.
  if (!isNotificationKind(change.kind) || !isNotificationChannel(change.channel)) {
    throw new RangeError(`unknown notification kind or channel: ${change.kind}/${change.channel}`);
  }
  const enabled = change.enabled ? 1 : 0;
  await scope.db
    .insertInto('notification_subscriptions')
    .values({ site_id: scope.siteId, person_id: scope.personId, kind: change.kind, channel: change.channel, enabled, updated_at: now })
    .onConflict((oc) => oc.columns(['site_id', 'person_id', 'kind', 'channel']).doUpdateSet({ enabled, updated_at: now }))
    .execute();
  const row = await scope.db
    .selectFrom('notification_subscriptions')
    .where('site_id', '=', scope.siteId)
    .where('person_id', '=', scope.personId)
    .where('kind', '=', change.kind)
    .where('channel', '=', change.channel)
    .select(['kind', 'channel', 'enabled', 'updated_at'])
    .executeTakeFirstOrThrow();
  return { kind: row.kind, channel: row.channel, enabled: row.enabled === 1, updatedAt: row.updated_at };
}
