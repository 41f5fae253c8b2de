// Issue 12, "On PostgreSQL: one round trip per rotation": the refresh rotation as one statement
// (tokens.repository.ts, rotateManyOnPostgres, here a batch of one) keeps the rule of the SQLite unit: it rotates a live token
// once, writing the new pair and the audit event; a second try of the same token writes nothing; a
// revoked grant writes nothing, not even the mark on the used token, and a revocation in flight makes the
// rotation wait for it; a revocation after a rotation ends the pair it wrote (migration 050). Rotations that arrive together share
// one statement (rotateManyOnPostgres, tokens/postgres-rotations.ts), each with the same rule on its own.
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenKey } from '../../src/oauth/tokens/token-format.js';
import {
  findAccessTokenByHash,
  findRefreshTokenByHash,
  type IssueInput,
  issuedRefreshRow,
  mintTokenPair,
  type PostgresRotation,
  type RotationOutcome,
  revokeGrant,
  rotateManyOnPostgres,
  writeTokenPair,
} from '../../src/oauth/tokens/tokens.repository.js';
import { PostgresRotations } from '../../src/oauth/tokens/postgres-rotations.js';
import type { Database } from '../../src/storage/schema.js';
import { skipDialect } from '../helpers/dialects.js';
import { secondWaitsForFirst } from '../helpers/overlapping-transactions.js';
import { openSchoolStore, type SchoolStore } from '../helpers/school-fixtures.js';

/** One rotation alone: a statement of one. */
async function rotateOnPostgres(
  db: Kysely<Database>,
  input: IssueInput,
  values: PostgresRotation['values'],
  used: PostgresRotation['used'],
  audit: PostgresRotation['audit'],
): Promise<RotationOutcome | undefined> {
  return (await rotateManyOnPostgres(db, [{ input, values, used, audit }]))[0];
}

describe.skipIf(skipDialect('postgres'))('refresh rotation in one statement (postgres)', () => {
  let store: SchoolStore;
  const siteId = 'site_rotation';
  const personId = 'person_rotation';
  const clock = { now: () => 1_000_000 };
  const issue = (grantId: string): IssueInput => ({
    siteId,
    clientId: 'client_rotation',
    personId,
    scope: 'openid account:read',
    accessScope: 'openid',
    resource: 'http://rotation.test',
    grantId,
    accessLifetimeSeconds: 600,
    refreshLifetimeSeconds: 3600,
  });

  beforeAll(async () => {
    store = await openSchoolStore('postgres');
    await store.db
      .insertInto('sites')
      .values({ id: siteId, slug: 'rot', name: 'Rotation', origin: 'http://rotation.test', variant: 'A', mcp_beta: 0, created_at: 1 })
      .execute();
    await store.db
      .insertInto('people')
      .values({ id: personId, email: 'rotation@rotation.test', name: 'R', picture_url: null, password_hash: 'x', created_at: 1 })
      .execute();
  });
  afterAll(() => store?.close());

  /** A grant with a first pair, as the authorization code grant leaves it. */
  async function family(grantId: string) {
    await store.db
      .insertInto('grants')
      .values({
        id: grantId,
        site_id: siteId,
        client_id: 'client_rotation',
        person_id: personId,
        scope: 'openid account:read',
        resource: 'http://rotation.test',
        created_at: 1,
        revoked_at: null,
      })
      .execute();
    const first = mintTokenPair();
    await writeTokenPair(store.db, issue(grantId), first, clock);
    return first;
  }

  const rowsOf = async (grantId: string) => ({
    access: await store.db.selectFrom('access_tokens').selectAll().where('grant_id', '=', grantId).execute(),
    refresh: await store.db.selectFrom('refresh_tokens').selectAll().where('grant_id', '=', grantId).execute(),
  });

  it('rotates a live token once: marks it rotated with its replay window and nothing sealed, writes the new pair and the audit event', async () => {
    const first = await family('grant_once');
    const next = mintTokenPair();
    const used = { tokenHash: tokenKey(first.refreshToken), now: 2_000_000, replayUntil: 2_060_000 };
    const audit = { kind: 'token.refreshed', detail: { scope: 'openid' } };
    expect(await rotateOnPostgres(store.db, issue('grant_once'), next, used, audit)).toBe('rotated');
    const rows = await rowsOf('grant_once');
    const old = rows.refresh.find((r) => r.token_hash === used.tokenHash);
    expect(old).toMatchObject({ rotated_at: 2_000_000, replay_sealed: null, replay_until: 2_060_000 });
    expect(rows.refresh.find((r) => r.token_hash === tokenKey(next.refreshToken))).toMatchObject({
      rotated_at: null,
      scope: 'openid account:read',
      created_at: 2_000_000,
      expires_at: 2_000_000 + 3_600_000,
    });
    expect(rows.access.find((r) => r.token_hash === tokenKey(next.accessToken))).toMatchObject({
      scope: 'openid',
      expires_at: 2_000_000 + 600_000,
    });
    const events = await store.db.selectFrom('audit_events').selectAll().where('kind', '=', 'token.refreshed').execute();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      site_id: siteId,
      person_id: personId,
      client_id: 'client_rotation',
      at: 2_000_000,
      detail: '{"scope":"openid"}',
    });

    // The same token again (a replay, or the loser of a race) changes nothing.
    const again = mintTokenPair();
    expect(await rotateOnPostgres(store.db, issue('grant_once'), again, used, audit)).toBe('lost');
    const after = await rowsOf('grant_once');
    expect(after.refresh).toHaveLength(2);
    expect(after.access).toHaveLength(2);
  });

  it('writes nothing for a revoked grant, and leaves the used token unmarked', async () => {
    const first = await family('grant_revoked');
    await store.db.updateTable('grants').set({ revoked_at: 5 }).where('id', '=', 'grant_revoked').execute();
    const used = { tokenHash: tokenKey(first.refreshToken), now: 2_000_000, replayUntil: null };
    expect(await rotateOnPostgres(store.db, issue('grant_revoked'), mintTokenPair(), used, { kind: 'token.refreshed', detail: {} })).toBe(
      'grant_revoked',
    );
    const rows = await rowsOf('grant_revoked');
    expect(rows.refresh).toHaveLength(1);
    expect(rows.refresh[0]?.rotated_at).toBeNull();
    expect(rows.access).toHaveLength(1);
  });

  it('a revocation holding the grant makes a rotation wait and then write nothing; one after a rotation ends the pair it wrote', async () => {
    // The revocation first: its transaction holds the grant's row until it commits, and the rotation waits.
    const first = await family('grant_revoking');
    const used = { tokenHash: tokenKey(first.refreshToken), now: 2_000_000, replayUntil: null };
    let outcome: RotationOutcome | undefined;
    const waited = await secondWaitsForFirst(
      store.db,
      (trx) => revokeGrant(trx, siteId, 'grant_revoking', { now: () => 7 }),
      async (trx) => {
        outcome = await rotateOnPostgres(trx, issue('grant_revoking'), mintTokenPair(), used, { kind: 'token.refreshed', detail: {} });
      },
    );
    expect(waited).toBe(true);
    expect(outcome).toBe('grant_revoked');
    const rows = await rowsOf('grant_revoking');
    expect(rows.refresh).toHaveLength(1);
    expect(rows.refresh[0]?.rotated_at).toBeNull();

    // The rotation first: the tokens it wrote answer to the grant revoked after it.
    const second = await family('grant_rotated');
    const next = mintTokenPair();
    const usedSecond = { tokenHash: tokenKey(second.refreshToken), now: 2_000_000, replayUntil: null };
    expect(await rotateOnPostgres(store.db, issue('grant_rotated'), next, usedSecond, { kind: 'token.refreshed', detail: {} })).toBe(
      'rotated',
    );
    await revokeGrant(store.db, siteId, 'grant_rotated', { now: () => 9 });
    expect(Number((await findAccessTokenByHash(store.db, next.accessHash))?.revoked_at)).toBe(9);
    expect(Number((await findRefreshTokenByHash(store.db, siteId, next.refreshHash))?.revoked_at)).toBe(9);
  });

  it('rotates each of many concurrent tries of one token exactly once', async () => {
    const first = await family('grant_race');
    const used = { tokenHash: tokenKey(first.refreshToken), now: 3_000_000, replayUntil: null };
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, () =>
        rotateOnPostgres(store.db, issue('grant_race'), mintTokenPair(), used, { kind: 'token.refreshed', detail: {} }),
      ),
    );
    expect(outcomes.filter((o) => o === 'rotated')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'lost')).toHaveLength(7);
    expect((await rowsOf('grant_race')).refresh).toHaveLength(2);
  });

  it('writes the new refresh row exactly as issuedRefreshRow says (the row a node keeps until its first use)', async () => {
    const first = await family('grant_row');
    const next = mintTokenPair();
    const used = { tokenHash: tokenKey(first.refreshToken), now: 2_000_000, replayUntil: null };
    expect(await rotateOnPostgres(store.db, issue('grant_row'), next, used, { kind: 'token.refreshed', detail: {} })).toBe('rotated');
    const stored = (await rowsOf('grant_row')).refresh.find((r) => r.token_hash === next.refreshHash);
    expect(stored).toEqual(issuedRefreshRow(issue('grant_row'), next, 2_000_000));
  });

  const rotation = (grantId: string, refreshToken: string, now: number): PostgresRotation => ({
    input: issue(grantId),
    values: mintTokenPair(),
    used: { tokenHash: tokenKey(refreshToken), now, replayUntil: null },
    audit: { kind: 'token.refreshed', detail: { grant: grantId } },
  });

  it('rotates many tokens in one statement, each with its own outcome: a revoked grant and a used token beside live ones', async () => {
    const live = await Promise.all(['grant_many_a', 'grant_many_b', 'grant_many_c'].map((g) => family(g)));
    const revoked = await family('grant_many_revoked');
    await store.db.updateTable('grants').set({ revoked_at: 5 }).where('id', '=', 'grant_many_revoked').execute();
    const used = await family('grant_many_used');
    expect(
      await rotateOnPostgres(
        store.db,
        issue('grant_many_used'),
        mintTokenPair(),
        rotation('grant_many_used', used.refreshToken, 3_000_000).used,
        { kind: 'token.refreshed', detail: {} },
      ),
    ).toBe('rotated');

    const batch = [
      rotation('grant_many_a', live[0]?.refreshToken ?? '', 4_000_000),
      rotation('grant_many_revoked', revoked.refreshToken, 4_000_000),
      rotation('grant_many_b', live[1]?.refreshToken ?? '', 4_000_000),
      rotation('grant_many_used', used.refreshToken, 4_000_000),
      rotation('grant_many_c', live[2]?.refreshToken ?? '', 4_000_000),
    ];
    expect(await rotateManyOnPostgres(store.db, batch)).toEqual(['rotated', 'grant_revoked', 'rotated', 'lost', 'rotated']);
    for (const [i, grantId] of ['grant_many_a', 'grant_many_b', 'grant_many_c'].entries()) {
      const rows = await rowsOf(grantId);
      const sent = batch[[0, 2, 4][i] ?? 0];
      expect(rows.refresh.find((r) => r.token_hash === sent?.values.refreshHash)).toEqual(
        issuedRefreshRow(issue(grantId), sent?.values ?? mintTokenPair(), 4_000_000),
      );
      expect(rows.access.map((r) => r.token_hash)).toContain(sent?.values.accessHash);
    }
    expect((await rowsOf('grant_many_revoked')).refresh.map((r) => r.rotated_at)).toEqual([null]);
    expect((await rowsOf('grant_many_used')).refresh).toHaveLength(2);
    const events = await store.db.selectFrom('audit_events').select('detail').where('at', '=', 4_000_000).execute();
    expect(events.map((e) => JSON.parse(e.detail).grant).sort()).toEqual(['grant_many_a', 'grant_many_b', 'grant_many_c']);
  });

  it('rotates a token sent twice in one statement once: one rotates, the other has lost the race', async () => {
    const first = await family('grant_twice');
    const outcomes = await rotateManyOnPostgres(store.db, [
      rotation('grant_twice', first.refreshToken, 5_000_000),
      rotation('grant_twice', first.refreshToken, 5_000_000),
    ]);
    expect(outcomes.sort()).toEqual(['lost', 'rotated']);
    const rows = await rowsOf('grant_twice');
    expect(rows.refresh).toHaveLength(2);
    expect(rows.access).toHaveLength(2);
  });

  it('sends rotations that arrive together as one statement, and a statement that fails as a whole one by one, so one bad rotation fails alone', async () => {
    const rotations = new PostgresRotations(store.db);
    const tokens = await Promise.all(Array.from({ length: 6 }, (_, i) => family(`grant_batch_${i}`)));
    const outcomes = await Promise.all(tokens.map((t, i) => rotations.rotate(rotation(`grant_batch_${i}`, t.refreshToken, 6_000_000))));
    expect(outcomes).toEqual(Array(6).fill('rotated'));
    expect(rotations.stats).toEqual({ transactions: 1, units: 6, reruns: 0 });

    // A new access token whose hash is already stored breaks the statement's unique index: nothing of that
    // statement is written, and the rotations beside the bad one go through when sent again one by one.
    const more = await Promise.all(Array.from({ length: 3 }, (_, i) => family(`grant_retry_${i}`)));
    const sent = more.map((t, i) => rotation(`grant_retry_${i}`, t.refreshToken, 7_000_000));
    const clash = sent[1];
    if (clash) clash.values = { ...clash.values, accessHash: more[0]?.accessHash ?? '' };
    const settled = await Promise.allSettled(sent.map((r) => rotations.rotate(r)));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(settled.filter((s) => s.status === 'fulfilled').map((s) => s.value)).toEqual(['rotated', 'rotated']);
    expect(rotations.stats.reruns).toBe(1);
    expect((await rowsOf('grant_retry_1')).refresh.map((r) => r.rotated_at)).toEqual([null]);
  });

  it('fails every rotation of a statement at once, without sending them one by one, when the store itself fails', async () => {
    const unreachable = new Kysely<Database>({
      dialect: new PostgresDialect({
        pool: new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:1/none', connectionTimeoutMillis: 1000 }),
      }),
    });
    try {
      const rotations = new PostgresRotations(unreachable);
      const settled = await Promise.allSettled(
        Array.from({ length: 3 }, () => rotations.rotate(rotation('grant_unreachable', mintTokenPair().refreshToken, 8_000_000))),
      );
      expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected', 'rejected']);
      expect(rotations.stats).toEqual({ transactions: 1, units: 3, reruns: 0 });
    } finally {
      await unreachable.destroy();
    }
  });
});
