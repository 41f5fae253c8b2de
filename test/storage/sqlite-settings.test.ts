// Issue 12: the settings every SQLite connection is opened with (storage/connect.ts) are the ones the
// measurements behind them assume.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/storage/connect.js';

const dir = mkdtempSync(join(tmpdir(), 'schoolgate-sqlite-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SQLite connection settings', () => {
  it('keeps temporary b-trees (window counts, GROUP BY, unindexed ORDER BY) in memory, not in a temporary file', async () => {
    const store = openStore(`sqlite:${join(dir, 'settings.db')}`);
    try {
      const setting = await sql<{ temp_store: number }>`pragma temp_store`.execute(store.db);
      // 2 is MEMORY; the default, 0, puts each temporary b-tree in a file of its own.
      expect(setting.rows[0]?.temp_store).toBe(2);
      const modes = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(store.db);
      expect(modes.rows[0]?.journal_mode).toBe('wal');
    } finally {
      await store.close();
    }
  });
});
