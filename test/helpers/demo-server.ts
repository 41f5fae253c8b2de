// Boots the real application on a real listener over a fresh database of one dialect, seeded with
// the CONTRACT 3 demo. Tests talk to it over HTTP like any client.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { type Config, loadConfig, type PlatformConfig } from '../../src/config/config.js';
import { alignDemoOrigins, seedDemo } from '../../src/demo/seed-demo.js';
import { signingKeyEncryptionKey } from '../../src/keys/signing-keys.js';
import { openStore, type Store } from '../../src/storage/connect.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { freshDatabaseUrl, type TestDialect } from './dialects.js';
import { TestClock } from './test-clock.js';

export interface DemoServer {
  app: FastifyInstance;
  store: Store;
  config: Config;
  clock: TestClock;
  port: number;
  /** Demo Academy (variant A). */
  academy: string;
  /** Demo Studio (variant B). */
  studio: string;
  /** The demo sites' ids by origin. */
  siteIdOf(origin: string): string;
  close(): Promise<void>;
}

export interface DemoServerOptions {
  /** Changes to the platform config (lifetimes, limits, CIMD policy) for this server. */
  platform?: (platform: PlatformConfig) => void;
  env?: Record<string, string>;
  /** A database to use instead of a fresh one of the dialect (a proxied one, say); cleaned up on close. */
  database?: { url: string; cleanup: () => Promise<void> };
}

export async function startDemoServer(dialect: TestDialect, options: DemoServerOptions = {}): Promise<DemoServer> {
  const { url, cleanup } = options.database ?? (await freshDatabaseUrl(dialect));
  // Uploaded files of this server go to a folder of its own, removed on close.
  const assetsDir = mkdtempSync(join(tmpdir(), 'schoolgate-assets-'));
  const config = loadConfig({
    demo: true,
    env: { DATABASE_URL: url, SCHOOLGATE_SECRET: randomBytes(32).toString('base64url'), PORT: '0', ASSETS_DIR: assetsDir, ...options.env },
  });
  // Tests make many requests from one address: the per-address limits are tested on their own. With
  // REDIS_URL the counters are shared by every test server on that Redis (and by runs a minute apart):
  // budgets counted per address alone, like sign-in, would otherwise be spent by other test files.
  config.platform.limits.oauth_rate_per_minute = 100_000;
  config.platform.limits.sign_in_rate_per_minute = 100_000;
  options.platform?.(config.platform);
  const store = openStore(url, { poolSize: 5 });
  await migrateToLatest(store);
  const clock = new TestClock();
  const app = await buildApp({ config, store, clock, logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no listening address');
  const port = address.port;
  await seedDemo({ db: store.db, masterKey: signingKeyEncryptionKey(config.secret), clock, port });
  await alignDemoOrigins(store.db, port);
  await app.services.sites.reload();
  const ids = new Map((await store.db.selectFrom('sites').select(['id', 'origin']).execute()).map((row) => [row.origin, row.id] as const));
  return {
    siteIdOf(origin: string) {
      const id = ids.get(origin);
      if (!id) throw new Error(`no demo site at ${origin}`);
      return id;
    },
    app,
    store,
    config,
    clock,
    port,
    academy: `http://localhost:${port}`,
    studio: `http://127.0.0.1:${port}`,
    async close() {
      await app.close();
      await store.close();
      await cleanup();
      rmSync(assetsDir, { recursive: true, force: true });
    },
  };
}
