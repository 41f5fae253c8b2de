// Secrets at rest (CONTRACT 2 SCHOOLGATE_SECRET, issue 2 section 4 "Tokens"): after full flows, no
// table holds an access token, refresh token, authorization code, session id, client secret or password
// in clear; signing keys are kept only sealed, and nothing of a refresh's answer is kept for its replay.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { DEMO, hiddenFields, person } from '../helpers/person.js';
import {
  authorizationUrl,
  DEMO_CLIENTS,
  type DemoClient,
  exchangeCode,
  expectTokens,
  getCode,
  pkcePair,
  refresh,
  userInfo,
} from '../helpers/token-flow.js';

const { academyApp, academyWeb, studioApp } = DEMO_CLIENTS;

interface Cell {
  table: string;
  column: string;
  value: string;
}

/** Every string value of every text column of every table. */
async function textCells(server: DemoServer): Promise<{ cells: Cell[]; tables: string[]; textColumns: number }> {
  const db = server.store.db;
  const tables = await db.introspection.getTables();
  const cells: Cell[] = [];
  let textColumns = 0;
  for (const table of tables) {
    const text = table.columns.filter((c) => /char|text|clob|json/i.test(c.dataType)).map((c) => c.name);
    textColumns += text.length;
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table.name)}`.execute(db);
    for (const row of rows.rows) {
      for (const [column, value] of Object.entries(row)) {
        if (typeof value === 'string') cells.push({ table: table.name, column, value });
        else if (text.includes(column) && value !== null) cells.push({ table: table.name, column, value: String(value) });
      }
    }
  }
  return { cells, tables: tables.map((t) => t.name), textColumns };
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`secrets at rest (${dialect})`, () => {
    let server: DemoServer;
    const secrets = new Map<string, string>();

    /** Signs in by hand (to see the session cookie), consents, exchanges, refreshes and calls UserInfo. */
    async function fullFlow(client: DemoClient, label: string): Promise<void> {
      const who = person('student');
      const origin = server[client.site];
      const url = authorizationUrl(server, client, pkcePair().challenge);
      const page = await who.request(url);
      expect(page.html).toContain('name="password"');
      const signedIn = await who.request(`${origin}/oauth/sign-in`, {
        form: { ...hiddenFields(page.html), email: DEMO.student.email, password: DEMO.student.password },
      });
      const cookie = signedIn.headers.getSetCookie().find((c) => c.startsWith('sg_session_'));
      const sessionId = cookie?.split(';')[0]?.split('=')[1];
      expect(sessionId).toBeTruthy();
      secrets.set(`${label} session id`, sessionId as string);

      const issued = await getCode(server, client, { who, nonce: 'n' });
      secrets.set(`${label} authorization code`, issued.code);
      secrets.set(`${label} code_verifier`, issued.verifier);
      const first = expectTokens(await exchangeCode(issued));
      const second = expectTokens(await refresh(server, client, first.refresh_token));
      // Leave a replay answer in place (within the grace window) and a second rotation behind it.
      const third = expectTokens(await refresh(server, client, second.refresh_token, { scope: 'openid email' }));
      expect((await userInfo(origin, third.access_token)).status).toBe(200);
      for (const [i, t] of [first, second, third].entries()) {
        secrets.set(`${label} access token ${i}`, t.access_token);
        secrets.set(`${label} refresh token ${i}`, t.refresh_token);
      }
      if (first.id_token) secrets.set(`${label} id token`, first.id_token);
      // A code that was issued but never exchanged.
      secrets.set(`${label} unused code`, (await getCode(server, client, { who })).code);
    }

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      await fullFlow(academyWeb, 'academy-member-web');
      await fullFlow(academyApp, 'academy-member-app');
      await fullFlow(studioApp, 'studio-member-app');
      secrets.set('client secret', academyWeb.secret);
      for (const who of Object.values(DEMO)) secrets.set(`password of ${who.email}`, who.password);
    });
    afterAll(() => server?.close());

    it('reads every text column of every table, including the token, code, session and client tables', async () => {
      const { tables, textColumns, cells } = await textCells(server);
      for (const t of [
        'access_tokens',
        'refresh_tokens',
        'authorization_codes',
        'sessions',
        'member_clients',
        'signing_keys',
        'grants',
        'audit_events',
      ]) {
        expect(tables).toContain(t);
      }
      expect(textColumns).toBeGreaterThan(40);
      expect(cells.some((c) => c.table === 'refresh_tokens' && c.column === 'token_hash')).toBe(true);

      // The scan sees a planted value, so an empty leak list below means something.
      const marker = `planted-${Date.now()}`;
      const site = await server.store.db.selectFrom('sites').select('id').executeTakeFirstOrThrow();
      await server.store.db
        .insertInto('audit_events')
        .values({ site_id: site.id, at: 0, kind: 'test.marker', person_id: null, client_id: null, detail: JSON.stringify({ marker }) })
        .execute();
      const after = await textCells(server);
      expect(after.cells.some((c) => c.table === 'audit_events' && c.value.includes(marker))).toBe(true);
      await server.store.db.deleteFrom('audit_events').where('kind', '=', 'test.marker').execute();
    });

    it('holds no access token, refresh token, code, code_verifier, session id, client secret or password in clear', async () => {
      const { cells } = await textCells(server);
      const leaks: string[] = [];
      for (const [label, secret] of secrets) {
        // The random body alone too: a token stored without its prefix (or its minting time) is still the token.
        const needles = [secret, secret.replace(/^sg[arc]_/, ''), secret.slice(-43)];
        for (const cell of cells) {
          if (needles.some((n) => cell.value.includes(n))) leaks.push(`${label} in ${cell.table}.${cell.column}`);
        }
      }
      expect(leaks).toEqual([]);
    });

    it('stores tokens, codes and sessions as their SHA-256 hashes', async () => {
      const db = server.store.db;
      // Access and refresh tokens are keyed by their minting time (12 hex digits) and the hash
      // (oauth/tokens/token-format.ts); the demo's seeded rows and tokens of the earlier shape by the hash alone.
      const tokenKeys = [
        ...(await db.selectFrom('access_tokens').select('token_hash as h').execute()),
        ...(await db.selectFrom('refresh_tokens').select('token_hash as h').execute()),
      ];
      const hashes = [
        ...(await db.selectFrom('authorization_codes').select('code_hash as h').execute()),
        ...(await db.selectFrom('sessions').select('id_hash as h').execute()),
      ];
      expect(tokenKeys.filter(({ h }) => /^[0-9a-f]{12}/.test(h)).length).toBeGreaterThan(3);
      expect(hashes.length).toBeGreaterThan(3);
      expect(tokenKeys.length + hashes.length).toBeGreaterThan(10);
      for (const { h } of tokenKeys) expect(h).toMatch(/^([0-9a-f]{12})?[A-Za-z0-9_-]{43}$/);
      for (const { h } of hashes) expect(h).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const client = await db
        .selectFrom('member_clients')
        .select('secret_hash')
        .where('client_id', '=', academyWeb.clientId)
        .executeTakeFirstOrThrow();
      expect(client.secret_hash).toBeTruthy();
      expect(client.secret_hash).not.toContain(academyWeb.secret);
    });

    it('keeps signing keys sealed: the private key column is not a JWK and no public JWK carries a private part', async () => {
      const keys = await server.store.db.selectFrom('signing_keys').selectAll().execute();
      expect(keys.length).toBeGreaterThanOrEqual(4);
      for (const key of keys) {
        expect(key.private_jwk_sealed).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
        expect(() => JSON.parse(key.private_jwk_sealed)).toThrow();
        expect(key.private_jwk_sealed).not.toContain('"d"');
        expect(key.private_jwk_sealed).not.toContain('"kty"');
        const pub = JSON.parse(key.public_jwk) as Record<string, unknown>;
        expect(pub.d).toBeUndefined();
        expect(pub.kty).toBe('EC');
        // The sealed body is not merely an encoding of the JWK.
        const body = Buffer.from(key.private_jwk_sealed.split('.')[2] as string, 'base64url').toString('latin1');
        expect(body).not.toContain('"d"');
        expect(body).not.toContain('P-256');
      }
    });

    it('keeps nothing of a refresh answer for its replay, not even sealed: a rotated token holds only its grace window', async () => {
      const rows = await server.store.db.selectFrom('refresh_tokens').select(['replay_sealed', 'replay_until', 'rotated_at']).execute();
      const rotated = rows.filter((r) => r.rotated_at !== null);
      expect(rotated.length).toBeGreaterThan(0);
      for (const r of rotated) expect(r.replay_until).toBe((r.rotated_at as number) + 10_000);
      for (const r of rows) expect(r.replay_sealed).toBeNull();
    });
  });
}
