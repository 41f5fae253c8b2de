// The events a member registered for at a site (SPEC 2.1). The join link appears here, and only here,
// because the member is registered; public listings never carry it. An event the school cancelled stays
// in the list, marked cancelled with the school's reason, and without its join link: there is nothing left
// to join, and an assistant reading the list must not send the member to it.
import type { MemberScope } from './scope.js';
import { type Page, type PageRequest, pageQuery, toPage } from './paging.js';

export interface EventRegistrationRecord {
  id: string;
  eventId: string;
  title: string;
  description: string;
  startsAt: number;
  endsAt: number;
  timeZone: string;
  location: string | null;
  /** Null once the event is cancelled. */
  joinUrl: string | null;
  registeredAt: number;
  /** When the school cancelled the event; null while it takes place. */
  cancelledAt: number | null;
  cancelReason: string | null;
}

const LIST = 'event_registrations';

/** The member's registrations at this site, by event start, soonest first. */
export async function listEventRegistrations(scope: MemberScope, request: PageRequest): Promise<Page<EventRegistrationRecord>> {
  const { size, after } = pageQuery(LIST, request);
  const rows = await scope.db
    .selectFrom('event_registrations as r')
    .innerJoin('events as ev', (join) => join.onRef('ev.id', '=', 'r.event_id').on('ev.site_id', '=', scope.siteId))
    .where('r.site_id', '=', scope.siteId)
    .where('r.person_id', '=', scope.personId)
    .$if(after !== null, (qb) =>
      qb.where((eb) =>
        eb.or([eb('ev.starts_at', '>', after!.sort), eb.and([eb('ev.starts_at', '=', after!.sort), eb('r.id', '>', after!.id)])]),
      ),
    )
    .select([
      'r.id',
      'r.event_id',
      'r.registered_at',
      'ev.title',
      'ev.description',
      'ev.starts_at',
      'ev.ends_at',
      'ev.time_zone',
      'ev.location',
      'ev.join_url',
      'ev.cancelled_at',
      'ev.cancel_reason',
    ])
    .orderBy('ev.starts_at', 'asc')
    .orderBy('r.id', 'asc')
    .limit(size + 1)
    .execute();
  const records = rows.map(
    (row): EventRegistrationRecord => ({
      id: row.id,
      eventId: row.event_id,
      title: row.title,
      description: row.description,
      startsAt: row.starts_at,
      endsAt: row.ends_at,
      timeZone: row.time_zone,
      location: row.location,
      joinUrl: row.cancelled_at === null ? row.join_url : null,
      registeredAt: row.registered_at,
      cancelledAt: row.cancelled_at,
      cancelReason: row.cancelled_at === null ? null : row.cancel_reason,
    }),
  );
  return toPage(LIST, records, size, (r) => ({ sort: r.startsAt, id: r.id }));
}

export async function countEventRegistrations(scope: MemberScope): Promise<number> {
  const row = await scope.db
    .selectFrom('event_registrations')
    .where('site_id', '=', scope.siteId)
    .where('person_id', '=', scope.personId)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
