// The per-site audit log (issue 2): who signed in, consented, got or lost tokens, and what was refused.
// Details are structured JSON and never contain a secret, a token or a password.
import type { Kysely } from 'kysely';
import type { Clock } from '../kernel/clock.js';
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
  | 'client.created';

export interface AuditEvent {
  siteId: string;
  kind: AuditKind;
  personId?: string | null;
  clientId?: string | null;
  detail?: Record<string, string | number | boolean | null | string[]>;
}

// Written on every token issuance, so compiled once.
const insertAuditEvent = defineQuery(['siteId', 'at', 'kind', 'personId', 'clientId', 'detail'], (db, p) =>
  db
    .insertInto('audit_events')
    .values({ site_id: p.siteId, at: p.at, kind: p.kind, person_id: p.personId, client_id: p.clientId, detail: p.detail }),
);

export async function recordAudit(db: Kysely<Database>, event: AuditEvent, clock: Clock): Promise<void> {
  await insertAuditEvent.changed(db, {
    siteId: event.siteId,
    at: clock.now(),
    kind: event.kind,
    personId: event.personId ?? null,
    clientId: event.clientId ?? null,
    detail: JSON.stringify(event.detail ?? {}),
  });
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
