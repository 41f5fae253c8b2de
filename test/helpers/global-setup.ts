// Runs once before the workers start: finds PostgreSQL (required under CI=true) and prepares the
// test CA that HTTPS test servers use, trusted through NODE_EXTRA_CA_CERTS in every worker.
import { rmSync } from 'node:fs';
import { postgresAvailable, POSTGRES_ADMIN_URL } from './postgres.js';
import { createTestTls } from './tls.js';

export default async function setup(): Promise<() => void> {
  const ready = await postgresAvailable();
  if (!ready) {
    const message = `PostgreSQL is not reachable at ${POSTGRES_ADMIN_URL} (SCHOOLGATE_TEST_POSTGRES_URL)`;
    if (process.env.CI === 'true') throw new Error(`${message}: CI requires every PostgreSQL-backed test to run.`);
    console.warn(`\n!!! ${message}: every PostgreSQL-backed test is SKIPPED in this run. !!!\n`);
  }
  process.env.SCHOOLGATE_TEST_POSTGRES_READY = ready ? '1' : '0';
  const tls = createTestTls();
  process.env.SCHOOLGATE_TEST_TLS_DIR = tls.dir;
  process.env.NODE_EXTRA_CA_CERTS = tls.caFile;
  return () => rmSync(tls.dir, { recursive: true, force: true });
}
