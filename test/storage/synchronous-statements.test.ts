// Issue 12: on SQLite a precompiled statement runs at once when the connection is outside any transaction
// (storage/synchronous-statements.ts), and goes through Kysely, after the transaction, when one is open.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/storage/connect.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { defineQuery } from '../../src/storage/precompiled.js';

const dir = mkdtempSync(join(tmpdir(), 'schoolgate-sync-statements-'));
let store: Store;
beforeAll(async () => {
  store = openStore(`sqlite:${join(dir, 'sync.db')}`);
  await migrateToLatest(store);
});
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const siteById = defineQuery(['id'], (db, p) => db.selectFrom('sites').where('id', '=', p.id).select(['id', 'name']));
const renameSite = defineQuery(['id', 'name'], (db, p) => db.updateTable('sites').set({ name: p.name }).where('id', '=', p.id));
const site = (id: string) => ({
  id,
  slug: id,
  name: 'Before',
  origin: `http://${id}.test`,
  variant: 'A' as const,
  mcp_beta: 0,
  created_at: 1,
});

describe('synchronous SQLite statements', () => {
  it('answers a read outside any transaction without waiting for a connection someone holds', async () => {
    await store.db.insertInto('sites').values(site('site_held')).execute();
    let release = () => {};
    const held = store.db.connection().execute(() => new Promise<void>((resolve) => (release = resolve)));
    try {
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(await siteById.first(store.db, { id: 'site_held' })).toEqual({ id: 'site_held', name: 'Before' });
      expect(await renameSite.changed(store.db, { id: 'site_held', name: 'After' })).toBe(1);
    } finally {
      release();
      await held;
    }
    expect(await store.db.selectFrom('sites').where('id', '=', 'site_held').select('name').executeTakeFirst()).toEqual({ name: 'After' });
  });

  it('never reads what an open transaction has written and not committed: the read waits and sees only the outcome', async () => {
    let reading: Promise<unknown> | undefined;
    await expect(
      store.db.transaction().execute(async (trx) => {
        await trx.insertInto('sites').values(site('site_rolled_back')).execute();
        reading = siteById.first(store.db, { id: 'site_rolled_back' });
        await new Promise((resolve) => setTimeout(resolve, 10));
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await reading).toBeUndefined();

    let committedRead: Promise<unknown> | undefined;
    await store.db.transaction().execute(async (trx) => {
      await trx.insertInto('sites').values(site('site_committed')).execute();
      committedRead = siteById.first(store.db, { id: 'site_committed' });
    });
    expect(await committedRead).toEqual({ id: 'site_committed', name: 'Before' });
  });

  it('runs a statement of a transaction on that transaction', async () => {
    await store.db.transaction().execute(async (trx) => {
      await trx.insertInto('sites').values(site('site_in_trx')).execute();
      expect(await siteById.first(trx, { id: 'site_in_trx' })).toEqual({ id: 'site_in_trx', name: 'Before' });
    });
  });
});
