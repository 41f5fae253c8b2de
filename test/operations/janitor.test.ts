// Issue 8, "Operations": the janitor deletes what has expired (codes an hour past expiry, access tokens
// five minutes past it, refresh tokens, grants whose refresh family expired, sessions, stale sign-in counters, the audit log's routine
// token events past their retention), keeps everything still usable or kept for good, works in batches,
// reports to the metrics, and on PostgreSQL lets one node purge at a time.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findAccessTokenByHash } from '../../src/oauth/tokens/tokens.repository.js';
import { cli, cliEnv } from '../cli/cli-harness.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { DEMO_CLIENTS, expectTokens, getTokens, refresh, userInfo } from '../helpers/token-flow.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface Fixture {
  deadGrant: string;
  liveGrant: string;
  /** A live access token of the dead grant: kept until it expires, and refused once its grant is gone. */
  orphanAccess: string;
  ids: Record<string, { gone: string[]; kept: string[] }>;
}

/** Writes expired and live rows of every purged table; answers which must go and which must stay. */
async function seedExpiry(server: DemoServer, expiredTokens = 3): Promise<Fixture> {
  const db = server.store.db;
  const now = server.clock.now();
  const site = await db.selectFrom('sites').select('id').where('slug', '=', 'demo-academy').executeTakeFirstOrThrow();
  const person = await db.selectFrom('people').select('id').executeTakeFirstOrThrow();
  const base = { site_id: site.id, client_id: 'academy-member-app', person_id: person.id, scope: 'openid', resource: server.academy };
  const deadGrant = `g-dead-${randomUUID()}`;
  const liveGrant = `g-live-${randomUUID()}`;
  await db
    .insertInto('grants')
    .values([
      { ...base, id: deadGrant, created_at: now - 40 * DAY, revoked_at: null },
      { ...base, id: liveGrant, created_at: now - 40 * DAY, revoked_at: null },
    ])
    .execute();
  const ids: Fixture['ids'] = {};
  const add = (table: string, gone: string[], kept: string[]) => {
    ids[table] = { gone, kept };
  };
  const token = (grant: string, expiresAt: number) => ({
    ...base,
    token_hash: `h-${randomUUID()}`,
    grant_id: grant,
    created_at: now - 41 * DAY,
    expires_at: expiresAt,
    revoked_at: null,
  });

  const expiredAccess = Array.from({ length: expiredTokens }, (_, i) => token(i % 2 ? liveGrant : deadGrant, now - HOUR));
  const liveAccess = token(liveGrant, now + HOUR);
  const orphanAccess = token(deadGrant, now + HOUR);
  // Expired a minute ago: kept while a retried refresh rotation may still read it (up to 5 minutes).
  const justExpiredAccess = token(liveGrant, now - 60_000);
  await db
    .insertInto('access_tokens')
    .values([...expiredAccess, liveAccess, orphanAccess, justExpiredAccess])
    .execute();
  add(
    'access_tokens',
    expiredAccess.map((t) => t.token_hash),
    [liveAccess.token_hash, orphanAccess.token_hash, justExpiredAccess.token_hash],
  );

  const refreshRow = (grant: string, expiresAt: number, rotatedAt: number | null = null) => ({
    ...token(grant, expiresAt),
    rotated_at: rotatedAt,
    replay_sealed: null,
    replay_until: null,
  });
  // The dead grant's family ends with its head (never rotated) expired; the live grant's expired token is
  // one it rotated past, and its head lives on: the janitor ends a grant with its head (migration 050).
  const expiredRefresh = [refreshRow(deadGrant, now - 1), refreshRow(liveGrant, now - DAY, now - 31 * DAY)];
  const liveRefresh = refreshRow(liveGrant, now + 30 * DAY);
  await db
    .insertInto('refresh_tokens')
    .values([...expiredRefresh, liveRefresh])
    .execute();
  add(
    'refresh_tokens',
    expiredRefresh.map((t) => t.token_hash),
    [liveRefresh.token_hash],
  );

  const code = (expiresAt: number, consumed: boolean) => ({
    ...base,
    code_hash: `c-${randomUUID()}`,
    redirect_uri: 'http://127.0.0.1/cb',
    code_challenge: 'x',
    nonce: null,
    auth_time: now - 2 * DAY,
    created_at: expiresAt - 60_000,
    expires_at: expiresAt,
    consumed_at: consumed ? expiresAt - 30_000 : null,
    grant_id: null,
  });
  const oldCodes = [code(now - 2 * HOUR, true), code(now - DAY, false)];
  // Expired ten minutes ago: kept an hour, so a replay still revokes the first exchange's tokens.
  const recentCodes = [code(now - 10 * 60_000, true), code(now + 60_000, false)];
  await db
    .insertInto('authorization_codes')
    .values([...oldCodes, ...recentCodes])
    .execute();
  add(
    'authorization_codes',
    oldCodes.map((c) => c.code_hash),
    recentCodes.map((c) => c.code_hash),
  );

  const session = (expiresAt: number) => ({
    id_hash: `s-${randomUUID()}`,
    site_id: site.id,
    person_id: person.id,
    auth_time: now - DAY,
    created_at: now - DAY,
    expires_at: expiresAt,
  });
  const sessions = [session(now - 1), session(now + HOUR)];
  await db.insertInto('sessions').values(sessions).execute();
  add('sessions', [sessions[0]?.id_hash as string], [sessions[1]?.id_hash as string]);

  const counter = (updatedAt: number, lockedUntil: number) => ({
    site_id: site.id,
    email: `${randomUUID()}@demo.test`,
    failures: 2,
    locked_until: lockedUntil,
    updated_at: updatedAt,
  });
  const staleCounter = counter(now - 2 * DAY, 0);
  const keptCounters = [counter(now - HOUR, 0), counter(now - 2 * DAY, now + HOUR)];
  await db
    .insertInto('sign_in_throttle')
    .values([staleCounter, ...keptCounters])
    .execute();
  add(
    'sign_in_throttle',
    [staleCounter.email],
    keptCounters.map((c) => c.email),
  );

  // The audit log: routine token events go after token_event_retention_days (90 by default); security
  // events and operators' actions stay however old. Each row is told apart by its request id.
  const event = (kind: string, at: number) => ({
    site_id: site.id,
    at,
    kind,
    person_id: person.id,
    client_id: base.client_id,
    detail: '{}',
    target: null,
    request_id: `req-${randomUUID()}`,
  });
  const oldTokenEvents = [event('token.refreshed', now - 91 * DAY), event('token.issued', now - 200 * DAY)];
  const keptEvents = [
    event('token.refreshed', now - 89 * DAY),
    event('token.issued', now - HOUR),
    event('refresh.reuse_detected', now - 400 * DAY),
    event('token.revoked', now - 400 * DAY),
    event('sign_in.succeeded', now - 400 * DAY),
    event('operator.update_course', now - 400 * DAY),
  ];
  await db
    .insertInto('audit_events')
    .values([...oldTokenEvents, ...keptEvents])
    .execute();
  add(
    'audit_events',
    oldTokenEvents.map((e) => e.request_id),
    keptEvents.map((e) => e.request_id),
  );
  return { deadGrant, liveGrant, orphanAccess: orphanAccess.token_hash, ids };
}

const KEY: Record<string, string> = {
  access_tokens: 'token_hash',
  refresh_tokens: 'token_hash',
  authorization_codes: 'code_hash',
  sessions: 'id_hash',
  sign_in_throttle: 'email',
  audit_events: 'request_id',
};

async function present(server: DemoServer, table: string, keys: string[]): Promise<string[]> {
  const column = KEY[table] as string;
  const rows = await sql<
    Record<string, string>
  >`select ${sql.ref(column)} as k from ${sql.table(table)} where ${sql.ref(column)} in (${sql.join(keys)})`.execute(server.store.db);
  return rows.rows.map((r) => r.k as string);
}

async function expectPurged(server: DemoServer, fixture: Fixture): Promise<void> {
  for (const [table, { gone, kept }] of Object.entries(fixture.ids)) {
    expect(await present(server, table, gone), `${table}: expired rows`).toEqual([]);
    expect((await present(server, table, kept)).sort(), `${table}: live rows`).toEqual([...kept].sort());
  }
  const grants = await server.store.db
    .selectFrom('grants')
    .select('id')
    .where('id', 'in', [fixture.deadGrant, fixture.liveGrant])
    .execute();
  expect(grants.map((g) => g.id)).toEqual([fixture.liveGrant]);
  expect((await findAccessTokenByHash(server.store.db, fixture.orphanAccess))?.revoked_at, 'a token of a deleted grant').not.toBeNull();
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`janitor (${dialect})`, () => {
    let server: DemoServer;
    beforeAll(async () => {
      server = await startDemoServer(dialect, {
        env: { METRICS_TOKEN: 'metrics-token-for-the-scraper-0123456789' },
        platform: (p) => {
          p.janitor.batch_size = 10;
        },
      });
    });
    afterAll(() => server?.close());

    it('`schoolgate janitor --once` deletes every expired row and the grants whose refresh family expired, and keeps what is still usable', async () => {
      const client = DEMO_CLIENTS.academyApp;
      const tokens = await getTokens(server, client);
      const fixture = await seedExpiry(server);
      const result = await cli(
        ['janitor', '--once'],
        cliEnv(server.config.databaseUrl, { ASSETS_DIR: server.config.assetsDir }),
        server.clock,
      );
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^access_tokens +[3-9]\d* deleted$/m);
      expect(result.stdout).toMatch(/^grants +[1-9]\d* deleted$/m);
      expect(result.stdout).toMatch(/^audit_events +2 deleted$/m);
      await expectPurged(server, fixture);
      // The person's real tokens were untouched.
      expect((await userInfo(server.academy, tokens.access_token)).status).toBe(200);
      expectTokens(await refresh(server, client, tokens.refresh_token));
    });

    it('purges in batches (batch_size 10, 35 expired tokens) and counts the rows in the metrics', async () => {
      const fixture = await seedExpiry(server, 35);
      const report = await server.app.services.janitor.runOnce();
      expect(report?.access_tokens).toBe(35);
      expect(report?.grants).toBe(1);
      await expectPurged(server, fixture);
      const text = await (
        await fetch(`http://127.0.0.1:${server.port}/metrics`, {
          headers: { authorization: 'Bearer metrics-token-for-the-scraper-0123456789' },
        })
      ).text();
      expect(text).toMatch(/^schoolgate_janitor_purged_rows_total\{table="access_tokens"\} 35$/m);
      expect(text).toMatch(/^schoolgate_janitor_run_duration_seconds_count 1$/m);
    });

    it('keeps an access token past its expiry while a retried refresh rotation may still read it: the retry gets its answer after a run', async () => {
      const client = DEMO_CLIENTS.academyApp;
      const lifetimes = server.config.platform.lifetimes;
      const accessLifetime = lifetimes.access_token;
      try {
        // Access tokens shorter-lived than the grace window (10 s): the rotation's one expires within it.
        lifetimes.access_token = 2;
        const tokens = await getTokens(server, client);
        const rotated = await refresh(server, client, tokens.refresh_token);
        expectTokens(rotated);
        server.clock.advance(5_000);
        await server.app.services.janitor.runOnce();
        const retry = await refresh(server, client, tokens.refresh_token);
        expect(retry.status).toBe(200);
        expect(retry.body).toEqual(rotated.body);
      } finally {
        lifetimes.access_token = accessLifetime;
      }
    });

    // Only PostgreSQL deployments have several nodes; declared for it alone so CI skips nothing.
    if (dialect === 'postgres')
      it('lets one node purge at a time: a run that finds the lock taken does nothing and says so', async () => {
        const fixture = await seedExpiry(server);
        const other = new pg.Client({ connectionString: server.config.databaseUrl });
        await other.connect();
        try {
          await other.query('select pg_advisory_lock(7310001)');
          const result = await cli(
            ['janitor', '--once'],
            cliEnv(server.config.databaseUrl, { ASSETS_DIR: server.config.assetsDir }),
            server.clock,
          );
          expect(result.code).toBe(0);
          expect(result.stdout).toContain('Another node is purging');
          expect(await present(server, 'access_tokens', fixture.ids.access_tokens?.gone ?? [])).toHaveLength(3);
        } finally {
          await other.end();
        }
        expect(
          (await cli(['janitor', '--once'], cliEnv(server.config.databaseUrl, { ASSETS_DIR: server.config.assetsDir }), server.clock)).code,
        ).toBe(0);
        await expectPurged(server, fixture);
      });
  });
}
