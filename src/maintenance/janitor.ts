// The janitor deletes what can no longer be used: expired authorization codes, access and refresh tokens,
// the grants whose refresh family has expired, expired sessions and stale sign-in counters, and what
// is kept only for a while: the apps' usage log and the audit log's routine token events. It
// works in small batches through the expiry indexes (migration 003) with a pause between them, so live
// requests keep their latency while a million rows go; on PostgreSQL an advisory lock keeps the nodes of
// a deployment from purging at the same time.
import { type Kysely, sql } from 'kysely';
import type { AuditKind } from '../audit/audit-log.js';
import { REFRESH_GRACE_MAX_SECONDS } from '../config/config.js';
import { DAY_MS, utcDayOf } from '../kernel/calendar-days.js';
import type { Clock } from '../kernel/clock.js';
import type { Dialect } from '../storage/connect.js';
import type { Database } from '../storage/schema.js';
import { RepeatingJob } from './repeating-job.js';

export interface JanitorOptions {
  /** Rows per DELETE. */
  batchSize: number;
  /** Shortest pause between batches, milliseconds. */
  pauseMs: number;
  /** The share of time (0 to 1) a run may spend in batches; the rest is left to live requests. */
  share: number;
  /** Days of the app usage log (members' access log, connection counts) kept; older days are purged. */
  accessLogRetentionDays: number;
  /** Days the audit log keeps its ROUTINE_TOKEN_EVENTS; older ones are purged, other events never. */
  tokenEventRetentionDays: number;
}

/**
 * How long an expired access token is kept: a retry of a refresh rotation within its grace window is answered
 * from the new access token's row (oauth/token/grant-types/refresh-token.ts), which may expire first when
 * access tokens live shorter than that window.
 */
const ACCESS_TOKEN_KEPT_MS = REFRESH_GRACE_MAX_SECONDS * 1000;

export const JANITOR_DEFAULTS: JanitorOptions = {
  batchSize: 200,
  pauseMs: 2,
  share: 0.25,
  accessLogRetentionDays: 90,
  tokenEventRetentionDays: 90,
};

/**
 * The audit events written for every code exchange and every refresh rotation: a busy site writes them by
 * the million, so they are kept like the usage log, for a number of days. Sign-ins, consents, revocations,
 * detected reuse and replays, and every operator's and member's own action stay for good.
 */
export const ROUTINE_TOKEN_EVENTS = ['token.issued', 'token.refreshed'] as const satisfies readonly AuditKind[];

/** The options of the platform config's `janitor` section. */
export function janitorOptions(section: {
  batch_size: number;
  pause_ms: number;
  share: number;
  access_log_retention_days: number;
  token_event_retention_days: number;
}): JanitorOptions {
  return {
    batchSize: section.batch_size,
    pauseMs: section.pause_ms,
    share: section.share,
    accessLogRetentionDays: section.access_log_retention_days,
    tokenEventRetentionDays: section.token_event_retention_days,
  };
}

/**
 * A consumed code is kept an hour past its expiry: a replay within that time still finds it and revokes
 * the tokens of the first exchange (RFC 6749 4.1.2); later the replay is simply an unknown code.
 */
const CODE_RETENTION_MS = 60 * 60 * 1000;
/** Failed-sign-in counters untouched for a day start again from zero. */
const SIGN_IN_COUNTER_RETENTION_MS = 24 * 60 * 60 * 1000;
/** Any number that names this job among the deployment's advisory locks. */
const ADVISORY_LOCK_KEY = 7_310_001;

export const PURGED_TABLES = [
  'authorization_codes',
  'access_tokens',
  'refresh_tokens',
  'grants',
  'sessions',
  'sign_in_throttle',
  'idempotency_keys',
  'confirmation_uses',
  'app_usage',
  'audit_events',
] as const;
export type PurgedTable = (typeof PURGED_TABLES)[number];
export type PurgeReport = Record<PurgedTable, number>;

export interface JanitorObserver {
  purged(table: PurgedTable, rows: number): void;
  ran(seconds: number): void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class Janitor {
  private readonly schedule = new RepeatingJob(() => this.run());

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly clock: Clock,
    private readonly observer: JanitorObserver = { purged: () => {}, ran: () => {} },
    private readonly options: JanitorOptions = JANITOR_DEFAULTS,
  ) {}

  /**
   * Purges everything expired now; answers what it deleted, or undefined when another node holds the
   * lock (PostgreSQL) and this run was skipped.
   */
  runOnce(): Promise<PurgeReport | undefined> {
    return this.schedule.runOnce();
  }

  /** Runs every `intervalMs` (first run after one interval) until stop(). */
  start(intervalMs: number, onError: (err: unknown) => void): void {
    this.schedule.start(intervalMs, onError);
  }

  /** Stops the schedule and waits for a run in progress to finish its current batch. */
  stop(): Promise<void> {
    return this.schedule.stop();
  }

  private async run(): Promise<PurgeReport | undefined> {
    const started = performance.now();
    if (this.dialect === 'sqlite') {
      const report = await this.purgeAll(this.db);
      this.observer.ran((performance.now() - started) / 1000);
      return report;
    }
    // One connection for the whole run: a session advisory lock belongs to the connection that took it.
    return this.db.connection().execute(async (conn) => {
      const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_lock(${ADVISORY_LOCK_KEY}) as locked`.execute(conn);
      if (!rows[0]?.locked) return undefined;
      try {
        const report = await this.purgeAll(conn);
        this.observer.ran((performance.now() - started) / 1000);
        return report;
      } finally {
        await sql`select pg_advisory_unlock(${ADVISORY_LOCK_KEY})`.execute(conn);
      }
    });
  }

  private async purgeAll(db: Kysely<Database>): Promise<PurgeReport> {
    const now = this.clock.now();
    const report: PurgeReport = {
      authorization_codes: 0,
      access_tokens: 0,
      refresh_tokens: 0,
      grants: 0,
      sessions: 0,
      sign_in_throttle: 0,
      idempotency_keys: 0,
      confirmation_uses: 0,
      app_usage: 0,
      audit_events: 0,
    };
    const count = (table: PurgedTable, rows: number) => {
      report[table] += rows;
      if (rows > 0) this.observer.purged(table, rows);
    };
    const n = this.options.batchSize;

    await this.batches(async () => {
      const rows = await db
        .deleteFrom('authorization_codes')
        .where(
          'code_hash',
          'in',
          db
            .selectFrom('authorization_codes')
            .select('code_hash')
            .where('expires_at', '<', now - CODE_RETENTION_MS)
            .limit(n),
        )
        .executeTakeFirst();
      return this.counted(count, 'authorization_codes', rows.numDeletedRows);
    });

    await this.batches(async () => {
      const rows = await db
        .deleteFrom('access_tokens')
        .where(
          'token_hash',
          'in',
          db
            .selectFrom('access_tokens')
            .select('token_hash')
            .where('expires_at', '<', now - ACCESS_TOKEN_KEPT_MS)
            .limit(n),
        )
        .executeTakeFirst();
      return this.counted(count, 'access_tokens', rows.numDeletedRows);
    });

    await this.batches(async () => {
      const deleted = await db
        .deleteFrom('refresh_tokens')
        .where('token_hash', 'in', db.selectFrom('refresh_tokens').select('token_hash').where('expires_at', '<', now).limit(n))
        .returning(['grant_id', 'rotated_at'])
        .execute();
      count('refresh_tokens', deleted.length);
      // A grant ends with the head of its refresh family, the one token never rotated: every code
      // exchange issues one, each rotation hands the head on, and it outlives the rest of the family and
      // (with an access lifetime no longer than the refresh lifetime) every access token. The tokens are
      // not indexed by grant (migration 050), so this is how the grants left without a usable token are
      // found; a token still stored under a deleted grant is refused and deleted when it expires.
      const ended = [...new Set(deleted.filter((r) => r.rotated_at === null).map((r) => r.grant_id))];
      if (ended.length > 0) {
        const grants = await db.deleteFrom('grants').where('id', 'in', ended).executeTakeFirst();
        count('grants', Number(grants.numDeletedRows));
      }
      return deleted.length;
    });

    await this.batches(async () => {
      const rows = await db
        .deleteFrom('sessions')
        .where('id_hash', 'in', db.selectFrom('sessions').select('id_hash').where('expires_at', '<', now).limit(n))
        .executeTakeFirst();
      return this.counted(count, 'sessions', rows.numDeletedRows);
    });

    await this.batches(async () => {
      const stale = await db
        .selectFrom('sign_in_throttle')
        .select(['site_id', 'email'])
        .where('updated_at', '<', now - SIGN_IN_COUNTER_RETENTION_MS)
        .where('locked_until', '<', now)
        .limit(n)
        .execute();
      if (stale.length === 0) return 0;
      const rows = await db
        .deleteFrom('sign_in_throttle')
        .where((eb) => eb.or(stale.map((r) => eb.and([eb('site_id', '=', r.site_id), eb('email', '=', r.email)]))))
        .where('updated_at', '<', now - SIGN_IN_COUNTER_RETENTION_MS)
        .executeTakeFirst();
      return this.counted(count, 'sign_in_throttle', rows.numDeletedRows);
    });

    // Operator API answers kept for Idempotency-Key replays (24 h) and used MCP confirmation tokens.
    await this.batches(async () => {
      const rows = await sql`delete from idempotency_keys where (site_id, client_id, idempotency_key) in
        (select site_id, client_id, idempotency_key from idempotency_keys where expires_at < ${now} limit ${sql.lit(n)})`.execute(db);
      return this.counted(count, 'idempotency_keys', rows.numAffectedRows ?? 0n);
    });
    await this.batches(async () => {
      const rows = await db
        .deleteFrom('confirmation_uses')
        .where('token_hash', 'in', db.selectFrom('confirmation_uses').select('token_hash').where('expires_at', '<', now).limit(n))
        .executeTakeFirst();
      return this.counted(count, 'confirmation_uses', rows.numDeletedRows);
    });
    // The usage log keeps whole UTC days: a day goes once all of it is older than the retention.
    const oldestKept = utcDayOf(now - this.options.accessLogRetentionDays * DAY_MS);
    await this.batches(async () => {
      const rows = await sql`delete from app_usage where (site_id, client_id, person_id, day, what) in
        (select site_id, client_id, person_id, day, what from app_usage where day < ${oldestKept} limit ${sql.lit(n)})`.execute(db);
      return this.counted(count, 'app_usage', rows.numAffectedRows ?? 0n);
    });
    // Through the (kind, at) index of migration 018: one range per kind, never the events that are kept.
    const tokenEventsBefore = now - this.options.tokenEventRetentionDays * DAY_MS;
    await this.batches(async () => {
      const rows = await db
        .deleteFrom('audit_events')
        .where(
          'id',
          'in',
          db.selectFrom('audit_events').select('id').where('kind', 'in', ROUTINE_TOKEN_EVENTS).where('at', '<', tokenEventsBefore).limit(n),
        )
        .executeTakeFirst();
      return this.counted(count, 'audit_events', rows.numDeletedRows);
    });
    return report;
  }

  private counted(count: (table: PurgedTable, rows: number) => void, table: PurgedTable, rows: bigint): number {
    count(table, Number(rows));
    return Number(rows);
  }

  /**
   * Runs `batch` until it deletes less than a full batch. Between batches it pauses in proportion to how
   * long the last one took, so the janitor holds the database (and, on SQLite, the event loop) for at
   * most `share` of the time, however slow the disk: live requests keep the rest.
   */
  private async batches(batch: () => Promise<number>): Promise<void> {
    const { batchSize, pauseMs, share } = this.options;
    for (;;) {
      const started = performance.now();
      const deleted = await batch();
      if (deleted < batchSize || this.schedule.stopped) return;
      const took = performance.now() - started;
      await sleep(Math.max(pauseMs, (took * (1 - share)) / share));
    }
  }
}
