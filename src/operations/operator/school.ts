// Operator operations of the school family (CONTRACT 6 school, scope school:*): the audit log of writes,
// sign-ins, consents and tokens at this site.
import { z } from 'zod';
import { pageAuditWithTotal } from '../../audit/audit-log.js';
import { SITE_NAME_MAX_LENGTH } from '../../sites/site.js';
import { instant, iso, pagedOutput, pageInput, pageRequest, paged } from '../lists.js';
import { readSettings, writeSettings } from '../../school/settings.repository.js';
import { defineOperation, type Operation, type OperationContext, OperationError, READ_ONLY } from '../operation.js';
import { siteScope } from './site-scope.js';

const settings = z.object({
  name: z.string().describe('The school’s name, shown on its sign-in and consent pages.'),
  locale: z.string().describe('BCP 47 language tag, e.g. en-GB.'),
  timeZone: z.string().describe('IANA time zone; analytics days are this zone’s days.'),
  currency: z.string().describe('ISO 4217 code of the school’s prices.'),
  contactEmail: z.string().nullable(),
  updatedAt: z.string().nullable().meta({ format: 'date-time', description: 'When the settings last changed (ISO 8601, UTC).' }),
});

async function settingsOut(ctx: OperationContext) {
  const found = await readSettings(siteScope(ctx));
  if (!found) throw new OperationError('not_found', 'This school has no settings.');
  return { school: { ...found, updatedAt: found.updatedAt === null ? null : iso(found.updatedAt) } };
}

export function validTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function validLocale(tag: string): boolean {
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
}

export const getSchool: Operation = defineOperation({
  name: 'get_school_settings',
  title: 'Get the school’s settings',
  description: 'The school’s name, locale, time zone, currency and contact address.',
  audience: 'operator',
  scopes: ['school:read'],
  rest: { method: 'GET', path: '/school', resource: () => getSchool },
  tool: false,
  input: z.object({}),
  output: z.object({ school: settings }),
  annotations: READ_ONLY,
  userContent: ['school.name'],
  handle: (ctx) => settingsOut(ctx),
});

export const updateSchool = defineOperation({
  name: 'update_school_settings',
  title: 'Change the school’s settings',
  description: 'Changes the given settings and returns them as stored. A new name shows on the school’s pages within seconds.',
  audience: 'operator',
  scopes: ['school:write'],
  rest: { method: 'PATCH', path: '/school', resource: () => getSchool },
  tool: false,
  input: z.object({
    name: z.string().trim().min(1).max(SITE_NAME_MAX_LENGTH).optional(),
    locale: z.string().max(35).refine(validLocale, 'a BCP 47 language tag such as en-GB').optional(),
    timeZone: z.string().max(64).refine(validTimeZone, 'an IANA time zone such as Europe/Berlin').optional(),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/, 'an ISO 4217 code such as EUR')
      .optional(),
    contactEmail: z.email().max(320).nullable().optional(),
  }),
  output: z.object({ school: settings }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  userContent: ['school.name'],
  audit: () => 'school:settings',
  async handle(ctx, input) {
    await writeSettings(siteScope(ctx), input, ctx.clock.now());
    return settingsOut(ctx);
  },
});

export const listAuditEvents = defineOperation({
  name: 'list_audit_events',
  title: 'List audit events',
  description:
    'What happened at this school, newest first: operator API and MCP writes (operator.<operation>), sign-ins, consents, tokens issued ' +
    'and revoked. Filter by action (exact, or a prefix ending in "."), actor or app. Paged with a total and a nextCursor. ' +
    "Tokens issued and refreshed (token.issued, token.refreshed) are kept for the deployment's token event retention (90 days " +
    'unless configured otherwise); every other event is kept for good.',
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
    const { page, total } = await pageAuditWithTotal(ctx.db, ctx.site.id, filter, pageRequest(input));
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

export const SCHOOL_OPERATIONS: readonly Operation[] = [getSchool, updateSchool, listAuditEvents];
