// The per-site audit log (issue 2): who signed in, consented, got or lost tokens, and what was refused.
// Details are structured JSON and never contain a secret, a token or a password.
import { type CompiledQuery, type Kysely, sql } from 'kysely';
import type { Clock } from '../kernel/clock.js';
import { type Page, type PageRequest, pageQuery, toPage } from '../school/paging.js';
import { defineQuery } from '../storage/precompiled.js';
import type { Database } from '../storage/schema.js';

export type AuditKind =
  | 'sign_in.succeeded'
  | 'sign_in.failed'
  | 'sign_in.locked'
  | 'sign_out'
  | 'consent.granted'
  | 'consent.denied'
  | 'token.issued'
  | 'token.refreshed'
  | 'token.revoked'
  | 'refresh.reuse_detected'
  | 'code.replay_detected'
  | 'cimd.refused'
  | 'keys.rotated'
  | 'client.created'
  | 'client.updated'
  | 'client.secret_rotated'
  | 'client.deleted'
  /** Admin area (issue 11): an operator ended every grant of an app, or decided on a CIMD client. */
  | 'client.revoked'
  | 'client.reviewed'
  | 'client.blocked'
  | 'client.decision_cleared'
  /** A member withdrew an app on /account/apps. */
  | 'consent.withdrawn'
  | 'site.mcp_connections_changed'
  /** A write through the operator API or an operator MCP tool: `operator.<operation name>`. */
  | `operator.${string}`;

export interface AuditEvent {
  siteId: string;
  kind: AuditKind;
  personId?: string | null;
  clientId?: string | null;
  detail?: Record<string, string | number | boolean | null | string[]>;
  /** What was acted on, as `<type>:<id>`. */
  target?: string | null;
  /** The request's id, to find its log lines. */
  requestId?: string | null;
}

// Written on every token issuance, so compiled once.
const insertAuditEvent = defineQuery(['siteId', 'at', 'kind', 'personId', 'clientId', 'detail', 'target', 'requestId'], (db, p) =>
  db.insertInto('audit_events').values({
    site_id: p.siteId,
    at: p.at,
    kind: p.kind,
    person_id: p.personId,
    client_id: p.clientId,
    detail: p.detail,
    target: p.target,
    request_id: p.requestId,
  }),
);

function auditRow(event: AuditEvent, now: number) {
  return {
    siteId: event.siteId,
    at: now,
    kind: event.kind,
    personId: event.personId ?? null,
    clientId: event.clientId ?? null,
    detail: JSON.stringify(event.detail ?? {}),
    target: event.target ?? null,
    requestId: event.requestId ?? null,
  };
}

/** The audit event's INSERT, for a caller that runs its statements itself (storage/group-commit.ts). */
export function auditStatement(db: Kysely<Database>, event: AuditEvent, now: number): CompiledQuery {
  return insertAuditEvent.bind(db, auditRow(event, now));
}

export async function recordAudit(db: Kysely<Database>, event: AuditEvent, clock: Clock): Promise<void> {
  await insertAuditEvent.changed(db, auditRow(event, clock.now()));
}

export interface AuditEntry {
  id: number;
  at: number;
  kind: string;
  personId: string | null;
  clientId: string | null;
  detail: Record<string, unknown>;
}

/** The newest entries of a site first. */
export async function listAudit(db: Kysely<Database>, siteId: string, limit = 100): Promise<AuditEntry[]> {
  const rows = await db.selectFrom('audit_events').selectAll().where('site_id', '=', siteId).orderBy('id', 'desc').limit(limit).execute();
  return rows.map((r) => ({
    id: r.id,
    at: r.at,
    kind: r.kind,
    personId: r.person_id,
    clientId: r.client_id,
    detail: JSON.parse(r.detail) as Record<string, unknown>,
  }));
}

export interface AuditFilter {
  /** An exact kind (`operator.publish_course`) or a prefix ending in `.` (`operator.`). */
  action?: string;
  actorId?: string;
  clientId?: string;
}

export interface AuditRecord extends AuditEntry {
  target: string | null;
  requestId: string | null;
}

const AUDIT_LIST = 'audit_events';

function filtered(db: Kysely<Database>, siteId: string, filter: AuditFilter) {
  return db
    .selectFrom('audit_events')
    .where('site_id', '=', siteId)
    .$if(filter.action !== undefined, (qb) =>
      filter.action?.endsWith('.')
        ? // A prefix: its own % and _ are matched literally (escaped), then anything may follow.
          qb.where(sql<boolean>`kind like ${`${filter.action.replace(/[%_\\]/g, (c) => `\\${c}`)}%`} escape '\\'`)
        : qb.where('kind', '=', filter.action ?? ''),
    )
    .$if(filter.actorId !== undefined, (qb) => qb.where('person_id', '=', filter.actorId ?? ''))
    .$if(filter.clientId !== undefined, (qb) => qb.where('client_id', '=', filter.clientId ?? ''));
}

/** A site's audit events, newest first, a page at a time (keyset on the id). */
export async function pageAudit(
  db: Kysely<Database>,
  siteId: string,
  filter: AuditFilter,
  request: PageRequest,
): Promise<Page<AuditRecord>> {
  const { size, after } = pageQuery(AUDIT_LIST, request);
  const rows = await filtered(db, siteId, filter)
    .$if(after !== null, (qb) => qb.where('id', '<', after?.sort ?? 0))
    .selectAll()
    .orderBy('id', 'desc')
    .limit(size + 1)
    .execute();
  const records = rows.map(
    (r): AuditRecord => ({
      id: r.id,
      at: r.at,
      kind: r.kind,
      personId: r.person_id,
      clientId: r.client_id,
      detail: JSON.parse(r.detail) as Record<string, unknown>,
      target: r.target,
      requestId: r.request_id,
    }),
  );
  return toPage(AUDIT_LIST, records, size, (r) => ({ sort: r.id, id: String(r.id) }));
}

export async function countAudit(db: Kysely<Database>, siteId: string, filter: AuditFilter): Promise<number> {
  const row = await filtered(db, siteId, filter)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
