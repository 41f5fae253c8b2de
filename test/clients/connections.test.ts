// Revoking an app at a site (the admin's connections page) or one person's use of it (/account/apps): every
// token of the app (or of that person and app) ends, access and refresh alike, and nothing else does. Only
// the app's grants are written: the tokens' lookups answer their grant's revocation (migration 050).
// A person's apps, and their grants of one app, are read by migration 044's index of grants by person.
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { personApps, revokeAppAtSite, withdrawPersonApp } from '../../src/clients/connections.js';
import { findAccessTokenByHash, findRefreshTokenByHash } from '../../src/oauth/tokens/tokens.repository.js';
import type { Database } from '../../src/storage/schema.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { insertPerson, insertSite, openSchoolStore, type SchoolStore, TEST_NOW } from '../helpers/school-fixtures.js';
import { plansOf } from '../helpers/sqlite-plans.js';

const NOW = TEST_NOW;
const LATER = NOW + 60_000;
const LATER_CLOCK = { now: () => LATER };

interface TokenSpec {
  grant: string;
  site: string;
  client: string;
  person: string;
}

/**
 * site_a: app_x used by per_1 (two grants, one already revoked while its tokens' own rows are not) and per_2;
 * app_y used by per_1. site_b: app_x used by per_1. Each grant holds one access and one refresh token.
 */
const GRANTS: Array<TokenSpec & { revoked?: boolean }> = [
  { grant: 'grt_x1', site: 'site_a', client: 'app_x', person: 'per_1' },
  { grant: 'grt_x1_old', site: 'site_a', client: 'app_x', person: 'per_1', revoked: true },
  { grant: 'grt_x2', site: 'site_a', client: 'app_x', person: 'per_2' },
  { grant: 'grt_y1', site: 'site_a', client: 'app_y', person: 'per_1' },
  { grant: 'grt_bx1', site: 'site_b', client: 'app_x', person: 'per_1' },
];

async function seed(db: Kysely<Database>): Promise<void> {
  await insertSite(db, { id: 'site_a', name: 'A', origin: 'http://a.test', variant: 'A' });
  await insertSite(db, { id: 'site_b', name: 'B', origin: 'http://b.test', variant: 'A' });
  await insertPerson(db, { id: 'per_1', email: 'one@a.test', name: 'One' });
  await insertPerson(db, { id: 'per_2', email: 'two@a.test', name: 'Two' });
  for (const g of GRANTS) {
    await db
      .insertInto('grants')
      .values({
        id: g.grant,
        site_id: g.site,
        client_id: g.client,
        person_id: g.person,
        scope: 'openid',
        resource: '',
        created_at: NOW,
        revoked_at: g.revoked ? NOW : null,
      })
      .execute();
    const token = {
      site_id: g.site,
      grant_id: g.grant,
      client_id: g.client,
      person_id: g.person,
      scope: 'openid',
      resource: '',
      created_at: NOW,
      expires_at: NOW + 3_600_000,
    };
    await db
      .insertInto('access_tokens')
      .values({ ...token, token_hash: `at_${g.grant}` })
      .execute();
    await db
      .insertInto('refresh_tokens')
      .values({ ...token, token_hash: `rt_${g.grant}`, replay_sealed: 'sealed', replay_until: NOW + 60_000 })
      .execute();
  }
}

/** Which grants' tokens are live, per table, as the bearer check and the token endpoint look them up. */
async function liveTokens(db: Kysely<Database>) {
  const access: string[] = [];
  const refresh: string[] = [];
  for (const g of GRANTS) {
    if ((await findAccessTokenByHash(db, `at_${g.grant}`))?.revoked_at === null) access.push(g.grant);
    if ((await findRefreshTokenByHash(db, g.site, `rt_${g.grant}`))?.revoked_at === null) refresh.push(g.grant);
  }
  return { access: access.sort(), refresh: refresh.sort() };
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`revoking an app's tokens (${dialect})`, () => {
    let s: SchoolStore;
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      await seed(s.db);
    }, 60_000);
    afterAll(() => s?.close());

    it('starts with every token live but those under the grant already ended', async () => {
      const all = ['grt_bx1', 'grt_x1', 'grt_x2', 'grt_y1'];
      expect(await liveTokens(s.db)).toEqual({ access: all, refresh: all });
    });

    it('one person withdrawing an app ends only their tokens of it at this site', async () => {
      const ended = await withdrawPersonApp({ db: s.db, clock: LATER_CLOCK }, 'site_a', 'per_1', 'app_x');
      expect(ended).toBe(1);
      expect(await liveTokens(s.db)).toEqual({ access: ['grt_bx1', 'grt_x2', 'grt_y1'], refresh: ['grt_bx1', 'grt_x2', 'grt_y1'] });
      const token = await findAccessTokenByHash(s.db, 'at_grt_x1');
      expect(Number(token?.revoked_at)).toBe(LATER);
    });

    it('an operator revoking an app ends every token of it at this site, and no other app’s or site’s', async () => {
      const ended = await revokeAppAtSite({ db: s.db, clock: LATER_CLOCK }, 'site_a', 'app_x');
      expect(ended).toBe(1);
      expect(await liveTokens(s.db)).toEqual({ access: ['grt_bx1', 'grt_y1'], refresh: ['grt_bx1', 'grt_y1'] });
    });

    it('a person’s apps at a site are their consents and live grants there, and no one else’s', async () => {
      const apps = await personApps(s.db, 'site_a', 'per_2');
      expect(apps.map((app) => [app.clientId, app.hasLiveGrant])).toEqual([]);
      await s.db
        .insertInto('grants')
        .values({
          id: 'grt_z2',
          site_id: 'site_a',
          client_id: 'app_z',
          person_id: 'per_2',
          scope: 'openid',
          resource: '',
          created_at: LATER,
        })
        .execute();
      expect((await personApps(s.db, 'site_a', 'per_2')).map((app) => [app.clientId, app.hasLiveGrant])).toEqual([['app_z', true]]);
      expect((await personApps(s.db, 'site_b', 'per_2')).map((app) => app.clientId)).toEqual([]);
    });

    if (dialect === 'sqlite') {
      it('a revocation writes only the app’s live grants, found by an index (one person’s as well), and no token row', async () => {
        for (const [revoke, personal] of [
          [(db: Kysely<Database>) => revokeAppAtSite({ db, clock: LATER_CLOCK }, 'site_a', 'app_y'), false],
          [(db: Kysely<Database>) => revokeAppAtSite({ db, clock: LATER_CLOCK }, 'site_a', 'app_y', 'per_1'), true],
        ] as const) {
          const plans = await plansOf(s.db, 'update "grants"', revoke);
          expect(plans).toHaveLength(1);
          expect(plans[0]).toMatch(/^SEARCH grants USING INDEX grants_\w+ \(site_id=\? AND /);
          expect(plans[0]).toContain('client_id=?');
          if (personal) expect(plans[0]).toContain('person_id=?');
          expect(plans[0]).not.toMatch(/SCAN/);
          for (const table of ['access_tokens', 'refresh_tokens']) expect(await plansOf(s.db, `"${table}"`, revoke)).toEqual([]);
        }
      });

      it('a person’s apps read their own grants by migration 044’s index, not every grant of the site', async () => {
        const plans = await plansOf(s.db, 'from "grants"', (db) => personApps(db, 'site_a', 'per_1'));
        expect(plans).toEqual(['SEARCH grants USING INDEX grants_site_person (site_id=? AND person_id=?)']);
      });
    }
  });
}
