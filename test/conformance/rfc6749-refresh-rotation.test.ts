// RFC 6749 6 with rotation (RFC 9700 4.14.2), issue 2 section 4 and INTEROP "Refresh tokens": every use
// rotates; a retry or a racing twin inside the grace window gets the same answer; reuse after the window
// ends the whole grant; scope may narrow but never widen; refresh answers never carry an id_token.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretKeyObjects } from '../../src/keys/secret-keys.js';
import { tokenKey } from '../../src/oauth/tokens/token-format.js';
import { findRefreshTokenByHash } from '../../src/oauth/tokens/tokens.repository.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { DEMO, type Person, person } from '../helpers/person.js';
import {
  DEMO_CLIENTS,
  expectTokens,
  type FormResponse,
  FULL_SCOPE,
  getTokens,
  refresh,
  revoke,
  type TokenSet,
  userInfo,
} from '../helpers/token-flow.js';

const { academyApp, academyWeb, studioApp } = DEMO_CLIENTS;
const GRACE_MS = 10_000;

function expectInvalidGrant(res: FormResponse): void {
  expect(res.status).toBe(400);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.body.error).toBe('invalid_grant');
  expect(typeof res.body.error_description).toBe('string');
}

async function grantOf(server: DemoServer, accessToken: string): Promise<string> {
  const row = await server.store.db
    .selectFrom('access_tokens')
    .select('grant_id')
    .where('token_hash', '=', tokenKey(accessToken))
    .executeTakeFirstOrThrow();
  return row.grant_id;
}

/** The grant's refresh tokens as the token endpoint reads them: a revoked grant's are revoked (migration 050). */
async function refreshRows(server: DemoServer, grantId: string) {
  const stored = await server.store.db
    .selectFrom('refresh_tokens')
    .select(['site_id', 'token_hash'])
    .where('grant_id', '=', grantId)
    .execute();
  return Promise.all(
    stored.map(async (r) => {
      const row = await findRefreshTokenByHash(server.store.db, r.site_id, r.token_hash);
      if (!row) throw new Error(`refresh token ${r.token_hash} not found by its lookup`);
      return row;
    }),
  );
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`RFC 6749 6 refresh with rotation (${dialect})`, () => {
    let server: DemoServer;
    let student: Person;

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      student = person('student');
    });
    afterAll(() => server?.close());

    it('returns a new refresh token and a new access token on every use, with the token response shape and no-store', async () => {
      const first = await getTokens(server, academyApp, { who: student });
      const seen = new Set([first.refresh_token]);
      let current = first;
      for (let i = 0; i < 3; i++) {
        const res = await refresh(server, academyApp, current.refresh_token);
        expect(res.status).toBe(200);
        expect(res.headers.get('cache-control')).toBe('no-store');
        const next = expectTokens(res);
        expect(Object.keys(next).sort()).toEqual(['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type']);
        expect(next.token_type).toBe('Bearer');
        expect(next.expires_in).toBe(3600);
        expect(next.scope).toBe(FULL_SCOPE);
        expect(seen.has(next.refresh_token)).toBe(false);
        expect(next.access_token).not.toBe(current.access_token);
        seen.add(next.refresh_token);
        expect((await userInfo(server.academy, next.access_token)).status).toBe(200);
        current = next;
      }
    });

    it('never carries an id_token in a refresh response, even for an openid grant', async () => {
      const first = await getTokens(server, academyApp, { who: student, nonce: 'n' });
      expect(first.id_token).toBeDefined();
      const res = await refresh(server, academyApp, first.refresh_token);
      expect(res.status).toBe(200);
      expect('id_token' in res.body).toBe(false);
    });

    it('answers a reuse of the old token within the grace window with the same access and refresh token', async () => {
      const first = await getTokens(server, academyApp, { who: student });
      const a = expectTokens(await refresh(server, academyApp, first.refresh_token));
      server.clock.advance(GRACE_MS - 2_000);
      const b = expectTokens(await refresh(server, academyApp, first.refresh_token));
      expect(b).toEqual(a);
      // Nothing was revoked: the newest pair works and rotates on.
      expect((await userInfo(server.academy, a.access_token)).status).toBe(200);
      expectTokens(await refresh(server, academyApp, a.refresh_token));
    });

    it('gives two concurrent refreshes of one token the same answer and creates only one new token pair', async () => {
      const first = await getTokens(server, academyApp, { who: student });
      const grantId = await grantOf(server, first.access_token);
      const [x, y] = await Promise.all([
        refresh(server, academyApp, first.refresh_token),
        refresh(server, academyApp, first.refresh_token),
      ]);
      const tx = expectTokens(x);
      const ty = expectTokens(y);
      expect(ty).toEqual(tx);
      const rows = await refreshRows(server, grantId);
      expect(rows).toHaveLength(2);
      expect(rows.filter((r) => r.rotated_at === null)).toHaveLength(1);
      const access = await server.store.db.selectFrom('access_tokens').select('token_hash').where('grant_id', '=', grantId).execute();
      expect(access).toHaveLength(2);
      expect((await userInfo(server.academy, tx.access_token)).status).toBe(200);
    });

    it('gives five concurrent refreshes of one token one answer and one rotation', async () => {
      const first = await getTokens(server, academyApp, { who: student });
      const grantId = await grantOf(server, first.access_token);
      const results = (await Promise.all(Array.from({ length: 5 }, () => refresh(server, academyApp, first.refresh_token)))).map(
        expectTokens,
      );
      for (const r of results) expect(r).toEqual(results[0]);
      expect(await refreshRows(server, grantId)).toHaveLength(2);
    });

    it('treats reuse after the grace window as theft: invalid_grant, the whole grant revoked, refresh.reuse_detected audited', async () => {
      const first = await getTokens(server, academyApp, { who: student });
      const second = expectTokens(await refresh(server, academyApp, first.refresh_token));
      const third = expectTokens(await refresh(server, academyApp, second.refresh_token));
      server.clock.advance(GRACE_MS + 1_000);

      expectInvalidGrant(await refresh(server, academyApp, first.refresh_token));

      // The newest tokens of the grant stop working too.
      expect((await userInfo(server.academy, third.access_token)).status).toBe(401);
      expectInvalidGrant(await refresh(server, academyApp, third.refresh_token));
      const grantId = await grantOf(server, third.access_token);
      const grant = await server.store.db.selectFrom('grants').select('revoked_at').where('id', '=', grantId).executeTakeFirstOrThrow();
      expect(grant.revoked_at).not.toBeNull();
      for (const row of await refreshRows(server, grantId)) expect(row.revoked_at).not.toBeNull();

      const events = await server.store.db
        .selectFrom('audit_events')
        .select(['kind', 'client_id', 'detail'])
        .where('kind', '=', 'refresh.reuse_detected')
        .execute();
      expect(events.length).toBeGreaterThanOrEqual(1);
      expect(events.some((e) => e.client_id === academyApp.clientId)).toBe(true);
      for (const e of events) {
        expect(e.detail).not.toContain(first.refresh_token);
        expect(e.detail).not.toContain(third.access_token);
      }
    });

    it('keeps nothing of the replay answer (the retry computes it again from the used token) and replays nothing once the grant is revoked', async () => {
      const first = await getTokens(server, academyApp, { who: student });
      const second = expectTokens(await refresh(server, academyApp, first.refresh_token));
      const grantId = await grantOf(server, first.access_token);
      const old = (await refreshRows(server, grantId)).find((r) => r.token_hash === tokenKey(first.refresh_token));
      expect(old?.replay_sealed).toBeNull();
      expect(old?.replay_until).toBe((old?.rotated_at ?? 0) + GRACE_MS);
      // Within the window the retry gets the same answer, computed again from the used token; a refresh
      // token of the same shape that was never issued gets nothing.
      expect((await refresh(server, academyApp, first.refresh_token)).body).toEqual(second);
      const forged = `${first.refresh_token.slice(0, -4)}${first.refresh_token.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
      expectInvalidGrant(await refresh(server, academyApp, forged));

      expect((await revoke(server, academyApp, second.refresh_token)).status).toBe(200);
      for (const row of await refreshRows(server, grantId)) expect(row.revoked_at).not.toBeNull();
      // A revoked grant is not replayed, even inside the window; and what the sealed answer holds is
      // refused as well, should its holder have kept it.
      expectInvalidGrant(await refresh(server, academyApp, first.refresh_token));
      expect((await userInfo(server.academy, second.access_token)).status).toBe(401);
      expectInvalidGrant(await refresh(server, academyApp, second.refresh_token));
    });

    it('answers a retry within the window across a change of secret while the previous secret is set, and not once it is gone', async () => {
      const first = await getTokens(server, academyApp, { who: student });
      const second = expectTokens(await refresh(server, academyApp, first.refresh_token, { scope: 'openid account:read' }));
      // As a node restarted on a new SCHOOLGATE_SECRET with SCHOOLGATE_PREVIOUS_SECRET set, then without it.
      const ctx = server.app.services.tokenContext;
      const before = ctx.successorKeys;
      const changed = secretKeyObjects(
        { secret: randomBytes(32).toString('base64url'), previousSecret: server.config.secret },
        'refresh-successors',
      );
      try {
        ctx.successorKeys = changed;
        const retry = await refresh(server, academyApp, first.refresh_token);
        expect(retry.status).toBe(200);
        // The rotation's own answer: its narrowed scope and lifetime, read back from the access token it wrote.
        expect(retry.body).toEqual(second);
        ctx.successorKeys = [changed[0]];
        expectInvalidGrant(await refresh(server, academyApp, first.refresh_token));
      } finally {
        ctx.successorKeys = before;
      }
      // Not answered, the retry was taken for reuse: the grant is over.
      expect((await userInfo(server.academy, second.access_token)).status).toBe(401);
    });

    it('narrows the access token scope on request and still gives the original scope on the next refresh', async () => {
      const first = await getTokens(server, academyApp, { who: student });
      const narrow = expectTokens(await refresh(server, academyApp, first.refresh_token, { scope: 'openid account:read' }));
      expect(narrow.scope).toBe('openid account:read');
      const claims = await userInfo(server.academy, narrow.access_token);
      expect(claims.status).toBe(200);
      expect(claims.body.email).toBeUndefined();
      expect(claims.body.name).toBeUndefined();

      const full = expectTokens(await refresh(server, academyApp, narrow.refresh_token));
      expect(full.scope).toBe(FULL_SCOPE);
      expect((await userInfo(server.academy, full.access_token)).body.email).toBe(DEMO.student.email);
      const again = expectTokens(await refresh(server, academyApp, full.refresh_token, { scope: FULL_SCOPE }));
      expect(again.scope).toBe(FULL_SCOPE);
    });

    it('refuses to widen the scope with invalid_scope and leaves the token usable', async () => {
      const first = await getTokens(server, academyApp, { who: student, scope: 'openid account:read' });
      for (const scope of ['openid account:read account:write', 'email', 'openid courses:read']) {
        const res = await refresh(server, academyApp, first.refresh_token, { scope });
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('invalid_scope');
      }
      expect(expectTokens(await refresh(server, academyApp, first.refresh_token)).scope).toBe('openid account:read');
    });

    it('refuses a refresh token presented by another client with invalid_grant and leaves it usable by its own client', async () => {
      const first = await getTokens(server, academyApp, { who: student });
      expectInvalidGrant(await refresh(server, academyWeb, first.refresh_token));
      expectTokens(await refresh(server, academyApp, first.refresh_token));
    });

    it('refuses a refresh token of another site with invalid_grant', async () => {
      const studioTokens = await getTokens(server, studioApp, { who: person('student') });
      const res = await refresh(server, academyApp, studioTokens.refresh_token);
      expectInvalidGrant(res);
      expectTokens(await refresh(server, studioApp, studioTokens.refresh_token));
    });

    it('refuses an unknown refresh token with invalid_grant and a missing one with invalid_request', async () => {
      expectInvalidGrant(await refresh(server, academyApp, 'sgr_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'));
      const res = await refresh(server, academyApp, '');
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_request');
    });

    it('refuses a resource other than this origin with invalid_target', async () => {
      const first = await getTokens(server, academyApp, { who: student });
      const res = await refresh(server, academyApp, first.refresh_token, { resource: server.studio });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_target');
      expectTokens(await refresh(server, academyApp, first.refresh_token, { resource: `${server.academy}/` }));
    });

    it('refuses a confidential client without its secret with 401 invalid_client', async () => {
      const first = await getTokens(server, academyWeb, { who: student });
      const res = await refresh(server, { ...academyWeb, secret: undefined }, first.refresh_token);
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('invalid_client');
      expectTokens(await refresh(server, academyWeb, first.refresh_token));
    });

    it('stops refreshing for a person who lost their role at the site', async () => {
      const lecturer = person('lecturer');
      const tokens = await getTokens(server, academyApp, { who: lecturer });
      const latest = expectTokens(await refresh(server, academyApp, tokens.refresh_token));
      const row = await server.store.db
        .selectFrom('people')
        .select('id')
        .where('email', '=', DEMO.lecturer.email)
        .executeTakeFirstOrThrow();
      await server.store.db.deleteFrom('site_roles').where('person_id', '=', row.id).execute();
      // Whoever changes roles announces it (people.repository.ts), as the CLI does.
      await server.app.services.signals.publish({ kind: 'flush' });

      expectInvalidGrant(await refresh(server, academyApp, latest.refresh_token));
      expect((await userInfo(server.academy, latest.access_token)).status).toBe(401);
    });

    it('refuses an expired refresh token (older than 30 days) with invalid_grant', async () => {
      const first = await getTokens(server, academyApp, { who: student });
      server.clock.advance(30 * 24 * 3600 * 1000 + 1_000);
      expectInvalidGrant(await refresh(server, academyApp, first.refresh_token));
    });
  });

  describe.skipIf(skipDialect(dialect))(`RFC 6749 6 refresh with refresh_grace 0 (${dialect})`, () => {
    let server: DemoServer;

    beforeAll(async () => {
      server = await startDemoServer(dialect, {
        platform: (p) => {
          p.lifetimes.refresh_grace = 0;
        },
      });
    });
    afterAll(() => server?.close());

    it('revokes the grant on an immediate reuse when the grace window is off', async () => {
      const first: TokenSet = await getTokens(server, academyApp);
      const second = expectTokens(await refresh(server, academyApp, first.refresh_token));
      const grantId = await grantOf(server, first.access_token);
      for (const row of await refreshRows(server, grantId)) expect(row.replay_sealed).toBeNull();

      expectInvalidGrant(await refresh(server, academyApp, first.refresh_token));
      expect((await userInfo(server.academy, second.access_token)).status).toBe(401);
      expectInvalidGrant(await refresh(server, academyApp, second.refresh_token));
      const events = await server.store.db.selectFrom('audit_events').select('kind').where('kind', '=', 'refresh.reuse_detected').execute();
      expect(events).toHaveLength(1);
    });
  });
}
