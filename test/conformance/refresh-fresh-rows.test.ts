// The refresh grant starts from the row this process wrote when it issued the token
// (oauth/tokens/fresh-refresh-tokens.ts). Another node may rotate or revoke that token, or end its grant,
// without this process hearing of it: the rotation's compare-and-swap in the store must still decide.
// Those other nodes are played here by writing the store directly, as they would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenKey } from '../../src/oauth/tokens/token-format.js';
import { FreshRefreshTokens } from '../../src/oauth/tokens/fresh-refresh-tokens.js';
import { issuedRefreshRow, mintTokenPair, writeTokenPair } from '../../src/oauth/tokens/tokens.repository.js';
import type { RefreshTokensTable } from '../../src/storage/schema.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { type Person, person } from '../helpers/person.js';
import { DEMO_CLIENTS, expectTokens, type FormResponse, getTokens, refresh, userInfo } from '../helpers/token-flow.js';

const { academyApp } = DEMO_CLIENTS;

function expectInvalidGrant(res: FormResponse): void {
  expect(res.status).toBe(400);
  expect(res.body.error).toBe('invalid_grant');
}

function row(tokenHash: string, siteId = 'site_a'): RefreshTokensTable {
  return {
    token_hash: tokenHash,
    site_id: siteId,
    grant_id: 'grt_1',
    client_id: 'client',
    person_id: 'per_1',
    scope: 'openid',
    resource: 'http://localhost',
    created_at: 1,
    expires_at: 2,
    rotated_at: null,
    revoked_at: null,
    replay_sealed: null,
    replay_until: null,
  };
}

describe('the rows of freshly issued refresh tokens', () => {
  it('answers a row once, for its own site only, and lets the oldest go at the bound', () => {
    const fresh = new FreshRefreshTokens(2);
    fresh.remember(row('h1'));
    expect(fresh.take('site_a', 'h1')?.token_hash).toBe('h1');
    expect(fresh.take('site_a', 'h1')).toBeUndefined();

    fresh.remember(row('h2', 'site_b'));
    expect(fresh.take('site_a', 'h2')).toBeUndefined();
    expect(fresh.take('site_b', 'h2')).toBeUndefined();

    fresh.remember(row('h3'));
    fresh.remember(row('h4'));
    fresh.remember(row('h5'));
    expect(fresh.size).toBe(2);
    expect(fresh.take('site_a', 'h3')).toBeUndefined();
    expect(fresh.take('site_a', 'h4')?.token_hash).toBe('h4');
    expect(fresh.take('site_a', 'h5')?.token_hash).toBe('h5');
  });
});

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`a refresh from the row this process issued still obeys the store (${dialect})`, () => {
    let server: DemoServer;
    let student: Person;

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      student = person('student');
    });
    afterAll(() => server?.close());

    /** The grant of a refresh token, as the store holds it. */
    async function grantOf(refreshToken: string): Promise<string> {
      const held = await server.store.db
        .selectFrom('refresh_tokens')
        .select(['grant_id'])
        .where('token_hash', '=', tokenKey(refreshToken))
        .executeTakeFirstOrThrow();
      return held.grant_id;
    }

    /** A token issued by the code exchange here (so its row is held), and its grant. */
    async function exchanged() {
      const held = await getTokens(server, academyApp, { who: student });
      return { held, grantId: await grantOf(held.refresh_token) };
    }

    /** A token issued by a refresh here (so its row is held), and its grant. */
    async function freshlyIssued() {
      const first = await getTokens(server, academyApp, { who: student });
      const held = expectTokens(await refresh(server, academyApp, first.refresh_token));
      return { held, grantId: await grantOf(held.refresh_token) };
    }

    /** The two ways a node comes to hold a refresh token's row. */
    const issuers = [
      ['from the code exchange', exchanged],
      ['from a refresh', freshlyIssued],
    ] as const;

    /** Another node's revocation of a refresh token, written to the store behind this node's back. */
    async function revokeInStore(refreshToken: string): Promise<void> {
      await server.store.db
        .updateTable('refresh_tokens')
        .set({ revoked_at: server.clock.now() })
        .where('token_hash', '=', tokenKey(refreshToken))
        .execute();
    }

    const tokensOf = async (grantId: string) =>
      (await server.store.db.selectFrom('refresh_tokens').select('token_hash').where('grant_id', '=', grantId).execute()).length;

    it('keeps the row the store holds: issuedRefreshRow equals the row a new pair writes', async () => {
      const { grantId } = await freshlyIssued();
      const grant = await server.store.db.selectFrom('grants').selectAll().where('id', '=', grantId).executeTakeFirstOrThrow();
      const input = {
        siteId: grant.site_id,
        clientId: grant.client_id,
        personId: grant.person_id,
        scope: grant.scope,
        accessScope: 'openid',
        resource: grant.resource,
        grantId,
        accessLifetimeSeconds: 600,
        refreshLifetimeSeconds: 3600,
      };
      const values = mintTokenPair();
      const now = server.clock.now();
      const written = await writeTokenPair(server.store.db, input, values, { now: () => now });
      const stored = await server.store.db
        .selectFrom('refresh_tokens')
        .selectAll()
        .where('token_hash', '=', values.refreshHash)
        .executeTakeFirstOrThrow();
      expect(stored).toEqual(issuedRefreshRow(input, values, now));
      // The code exchange keeps the row writeTokenPair answers.
      expect(written.refreshRow).toEqual(stored);
    });

    for (const [issued, issue] of issuers) {
      it(`refuses a held token ${issued} that another node revoked, and issues nothing`, async () => {
        const { held, grantId } = await issue();
        await revokeInStore(held.refresh_token);
        const before = await tokensOf(grantId);
        const res = await refresh(server, academyApp, held.refresh_token);
        expectInvalidGrant(res);
        expect(res.body.error_description).toContain('revoked');
        expect(await tokensOf(grantId)).toBe(before);
      });

      it(`refuses a held token ${issued} whose grant another node ended, and issues nothing`, async () => {
        const { held, grantId } = await issue();
        await server.store.db.updateTable('grants').set({ revoked_at: server.clock.now() }).where('id', '=', grantId).execute();
        const before = await tokensOf(grantId);
        expectInvalidGrant(await refresh(server, academyApp, held.refresh_token));
        expect(await tokensOf(grantId)).toBe(before);
      });
    }

    it('treats a token another node already rotated (and whose answer it cannot replay) as reused: the grant ends', async () => {
      const { held: second, grantId } = await freshlyIssued();
      await server.store.db
        .updateTable('refresh_tokens')
        .set({ rotated_at: server.clock.now() })
        .where('token_hash', '=', tokenKey(second.refresh_token))
        .execute();
      expectInvalidGrant(await refresh(server, academyApp, second.refresh_token));
      const grant = await server.store.db.selectFrom('grants').select('revoked_at').where('id', '=', grantId).executeTakeFirstOrThrow();
      expect(grant.revoked_at).not.toBeNull();
      expect((await userInfo(server.academy, second.access_token)).status).toBe(401);
    });

    it('rotates a held token once: its second use is a replay inside the window, as when it is read from the store', async () => {
      const { held: second } = await freshlyIssued();
      const third = expectTokens(await refresh(server, academyApp, second.refresh_token));
      const again = expectTokens(await refresh(server, academyApp, second.refresh_token));
      expect(again.refresh_token).toBe(third.refresh_token);
      expect(again.access_token).toBe(third.access_token);
    });
  });
}
