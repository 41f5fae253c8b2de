// Sign-in sessions: an opaque random id in an HttpOnly cookie, stored only as its hash, per site.
import type { Kysely } from 'kysely';
import type { Clock } from '../kernel/clock.js';
import { hashToken } from '../kernel/hashing.js';
import { randomSecret } from '../kernel/random.js';
import type { Database } from '../storage/schema.js';

export interface Session {
  personId: string;
  authTime: number;
}

export async function createSession(
  db: Kysely<Database>,
  siteId: string,
  personId: string,
  lifetimeSeconds: number,
  clock: Clock,
): Promise<string> {
  const id = randomSecret();
  const now = clock.now();
  await db
    .insertInto('sessions')
    .values({
      id_hash: hashToken(id),
      site_id: siteId,
      person_id: personId,
      auth_time: now,
      created_at: now,
      expires_at: now + lifetimeSeconds * 1000,
    })
    .execute();
  return id;
}

export async function findSession(db: Kysely<Database>, siteId: string, sessionId: string, clock: Clock): Promise<Session | undefined> {
  const row = await db
    .selectFrom('sessions')
    .select(['person_id', 'auth_time', 'expires_at'])
    .where('id_hash', '=', hashToken(sessionId))
    .where('site_id', '=', siteId)
    .executeTakeFirst();
  if (!row || row.expires_at <= clock.now()) return undefined;
  return { personId: row.person_id, authTime: row.auth_time };
}

export async function deleteSession(db: Kysely<Database>, siteId: string, sessionId: string): Promise<void> {
  await db.deleteFrom('sessions').where('id_hash', '=', hashToken(sessionId)).where('site_id', '=', siteId).execute();
}
