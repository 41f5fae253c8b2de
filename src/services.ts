// The long-lived parts of a running application, built once from AppDeps and shared by the routes.
import type { Kysely } from 'kysely';
import type { AppDeps } from './app-deps.js';
import { createCimdResolver } from './clients/cimd/resolver.js';
import { type ClientResolver, createClientResolver } from './clients/resolve-client.js';
import type { Config } from './config/config.js';
import type { Clock } from './kernel/clock.js';
import { deriveKey } from './kernel/sealing.js';
import { KeyCache } from './keys/key-cache.js';
import { signingKeyEncryptionKey } from './keys/signing-keys.js';
import { type BearerChecker, createBearerChecker } from './oauth/bearer.js';
import type { TokenContext } from './oauth/token/token-context.js';
import { AccessTokenCache } from './oauth/tokens/access-token-cache.js';
import { createRevocationSignals, type RevocationSignals } from './storage/revocation-signals.js';
import { SiteDirectory } from './sites/site-directory.js';
import type { Database } from './storage/schema.js';

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
  /** Revocation signals between the processes of a deployment. */
  signals: RevocationSignals;
  /** Keys derived from SCHOOLGATE_SECRET, one per purpose. */
  csrfKey: Buffer;
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
  const clients = createClientResolver(db, config.platform.vendors, cimd);
  const keys = new KeyCache(db, signingKeyEncryptionKey(config.secret), clock);
  const signals = createRevocationSignals(deps.store, config.redisUrl);
  const accessTokens = new AccessTokenCache(signals, clock);
  return {
    config,
    db,
    clock,
    sites: new SiteDirectory(db, clock),
    keys,
    clients,
    tokenContext: { db, clock, keys, clients, lifetimes: config.platform.lifetimes, signals, accessTokens },
    csrfKey: deriveKey(config.secret, 'csrf'),
    bearer: createBearerChecker(db, clock, accessTokens),
    signals,
  };
}
