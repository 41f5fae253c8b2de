// Migration 050: the token tables lose their indexes and references by grant, on both dialects, keeping
// every row; a token is judged by its grant when it is looked up (its own revocation, else its grant's,
// else, its grant gone, revoked since it was issued), and revoking a grant writes the grant alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGrant,
  findAccessTokenByHash,
  findRefreshTokenByHash,
  mintTokenPair,
  revokeAccessToken,
  revokeGrant,
  writeTokenPair,
} from '../../src/oauth/tokens/tokens.repository.js';
import * as m050 from '../../src/storage/migrations/050-tokens-answer-to-their-grant.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { indexNames } from '../helpers/index-names.js';
import { insertPerson, insertSite, openSchoolStore, type SchoolStore, TEST_NOW } from '../helpers/school-fixtures.js';

const TABLES = ['access_tokens', 'refresh_tokens'] as const;
const clockAt = (now: number) => ({ now: () => now });

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`migration 050, tokens answer to their grant (${dialect})`, () => {
    let s: SchoolStore;
    const issue = (grantId: string) => ({
      siteId: 'site_a',
      clientId: 'app',
      personId: 'per_1',
      scope: 'openid',
      accessScope: 'openid',
      resource: 'http://a.test',
      grantId,
      accessLifetimeSeconds: 600,
      refreshLifetimeSeconds: 86_400,
    });
    /** A new grant with one pair of tokens; answers the grant and the pair's hashes. */
    const grantWithPair = async () => {
      const grantId = await createGrant(s.db, issue(''), clockAt(TEST_NOW));
      const pair = mintTokenPair();
      await writeTokenPair(s.db, issue(grantId), pair, clockAt(TEST_NOW));
      return { grantId, access: pair.accessHash, refresh: pair.refreshHash };
    };

    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      await insertSite(s.db, { id: 'site_a', name: 'A', origin: 'http://a.test', variant: 'A' });
      await insertPerson(s.db, { id: 'per_1', email: 'p@a.test', name: 'P' });
    });
    afterAll(() => s?.close());

    it('leaves the token tables no index by grant', async () => {
      for (const table of TABLES) expect((await indexNames(s, table)).filter((n) => n.includes('grant'))).toEqual([]);
    });

    it('answers a live grant’s tokens as live, and a token revoked on its own as revoked while its grant lives', async () => {
      const { access, refresh } = await grantWithPair();
      expect((await findAccessTokenByHash(s.db, access))?.revoked_at).toBeNull();
      expect((await findRefreshTokenByHash(s.db, 'site_a', refresh))?.revoked_at).toBeNull();
      await revokeAccessToken(s.db, 'site_a', access, clockAt(TEST_NOW + 5));
      expect(Number((await findAccessTokenByHash(s.db, access))?.revoked_at)).toBe(TEST_NOW + 5);
      expect((await findRefreshTokenByHash(s.db, 'site_a', refresh))?.revoked_at).toBeNull();
    });

    it('revoking a grant writes the grant alone, and its tokens answer its revocation time as theirs', async () => {
      const { grantId, access, refresh } = await grantWithPair();
      await revokeGrant(s.db, 'site_a', grantId, clockAt(TEST_NOW + 7));
      expect(Number((await findAccessTokenByHash(s.db, access))?.revoked_at)).toBe(TEST_NOW + 7);
      expect(Number((await findRefreshTokenByHash(s.db, 'site_a', refresh))?.revoked_at)).toBe(TEST_NOW + 7);
      const own = await s.db.selectFrom('access_tokens').select('revoked_at').where('token_hash', '=', access).executeTakeFirstOrThrow();
      expect(own.revoked_at).toBeNull();
      // A second revocation keeps the first time.
      await revokeGrant(s.db, 'site_a', grantId, clockAt(TEST_NOW + 9));
      expect(Number((await findAccessTokenByHash(s.db, access))?.revoked_at)).toBe(TEST_NOW + 7);
    });

    it('keeps a token whose grant was deleted, and answers it as revoked since it was issued', async () => {
      const { grantId, access, refresh } = await grantWithPair();
      await s.db.deleteFrom('grants').where('id', '=', grantId).execute();
      expect(Number((await findAccessTokenByHash(s.db, access))?.revoked_at)).toBe(TEST_NOW);
      expect(Number((await findRefreshTokenByHash(s.db, 'site_a', refresh))?.revoked_at)).toBe(TEST_NOW);
    });

    it('keeps every token across the migration down and up again; down drops the tokens of deleted grants and restores the references', async () => {
      const kept = await grantWithPair();
      const orphan = await grantWithPair();
      await s.db.deleteFrom('grants').where('id', '=', orphan.grantId).execute();
      // The tokens whose grant is stored (earlier tests deleted some grants).
      const granted = () => s.db.selectFrom('grants').select('id');
      const rows = async () => ({
        access: await s.db.selectFrom('access_tokens').selectAll().where('grant_id', 'in', granted()).orderBy('token_hash').execute(),
        refresh: await s.db.selectFrom('refresh_tokens').selectAll().where('grant_id', 'in', granted()).orderBy('token_hash').execute(),
      });
      const before = await rows();
      expect(before.access.some((r) => r.token_hash === kept.access)).toBe(true);

      await m050.down(s.db);
      for (const table of TABLES) expect(await indexNames(s, table)).toContain(`${table}_grant`);
      expect(await findAccessTokenByHash(s.db, orphan.access)).toBeUndefined();
      expect(await rows()).toEqual(before);
      const taken = before.access[0];
      if (!taken) throw new Error('no row');
      await expect(
        s.db
          .insertInto('access_tokens')
          .values({ ...taken, token_hash: 'another', grant_id: 'grt_missing' })
          .execute(),
      ).rejects.toThrow();

      await m050.up(s.db);
      expect(await rows()).toEqual(before);
      for (const table of TABLES) expect((await indexNames(s, table)).filter((n) => n.includes('grant'))).toEqual([]);
      await s.db
        .insertInto('access_tokens')
        .values({ ...taken, token_hash: 'another', grant_id: 'grt_missing' })
        .execute();
      expect((await findAccessTokenByHash(s.db, 'another'))?.revoked_at).not.toBeNull();
      // The other references stay.
      await expect(
        s.db
          .insertInto('access_tokens')
          .values({ ...taken, token_hash: 'a third', site_id: 'site_missing' })
          .execute(),
      ).rejects.toThrow();
    });
  });
}
