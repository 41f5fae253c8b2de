// Member OAuth applications (SPEC 5.2): created by a site operator, site-scoped, scopes picked by the
// operator. A confidential app's secret is generated with 256 bits and stored only as its SHA-256 hash.
import type { Kysely } from 'kysely';
import type { Clock } from '../kernel/clock.js';
import { hashToken } from '../kernel/hashing.js';
import { randomSecret } from '../kernel/random.js';
import { defineQuery } from '../storage/precompiled.js';
import type { Database, MemberClientsTable } from '../storage/schema.js';

export interface NewMemberApp {
  siteId: string;
  clientId?: string;
  name: string;
  kind: 'public' | 'confidential';
  redirectUris: string[];
  scopes: string[];
  /** Only the demo seed passes a fixed secret (CONTRACT 3); otherwise one is generated. */
  secret?: string;
}

export interface CreatedMemberApp {
  clientId: string;
  /** Shown once to the operator; never stored in clear. */
  secret: string | null;
}

/** Serving processes cache member apps; a caller outside the CLI publishes a `flush` after changes. */
export async function createMemberApp(db: Kysely<Database>, input: NewMemberApp, clock: Clock): Promise<CreatedMemberApp> {
  const clientId = input.clientId ?? `app_${randomSecret(12)}`;
  const secret = input.kind === 'confidential' ? (input.secret ?? `sgs_${randomSecret()}`) : null;
  await db
    .insertInto('member_clients')
    .values({
      client_id: clientId,
      site_id: input.siteId,
      name: input.name,
      kind: input.kind,
      secret_hash: secret ? hashToken(secret) : null,
      redirect_uris: JSON.stringify(input.redirectUris),
      scopes: input.scopes.join(' '),
      created_at: clock.now(),
    })
    .execute();
  return { clientId, secret };
}

const memberAppById = defineQuery(['clientId', 'siteId'], (db, p) =>
  db.selectFrom('member_clients').selectAll().where('client_id', '=', p.clientId).where('site_id', '=', p.siteId),
);

export async function findMemberApp(db: Kysely<Database>, siteId: string, clientId: string): Promise<MemberClientsTable | undefined> {
  return memberAppById.first(db, { clientId, siteId });
}

export async function listMemberApps(db: Kysely<Database>, siteId: string): Promise<MemberClientsTable[]> {
  return db.selectFrom('member_clients').selectAll().where('site_id', '=', siteId).orderBy('created_at').execute();
}
