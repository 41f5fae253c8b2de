// Runs a suite once per storage dialect: `for (const dialect of DIALECTS) describe(...)`.
// PostgreSQL suites are skipped with a loud notice when no server answers, and fail under CI=true.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase } from './postgres.js';

export type TestDialect = 'sqlite' | 'postgres';
export const DIALECTS: TestDialect[] = ['sqlite', 'postgres'];

/** Set by the global setup: '1' when PostgreSQL answered. */
export function postgresReady(): boolean {
  return process.env.SCHOOLGATE_TEST_POSTGRES_READY === '1';
}

/** True when this dialect's suite must be skipped here (never under CI=true: the global setup fails first). */
export function skipDialect(dialect: TestDialect): boolean {
  return dialect === 'postgres' && !postgresReady();
}

/** A fresh, empty database URL for one suite, and its cleanup. */
export async function freshDatabaseUrl(dialect: TestDialect): Promise<{ url: string; cleanup: () => Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'schoolgate-test-'));
    return { url: `sqlite:${join(dir, 'test.db')}`, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const { url, drop } = await createTestDatabase();
  return { url, cleanup: drop };
}
