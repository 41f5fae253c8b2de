// The demo server of demo-server.ts on PostgreSQL reached through a TcpProxy, so a test can take the store
// away from a running server and give it back (issue 4, section 3, fault injection). It mirrors
// startDemoServer, whose database URL cannot be redirected, with the proxy's port in the URL.
import { randomBytes } from 'node:crypto';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { alignDemoOrigins, seedDemo } from '../../src/demo/seed-demo.js';
import { signingKeyEncryptionKey } from '../../src/keys/signing-keys.js';
import { openStore } from '../../src/storage/connect.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import type { DemoServer } from './demo-server.js';
import { createTestDatabase } from './postgres.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';
import { TestClock } from './test-clock.js';

export interface ProxiedDemoServer extends DemoServer {
  proxy: TcpProxy;
}

export async function startProxiedDemoServer(): Promise<ProxiedDemoServer> {
  const { url: directUrl, drop } = await createTestDatabase();
  const direct = new URL(directUrl);
  const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
  const proxied = new URL(directUrl);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(proxy.port);
  const url = proxied.toString();

  const config = loadConfig({
    demo: true,
    env: { DATABASE_URL: url, SCHOOLGATE_SECRET: randomBytes(32).toString('base64url'), PORT: '0' },
  });
  config.platform.limits.oauth_rate_per_minute = 100_000;
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
  return {
    app,
    store,
    config,
    clock,
    port,
    proxy,
    academy: `http://localhost:${port}`,
    studio: `http://127.0.0.1:${port}`,
    async close() {
      proxy.resume();
      await app.close();
      await store.close();
      await proxy.close();
      await drop();
    },
  };
}
