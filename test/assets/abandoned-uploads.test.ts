// Partial files of uploads cut off by a crash (assets/abandoned-uploads.ts): removed once nothing has
// written to them for a day, on the janitor's schedule under `serve`; a live upload's partial file, a
// finished asset however old, and anything that is not a partial file are kept. Real files in a folder.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ABANDONED_AFTER_MS, removeAbandonedUploads } from '../../src/assets/abandoned-uploads.js';
import { LocalAssetStore } from '../../src/assets/asset-store.js';
import { ORPHANED_AFTER_MS } from '../../src/assets/orphaned-files.js';
import { freePort } from '../helpers/free-port.js';
import { age, tempFolders } from '../helpers/temp-folders.js';
import { TestClock } from '../helpers/test-clock.js';
import { cli, cliEnv, startCli } from '../cli/cli-harness.js';

const folder = tempFolders('schoolgate-uploads-');

/** A partial file as an upload cut off mid-way leaves it: begun through the store, never finished nor aborted. */
async function cutOffUpload(store: LocalAssetStore, key: string): Promise<string> {
  const pending = await store.create(key);
  await new Promise<void>((resolve, reject) => pending.stream.end(Buffer.alloc(1024, 1), () => resolve()).on('error', reject));
  return join(store.dir, `${key}.partial`);
}

const filesOf = (dir: string, site: string) => readdirSync(join(dir, site)).sort();

describe('abandoned uploads', () => {
  it('removes a partial file left unwritten for a day and keeps a recent one, finished assets and other files', async () => {
    const dir = folder();
    const store = new LocalAssetStore(dir);
    age(await cutOffUpload(store, 'site_a/ast_stale'), ABANDONED_AFTER_MS + 60_000);
    await cutOffUpload(store, 'site_a/ast_live');
    age(await cutOffUpload(store, 'site_b/ast_other_site'), ABANDONED_AFTER_MS * 3);
    const finished = await store.create('site_a/ast_done');
    await new Promise<void>((resolve) => finished.stream.end(Buffer.from('done'), () => resolve()));
    await finished.finish();
    age(join(dir, 'site_a', 'ast_done'), ABANDONED_AFTER_MS * 10);
    writeFileSync(join(dir, 'site_a', 'notes.txt'), 'not an upload');
    age(join(dir, 'site_a', 'notes.txt'), ABANDONED_AFTER_MS * 10);

    expect(await removeAbandonedUploads(store, Date.now())).toBe(2);
    expect(filesOf(dir, 'site_a')).toEqual(['ast_done', 'ast_live.partial', 'notes.txt']);
    expect(filesOf(dir, 'site_b')).toEqual([]);
    // Nothing more to remove: a second run answers 0.
    expect(await removeAbandonedUploads(store, Date.now())).toBe(0);
    // The finished asset is still served whole.
    const opened = await store.open('site_a/ast_done');
    const chunks: Buffer[] = [];
    for await (const chunk of opened?.stream ?? []) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('done');
  });

  it('counts the day by the clock: the recent partial file goes once the clock is a day further', async () => {
    const dir = folder();
    const store = new LocalAssetStore(dir);
    await cutOffUpload(store, 'site_a/ast_recent');
    const clock = new TestClock();
    expect(await removeAbandonedUploads(store, clock.now())).toBe(0);
    clock.advance(ABANDONED_AFTER_MS + 1000);
    expect(await removeAbandonedUploads(store, clock.now())).toBe(1);
    expect(filesOf(dir, 'site_a')).toEqual([]);
  });

  it('answers 0 when the assets folder does not exist yet (no upload ever)', async () => {
    const store = new LocalAssetStore(join(folder(), 'never-created'));
    expect(await removeAbandonedUploads(store, Date.now())).toBe(0);
  });

  it('`schoolgate janitor --once` removes them too and says how many', async () => {
    const dir = folder();
    const assets = join(dir, 'assets');
    const store = new LocalAssetStore(assets);
    age(await cutOffUpload(store, 'site_x/ast_cut_off'), ABANDONED_AFTER_MS * 2);
    await cutOffUpload(store, 'site_x/ast_live');
    const result = await cli(['janitor', '--once'], cliEnv(`sqlite:${join(dir, 'janitor.db')}`, { ASSETS_DIR: assets }));
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^abandoned uploads +1 removed$/m);
    expect(filesOf(assets, 'site_x')).toEqual(['ast_live.partial']);
  });

  it('runs under serve on the janitor schedule (janitor.interval_seconds), with the sweep of orphaned files', async () => {
    const dir = folder();
    const assets = join(dir, 'assets');
    mkdirSync(join(assets, 'site_x'), { recursive: true });
    const stale = join(assets, 'site_x', 'ast_cut_off.partial');
    writeFileSync(stale, Buffer.alloc(2048));
    age(stale, ABANDONED_AFTER_MS * 2);
    // A finished file that no asset row names (assets/orphaned-files.ts) goes on the same schedule.
    const orphan = join(assets, 'site_x', 'file_orphan');
    writeFileSync(orphan, Buffer.alloc(512));
    age(orphan, ORPHANED_AFTER_MS * 2);
    const config = join(dir, 'platform.json');
    writeFileSync(config, JSON.stringify({ janitor: { interval_seconds: 1 } }));
    const running = startCli(
      ['serve'],
      cliEnv(`sqlite:${join(dir, 'serve.db')}`, { PORT: String(await freePort()), ASSETS_DIR: assets, SCHOOLGATE_CONFIG: config }),
    );
    try {
      await running.waitFor('listening on');
      const deadline = Date.now() + 10_000;
      while (readdirSync(join(assets, 'site_x')).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(readdirSync(join(assets, 'site_x'))).toEqual([]);
    } finally {
      expect((await running.stop()).code).toBe(0);
    }
  });
});
