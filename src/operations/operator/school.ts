// Operator operations of the school family (CONTRACT 6 school, scope school:*): the audit log of writes,
// sign-ins, consents and tokens at this site.
import { z } from 'zod';
import { countAudit, pageAudit } from '../../audit/audit-log.js';
import { instant, iso, pagedOutput, pageInput, pageRequest, paged } from '../lists.js';
import { defineOperation, type Operation, READ_ONLY } from '../operation.js';

export const listAuditEvents = defineOperation({
  name: 'list_audit_events',
  title: 'List audit events',
  description:
    'What happened at this school, newest first: operator API and MCP writes (operator.<operation>), sign-ins, consents, tokens issued ' +
    'and revoked. Filter by action (exact, or a prefix ending in "."), actor or app. Paged with a total and a nextCursor.',
  audience: 'operator',
  scopes: ['school:read'],
  rest: { method: 'GET', path: '/audit_events' },
  tool: false,
  input: z.object({
    ...pageInput,
    action: z.string().min(1).max(100).optional().describe('e.g. operator.publish_course, or operator. for every operator write.'),
    actorId: z.string().min(1).max(64).optional().describe('The person who acted (per_…).'),
    clientId: z.string().min(1).max(200).optional().describe('The app that acted.'),
  }),
  output: z.object(
    pagedOutput(
      z.object({
        id: z.string(),
        at: instant('When it happened'),
        action: z.string(),
        actorId: z.string().nullable().describe('The person who acted; null when nobody was signed in.'),
        clientId: z.string().nullable().describe('The app (OAuth client) that acted.'),
        target: z.string().nullable().describe('What a write acted on, as <type>:<id>.'),
        requestId: z.string().nullable().describe('The X-Request-Id of the request, to find its log lines.'),
        detail: z.record(z.string(), z.unknown()),
      }),
      'audit events',
    ),
  ),
  annotations: READ_ONLY,
  async handle(ctx, input) {
    const filter = { action: input.action, actorId: input.actorId, clientId: input.clientId };
    const [page, total] = await Promise.all([
      pageAudit(ctx.db, ctx.site.id, filter, pageRequest(input)),
      countAudit(ctx.db, ctx.site.id, filter),
    ]);
    return paged(page, total, (r) => ({
      id: String(r.id),
      at: iso(r.at),
      action: r.kind,
      actorId: r.personId,
      clientId: r.clientId,
      target: r.target,
      requestId: r.requestId,
      detail: r.detail,
    }));
  },
});

export const SCHOOL_OPERATIONS: readonly Operation[] = [listAuditEvents];
