// Events as operators manage them (CONTRACT 6 events): every event of a site in any state, one event with
// its registration count, create, edit, cancel, and an event's registrations. A cancelled event keeps its
// row and registrations (the record of what happened) and leaves every public listing; on variant A each
// registered person finds the cancellation in their notification inbox.
import { randomUUID } from 'node:crypto';
import { type Page, type PageRequest, pageQuery, toPage } from './paging.js';
import type { SiteScope } from './scope.js';
import { slugTaken } from './slugs.js';

export interface OperatorEvent {
  id: string;
  slug: string;
  title: string;
  description: string;
  startsAt: number;
  endsAt: number;
  timeZone: string;
  location: string | null;
  joinUrl: string | null;
  isPublic: boolean;
  published: boolean;
  cancelledAt: number | null;
  cancelReason: string | null;
  registrationCount: number;
  createdAt: number;
  updatedAt: number | null;
}

export interface EventFields {
  slug: string;
  title: string;
  description: string;
  startsAt: number;
  endsAt: number;
  timeZone: string;
  location: string | null;
  joinUrl: string | null;
  isPublic: boolean;
  published: boolean;
}

const EVENTS = 'operator_events';
const REGISTRATIONS = 'operator_event_registrations';
const COLUMNS = [
  'id',
  'slug',
  'title',
  'description',
  'starts_at',
  'ends_at',
  'time_zone',
  'location',
  'join_url',
  'is_public',
  'published',
  'cancelled_at',
  'cancel_reason',
  'created_at',
  'updated_at',
] as const;

interface EventRow {
  id: string;
  slug: string;
  title: string;
  description: string;
  starts_at: number;
  ends_at: number;
  time_zone: string;
  location: string | null;
  join_url: string | null;
  is_public: number;
  published: number;
  cancelled_at: number | null;
  cancel_reason: string | null;
  created_at: number;
  updated_at: number | null;
}

function toEvent(row: EventRow, registrationCount: number): OperatorEvent {
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    description: row.description,
    startsAt: Number(row.starts_at),
    endsAt: Number(row.ends_at),
    timeZone: row.time_zone,
    location: row.location,
    joinUrl: row.join_url,
    isPublic: row.is_public === 1,
    published: row.published === 1,
    cancelledAt: row.cancelled_at === null ? null : Number(row.cancelled_at),
    cancelReason: row.cancel_reason,
    registrationCount,
    createdAt: Number(row.created_at),
    updatedAt: row.updated_at === null ? null : Number(row.updated_at),
  };
}

/** Registrations per event, for the events of one page, in one query. */
async function registrationCounts(scope: SiteScope, ids: readonly string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  if (ids.length === 0) return counts;
  const rows = await scope.db
    .selectFrom('event_registrations')
    .where('site_id', '=', scope.siteId)
    .where('event_id', 'in', [...ids])
    .groupBy('event_id')
    .select((eb) => ['event_id', eb.fn.countAll().as('n')])
    .execute();
  for (const row of rows) counts.set(row.event_id, Number(row.n));
  return counts;
}

/** Every event of the site, in any state, latest start first. */
export async function listAllEvents(scope: SiteScope, request: PageRequest): Promise<Page<OperatorEvent>> {
  const { size, after } = pageQuery(EVENTS, request);
  const rows = await scope.db
    .selectFrom('events')
    .where('site_id', '=', scope.siteId)
    .$if(after !== null, (qb) =>
      qb.where((eb) => eb.or([eb('starts_at', '<', after!.sort), eb.and([eb('starts_at', '=', after!.sort), eb('id', '<', after!.id)])])),
    )
    .select(COLUMNS)
    .orderBy('starts_at', 'desc')
    .orderBy('id', 'desc')
    .limit(size + 1)
    .execute();
  const counts = await registrationCounts(
    scope,
    rows.slice(0, size).map((r) => r.id),
  );
  const events = rows.map((row) => toEvent(row, counts.get(row.id) ?? 0));
  return toPage(EVENTS, events, size, (e) => ({ sort: e.startsAt, id: e.id }));
}

export async function countAllEvents(scope: SiteScope): Promise<number> {
  const row = await scope.db
    .selectFrom('events')
    .where('site_id', '=', scope.siteId)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findEventById(scope: SiteScope, id: string): Promise<OperatorEvent | null> {
  const row = await scope.db
    .selectFrom('events')
    .select(COLUMNS)
    .where('site_id', '=', scope.siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return null;
  const counts = await registrationCounts(scope, [id]);
  return toEvent(row, counts.get(id) ?? 0);
}

export type EventWriteResult =
  | { kind: 'done'; event: OperatorEvent }
  | { kind: 'not_found' }
  | { kind: 'slug_taken' }
  | { kind: 'cancelled' };

export async function createEvent(scope: SiteScope, fields: EventFields, now: number): Promise<EventWriteResult> {
  if (await slugTaken(scope, 'events', fields.slug, null)) return { kind: 'slug_taken' };
  const id = `evt_${randomUUID()}`;
  await scope.db
    .insertInto('events')
    .values({
      id,
      site_id: scope.siteId,
      slug: fields.slug,
      title: fields.title,
      description: fields.description,
      starts_at: fields.startsAt,
      ends_at: fields.endsAt,
      time_zone: fields.timeZone,
      location: fields.location,
      join_url: fields.joinUrl,
      is_public: fields.isPublic ? 1 : 0,
      published: fields.published ? 1 : 0,
      created_at: now,
      cancelled_at: null,
      cancel_reason: null,
      updated_at: null,
    })
    .execute();
  const event = await findEventById(scope, id);
  return event ? { kind: 'done', event } : { kind: 'not_found' };
}

/** Changes the given fields; a cancelled event is a record and no longer changes. */
export async function updateEvent(scope: SiteScope, id: string, changes: Partial<EventFields>, now: number): Promise<EventWriteResult> {
  const current = await findEventById(scope, id);
  if (!current) return { kind: 'not_found' };
  if (current.cancelledAt !== null) return { kind: 'cancelled' };
  if (changes.slug !== undefined && (await slugTaken(scope, 'events', changes.slug, id))) return { kind: 'slug_taken' };
  const set = {
    ...(changes.slug !== undefined ? { slug: changes.slug } : {}),
    ...(changes.title !== undefined ? { title: changes.title } : {}),
    ...(changes.description !== undefined ? { description: changes.description } : {}),
    ...(changes.startsAt !== undefined ? { starts_at: changes.startsAt } : {}),
    ...(changes.endsAt !== undefined ? { ends_at: changes.endsAt } : {}),
    ...(changes.timeZone !== undefined ? { time_zone: changes.timeZone } : {}),
    ...(changes.location !== undefined ? { location: changes.location } : {}),
    ...(changes.joinUrl !== undefined ? { join_url: changes.joinUrl } : {}),
    ...(changes.isPublic !== undefined ? { is_public: changes.isPublic ? 1 : 0 } : {}),
    ...(changes.published !== undefined ? { published: changes.published ? 1 : 0 } : {}),
    updated_at: now,
  };
  await scope.db.updateTable('events').set(set).where('site_id', '=', scope.siteId).where('id', '=', id).execute();
  const event = await findEventById(scope, id);
  return event ? { kind: 'done', event } : { kind: 'not_found' };
}

/**
 * Cancels an event: it leaves public listings, keeps its registrations, and (when the site has an inbox)
 * each registered person gets a notification saying so. Cancelling twice is refused, not repeated.
 */
export async function cancelEvent(
  scope: SiteScope,
  id: string,
  reason: string | null,
  notify: boolean,
  now: number,
): Promise<EventWriteResult & { notified?: number }> {
  const updated = await scope.db
    .updateTable('events')
    .set({ cancelled_at: now, cancel_reason: reason, updated_at: now })
    .where('site_id', '=', scope.siteId)
    .where('id', '=', id)
    .where('cancelled_at', 'is', null)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) {
    const exists = await findEventById(scope, id);
    return exists ? { kind: 'cancelled' } : { kind: 'not_found' };
  }
  const event = await findEventById(scope, id);
  if (!event) return { kind: 'not_found' };
  let notified = 0;
  if (notify) {
    const people = await scope.db
      .selectFrom('event_registrations')
      .select('person_id')
      .where('site_id', '=', scope.siteId)
      .where('event_id', '=', id)
      .execute();
    const body = reason ? `“${event.title}” will not take place. ${reason}` : `“${event.title}” will not take place.`;
    for (let i = 0; i < people.length; i += 500) {
      const batch = people.slice(i, i + 500).map((p) => ({
        id: `ntf_${randomUUID()}`,
        site_id: scope.siteId,
        person_id: p.person_id,
        kind: 'event_reminder' as const,
        title: `Cancelled: ${event.title}`.slice(0, 200),
        body,
        link: `/events/${event.slug}`,
        read_at: null,
        created_at: now,
      }));
      if (batch.length > 0) await scope.db.insertInto('notifications').values(batch).execute();
    }
    notified = people.length;
  }
  return { kind: 'done', event, notified };
}

export interface EventRegistration {
  id: string;
  personId: string;
  name: string;
  email: string;
  registeredAt: number;
}

/** An event's registrations, earliest first, with who registered. */
export async function listRegistrationsOfEvent(scope: SiteScope, eventId: string, request: PageRequest): Promise<Page<EventRegistration>> {
  const { size, after } = pageQuery(`${REGISTRATIONS}:${eventId}`, request);
  const rows = await scope.db
    .selectFrom('event_registrations as r')
    .innerJoin('people as p', 'p.id', 'r.person_id')
    .where('r.site_id', '=', scope.siteId)
    .where('r.event_id', '=', eventId)
    .$if(after !== null, (qb) =>
      qb.where((eb) =>
        eb.or([eb('r.registered_at', '>', after!.sort), eb.and([eb('r.registered_at', '=', after!.sort), eb('r.id', '>', after!.id)])]),
      ),
    )
    .select(['r.id', 'r.person_id', 'p.name', 'p.email', 'r.registered_at'])
    .orderBy('r.registered_at', 'asc')
    .orderBy('r.id', 'asc')
    .limit(size + 1)
    .execute();
  const registrations = rows.map(
    (row): EventRegistration => ({
      id: row.id,
      personId: row.person_id,
      name: row.name,
      email: row.email,
      registeredAt: Number(row.registered_at),
    }),
  );
  return toPage(`${REGISTRATIONS}:${eventId}`, registrations, size, (r) => ({ sort: r.registeredAt, id: r.id }));
}

export async function countRegistrationsOfEvent(scope: SiteScope, eventId: string): Promise<number> {
  const counts = await registrationCounts(scope, [eventId]);
  return counts.get(eventId) ?? 0;
}
