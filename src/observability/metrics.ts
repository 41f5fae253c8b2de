// Prometheus metrics (prom-client), one registry per application so two apps in one process (tests, or a
// metrics listener beside the main one) never mix their numbers. Process metrics (CPU, memory, event loop,
// GC) are collected once per process and merged in at scrape time.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Checkpointer } from '../storage/sqlite-checkpointer.js';
import type { CacheStats } from './cache-stats.js';
import { RequestSeries } from './request-series.js';

let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry, prefix: 'schoolgate_' });
  }
  return processRegistry;
}

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

/** What the token cores report; a plain interface so the cores do not depend on prom-client. */
export interface TokenObserver {
  issued(grantType: string): void;
  refreshReuseDetected(): void;
}

export class Metrics implements TokenObserver {
  readonly registry = new Registry();
  /** Answers and their durations by route, method and status: counted outside prom-client (request-series.ts). */
  private readonly requests = new RequestSeries();
  private readonly tokens = new Counter({
    name: 'schoolgate_tokens_issued_total',
    help: 'Token responses issued, by grant type (refresh_token counts refreshes)',
    labelNames: ['grant_type'] as const,
    registers: [this.registry],
  });
  private readonly reuse = new Counter({
    name: 'schoolgate_refresh_reuse_detected_total',
    help: 'Rotated refresh tokens presented again after the grace period (the grant was revoked)',
    registers: [this.registry],
  });
  private readonly limited = new Counter({
    name: 'schoolgate_rate_limited_total',
    help: 'Requests refused with 429, by budget',
    labelNames: ['budget'] as const,
    registers: [this.registry],
  });
  private readonly counterFallbacks = new Counter({
    name: 'schoolgate_rate_limit_redis_fallbacks_total',
    help: 'Rate-limit counter operations answered by the node because Redis could not',
    registers: [this.registry],
  });
  readonly janitorPurged = new Counter({
    name: 'schoolgate_janitor_purged_rows_total',
    help: 'Expired rows deleted by the janitor, by table',
    labelNames: ['table'] as const,
    registers: [this.registry],
  });
  readonly janitorRuns = new Histogram({
    name: 'schoolgate_janitor_run_duration_seconds',
    help: 'Duration of janitor runs',
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60],
    registers: [this.registry],
  });

  /** Records one answered request; `route` is the route template, so the label set stays bounded. */
  observeRequest(route: string, method: string, status: number, seconds: number): void {
    this.requests.observe(route, method, status, seconds);
  }

  issued(grantType: string): void {
    this.tokens.inc({ grant_type: grantType });
  }

  refreshReuseDetected(): void {
    this.reuse.inc();
  }

  rateLimited(budget: string): void {
    this.limited.inc({ budget });
  }

  redisFallback(): void {
    this.counterFallbacks.inc();
  }

  /** Exposes the caches' hit and miss counts, read at scrape time. */
  watchCaches(caches: Record<string, CacheStats>): void {
    new Counter({
      name: 'schoolgate_cache_lookups_total',
      help: 'In-process cache lookups, by cache and result (hit or miss)',
      labelNames: ['cache', 'result'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [cache, stats] of Object.entries(caches)) {
          this.inc({ cache, result: 'hit' }, stats.hits);
          this.inc({ cache, result: 'miss' }, stats.misses);
        }
      },
    });
  }

  /** Group commit (SQLite): refresh rotations and the transactions they shared; units per transaction is the batching. */
  watchGroupCommit(stats: { readonly transactions: number; readonly units: number; readonly reruns: number }): void {
    new Counter({
      name: 'schoolgate_group_commit_total',
      help: 'Refresh rotations committed in groups (one transaction on SQLite, one statement on PostgreSQL), by what is counted: units (rotations), transactions, or reruns (batches run again unit by unit after a unit threw or the statement failed)',
      labelNames: ['counted'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc({ counted: 'units' }, stats.units);
        this.inc({ counted: 'transactions' }, stats.transactions);
        this.inc({ counted: 'reruns' }, stats.reruns);
      },
    });
  }

  /**
   * The SQLite checkpoint worker (storage/sqlite-checkpointer.ts): checkpoints run, how many restarted the
   * log, and the frames in the log at the latest one. A log that keeps growing means restarts are failing.
   */
  watchCheckpoints(checkpoints: Pick<Checkpointer, 'runs' | 'restarts' | 'catchUps' | 'last'>): void {
    new Counter({
      name: 'schoolgate_sqlite_checkpoints_total',
      help: 'Checkpoints of the SQLite log by the checkpoint worker, by kind: all scheduled runs, restarts of the log, or copies run again just before a restart (catch_up)',
      labelNames: ['kind'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc({ kind: 'all' }, checkpoints.runs);
        this.inc({ kind: 'restart' }, checkpoints.restarts);
        this.inc({ kind: 'catch_up' }, checkpoints.catchUps);
      },
    });
    new Gauge({
      name: 'schoolgate_sqlite_log_frames',
      help: 'Frames (pages) in the SQLite log at the latest checkpoint',
      registers: [this.registry],
      collect() {
        this.set(checkpoints.last?.log ?? 0);
      },
    });
  }

  /** Exposes the database connection pool (PostgreSQL), read at scrape time. */
  watchPool(read: () => PoolStats): void {
    new Gauge({
      name: 'schoolgate_db_pool_connections',
      help: 'Database pool connections by state (total, idle, waiting requests)',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        const stats = read();
        this.set({ state: 'total' }, stats.total);
        this.set({ state: 'idle' }, stats.idle);
        this.set({ state: 'waiting' }, stats.waiting);
      },
    });
  }

  async scrape(): Promise<{ contentType: string; body: string }> {
    const merged = Registry.merge([this.registry, processMetrics()]);
    // prom-client ends its text with a line feed; a blank line separates one metric from the next.
    return { contentType: this.registry.contentType, body: `${await merged.metrics()}\n${this.requests.text()}` };
  }
}
