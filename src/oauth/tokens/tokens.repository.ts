// Grants and the tokens issued under them. A grant is one authorization (one code exchange) and all
// the access and refresh tokens that descend from it; revoking the grant ends them all at once.
import type { KeyObject } from 'node:crypto';
import { CompiledQuery, type Kysely, sql, type Transaction } from 'kysely';
import type { Clock } from '../../kernel/clock.js';
import { newId } from '../../kernel/random.js';
import { isSqlite } from '../../storage/dialect.js';
import { defineQuery } from '../../storage/precompiled.js';
import type { AccessTokensTable, Database, RefreshTokensTable } from '../../storage/schema.js';
import { newAccessToken, newRefreshToken, successorTokens, tokenKey } from './token-format.js';

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

/** A new pair's values and the hashes under which they are stored (each hashed once). */
export interface MintedPair {
  accessToken: string;
  refreshToken: string;
  accessHash: string;
  refreshHash: string;
}

function pairOf(accessToken: string, refreshToken: string): MintedPair {
  return { accessToken, refreshToken, accessHash: tokenKey(accessToken), refreshHash: tokenKey(refreshToken) };
}

/** Creates the token values; they are written by writeTokenPair inside the caller's transaction. */
export function mintTokenPair(): MintedPair {
  return pairOf(newAccessToken(), newRefreshToken());
}

/** The pair that succeeds `usedRefreshToken` when it is rotated at `now` (token-format.ts's successorTokens). */
export function successorPair(key: KeyObject, usedRefreshToken: string, now: number): MintedPair {
  const { accessToken, refreshToken } = successorTokens(key, usedRefreshToken, now);
  return pairOf(accessToken, refreshToken);
}

const TOKEN_COLUMNS = ['hash', 'siteId', 'grantId', 'clientId', 'personId', 'scope', 'resource', 'now', 'expiresAt'] as const;
/** A token row's parameters; the INSERTs are compiled with placeholders in their place. */
type TokenParams = Record<'hash' | 'siteId' | 'grantId' | 'clientId' | 'personId' | 'scope' | 'resource', string> &
  Record<'now' | 'expiresAt', number>;
/** A token row's columns from its parameters. */
const tokenValues = (p: TokenParams) => ({
  token_hash: p.hash,
  site_id: p.siteId,
  grant_id: p.grantId,
  client_id: p.clientId,
  person_id: p.personId,
  scope: p.scope,
  resource: p.resource,
  created_at: p.now,
  expires_at: p.expiresAt,
  revoked_at: null,
});
/** A refresh token row's: a new one is unrotated and has no replay answer. */
const refreshTokenValues = (p: TokenParams) => Object.assign(tokenValues(p), { rotated_at: null, replay_sealed: null, replay_until: null });
// The two inserts of every token issuance, compiled once (the refresh grant's hot path).
const insertAccessToken = defineQuery(TOKEN_COLUMNS, (db, p) => db.insertInto('access_tokens').values(tokenValues(p)));
const insertRefreshToken = defineQuery(TOKEN_COLUMNS, (db, p) => db.insertInto('refresh_tokens').values(refreshTokenValues(p)));

/** One row's column values: written out, because V8 builds a spread with added fields on a slow path. */
function tokenRow(input: IssueInput, hash: string, scope: string, now: number, lifetimeSeconds: number): TokenParams {
  return {
    hash,
    siteId: input.siteId,
    grantId: input.grantId,
    clientId: input.clientId,
    personId: input.personId,
    scope,
    resource: input.resource,
    now,
    expiresAt: now + lifetimeSeconds * 1000,
  };
}

/** The column values of a new pair's two rows. */
function pairRows(input: IssueInput, values: MintedPair, now: number) {
  return {
    access: tokenRow(input, values.accessHash, input.accessScope, now, input.accessLifetimeSeconds),
    refresh: tokenRow(input, values.refreshHash, input.scope, now, input.refreshLifetimeSeconds),
  };
}

/** Writes a new pair; answers it with the refresh row as written (for fresh-refresh-tokens.ts once committed). */
export async function writeTokenPair(
  db: Db,
  input: IssueInput,
  values: MintedPair,
  clock: Clock,
): Promise<IssuedPair & { refreshRow: RefreshTokensTable }> {
  const rows = pairRows(input, values, clock.now());
  await insertAccessToken.changed(db, rows.access);
  await insertRefreshToken.changed(db, rows.refresh);
  return {
    accessToken: values.accessToken,
    refreshToken: values.refreshToken,
    accessExpiresAt: rows.access.expiresAt,
    refreshRow: refreshTokenValues(rows.refresh),
  };
}

/**
 * The refresh_tokens row that a new pair's INSERT writes, as the store will answer it once committed (the
 * same values as the INSERT; the rotation on PostgreSQL copies the same columns from the used token's row).
 */
export function issuedRefreshRow(input: IssueInput, values: MintedPair, now: number): RefreshTokensTable {
  return refreshTokenValues(pairRows(input, values, now).refresh);
}

/** The two INSERTs of a new pair, for a caller that runs its statements itself (storage/group-commit.ts). */
export function tokenPairStatements(db: Db, input: IssueInput, values: MintedPair, now: number): CompiledQuery[] {
  const rows = pairRows(input, values, now);
  return [insertAccessToken.bind(db, rows.access), insertRefreshToken.bind(db, rows.refresh)];
}

/**
 * A token's revocation as every lookup answers it: its own (RFC 7009 revocation of an access token), else
 * its grant's, since revoking a grant writes the grant alone (migration 050); and a token whose grant is
 * gone (the janitor deleted it when its refresh family's head expired) counts as revoked when it was
 * issued. The one place this rule lives: bearer checks, introspection, revocation and the refresh grant all
 * read tokens through the lookups below.
 */
const answeredRevocation = sql<number | null>`coalesce(t.revoked_at, g.revoked_at, case when g.id is null then t.created_at end)`.as(
  'revoked_at',
);

/** Both token tables' columns as their lookups read them, but for the revocation, which is answered. */
const TOKEN_COLUMNS_LOOKED_UP = [
  't.token_hash',
  't.site_id',
  't.grant_id',
  't.client_id',
  't.person_id',
  't.scope',
  't.resource',
  't.created_at',
  't.expires_at',
] as const;

/** Looks an access token up by hash alone: the bearer check must tell "another origin" from "unknown". */
const accessTokenByHash = defineQuery(['hash'], (db, p) =>
  db
    .selectFrom('access_tokens as t')
    .leftJoin('grants as g', 'g.id', 't.grant_id')
    .select(TOKEN_COLUMNS_LOOKED_UP)
    .select(answeredRevocation)
    .where('t.token_hash', '=', p.hash),
);

export async function findAccessTokenByHash(db: Db, tokenHash: string): Promise<AccessTokensTable | undefined> {
  return accessTokenByHash.first(db, { hash: tokenHash });
}

const refreshTokenByHash = defineQuery(['hash', 'siteId'], (db, p) =>
  db
    .selectFrom('refresh_tokens as t')
    .leftJoin('grants as g', 'g.id', 't.grant_id')
    .select([...TOKEN_COLUMNS_LOOKED_UP, 't.rotated_at', 't.replay_sealed', 't.replay_until'])
    .select(answeredRevocation)
    .where('t.token_hash', '=', p.hash)
    .where('t.site_id', '=', p.siteId),
);

export async function findRefreshTokenByHash(db: Db, siteId: string, tokenHash: string): Promise<RefreshTokensTable | undefined> {
  return refreshTokenByHash.first(db, { hash: tokenHash, siteId });
}

/**
 * Ends a grant, and with it every token under it: the tokens' lookups answer the grant's revocation as
 * theirs. One row is written however many tokens the grant has. A refresh holding the grant (its state
 * read FOR SHARE on PostgreSQL) either commits first, and its new tokens answer to the revoked grant like
 * the rest, or comes after and sees the grant revoked. Consent and the person's session are untouched.
 */
export async function revokeGrant(db: Db, siteId: string, grantId: string, clock: Clock): Promise<void> {
  await db
    .updateTable('grants')
    .set({ revoked_at: clock.now() })
    .where('id', '=', grantId)
    .where('site_id', '=', siteId)
    .where('revoked_at', 'is', null)
    .execute();
}

// SQLite runs one write transaction at a time; PostgreSQL needs the share lock to order a refresh
// against a concurrent revokeGrant.
const grantRevokedAt = defineQuery(['grantId'], (db, p) => {
  const query = db.selectFrom('grants').select('revoked_at').where('id', '=', p.grantId);
  return isSqlite(db) ? query : query.forShare();
});

// replay_sealed stays null: retries are answered by computing the successors again (successorTokens); the
// column holds answers sealed by releases before that, kept until their window ends.
const rotateRefreshToken = defineQuery(['hash', 'now', 'until'], (db, p) =>
  db
    .updateTable('refresh_tokens')
    .set({ rotated_at: p.now, replay_until: p.until })
    .where('token_hash', '=', p.hash)
    .where('rotated_at', 'is', null)
    .where('revoked_at', 'is', null),
);

/** The compare-and-swap of rotation as a statement: it changes one row only for the caller that rotates. */
export function rotationStatement(db: Db, tokenHash: string, now: number, replayUntil: number | null): CompiledQuery {
  return rotateRefreshToken.bind(db, { hash: tokenHash, now, until: replayUntil });
}

/**
 * PostgreSQL: rotations as one statement, so one round trip and one implicit transaction for however many
 * arrive together (issue 12; tokens/postgres-rotations.ts gathers them). The same rule as the SQLite unit
 * in grant-types/refresh-token.ts, step for step, for each rotation alone: its grant is read FOR SHARE (a
 * concurrent revocation waits for this commit, or this statement sees the grant revoked); the
 * compare-and-swap changes the used token only while it is unrotated, unrevoked and its grant live; the
 * new pair and the audit event are written only from the rows the swap changed, so a lost race or a
 * revoked grant writes nothing. Two rotations of one token in one statement change its row once: one
 * rotates, the other has lost the race. The rotations travel as one array per column (one prepared
 * statement whatever their number); each row of the answer says, by its position, what became of one.
 */
const ROTATE_MANY = `
  with r as (
    select * from unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::text[], $6::text[], $7::bigint[], $8::text[],
      $9::bigint[], $10::text[], $11::text[])
    with ordinality as r(grant_id, hash, at_ms, until, access_hash, access_scope, access_expires_at, refresh_hash,
      refresh_expires_at, audit_kind, audit_detail, n)
  ),
  g as (select id from grants where id in (select grant_id from r) and revoked_at is null for share),
  used as (
    update refresh_tokens t set rotated_at = r.at_ms, replay_until = r.until
    from r
    where t.token_hash = r.hash and t.grant_id = r.grant_id and t.rotated_at is null and t.revoked_at is null
      and r.grant_id in (select id from g)
    returning r.n, t.site_id, t.grant_id, t.client_id, t.person_id, t.scope, t.resource, r.at_ms, r.access_hash, r.access_scope,
      r.access_expires_at, r.refresh_hash, r.refresh_expires_at, r.audit_kind, r.audit_detail
  ),
  new_access as (
    insert into access_tokens (token_hash, site_id, grant_id, client_id, person_id, scope, resource, created_at, expires_at)
    select access_hash, site_id, grant_id, client_id, person_id, access_scope, resource, at_ms, access_expires_at from used
  ),
  new_refresh as (
    insert into refresh_tokens (token_hash, site_id, grant_id, client_id, person_id, scope, resource, created_at, expires_at)
    select refresh_hash, site_id, grant_id, client_id, person_id, scope, resource, at_ms, refresh_expires_at from used
  ),
  audit as (
    insert into audit_events (site_id, at, kind, person_id, client_id, detail)
    select site_id, at_ms, audit_kind, person_id, client_id, audit_detail from used
  )
  select r.n, exists(select 1 from g where g.id = r.grant_id) as granted, exists(select 1 from used where used.n = r.n) as rotated
  from r`;

export type RotationOutcome = 'rotated' | 'lost' | 'grant_revoked';

/** One rotation as rotateManyOnPostgres takes it. */
export interface PostgresRotation {
  input: IssueInput;
  values: MintedPair;
  used: { tokenHash: string; now: number; replayUntil: number | null };
  audit: { kind: string; detail: Record<string, unknown> };
}

/** Rotations on PostgreSQL in one round trip (see ROTATE_MANY); the outcomes in the order given. */
export async function rotateManyOnPostgres(db: Db, rotations: readonly PostgresRotation[]): Promise<RotationOutcome[]> {
  const columns: unknown[][] = Array.from({ length: 11 }, () => []);
  for (const { input, values, used, audit } of rotations) {
    const rows = pairRows(input, values, used.now);
    const row = [
      input.grantId,
      used.tokenHash,
      used.now,
      used.replayUntil,
      rows.access.hash,
      rows.access.scope,
      rows.access.expiresAt,
      rows.refresh.hash,
      rows.refresh.expiresAt,
      audit.kind,
      JSON.stringify(audit.detail),
    ];
    for (const [i, value] of row.entries()) columns[i]?.push(value);
  }
  const result = await db.executeQuery<{ n: string | number; granted: boolean; rotated: boolean }>(CompiledQuery.raw(ROTATE_MANY, columns));
  const outcomes: RotationOutcome[] = rotations.map(() => 'lost');
  for (const row of result.rows) {
    const i = Number(row.n) - 1;
    outcomes[i] = !row.granted ? 'grant_revoked' : row.rotated ? 'rotated' : 'lost';
  }
  return outcomes;
}

/** Reads the grant's revocation time (holding the grant against revocation on PostgreSQL). */
export function grantStateStatement(db: Db, grantId: string): CompiledQuery {
  return grantRevokedAt.bind(db, { grantId });
}

export async function revokeAccessToken(db: Db, siteId: string, tokenHash: string, clock: Clock): Promise<void> {
  await db
    .updateTable('access_tokens')
    .set({ revoked_at: clock.now() })
    .where('token_hash', '=', tokenHash)
    .where('site_id', '=', siteId)
    .execute();
}
