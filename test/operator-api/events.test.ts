// CONTRACT 6 events (issue 10): create (a draft), read with an ETag, edit with If-Match, publish into the
// public listing, cancel (registrations kept, registered people told in their inbox on variant A, gone
// from every listing), and an event's registrations paged. Scope, role and site checks, bad input,
// idempotent replay, audit entries; the MCP tools create_event and list_event_registrations. Over real
// HTTP with real operator tokens, on SQLite and PostgreSQL.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { connectMcp, demoSiteIds, personId, structured } from '../helpers/mcp.js';
import { ALL_REST_SCOPES, call, expectProblem, VENDOR } from '../helpers/operator-api.js';
import { person } from '../helpers/person.js';
import { DEMO_CLIENTS, getTokens } from '../helpers/token-flow.js';
import { graphql, nodesOf, viewerOf } from '../member-api-http/graphql-http.js';

interface Event {
  id: string;
  slug: string;
  title: string;
  startsAt: string;
  endsAt: string;
  timeZone: string;
  location: string | null;
  joinUrl: string | null;
  isPublic: boolean;
  published: boolean;
  state: 'draft' | 'published' | 'cancelled';
  cancelledAt: string | null;
  cancelReason: string | null;
  registrationCount: number;
  updatedAt: string | null;
}

const DAY = 86_400_000;
const future = (days: number, hours = 0) => new Date(Date.now() + days * DAY + hours * 3_600_000).toISOString();

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`operator API: events (${dialect})`, () => {
    let server: DemoServer;
    let operator: string;
    let reader: string;
    let studioOperator: string;
    let academyId: string;

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      operator = (await getTokens(server, VENDOR('academy'), { scope: ALL_REST_SCOPES, who: person('owner') })).access_token;
      reader = (await getTokens(server, VENDOR('academy'), { scope: 'events:read', who: person('owner') })).access_token;
      studioOperator = (await getTokens(server, VENDOR('studio'), { scope: ALL_REST_SCOPES, who: person('owner') })).access_token;
      academyId = (await demoSiteIds(server)).academy;
    });
    afterAll(() => server?.close());

    const create = async (title: string, extra: Record<string, unknown> = {}) => {
      const answer = await call(server.academy, 'POST', '/events', operator, {
        title,
        startsAt: future(10),
        endsAt: future(10, 2),
        ...extra,
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      return answer.body.event as Event;
    };

    /** People registered the way the member side records them (there is no registration operation to call). */
    const register = async (eventId: string, emails: string[]) => {
      for (const [i, email] of emails.entries())
        await server.store.db
          .insertInto('event_registrations')
          .values({
            id: `reg_${randomUUID()}`,
            site_id: academyId,
            person_id: await personId(server, email),
            event_id: eventId,
            registered_at: Date.now() + i,
          })
          .execute();
    };

    const publicEvents = async () => {
      const mcp = await connectMcp(server.academy);
      try {
        return structured<{ items: Array<{ id: string }> }>(
          await mcp.callTool({ name: 'list_upcoming_events', arguments: { limit: 100 } }),
        ).items.map((e) => e.id);
      } finally {
        await mcp.close();
      }
    };

    it('creates an event as a draft in the school’s time zone with a slug from its title, listed for operators and not publicly', async () => {
      const event = await create('Live Q&A: Kysely', { location: 'Berlin, Room 4', joinUrl: 'https://meet.example.com/kysely' });
      expect(event).toMatchObject({
        slug: 'live-q-a-kysely',
        state: 'draft',
        published: false,
        isPublic: true,
        timeZone: 'Europe/Berlin',
        location: 'Berlin, Room 4',
        joinUrl: 'https://meet.example.com/kysely',
        registrationCount: 0,
        cancelledAt: null,
        updatedAt: null,
      });
      const listed = await call(server.academy, 'GET', '/events?limit=100', reader);
      expect((listed.body.items as Event[]).map((e) => e.id)).toContain(event.id);
      expect(await publicEvents()).not.toContain(event.id);
    });

    it('publishes with PATCH under If-Match into the public listing; a stale If-Match is 412 and changes nothing', async () => {
      const event = await create('Office hours');
      const read = await call(server.academy, 'GET', `/events/${event.id}`, reader);
      const tag = read.headers.get('etag') ?? '';
      expect(tag).toMatch(/^"/);
      const published = await call(server.academy, 'PATCH', `/events/${event.id}`, operator, { published: true }, { 'if-match': tag });
      expect(published.status).toBe(200);
      expect(published.body.event).toMatchObject({ state: 'published', published: true });
      expect((published.body.event as Event).updatedAt).not.toBeNull();
      expect(await publicEvents()).toContain(event.id);
      expectProblem(
        await call(server.academy, 'PATCH', `/events/${event.id}`, operator, { title: 'Renamed' }, { 'if-match': tag }),
        412,
        'precondition_failed',
      );
      expect(((await call(server.academy, 'GET', `/events/${event.id}`, reader)).body.event as Event).title).toBe('Office hours');
    });

    it('cancels an event: registrations kept, each registered person told in their inbox, gone from the public listing, no further change', async () => {
      const event = await create('Workshop: SQL joins');
      await call(server.academy, 'PATCH', `/events/${event.id}`, operator, { published: true });
      await register(event.id, ['student@demo.test', 'lecturer@demo.test']);
      const cancelled = await call(server.academy, 'POST', `/events/${event.id}/cancel`, operator, { reason: 'The speaker is ill.' });
      expect(cancelled.status).toBe(200);
      expect(cancelled.body).toMatchObject({
        notified: 2,
        event: { state: 'cancelled', cancelReason: 'The speaker is ill.', registrationCount: 2 },
      });
      expect(await publicEvents()).not.toContain(event.id);

      const student = await personId(server, 'student@demo.test');
      const inbox = await server.store.db
        .selectFrom('notifications')
        .select(['title', 'body', 'link'])
        .where('site_id', '=', academyId)
        .where('person_id', '=', student)
        .where('title', 'like', 'Cancelled:%')
        .execute();
      expect(inbox).toEqual([
        {
          title: 'Cancelled: Workshop: SQL joins',
          body: '“Workshop: SQL joins” will not take place. The speaker is ill.',
          link: `/events/${event.slug}`,
        },
      ]);

      const registrations = await call(server.academy, 'GET', `/events/${event.id}/registrations`, reader);
      expect(registrations.body.total).toBe(2);
      expectProblem(await call(server.academy, 'POST', `/events/${event.id}/cancel`, operator, {}), 409, 'conflict');
      expectProblem(await call(server.academy, 'PATCH', `/events/${event.id}`, operator, { title: 'Back on' }), 409, 'conflict');
    });

    it('a cancelled event stays in the registered member’s own list (GraphQL and MCP) marked cancelled, with the reason and without its join link', async () => {
      const event = await create('Live session: indexes', { joinUrl: 'https://meet.example.com/indexes' });
      await call(server.academy, 'PATCH', `/events/${event.id}`, operator, { published: true });
      await register(event.id, ['student@demo.test']);
      const member = (await getTokens(server, DEMO_CLIENTS.academyApp, { scope: 'openid account:read', who: person('student') }))
        .access_token;
      const query = '{ viewer { eventRegistrations(first: 100) { nodes { eventId joinUrl cancelledAt cancelReason } } } }';
      const registration = async () => {
        const answer = viewerOf(await graphql(server, 'academy', member, query));
        return nodesOf(answer.eventRegistrations).find((n) => n.eventId === event.id);
      };
      const myRegistration = async () => {
        const mcp = await connectMcp(server.academy, member);
        try {
          const listed = structured<{ items: Array<Record<string, unknown>> }>(
            await mcp.callTool({ name: 'list_my_event_registrations', arguments: { limit: 100 } }),
          );
          return listed.items.find((r) => r.eventId === event.id);
        } finally {
          await mcp.close();
        }
      };
      const taking = { eventId: event.id, joinUrl: 'https://meet.example.com/indexes', cancelledAt: null, cancelReason: null };
      expect(await registration()).toEqual(taking);
      expect(await myRegistration()).toMatchObject(taking);

      const cancelled = await call(server.academy, 'POST', `/events/${event.id}/cancel`, operator, { reason: 'The room flooded.' });
      expect(cancelled.status).toBe(200);
      const cancelledAt = (cancelled.body.event as Event).cancelledAt;
      expect(cancelledAt).toMatch(/^\d{4}-\d\d-\d\dT/);
      const gone = { eventId: event.id, joinUrl: null, cancelledAt, cancelReason: 'The room flooded.' };
      expect(await registration()).toEqual(gone);
      expect(await myRegistration()).toMatchObject(gone);
    });

    it('pages an event’s registrations earliest first with a total, and refuses a cursor of another event', async () => {
      const event = await create('Meetup');
      const other = await create('Other meetup');
      await register(event.id, ['student@demo.test', 'lecturer@demo.test', 'owner@demo.test']);
      await register(other.id, ['student@demo.test']);
      const first = await call(server.academy, 'GET', `/events/${event.id}/registrations?limit=2`, reader);
      expect(first.body).toMatchObject({ eventId: event.id, total: 3 });
      expect((first.body.items as Array<{ email: string }>).map((r) => r.email)).toEqual(['student@demo.test', 'lecturer@demo.test']);
      const cursor = first.body.nextCursor as string;
      const second = await call(server.academy, 'GET', `/events/${event.id}/registrations?limit=2&cursor=${cursor}`, reader);
      expect((second.body.items as Array<{ email: string }>).map((r) => r.email)).toEqual(['owner@demo.test']);
      expect(second.body.nextCursor).toBeNull();
      expectProblem(
        await call(server.academy, 'GET', `/events/${other.id}/registrations?cursor=${cursor}`, reader),
        400,
        'invalid_argument',
      );
    });

    it('refuses bad input with 400 naming the field: an end before the start, an unknown time zone, a non-https join link, unknown fields', async () => {
      for (const [body, pointer] of [
        [{ title: 'Backwards', startsAt: future(5), endsAt: future(4) }, '/endsAt'],
        [{ title: 'Zone', startsAt: future(5), endsAt: future(6), timeZone: 'Mars/Olympus' }, '/timeZone'],
        [{ title: 'Link', startsAt: future(5), endsAt: future(6), joinUrl: 'http://meet.example.com/x' }, '/joinUrl'],
        [{ title: 'When', startsAt: 'tomorrow', endsAt: future(6) }, '/startsAt'],
        [{ title: 'Extra', startsAt: future(5), endsAt: future(6), capacity: 10 }, '/capacity'],
      ] as const) {
        const answer = await call(server.academy, 'POST', '/events', operator, body);
        expectProblem(answer, 400, 'invalid_argument');
        expect(
          (answer.body.errors as Array<{ pointer: string }>).map((e) => e.pointer),
          JSON.stringify(body),
        ).toContain(pointer);
      }
      const event = await create('Twice');
      expectProblem(
        await call(server.academy, 'POST', '/events', operator, { title: 'Twice', startsAt: future(5), endsAt: future(6) }),
        409,
        'conflict',
      );
      expectProblem(await call(server.academy, 'PATCH', `/events/${event.id}`, operator, { endsAt: future(1) }), 400, 'invalid_argument');
    });

    it('answers an id of another site, or of nothing, with the same 404; writes need events:write; member tokens are refused', async () => {
      const event = await create('Academy only');
      for (const path of [`/events/${event.id}`, `/events/${event.id}/registrations`]) {
        expectProblem(await call(server.studio, 'GET', path, studioOperator), 404, 'not_found');
        expectProblem(await call(server.academy, 'GET', path.replace(event.id, 'evt_nothing'), operator), 404, 'not_found');
      }
      expectProblem(await call(server.studio, 'POST', `/events/${event.id}/cancel`, studioOperator, {}), 404, 'not_found');
      const denied = await call(server.academy, 'POST', '/events', reader, { title: 'No scope', startsAt: future(5), endsAt: future(6) });
      expect(denied.status).toBe(403);
      expect(denied.headers.get('www-authenticate')).toContain('scope="events:write"');
    });

    it('replays a POST with the same Idempotency-Key (one event), refuses the key with another body (422), and audits each write', async () => {
      const key = randomUUID();
      const body = { title: 'Idempotent evening', startsAt: future(20), endsAt: future(20, 3) };
      const first = await call(server.academy, 'POST', '/events', operator, body, { 'idempotency-key': key });
      const again = await call(server.academy, 'POST', '/events', operator, body, { 'idempotency-key': key });
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      const id = (first.body.event as Event).id;
      expect((again.body.event as Event).id).toBe(id);
      expectProblem(
        await call(server.academy, 'POST', '/events', operator, { ...body, title: 'Another' }, { 'idempotency-key': key }),
        422,
        'idempotency_key_reused',
      );
      await call(server.academy, 'POST', `/events/${id}/cancel`, operator, {});
      const log = await call(server.academy, 'GET', '/audit_events?limit=100', operator);
      const entries = (log.body.items as Array<{ action: string; target: string | null }>).filter((e) => e.target === `event:${id}`);
      expect(entries.map((e) => e.action).sort()).toEqual(['operator.cancel_event', 'operator.create_event']);
    });

    it('offers create_event and list_event_registrations as MCP tools that act on the same records', async () => {
      const mcp = await connectMcp(server.academy, operator);
      try {
        const created = structured<{ event: Event }>(
          await mcp.callTool({
            name: 'create_event',
            arguments: { title: 'Tool-made event', startsAt: future(30), endsAt: future(30, 1) },
          }),
        );
        expect(created.event.state).toBe('draft');
        await register(created.event.id, ['student@demo.test']);
        const roster = structured<{ total: number; items: Array<{ email: string }> }>(
          await mcp.callTool({ name: 'list_event_registrations', arguments: { id: created.event.id } }),
        );
        expect(roster).toMatchObject({ total: 1, items: [{ email: 'student@demo.test' }] });
        const rest = await call(server.academy, 'GET', `/events/${created.event.id}`, reader);
        expect((rest.body.event as Event).registrationCount).toBe(1);
      } finally {
        await mcp.close();
      }
    });
  });
}
