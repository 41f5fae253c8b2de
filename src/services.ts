// The long-lived parts of a running application, built once from AppDeps and shared by the routes.
import type { Kysely } from 'kysely';
import { Redis } from 'ioredis';
import type { AppDeps } from './app-deps.js';
import { createCimdResolver } from './clients/cimd/resolver.js';
import { type ClientResolver, createClientResolver } from './clients/resolve-client.js';
import type { Config } from './config/config.js';
import type { Clock } from './kernel/clock.js';
import { secretKeyObjects, secretKeys } from './keys/secret-keys.js';
import { KeyCache } from './keys/key-cache.js';
import { signingKeyDecryptionKeys } from './keys/signing-keys.js';
import { type BearerChecker, createBearerChecker } from './oauth/bearer.js';
import { createStandingCheck, type StandingCheck } from './oauth/standing.js';
import type { TokenContext } from './oauth/token/token-context.js';
import { AccessTokenCache } from './oauth/tokens/access-token-cache.js';
import { CATALOGUE_ENTRIES, LEARNING_ENTRIES, SchoolReadCache } from './school/school-read-cache.js';
import { redisNames } from './storage/redis-names.js';
import { createRevocationSignals, type RevocationSignals } from './storage/revocation-signals.js';
import { FreshRefreshTokens } from './oauth/tokens/fresh-refresh-tokens.js';
import { PostgresRotations } from './oauth/tokens/postgres-rotations.js';
import { CoherentCache } from './storage/coherent-cache.js';
import { GroupCommit } from './storage/group-commit.js';
import { findPersonWithRoles, type PersonLookup, type PersonWithRoles } from './people/people.repository.js';
import { findMemberApp } from './clients/member-apps.repository.js';
import { type ClientDecision, findClientDecision } from './clients/site-client-decisions.repository.js';
import { UsageRecorder } from './usage/usage-recorder.js';
import type { MemberClientsTable } from './storage/schema.js';
import { SiteDirectory } from './sites/site-directory.js';
import type { Database } from './storage/schema.js';
import { MemoryCounterStore, RedisCounterStore } from './throttle/counter-store.js';
import { Throttle } from './throttle/throttle.js';
import { BackChannelLimits } from './oauth/token/back-channel-limits.js';
import { Metrics } from './observability/metrics.js';
import type { AssetStore } from './assets/asset-store.js';
import { configuredAssetStore } from './assets/configured-asset-store.js';
import { Janitor, janitorOptions } from './maintenance/janitor.js';
import { PostAnnouncer } from './maintenance/post-announcer.js';
import { ConfirmationTokens } from './operations/confirmation.js';

export interface Services {
  config: Config;
  db: Kysely<Database>;
  clock: Clock;
  sites: SiteDirectory;
  keys: KeyCache;
  clients: ClientResolver;
  tokenContext: TokenContext;
  /** The one bearer check for every protected resource. */
  bearer: BearerChecker;
  /** Whether a token's person may still hold what its client was allowed (checked on every use). */
  standing: StandingCheck;
  /** People with their roles per site, cached coherently. */
  people: PersonLookup;
  /** What the public tools read of the catalogue, cached coherently. */
  catalogue: SchoolReadCache;
  /** Members' pages of their own enrolments (member API and tools), cached coherently. */
  learning: SchoolReadCache;
  /** Tokens of the MCP two-step confirmation. */
  confirmations: ConfirmationTokens;
  /** Purges what has expired; `serve` schedules it. */
  janitor: Janitor;
  /** Tells members about posts that became published; `serve` schedules it. */
  postAnnouncer: PostAnnouncer;
  /** Uploaded files (the operator API's storage family): local disk, or a bucket when configured. */
  assets: AssetStore;
  /** Prometheus metrics of this application. */
  metrics: Metrics;
  /** Rate budgets, shared through Redis when configured. */
  throttle: Throttle;
  /** Counts what apps use, for the connections and account pages (written in batches). */
  usage: UsageRecorder;
  /** Revocation signals between the processes of a deployment. */
  signals: RevocationSignals;
  /** Keys derived from SCHOOLGATE_SECRET, one per purpose. */
  /** The CSRF keys (keys/secret-keys.ts): the first signs, each verifies. */
  csrfKeys: readonly [Buffer, ...Buffer[]];
  /** The shared Redis connection (rate limits, readiness) when REDIS_URL is set. */
  redis: Redis | null;
}

export function createServices(deps: AppDeps): Services {
  const { config, clock } = deps;
  const db = deps.store.db;
  const cimd = createCimdResolver(
    {
      allowlist: config.platform.cimd.allowlist,
      openRegistration: config.platform.cimd.open_registration,
      reviewedHosts: config.platform.cimd.reviewed_hosts,
      allowLoopback: config.cimdAllowLoopback,
      timeoutMs: config.platform.cimd.fetch_timeout_ms,
      maxBytes: config.platform.cimd.max_bytes,
    },
    clock,
  );
  const keys = new KeyCache(db, signingKeyDecryptionKeys(config), clock);
  const redisNaming = redisNames(config.redisPrefix);
  const signals = createRevocationSignals(deps.store, config.redisUrl, redisNaming);
  const accessTokens = new AccessTokenCache(signals, clock);
  // Read on every UserInfo call and every client authentication; both change rarely and flush on change.
  const peopleCache = new CoherentCache<PersonWithRoles>(signals, clock);
  const people: PersonLookup = Object.assign(
    (siteId: string, personId: string) => peopleCache.get(`${siteId}\u0000${personId}`, () => findPersonWithRoles(db, siteId, personId)),
    { known: (siteId: string, personId: string) => peopleCache.peek(`${siteId}\u0000${personId}`) },
  );
  const appCache = new CoherentCache<MemberClientsTable>(signals, clock);
  // Absence is cached too (most clients have no decision), as an object the cache can keep.
  const decisionCache = new CoherentCache<{ decision: ClientDecision | null }>(signals, clock);
  const clients = createClientResolver(
    (siteId, clientId) => appCache.get(`${siteId}\u0000${clientId}`, () => findMemberApp(db, siteId, clientId)),
    config.platform.vendors,
    cimd,
    async (siteId, clientId) =>
      (
        await decisionCache.get(`${siteId}\u0000${clientId}`, async () => ({
          decision: await findClientDecision(db, siteId, clientId),
        }))
      )?.decision ?? null,
  );
  // A flush means some shared row changed (a site's beta flag among them): read the sites again.
  const sites = new SiteDirectory(db, clock);
  signals.subscribe((signal) => {
    if (signal.kind === 'flush') sites.invalidate();
  });
  const standing = createStandingCheck(clients, people);
  // One command connection for the deployment-wide counters; it must never queue commands while Redis is
  // down (callers fall back at once), nor crash the process on a connection error. The commands of one turn
  // of the event loop travel together (auto-pipelining): each back-channel request spends a counter, and
  // one write per command woke Redis once per request (PostgreSQL + Redis introspection 10k -> 15k req/s,
  // bench/RESULTS.md, thirty-fourth session).
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, {
        maxRetriesPerRequest: 1,
        enableOfflineQueue: false,
        lazyConnect: false,
        commandTimeout: 500,
        enableAutoPipelining: true,
      })
    : null;
  redis?.on('error', () => {});
  const metrics = new Metrics();
  const catalogue = new SchoolReadCache(signals, clock, CATALOGUE_ENTRIES);
  const learning = new SchoolReadCache(signals, clock, LEARNING_ENTRIES);
  metrics.watchCaches({
    access_tokens: accessTokens.stats,
    people: peopleCache.stats,
    member_apps: appCache.stats,
    public_catalogue: catalogue.stats,
    member_learning: learning.stats,
  });
  const rotations = new GroupCommit(deps.store);
  const postgresRotations = deps.store.dialect === 'postgres' ? new PostgresRotations(db) : undefined;
  metrics.watchGroupCommit(postgresRotations?.stats ?? rotations.stats);
  if (deps.store.poolStats) metrics.watchPool(deps.store.poolStats);
  if (deps.store.checkpoints) metrics.watchCheckpoints(deps.store.checkpoints);
  const localCounters = new MemoryCounterStore(() => clock.now());
  const counters = redis ? new RedisCounterStore(redis, localCounters, () => metrics.redisFallback(), redisNaming) : localCounters;
  const throttle = new Throttle(
    counters,
    () => clock.now(),
    (budget) => metrics.rateLimited(budget),
  );
  const limits = new BackChannelLimits(throttle, config.platform.limits);
  return {
    config,
    db,
    clock,
    sites,
    usage: new UsageRecorder(db, clock),
    keys,
    clients,
    tokenContext: {
      db,
      clock,
      keys,
      clients,
      lifetimes: config.platform.lifetimes,
      signals,
      accessTokens,
      people,
      standing,
      limits,
      observer: metrics,
      rotations,
      postgresRotations,
      freshRefreshTokens: new FreshRefreshTokens(),
      successorKeys: secretKeyObjects(config, 'refresh-successors'),
    },
    csrfKeys: secretKeys(config, 'csrf'),
    confirmations: new ConfirmationTokens(secretKeys(config, 'mcp-confirmation')),
    bearer: createBearerChecker(db, clock, accessTokens, standing),
    standing,
    signals,
    people,
    catalogue,
    learning,
    redis,
    throttle,
    metrics,
    postAnnouncer: new PostAnnouncer(db, clock),
    assets: configuredAssetStore(config),
    janitor: new Janitor(
      db,
      deps.store.dialect,
      clock,
      { purged: (table, rows) => metrics.janitorPurged.inc({ table }, rows), ran: (seconds) => metrics.janitorRuns.observe(seconds) },
      janitorOptions(config.platform.janitor),
    ),
  };
}
