// Idempotency-Key for the operator API's POSTs (CONTRACT 6; draft-ietf-httpapi-idempotency-key-header):
// the same key and request within 24 hours replays the first answer, the same key with another request
// is refused, and a request still running under the key is a conflict. Keys are per client and site.
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

/** How long an answer is kept for replay. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** Printable ASCII, 1 to 255 characters: enough for a UUID or a client's own scheme. */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

export interface IdempotencyScope {
  siteId: string;
  clientId: string;
  key: string;
}

/** The request a key was first used with: method, path and body (JSON keys in a fixed order). */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${path}\n${canonicalJson(body ?? null)}`)
    .digest('base64url');
}

/** JSON with object keys sorted, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are one request. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The row of a key: its primary key columns. */
function keyColumns(scope: IdempotencyScope) {
  return { site_id: scope.siteId, client_id: scope.clientId, idempotency_key: scope.key };
}

export type Claim =
  /** The key is new: run the request, then complete() or release(). */
  | { kind: 'claimed' }
  /** The same request finished before: answer this again. */
  | { kind: 'replay'; status: number; body: string }
  /** The key was used with another request. */
  | { kind: 'mismatch' }
  /** The first request under this key is still running. */
  | { kind: 'in_progress' };

/** A claim whose request never finished (its node died mid-request) is given up after this long. */
const ABANDONED_MS = 60_000;

export async function claimKey(
  db: Kysely<Database>,
  scope: IdempotencyScope,
  fingerprint: string,
  now: number,
  attempt = 0,
): Promise<Claim> {
  // An expired answer no longer counts; the janitor deletes these too.
  await db
    .deleteFrom('idempotency_keys')
    .where((eb) => eb.and(keyColumns(scope)))
    .where('expires_at', '<=', now)
    .execute();
  const inserted = await db
    .insertInto('idempotency_keys')
    .values({
      site_id: scope.siteId,
      client_id: scope.clientId,
      idempotency_key: scope.key,
      fingerprint,
      status: null,
      body: null,
      created_at: now,
      expires_at: now + IDEMPOTENCY_TTL_MS,
    })
    .onConflict((oc) => oc.columns(['site_id', 'client_id', 'idempotency_key']).doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return { kind: 'claimed' };
  const row = await db
    .selectFrom('idempotency_keys')
    .select(['fingerprint', 'status', 'body', 'created_at'])
    .where((eb) => eb.and(keyColumns(scope)))
    .executeTakeFirst();
  // Deleted between the two statements (expired, or released by a failed first request): claim it again.
  if (!row) return attempt < 3 ? claimKey(db, scope, fingerprint, now, attempt + 1) : { kind: 'in_progress' };
  if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
  if (row.status === null || row.body === null) {
    if (row.created_at > now - ABANDONED_MS || attempt >= 3) return { kind: 'in_progress' };
    await releaseKey(db, scope);
    return claimKey(db, scope, fingerprint, now, attempt + 1);
  }
  return { kind: 'replay', status: row.status, body: row.body };
}

/** Keeps the answer of a claimed key for replay; called in the write's own transaction when it succeeds. */
export async function completeKey(db: Kysely<Database>, scope: IdempotencyScope, status: number, body: string): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ status, body })
    .where((eb) => eb.and(keyColumns(scope)))
    .execute();
}

/** Frees a claimed key whose request failed on our side, so the client's retry runs it again. */
export async function releaseKey(db: Kysely<Database>, scope: IdempotencyScope): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where((eb) => eb.and(keyColumns(scope)))
    .where('status', 'is', null)
    .execute();
}
