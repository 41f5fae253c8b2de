// Access and refresh tokens carry their minting time, and the key they are stored under starts with it
// (oauth/tokens/token-format.ts), so new tokens append to the token tables' indexes instead of landing on
// random pages. Tokens minted before that (a bare hash as their key) and replay answers sealed before the
// replay key's derivation changed keep working over HTTP, on both dialects.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/kernel/hashing.js';
import { deriveKey, deriveTokenKey, seal } from '../../src/kernel/sealing.js';
import { newAccessToken, newRefreshToken, tokenKey } from '../../src/oauth/tokens/token-format.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { type Person, person } from '../helpers/person.js';
import { DEMO_CLIENTS, expectTokens, getTokens, introspect, refresh, revoke, userInfo } from '../helpers/token-flow.js';

const { academyApp, academyWeb } = DEMO_CLIENTS;
const WEB = { client_id: academyWeb.clientId, client_secret: academyWeb.secret };
const TIME_KEYED = { access: /^sga_[0-9a-f]{12}[A-Za-z0-9_-]{43}$/, refresh: /^sgr_[0-9a-f]{12}[A-Za-z0-9_-]{43}$/ };

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('token keys in time order (token-format.ts)', () => {
  it('mints tokens as prefix, minting time in 12 hex digits and 256 random bits', () => {
    const before = Date.now();
    const access = newAccessToken();
    const refreshToken = newRefreshToken();
    const after = Date.now();
    expect(access).toMatch(TIME_KEYED.access);
    expect(refreshToken).toMatch(TIME_KEYED.refresh);
    for (const token of [access, refreshToken]) {
      const minted = Number.parseInt(token.slice(4, 16), 16);
      expect(minted).toBeGreaterThanOrEqual(before);
      expect(minted).toBeLessThanOrEqual(after);
    }
  });

  it('keys a token by its minting time and the SHA-256 of the whole token, so a later token sorts after an earlier one', async () => {
    const earlier = newRefreshToken();
    await pause(3);
    const later = newAccessToken();
    expect(tokenKey(earlier)).toBe(earlier.slice(4, 16) + hashToken(earlier));
    expect(tokenKey(earlier) < tokenKey(later)).toBe(true);
    // The time cannot be moved without the hash changing with it.
    const moved = `${later.slice(0, 4)}${'0'.repeat(12)}${later.slice(16)}`;
    expect(tokenKey(moved).slice(12)).not.toBe(tokenKey(later).slice(12));
  });

  it('keys a token of the earlier shape (no time) and any other value by the bare hash', () => {
    const legacy = `sga_${randomBytes(32).toString('base64url')}`;
    expect(tokenKey(legacy)).toBe(hashToken(legacy));
    for (const other of ['sga_x', 'sgc_0123456789ab', `sgx_019ad0c0ffee${'A'.repeat(43)}`, `sga_019AD0C0FFEE${'A'.repeat(43)}`]) {
      expect(tokenKey(other)).toBe(hashToken(other));
    }
  });
});

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`token keys over HTTP (${dialect})`, () => {
    let server: DemoServer;
    let student: Person;

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      student = person('student');
    });
    afterAll(() => server?.close());

    /** Gives a token the key of one minted before keys carried the time: a new value, keyed by its bare hash. */
    async function asLegacy(table: 'access_tokens' | 'refresh_tokens', token: string): Promise<string> {
      const legacy = `${token.slice(0, 4)}${randomBytes(32).toString('base64url')}`;
      const changed = await server.store.db
        .updateTable(table)
        .set({ token_hash: hashToken(legacy) })
        .where('token_hash', '=', tokenKey(token))
        .executeTakeFirst();
      expect(changed.numUpdatedRows).toBe(1n);
      return legacy;
    }

    it('issues time-keyed tokens from the code exchange and every rotation, stored under keys in the order they were issued', async () => {
      const first = await getTokens(server, academyApp, { who: student });
      const issued = [first.refresh_token];
      let current = first.refresh_token;
      for (let i = 0; i < 3; i++) {
        await pause(3);
        const next = expectTokens(await refresh(server, academyApp, current));
        expect(next.access_token).toMatch(TIME_KEYED.access);
        expect(next.refresh_token).toMatch(TIME_KEYED.refresh);
        issued.push(next.refresh_token);
        current = next.refresh_token;
      }
      expect(first.access_token).toMatch(TIME_KEYED.access);
      const keys = issued.map(tokenKey);
      const stored = await server.store.db
        .selectFrom('refresh_tokens')
        .select('token_hash')
        .where('token_hash', 'in', keys)
        .orderBy('token_hash')
        .execute();
      expect(stored.map((r) => r.token_hash)).toEqual(keys);
    });

    it('still accepts an access token of the earlier shape at UserInfo and introspection, and revokes it', async () => {
      const tokens = await getTokens(server, academyWeb, { who: student });
      const legacy = await asLegacy('access_tokens', tokens.access_token);
      expect((await userInfo(server.academy, legacy)).status).toBe(200);
      expect((await userInfo(server.academy, tokens.access_token)).status).toBe(401);
      expect((await introspect(server.academy, legacy, WEB)).body.active).toBe(true);
      expect((await revoke(server, academyWeb, legacy)).status).toBe(200);
      expect((await userInfo(server.academy, legacy)).status).toBe(401);
    });

    it('rotates a refresh token of the earlier shape into time-keyed tokens, and answers its retry within the window the same', async () => {
      const tokens = await getTokens(server, academyApp, { who: student });
      const legacy = await asLegacy('refresh_tokens', tokens.refresh_token);
      const rotated = await refresh(server, academyApp, legacy);
      const next = expectTokens(rotated);
      expect(next.refresh_token).toMatch(TIME_KEYED.refresh);
      const retry = await refresh(server, academyApp, legacy);
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual(rotated.body);
      expect((await userInfo(server.academy, next.access_token)).status).toBe(200);
    });

    it('answers a retry whose answer an earlier release sealed (under either replay key) with that answer, and a tampered one not at all', async () => {
      const tokens = await getTokens(server, academyApp, { who: student });
      const rotated = await refresh(server, academyApp, tokens.refresh_token);
      expectTokens(rotated);
      const key = tokenKey(tokens.refresh_token);
      const row = await server.store.db
        .selectFrom('refresh_tokens')
        .select('replay_sealed')
        .where('token_hash', '=', key)
        .executeTakeFirstOrThrow();
      expect(row.replay_sealed).toBeNull();
      // As nodes of the two earlier releases sealed it: the sealed answer is the one given, not the computed one.
      const answer = JSON.stringify({ ...rotated.body, scope: 'openid' });
      for (const replayKey of [deriveTokenKey(tokens.refresh_token, 'refresh-replay'), deriveKey(tokens.refresh_token, 'refresh-replay')]) {
        const earlier = seal(replayKey, answer, key);
        await server.store.db.updateTable('refresh_tokens').set({ replay_sealed: earlier }).where('token_hash', '=', key).execute();
        const retry = await refresh(server, academyApp, tokens.refresh_token);
        expect(retry.status).toBe(200);
        expect(retry.body).toEqual(JSON.parse(answer));
      }
      // Sealed under neither key: no answer opens, and the reuse ends the grant.
      const other = seal(deriveKey('another token', 'refresh-replay'), answer, key);
      await server.store.db.updateTable('refresh_tokens').set({ replay_sealed: other }).where('token_hash', '=', key).execute();
      const reused = await refresh(server, academyApp, tokens.refresh_token);
      expect(reused.status).toBe(400);
      expect(reused.body.error).toBe('invalid_grant');
    });
  });
}
