// Issue 12: a served SQLite database is checkpointed by a worker thread (storage/sqlite-checkpointer.ts):
// the serving connection stops checkpointing inside its commits, the worker copies the log back into the
// database file, and if the worker cannot run the connection takes the work back.
import { closeSync, mkdirSync, mkdtempSync, openSync, readSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { Metrics } from '../../src/observability/metrics.js';
import { openStore } from '../../src/storage/connect.js';
import { GroupCommit } from '../../src/storage/group-commit.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { startCheckpointer } from '../../src/storage/sqlite-checkpointer.js';

const dir = mkdtempSync(join(tmpdir(), 'schoolgate-checkpoint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function until(condition: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('SQLite checkpoints in a worker', () => {
  it('turns off checkpoints inside commits and checkpoints every frame of the log in the background', async () => {
    const store = openStore(`sqlite:${join(dir, 'served.db')}`, { backgroundCheckpoints: true });
    try {
      await migrateToLatest(store);
      const autocheckpoint = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(store.db);
      expect(autocheckpoint.rows[0]?.wal_autocheckpoint).toBe(0);
      await store.db
        .insertInto('sites')
        .values({ id: 'site_ckpt', slug: 'ckpt', name: 'C', origin: 'http://ckpt.test', variant: 'A', mcp_beta: 0, created_at: 1 })
        .execute();
      for (let batch = 0; batch < 20; batch++) {
        await store.db
          .insertInto('audit_events')
          .values(
            Array.from({ length: 100 }, (_, i) => ({
              site_id: 'site_ckpt',
              at: batch * 100 + i,
              kind: 'operator.ckpt',
              detail: 'x'.repeat(500),
            })),
          )
          .execute();
      }
      const checkpoints = store.checkpoints;
      expect(checkpoints).toBeDefined();
      const runsBefore = checkpoints?.runs ?? 0;
      await until(() => (checkpoints?.runs ?? 0) > runsBefore + 1 && checkpoints?.last?.log === checkpoints?.last?.checkpointed);
      expect(checkpoints?.last?.log).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });

  it('restarts a log that keeps growing under a steady stream of grouped commits, and loses no commit', async () => {
    const path = join(dir, 'busy.db');
    const store = openStore(`sqlite:${path}`, { backgroundCheckpoints: true, restartLogFrames: 200 });
    try {
      await migrateToLatest(store);
      await store.db
        .insertInto('sites')
        .values({ id: 'site_busy', slug: 'busy', name: 'B', origin: 'http://busy.test', variant: 'A', mcp_beta: 0, created_at: 1 })
        .execute();
      const commit = new GroupCommit(store);
      const insert = (at: number) =>
        store.db
          .insertInto('audit_events')
          .values({ site_id: 'site_busy', at, kind: 'operator.busy', detail: 'x'.repeat(2000) })
          .compile();
      const checkpoints = store.checkpoints;
      // The log's header counts its restarts (SQLite's checkpoint sequence number, bytes 12 to 15).
      const logRestarts = () => {
        const header = Buffer.alloc(16);
        const fd = openSync(`${path}-wal`, 'r');
        readSync(fd, header, 0, 16, 0);
        closeSync(fd);
        return header.readUInt32BE(12);
      };
      const restartsBefore = logRestarts();
      let written = 0;
      const giveUpAt = Date.now() + 15_000;
      // Writers that never let up: without restarts, a PASSIVE checkpoint never finds the log fully copied.
      const writer = async () => {
        while ((checkpoints?.restarts ?? 0) < 3 && Date.now() < giveUpAt) {
          const at = written++;
          await commit.run(function* () {
            yield insert(at);
          });
        }
      };
      await Promise.all(Array.from({ length: 20 }, writer));
      expect(checkpoints?.restarts).toBeGreaterThanOrEqual(3);
      // Each restart was asked for only after the log had been copied again, so that it had little left to copy.
      expect(checkpoints?.catchUps).toBeGreaterThanOrEqual(checkpoints?.restarts ?? 0);
      // The log started over (at the first commit after each restart but the last) instead of growing by every commit since the start.
      expect(logRestarts()).toBeGreaterThanOrEqual(restartsBefore + 2);
      const stored = await store.db
        .selectFrom('audit_events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirst();
      expect(Number(stored?.n)).toBe(written);
      // Operators see the restarts and the log's size in the metrics.
      const metrics = new Metrics();
      if (checkpoints) metrics.watchCheckpoints(checkpoints);
      const { body } = await metrics.scrape();
      const restarts = Number(/schoolgate_sqlite_checkpoints_total\{kind="restart"\} (\d+)/.exec(body)?.[1]);
      expect(restarts).toBeGreaterThanOrEqual(3);
      expect(Number(/schoolgate_sqlite_checkpoints_total\{kind="catch_up"\} (\d+)/.exec(body)?.[1])).toBeGreaterThanOrEqual(3);
      expect(body).toMatch(/schoolgate_sqlite_log_frames \d+/);
    } finally {
      await store.close();
    }
  });

  it('hands checkpoints back to the serving connection when the worker cannot run', async () => {
    const settings: number[] = [];
    const faults: unknown[] = [];
    const checkpointer = startCheckpointer(join(dir, 'no-such-folder', 'x.db'), (pages) => settings.push(pages), {
      onFault: (error) => faults.push(error),
    });
    await until(() => faults.length > 0);
    expect(settings).toEqual([0, 1000]);
    await checkpointer.stop();
  });

  it('tells whoever opened the store when the worker stops, and the serving connection checkpoints itself again', async () => {
    const path = join(dir, 'worker-fails.db');
    const faults: Error[] = [];
    const store = openStore(`sqlite:${path}`, { backgroundCheckpoints: true, onCheckpointFault: (error) => faults.push(error) });
    // The worker opens the file by its path once its thread is up: by then a folder stands there (the
    // serving connection keeps the file it already has open).
    renameSync(path, `${path}.moved`);
    mkdirSync(path);
    try {
      await until(() => faults.length > 0);
      expect(faults[0]?.message).toBe('the checkpoint worker failed (SQLITE_CANTOPEN)');
      const autocheckpoint = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(store.db);
      expect(autocheckpoint.rows[0]?.wal_autocheckpoint).toBe(1000);
    } finally {
      await store.close();
    }
  });

  it('leaves short-lived processes (the CLI) and tests checkpointing as SQLite does by default', async () => {
    const store = openStore(`sqlite:${join(dir, 'cli.db')}`);
    try {
      expect(store.checkpoints).toBeUndefined();
      const autocheckpoint = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(store.db);
      expect(autocheckpoint.rows[0]?.wal_autocheckpoint).toBe(1000);
    } finally {
      await store.close();
    }
  });
});
