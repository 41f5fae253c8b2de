// Operator operations of the events family (CONTRACT 6 events, scope events:*).
import { z } from 'zod';
import { countAllEvents, listAllEvents } from '../../school/operator-catalogue.repository.js';
import { instant, iso, pagedOutput, pageInput, pageRequest, paged } from '../lists.js';
import { defineOperation, READ_ONLY } from '../operation.js';
import { siteScope } from './site-scope.js';

export const listEvents = defineOperation({
  name: 'list_events',
  title: 'List all events',
  description:
    'Every event of this school, past and future, published or not, public or members-only, latest start first, with registration counts. ' +
    'Paged with a total and a nextCursor.',
  audience: 'operator',
  scopes: ['events:read'],
  rest: { method: 'GET', path: '/events' },
  input: z.object({ ...pageInput }),
  output: z.object(
    pagedOutput(
      z.object({
        id: z.string(),
        slug: z.string(),
        title: z.string(),
        description: z.string(),
        startsAt: instant('When the event starts'),
        endsAt: instant('When the event ends'),
        timeZone: z.string(),
        location: z.string().nullable(),
        joinUrl: z.string().nullable(),
        isPublic: z.boolean(),
        published: z.boolean(),
        registrationCount: z.number().int(),
      }),
      'events',
    ),
  ),
  annotations: READ_ONLY,
  userContent: ['items[].title', 'items[].description', 'items[].location'],
  async handle(ctx, input) {
    const scope = siteScope(ctx);
    const [page, total] = await Promise.all([listAllEvents(scope, pageRequest(input)), countAllEvents(scope)]);
    return paged(page, total, (e) => ({
      id: e.id,
      slug: e.slug,
      title: e.title,
      description: e.description,
      startsAt: iso(e.startsAt),
      endsAt: iso(e.endsAt),
      timeZone: e.timeZone,
      location: e.location,
      joinUrl: e.joinUrl,
      isPublic: e.isPublic,
      published: e.published,
      registrationCount: e.registrationCount,
    }));
  },
});
