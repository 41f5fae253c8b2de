// The real application, in its own process, over a fresh embedded SQLite database seeded with the demo.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { alignDemoOrigins, databaseIsEmpty, seedDemo } from '../src/demo/seed-demo.js';
import { systemClock } from '../src/kernel/clock.js';
import { signingKeyEncryptionKey } from '../src/keys/signing-keys.js';
import { openStore } from '../src/storage/connect.js';
import { migrateToLatest } from '../src/storage/migrate.js';

const databaseUrl = process.env.BENCH_DATABASE_URL ?? `sqlite:${join(mkdtempSync(join(tmpdir(), 'schoolgate-bench-')), 'bench.db')}`;
const config = loadConfig({
  demo: true,
  env: {
    DATABASE_URL: databaseUrl,
    // A kept database (bench/operator-scale.ts) is served again with the secret its keys were sealed with.
    SCHOOLGATE_SECRET: process.env.BENCH_SECRET ?? randomBytes(32).toString('base64url'),
    // PostgreSQL deployments run with Redis (README): its revocation signals let nodes cache lookups.
    ...(process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL } : {}),
  },
});
// The benchmark is one address and two clients sending hundreds of thousands of requests: lift the limits.
config.platform.limits.oauth_rate_per_minute = 10_000_000;
config.platform.limits.client_rate_per_minute = { confidential: 100_000_000, public: 100_000_000 };
config.platform.limits.operator_rate_per_minute = 100_000_000;
// The janitor runs when bench/janitor.ts asks, not on a schedule.
config.platform.janitor.interval_seconds = 0;
const store = openStore(databaseUrl);
await migrateToLatest(store);
const app = await buildApp({ config, store, clock: systemClock, logger: false });
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
if (await databaseIsEmpty(store.db))
  await seedDemo({ db: store.db, masterKey: signingKeyEncryptionKey(config.secret), clock: systemClock, port });
await alignDemoOrigins(store.db, port);
await app.services.sites.reload();
process.send?.({ port });
// The runner asks for a clean exit, so profilers (--cpu-prof) can write their output.
process.on('message', (m) => {
  if (m === 'exit') void app.close().then(() => process.exit(0));
  if (m === 'janitor') {
    const started = performance.now();
    void app.services.janitor
      .runOnce()
      .then((report) => process.send?.({ janitor: report, seconds: (performance.now() - started) / 1000 }));
  }
});
