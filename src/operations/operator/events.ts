// Operator operations of the events family (CONTRACT 6 events, scope events:*): list, read, create (a
// draft), edit, cancel, and an event's registrations. Every write answers the event as stored, which is
// also its GET representation, so the ETag of a write's answer is the one a later GET gives.
import { z } from 'zod';
import {
  cancelEvent,
  countAllEvents,
  countRegistrationsOfEvent,
  createEvent,
  type EventFields,
  type EventWriteResult,
  findEventById,
  listAllEvents,
  listRegistrationsOfEvent,
  type OperatorEvent,
  updateEvent,
} from '../../school/operator-events.repository.js';
import { siteTimeZone } from '../../school/rollups.js';
import { variantCapabilities } from '../../sites/site.js';
import { instant, instantOrNull, iso, isoOrNull, pagedOutput, pageInput, pageRequest, paged } from '../lists.js';
import { defineOperation, type Operation, type OperationContext, OperationError, READ_ONLY } from '../operation.js';
import { SLUG, slugField, slugFromTitle } from './courses.js';
import { validTimeZone } from './school.js';
import { siteScope } from './site-scope.js';

export const operatorEvent = z.object({
  id: z.string(),
  slug: z.string(),
  title: z.string(),
  description: z.string(),
  startsAt: instant('When the event starts'),
  endsAt: instant('When the event ends'),
  timeZone: z.string().describe('The IANA time zone the event is announced in.'),
  location: z.string().nullable().describe('A physical place; null for online-only events.'),
  joinUrl: z.string().nullable().describe('The link registered people join with; never shown in public listings.'),
  isPublic: z.boolean().describe('Listed publicly; false: for members only.'),
  published: z.boolean(),
  state: z.enum(['draft', 'published', 'cancelled']).describe('draft: not listed; cancelled: kept as a record, listed nowhere.'),
  cancelledAt: instantOrNull('When the event was cancelled; null unless cancelled'),
  cancelReason: z.string().nullable(),
  registrationCount: z.number().int(),
  createdAt: instant('When the event was created'),
  updatedAt: instantOrNull('When an operator last changed the event; null when never'),
});

function eventOut(event: OperatorEvent): z.output<typeof operatorEvent> {
  return {
    id: event.id,
    slug: event.slug,
    title: event.title,
    description: event.description,
    startsAt: iso(event.startsAt),
    endsAt: iso(event.endsAt),
    timeZone: event.timeZone,
    location: event.location,
    joinUrl: event.joinUrl,
    isPublic: event.isPublic,
    published: event.published,
    state: event.cancelledAt !== null ? 'cancelled' : event.published ? 'published' : 'draft',
    cancelledAt: isoOrNull(event.cancelledAt),
    cancelReason: event.cancelReason,
    registrationCount: event.registrationCount,
    createdAt: iso(event.createdAt),
    updatedAt: isoOrNull(event.updatedAt),
  };
}

const EVENT_TEXT = ['event.title', 'event.description', 'event.location', 'event.cancelReason'];
const eventId = z.string().min(1).max(64).describe('The event id (evt_…).');
const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;
const at = (what: string) => z.iso.datetime({ offset: true }).describe(`${what} (ISO 8601 with an offset or Z).`);
const timeZoneField = z.string().max(64).refine(validTimeZone, 'an IANA time zone such as Europe/Berlin');
const joinUrlField = z
  .url({ protocol: /^https$/, hostname: z.regexes.domain })
  .max(2000)
  .describe('An https link to join online (shown only to registered people).');

async function eventOr404(ctx: OperationContext, id: string): Promise<OperatorEvent> {
  const event = await findEventById(siteScope(ctx), id);
  if (!event) throw new OperationError('not_found', `This school has no event with the id ${id}.`);
  return event;
}

/** The one reading of a repository write's outcome for every event write. */
function written(result: EventWriteResult, id: string, slug?: string): { event: z.output<typeof operatorEvent> } {
  switch (result.kind) {
    case 'done':
      return { event: eventOut(result.event) };
    case 'not_found':
      throw new OperationError('not_found', `This school has no event with the id ${id}.`);
    case 'slug_taken':
      throw new OperationError('conflict', `Another event of this school has the slug "${slug}". Pass another slug.`, [
        { pointer: '/slug', detail: 'already used by another event' },
      ]);
    case 'cancelled':
      throw new OperationError('conflict', `The event ${id} is cancelled; a cancelled event is a record and does not change.`);
  }
}

function checkTimes(startsAt: number, endsAt: number): void {
  if (endsAt <= startsAt)
    throw new OperationError('invalid_argument', 'An event must end after it starts.', [
      { pointer: '/endsAt', detail: 'must be after startsAt' },
    ]);
}

export const listEvents = defineOperation({
  name: 'list_events',
  title: 'List all events',
  description:
    'Every event of this school, past and future, drafts, published and cancelled, public or members-only, latest start first, with ' +
    'registration counts. Paged with a total and a nextCursor.',
  audience: 'operator',
  scopes: ['events:read'],
  rest: { method: 'GET', path: '/events' },
  input: z.object({ ...pageInput }),
  output: z.object(pagedOutput(operatorEvent, 'events')),
  annotations: READ_ONLY,
  userContent: ['items[].title', 'items[].description', 'items[].location', 'items[].cancelReason'],
  async handle(ctx, input) {
    const scope = siteScope(ctx);
    const [page, total] = await Promise.all([listAllEvents(scope, pageRequest(input)), countAllEvents(scope)]);
    return paged(page, total, eventOut);
  },
});

export const getEvent: Operation = defineOperation({
  name: 'get_event',
  title: 'Get an event',
  description: 'One event of this school by id, in any state, with its registration count.',
  audience: 'operator',
  scopes: ['events:read'],
  rest: { method: 'GET', path: '/events/{id}', resource: () => getEvent },
  tool: false,
  input: z.object({ id: eventId }),
  output: z.object({ event: operatorEvent }),
  annotations: READ_ONLY,
  userContent: EVENT_TEXT,
  async handle(ctx, input) {
    return { event: eventOut(await eventOr404(ctx, input.id)) };
  },
});

export const createEventOperation = defineOperation({
  name: 'create_event',
  title: 'Create an event',
  description:
    'Creates an event as a draft (not listed until an operator publishes it) and returns it as stored. Times are instants; timeZone is ' +
    'the zone it is announced in (the school’s when omitted). The slug is made from the title unless you pass one.',
  audience: 'operator',
  scopes: ['events:write'],
  rest: { method: 'POST', path: '/events', status: 201 },
  input: z.object({
    title: z.string().trim().min(1).max(200).describe('Event title.'),
    slug: slugField.optional().describe('URL name of the event, unique in this school; made from the title when omitted.'),
    description: z.string().max(10_000).optional().describe('What the event is about.'),
    startsAt: at('When it starts'),
    endsAt: at('When it ends, after startsAt'),
    timeZone: timeZoneField.optional().describe('IANA zone it is announced in; the school’s when omitted.'),
    location: z.string().trim().min(1).max(300).optional().describe('A physical place, for in-person events.'),
    joinUrl: joinUrlField.optional(),
    isPublic: z.boolean().optional().describe('Listed publicly (true, the default) or for members only (false).'),
  }),
  output: z.object({ event: operatorEvent }),
  annotations: WRITE,
  userContent: EVENT_TEXT,
  audit: (_input, output) => `event:${output.event.id}`,
  async handle(ctx, input) {
    const scope = siteScope(ctx);
    const slug = input.slug ?? slugFromTitle(input.title);
    if (!SLUG.test(slug)) {
      throw new OperationError('invalid_argument', 'No slug can be made from this title: pass a slug such as "live-qa".', [
        { pointer: '/slug', detail: 'required when the title has no letters or digits' },
      ]);
    }
    const startsAt = Date.parse(input.startsAt);
    const endsAt = Date.parse(input.endsAt);
    checkTimes(startsAt, endsAt);
    const fields: EventFields = {
      slug,
      title: input.title,
      description: input.description ?? '',
      startsAt,
      endsAt,
      timeZone: input.timeZone ?? (await siteTimeZone(ctx.db, ctx.site.id)),
      location: input.location ?? null,
      joinUrl: input.joinUrl ?? null,
      isPublic: input.isPublic ?? true,
      published: false,
    };
    return written(await createEvent(scope, fields, ctx.clock.now()), '', slug);
  },
});

export const updateEventOperation = defineOperation({
  name: 'update_event',
  title: 'Edit an event',
  description:
    'Changes the given fields of an event (the others stay), publishing or unpublishing it with `published`, and returns it as stored. ' +
    'A cancelled event does not change.',
  audience: 'operator',
  scopes: ['events:write'],
  rest: { method: 'PATCH', path: '/events/{id}', resource: () => getEvent },
  tool: false,
  input: z.object({
    id: eventId,
    title: z.string().trim().min(1).max(200).optional(),
    slug: slugField.optional(),
    description: z.string().max(10_000).optional(),
    startsAt: at('When it starts').optional(),
    endsAt: at('When it ends').optional(),
    timeZone: timeZoneField.optional(),
    location: z.string().trim().max(300).nullable().optional().describe('null or "" removes it.'),
    joinUrl: joinUrlField.nullable().optional().describe('null removes it.'),
    isPublic: z.boolean().optional(),
    published: z.boolean().optional().describe('true lists the event (publicly or for members); false makes it a draft.'),
  }),
  output: z.object({ event: operatorEvent }),
  annotations: { ...WRITE, idempotentHint: true },
  userContent: EVENT_TEXT,
  audit: (input) => `event:${input.id}`,
  async handle(ctx, input) {
    const { id, startsAt, endsAt, location, ...rest } = input;
    const current = await eventOr404(ctx, id);
    const starts = startsAt !== undefined ? Date.parse(startsAt) : current.startsAt;
    const ends = endsAt !== undefined ? Date.parse(endsAt) : current.endsAt;
    checkTimes(starts, ends);
    const changes: Partial<EventFields> = {
      ...rest,
      ...(startsAt !== undefined ? { startsAt: starts } : {}),
      ...(endsAt !== undefined ? { endsAt: ends } : {}),
      ...(location !== undefined ? { location: location === null || location === '' ? null : location } : {}),
    };
    return written(await updateEvent(siteScope(ctx), id, changes, ctx.clock.now()), id, input.slug);
  },
});

export const cancelEventOperation = defineOperation({
  name: 'cancel_event',
  title: 'Cancel an event',
  description:
    'Cancels an event: it leaves every listing, its registrations are kept, and on schools with a notification inbox each registered ' +
    'person is told, with the reason when given. A cancelled event cannot be cancelled again or edited.',
  audience: 'operator',
  scopes: ['events:write'],
  rest: { method: 'POST', path: '/events/{id}/cancel', resource: () => getEvent },
  tool: false,
  input: z.object({
    id: eventId,
    reason: z.string().trim().min(1).max(500).optional().describe('Told to registered people with the cancellation.'),
  }),
  output: z.object({ event: operatorEvent, notified: z.number().int().describe('How many registered people were notified.') }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  userContent: EVENT_TEXT,
  audit: (input) => `event:${input.id}`,
  async handle(ctx, input) {
    const notify = variantCapabilities(ctx.site.variant).inbox;
    const result = await cancelEvent(siteScope(ctx), input.id, input.reason ?? null, notify, ctx.clock.now());
    return { ...written(result, input.id), notified: result.notified ?? 0 };
  },
});

export const listEventRegistrations = defineOperation({
  name: 'list_event_registrations',
  title: 'List an event’s registrations',
  description: 'Who registered for one event, earliest first, with name and email. Paged with a total and a nextCursor.',
  audience: 'operator',
  scopes: ['events:read'],
  rest: { method: 'GET', path: '/events/{id}/registrations' },
  input: z.object({ id: eventId, ...pageInput }),
  output: z.object({
    eventId: z.string(),
    ...pagedOutput(
      z.object({
        id: z.string(),
        personId: z.string(),
        name: z.string(),
        email: z.string(),
        registeredAt: instant('When the person registered'),
      }),
      'registrations',
    ),
  }),
  annotations: READ_ONLY,
  userContent: ['items[].name'],
  async handle(ctx, input) {
    const scope = siteScope(ctx);
    await eventOr404(ctx, input.id);
    const [page, total] = await Promise.all([
      listRegistrationsOfEvent(scope, input.id, pageRequest(input)),
      countRegistrationsOfEvent(scope, input.id),
    ]);
    return {
      eventId: input.id,
      ...paged(page, total, (r) => ({ id: r.id, personId: r.personId, name: r.name, email: r.email, registeredAt: iso(r.registeredAt) })),
    };
  },
});

export const EVENT_OPERATIONS: readonly Operation[] = [
  listEvents,
  getEvent,
  createEventOperation,
  updateEventOperation,
  cancelEventOperation,
  listEventRegistrations,
];
