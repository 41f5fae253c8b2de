// Per-site ES256 signing keys (SPEC 5.3). Private keys are sealed with a key derived from
// SCHOOLGATE_SECRET. Rotation follows a publish-before-use order: every site always has a `next` key
// in its JWKS, so relying parties have seen a key before the first token is signed with it; a retired
// key stays published until every token it signed has expired.
import type { Kysely } from 'kysely';
import { type CryptoKey, calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { Clock } from '../kernel/clock.js';
import { seal, unsealWithAny } from '../kernel/sealing.js';
import { secretKeys } from './secret-keys.js';
import type { Database } from '../storage/schema.js';

export const SIGNING_ALG = 'ES256';

export interface PublicJwk extends JWK {
  kid: string;
  alg: string;
  use: 'sig';
}

async function newKeyRow(siteId: string, state: 'next' | 'active', masterKey: Buffer, clock: Clock) {
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const privateJwk = await exportJWK(privateKey);
  const now = clock.now();
  return {
    kid,
    site_id: siteId,
    alg: SIGNING_ALG,
    public_jwk: JSON.stringify({ ...publicJwk, kid, alg: SIGNING_ALG, use: 'sig' }),
    // The kid is the associated data: a sealed key cannot be swapped onto another row unnoticed.
    private_jwk_sealed: seal(masterKey, JSON.stringify(privateJwk), kid),
    state,
    created_at: now,
    activated_at: state === 'active' ? now : null,
    publish_until: null,
  };
}

export function signingKeyEncryptionKey(secret: string): Buffer {
  return secretKeys({ secret }, 'signing-keys')[0];
}

/**
 * The keys that open stored signing keys: the current secret's, then, while the keys move to it
 * (`schoolgate secret reseal`), the previous secret's. New keys are sealed with the first only.
 */
export function signingKeyDecryptionKeys(config: { secret: string; previousSecret?: string | undefined }): Buffer[] {
  return secretKeys(config, 'signing-keys');
}

/** The private JWK sealed in a row, opened with the first of `masterKeys` that opens it; undefined if none does. */
function openPrivateJwk(masterKeys: readonly Buffer[], row: { kid: string; private_jwk_sealed: string }): string | undefined {
  return unsealWithAny(masterKeys, row.private_jwk_sealed, row.kid);
}

/** Gives a new site its first active key and the next one. */
export async function initialiseSiteKeys(db: Kysely<Database>, siteId: string, masterKey: Buffer, clock: Clock): Promise<void> {
  const rows = [await newKeyRow(siteId, 'active', masterKey, clock), await newKeyRow(siteId, 'next', masterKey, clock)];
  await db.insertInto('signing_keys').values(rows).execute();
}

/**
 * How long the JWKS may be cached by relying parties (its Cache-Control max-age): a next key must have
 * been published at least this long (plus a margin) before it may start signing.
 */
export const JWKS_MAX_AGE_SECONDS = 60;
export const MIN_NEXT_KEY_AGE_SECONDS = JWKS_MAX_AGE_SECONDS + 30;

/** The next key was published too recently for every relying party's cached JWKS to hold it. */
export class NextKeyTooNewError extends Error {
  override name = 'NextKeyTooNewError';
  constructor(readonly waitSeconds: number) {
    super(`the next key was published less than ${MIN_NEXT_KEY_AGE_SECONDS} s ago; rotate again in ${waitSeconds} s (or force it)`);
  }
}

export interface RotationResult {
  activated: string;
  retired: string[];
  next: string;
}

/**
 * next -> active, active -> retired (published until `retireAfterSeconds` from now), and a new next.
 * Retired keys whose publication window has passed are deleted.
 */
export async function rotateSiteKeys(
  db: Kysely<Database>,
  siteId: string,
  masterKey: Buffer,
  retireAfterSeconds: number,
  clock: Clock,
  options: { minNextKeyAgeSeconds?: number } = {},
): Promise<RotationResult> {
  const fresh = await newKeyRow(siteId, 'next', masterKey, clock);
  return db.transaction().execute(async (trx) => {
    const now = clock.now();
    const keys = await trx.selectFrom('signing_keys').select(['kid', 'state', 'created_at']).where('site_id', '=', siteId).execute();
    const next = keys.find((k) => k.state === 'next');
    if (!next) throw new Error('site has no next key to activate');
    const minAgeMs = (options.minNextKeyAgeSeconds ?? 0) * 1000;
    if (now - next.created_at < minAgeMs) throw new NextKeyTooNewError(Math.ceil((next.created_at + minAgeMs - now) / 1000));
    const active = keys.filter((k) => k.state === 'active').map((k) => k.kid);
    if (active.length > 0) {
      await trx
        .updateTable('signing_keys')
        .set({ state: 'retired', publish_until: now + retireAfterSeconds * 1000 })
        .where('site_id', '=', siteId)
        .where('kid', 'in', active)
        .execute();
    }
    await trx.updateTable('signing_keys').set({ state: 'active', activated_at: now }).where('kid', '=', next.kid).execute();
    await trx.insertInto('signing_keys').values(fresh).execute();
    await trx
      .deleteFrom('signing_keys')
      .where('site_id', '=', siteId)
      .where('state', '=', 'retired')
      .where('publish_until', '<', now)
      .execute();
    return { activated: next.kid, retired: active, next: fresh.kid };
  });
}

/** The JWKS of a site: next, active and still-published retired keys. */
export async function publishedKeys(db: Kysely<Database>, siteId: string, clock: Clock): Promise<PublicJwk[]> {
  const rows = await db
    .selectFrom('signing_keys')
    .select(['public_jwk', 'state', 'publish_until'])
    .where('site_id', '=', siteId)
    .orderBy('created_at', 'desc')
    .execute();
  const now = clock.now();
  return rows.filter((r) => r.state !== 'retired' || (r.publish_until ?? 0) > now).map((r) => JSON.parse(r.public_jwk) as PublicJwk);
}

export interface ActiveSigningKey {
  kid: string;
  key: CryptoKey;
}

/**
 * Whether `masterKey` opens the keys already stored (true when there are none yet). One sealed key is
 * enough: every key of a database is sealed with the same secret, and a secret that opens none of them
 * would fail every token request later, as a server error, instead of once at start.
 */
export async function storedKeysOpenWith(db: Kysely<Database>, masterKeys: readonly Buffer[]): Promise<boolean> {
  const row = await db.selectFrom('signing_keys').select(['kid', 'private_jwk_sealed']).limit(1).executeTakeFirst();
  return !row || openPrivateJwk(masterKeys, row) !== undefined;
}

/**
 * Seals every stored signing key with `to` (the current secret's key), opening each with `from` (the
 * current and previous secrets' keys), in one transaction: a key that neither opens leaves everything as
 * it was. Answers how many keys were sealed anew and how many already were with `to`.
 */
export async function resealSigningKeys(
  db: Kysely<Database>,
  from: readonly Buffer[],
  to: Buffer,
): Promise<{ resealed: number; already: number }> {
  return db.transaction().execute(async (trx) => {
    const rows = await trx.selectFrom('signing_keys').select(['kid', 'private_jwk_sealed']).orderBy('kid').execute();
    let resealed = 0;
    for (const row of rows) {
      if (openPrivateJwk([to], row) !== undefined) continue;
      const privateJwk = openPrivateJwk(from, row);
      if (privateJwk === undefined) throw new SealedWithUnknownSecretError(row.kid);
      await trx
        .updateTable('signing_keys')
        .set({ private_jwk_sealed: seal(to, privateJwk, row.kid) })
        .where('kid', '=', row.kid)
        .execute();
      resealed += 1;
    }
    return { resealed, already: rows.length - resealed };
  });
}

export class SealedWithUnknownSecretError extends Error {
  constructor(readonly kid: string) {
    super(`signing key ${kid} opens with neither SCHOOLGATE_SECRET nor SCHOOLGATE_PREVIOUS_SECRET`);
  }
}

/** The key that signs now; the newest active one if a rotation raced. */
export async function activeSigningKey(db: Kysely<Database>, siteId: string, masterKeys: readonly Buffer[]): Promise<ActiveSigningKey> {
  const row = await db
    .selectFrom('signing_keys')
    .select(['kid', 'private_jwk_sealed'])
    .where('site_id', '=', siteId)
    .where('state', '=', 'active')
    .orderBy('activated_at', 'desc')
    .executeTakeFirst();
  if (!row) throw new Error(`site ${siteId} has no active signing key`);
  const opened = openPrivateJwk(masterKeys, row);
  if (opened === undefined) throw new SealedWithUnknownSecretError(row.kid);
  const jwk = JSON.parse(opened) as JWK;
  const key = (await importJWK(jwk, SIGNING_ALG)) as CryptoKey;
  return { kid: row.kid, key };
}
