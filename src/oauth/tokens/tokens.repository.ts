// Grants and the tokens issued under them. A grant is one authorization (one code exchange) and all
// the access and refresh tokens that descend from it; revoking the grant ends them all at once.
import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../kernel/clock.js';
import { hashToken } from '../../kernel/hashing.js';
import { newId } from '../../kernel/random.js';
import type { AccessTokensTable, Database, RefreshTokensTable } from '../../storage/schema.js';
import { newAccessToken, newRefreshToken } from './token-format.js';

type Db = Kysely<Database> | Transaction<Database>;

export interface GrantInput {
  siteId: string;
  clientId: string;
  personId: string;
  scope: string;
  resource: string;
}

export async function createGrant(db: Db, input: GrantInput, clock: Clock): Promise<string> {
  const id = newId('grt');
  await db
    .insertInto('grants')
    .values({
      id,
      site_id: input.siteId,
      client_id: input.clientId,
      person_id: input.personId,
      scope: input.scope,
      resource: input.resource,
      created_at: clock.now(),
      revoked_at: null,
    })
    .execute();
  return id;
}

export interface IssueInput extends GrantInput {
  grantId: string;
  /** Scope of the access token; may be narrower than the refresh token's (RFC 6749 6). */
  accessScope: string;
  accessLifetimeSeconds: number;
  refreshLifetimeSeconds: number;
}

export interface IssuedPair {
  accessToken: string;
  refreshToken: string;
  accessExpiresAt: number;
}

/** Creates the token values; they are written by writeTokenPair inside the caller's transaction. */
export function mintTokenPair(): { accessToken: string; refreshToken: string } {
  return { accessToken: newAccessToken(), refreshToken: newRefreshToken() };
}

export async function writeTokenPair(
  db: Db,
  input: IssueInput,
  values: { accessToken: string; refreshToken: string },
  clock: Clock,
): Promise<IssuedPair> {
  const now = clock.now();
  const accessExpiresAt = now + input.accessLifetimeSeconds * 1000;
  const common = {
    site_id: input.siteId,
    grant_id: input.grantId,
    client_id: input.clientId,
    person_id: input.personId,
    resource: input.resource,
    created_at: now,
  };
  await db
    .insertInto('access_tokens')
    .values({
      ...common,
      token_hash: hashToken(values.accessToken),
      scope: input.accessScope,
      expires_at: accessExpiresAt,
      revoked_at: null,
    })
    .execute();
  await db
    .insertInto('refresh_tokens')
    .values({
      ...common,
      token_hash: hashToken(values.refreshToken),
      scope: input.scope,
      expires_at: now + input.refreshLifetimeSeconds * 1000,
      revoked_at: null,
      rotated_at: null,
      replay_sealed: null,
      replay_until: null,
    })
    .execute();
  return { ...values, accessExpiresAt };
}

/** Looks an access token up by hash alone: the bearer check must tell "another origin" from "unknown". */
export async function findAccessToken(db: Db, token: string): Promise<AccessTokensTable | undefined> {
  return db.selectFrom('access_tokens').selectAll().where('token_hash', '=', hashToken(token)).executeTakeFirst();
}

export async function findRefreshToken(db: Db, siteId: string, token: string): Promise<RefreshTokensTable | undefined> {
  return db
    .selectFrom('refresh_tokens')
    .selectAll()
    .where('token_hash', '=', hashToken(token))
    .where('site_id', '=', siteId)
    .executeTakeFirst();
}

/** Ends a grant and every token under it. Consent and the person's session are untouched. */
export async function revokeGrant(db: Db, siteId: string, grantId: string, clock: Clock): Promise<void> {
  const now = clock.now();
  await db
    .updateTable('grants')
    .set({ revoked_at: now })
    .where('id', '=', grantId)
    .where('site_id', '=', siteId)
    .where('revoked_at', 'is', null)
    .execute();
  await db
    .updateTable('access_tokens')
    .set({ revoked_at: now })
    .where('grant_id', '=', grantId)
    .where('site_id', '=', siteId)
    .where('revoked_at', 'is', null)
    .execute();
  await db
    .updateTable('refresh_tokens')
    .set({ revoked_at: now, replay_sealed: null })
    .where('grant_id', '=', grantId)
    .where('site_id', '=', siteId)
    .where('revoked_at', 'is', null)
    .execute();
}

export async function revokeAccessToken(db: Db, siteId: string, tokenHash: string, clock: Clock): Promise<void> {
  await db
    .updateTable('access_tokens')
    .set({ revoked_at: clock.now() })
    .where('token_hash', '=', tokenHash)
    .where('site_id', '=', siteId)
    .execute();
}
