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

/**
 * Every kind the site's log holds, in one recursive statement that probes the `(site_id, kind, id)` index
 * once per distinct kind (a skip scan): a few dozen probes however long the log. An action prefix is
 * matched against these in code, since `LIKE` is served by that index neither on SQLite (case-insensitive)
 * nor on PostgreSQL (under a non-C collation), and scanned the whole log instead (282 ms at a million
 * events on SQLite, bench/RESULTS.md).
 */
async function kindsOf(db: Kysely<Database>, siteId: string): Promise<string[]> {
  const { rows } = await sql<{ kind: string | null }>`with recursive k(kind) as (
      select min(kind) from audit_events where site_id = ${siteId}
      union all
      select (select min(kind) from audit_events where site_id = ${siteId} and kind > k.kind) from k where k.kind is not null
    ) select kind from k where kind is not null`.execute(db);
  return rows.map((row) => row.kind as string);
}

/** The kinds an action filter stands for: one kind, those starting with a prefix ending in `.`, or any. */
async function kindsMatching(db: Kysely<Database>, siteId: string, action: string | undefined): Promise<string[] | undefined> {
  if (action === undefined) return undefined;
  if (!action.endsWith('.')) return [action];
  return (await kindsOf(db, siteId)).filter((kind) => kind.startsWith(action));
}

function filtered(db: Kysely<Database>, siteId: string, filter: AuditFilter, kinds: readonly string[] | undefined) {
  return db
    .selectFrom('audit_events')
    .where('site_id', '=', siteId)
    .$if(kinds !== undefined, (qb) => qb.where('kind', 'in', kinds ?? []))
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
  return pageOf(db, siteId, filter, await kindsMatching(db, siteId, filter.action), request);
}

/** How many of a site's audit events match `filter`. */
export async function countAudit(db: Kysely<Database>, siteId: string, filter: AuditFilter): Promise<number> {
  return countOf(db, siteId, filter, await kindsMatching(db, siteId, filter.action));
}

/** A page and the total of the same filter (GET /audit_events), the action's kinds read once for both. */
export async function pageAuditWithTotal(
  db: Kysely<Database>,
  siteId: string,
  filter: AuditFilter,
  request: PageRequest,
): Promise<{ page: Page<AuditRecord>; total: number }> {
  const kinds = await kindsMatching(db, siteId, filter.action);
  const [page, total] = await Promise.all([pageOf(db, siteId, filter, kinds, request), countOf(db, siteId, filter, kinds)]);
  return { page, total };
}

async function pageOf(
  db: Kysely<Database>,
  siteId: string,
  filter: AuditFilter,
  kinds: readonly string[] | undefined,
  request: PageRequest,
): Promise<Page<AuditRecord>> {
  const { size, after } = pageQuery(AUDIT_LIST, request);
  const newest = (only: readonly string[] | undefined) =>
    filtered(db, siteId, filter, only)
      .$if(after !== null, (qb) => qb.where('id', '<', after?.sort ?? 0))
      .selectAll()
      .orderBy('id', 'desc')
      .limit(size + 1)
      .execute();
  // Several kinds: each kind's newest page from its own stretch of the (site_id, kind, id) index, merged
  // here; one statement over all of them would read and sort every event of those kinds.
  const rows =
    kinds === undefined || kinds.length === 1
      ? await newest(kinds)
      : (await Promise.all(kinds.map((kind) => newest([kind]))))
          .flat()
          .sort((a, b) => b.id - a.id)
          .slice(0, size + 1);
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

/**
 * The site's events of some kinds (or of every kind) from the counts the log's triggers keep: per site and
 * kind (migration 019), and per site, app and kind for an app filter (migration 022), a few rows however
 * long the log. An actor filter counts that actor's events through its own index instead (a person's
 * events are bounded by the routine token events' retention; an app's are not).
 */
async function countOf(db: Kysely<Database>, siteId: string, filter: AuditFilter, kinds: readonly string[] | undefined): Promise<number> {
  if (kinds !== undefined && kinds.length === 0) return 0;
  const row =
    filter.actorId !== undefined
      ? await filtered(db, siteId, filter, kinds)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      : filter.clientId !== undefined
        ? await db
            .selectFrom('audit_event_app_counts')
            .where('site_id', '=', siteId)
            .where('client_id', '=', filter.clientId)
            .$if(kinds !== undefined, (qb) => qb.where('kind', 'in', kinds ?? []))
            .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('n'), eb.lit(0)).as('n'))
            .executeTakeFirstOrThrow()
        : await db
            .selectFrom('audit_event_counts')
            .where('site_id', '=', siteId)
            .$if(kinds !== undefined, (qb) => qb.where('kind', 'in', kinds ?? []))
            .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('n'), eb.lit(0)).as('n'))
            .executeTakeFirstOrThrow();
  return Number(row.n);
}
