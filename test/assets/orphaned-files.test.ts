// Finished files that no asset row names (assets/orphaned-files.ts): removed once nothing has written to
// them for a day, by `schoolgate janitor --once` and under `serve` (tested with the abandoned uploads'
// sweep in abandoned-uploads.test.ts); a file an asset row names, however
// old, a recent file without a row (its operation may still be committing), partial files (the abandoned
// uploads' sweep) and anything not shaped like an asset are kept. Real files in a folder, real databases.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalAssetStore } from '../../src/assets/asset-store.js';
import { ORPHANED_AFTER_MS, removeOrphanedFiles } from '../../src/assets/orphaned-files.js';
import { insertAsset } from '../../src/school/assets.repository.js';
import type { Store } from '../../src/storage/connect.js';
import { cli, cliEnv } from '../cli/cli-harness.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { insertSite, openSchoolStore, type SchoolStore } from '../helpers/school-fixtures.js';
import { age, tempFolders } from '../helpers/temp-folders.js';
import { TestClock } from '../helpers/test-clock.js';

const folder = tempFolders('schoolgate-orphans-');

/** A finished file as an upload leaves it, last written `ageMs` ago. */
async function finishedFile(store: LocalAssetStore, key: string, ageMs: number): Promise<void> {
  const pending = await store.create(key);
  await new Promise<void>((resolve, reject) => pending.stream.end(Buffer.from(`content of ${key}`), () => resolve()).on('error', reject));
  await pending.finish();
  age(join(store.dir, key), ageMs);
}

/** The row the storage family writes for a stored file. */
async function recordAsset(store: Store, siteId: string, key: string): Promise<void> {
  await insertAsset(
    { db: store.db, siteId },
    {
      id: `ast_${key.split('/')[1]}`,
      storageKey: key,
      mediaType: 'image/png',
      size: 10,
      sha256: '0'.repeat(64),
      createdBy: null,
      createdAt: 0,
    },
  );
}

const filesOf = (dir: string, site: string) => readdirSync(join(dir, site)).sort();
const DAY_AND_A_BIT = ORPHANED_AFTER_MS + 60_000;

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`orphaned files (${dialect})`, () => {
    let school: SchoolStore;
    let store: Store;
    const siteId = 'site_orphans';

    beforeAll(async () => {
      school = await openSchoolStore(dialect);
      store = school.store;
      await insertSite(store.db, { id: siteId, name: 'Orphans', origin: 'http://orphans.test', variant: 'A' });
    });
    afterAll(() => school?.close());

    it('removes a day-old finished file no asset names; keeps named ones however old, recent ones, partial files and other files', async () => {
      const dir = folder();
      const assets = new LocalAssetStore(dir);
      await finishedFile(assets, `${siteId}/file_orphan`, DAY_AND_A_BIT);
      await finishedFile(assets, `${siteId}/file_named`, ORPHANED_AFTER_MS * 30);
      await recordAsset(store, siteId, `${siteId}/file_named`);
      await finishedFile(assets, `${siteId}/file_recent`, 60_000);
      const partial = await assets.create(`${siteId}/file_partial`);
      await new Promise<void>((resolve) => partial.stream.end(Buffer.alloc(16), () => resolve()));
      const partialPath = join(dir, siteId, 'file_partial.partial');
      age(partialPath, DAY_AND_A_BIT);
      writeFileSync(join(dir, siteId, 'notes.txt'), 'not an asset');
      age(join(dir, siteId, 'notes.txt'), ORPHANED_AFTER_MS * 100);

      expect(await removeOrphanedFiles(assets, store.db, Date.now())).toBe(1);
      expect(filesOf(dir, siteId)).toEqual(['file_named', 'file_partial.partial', 'file_recent', 'notes.txt']);
      expect(await removeOrphanedFiles(assets, store.db, Date.now())).toBe(0);
    });

    it('counts the day by the clock, and checks the rows of many files a batch at a time', async () => {
      const dir = folder();
      const assets = new LocalAssetStore(dir);
      // More than one batch of lookups (500), every third file named by a row.
      for (let i = 0; i < 1_203; i++) {
        const key = `${siteId}/file_many_${i}`;
        const pending = await assets.create(key);
        await new Promise<void>((resolve) => pending.stream.end(Buffer.from('x'), () => resolve()));
        await pending.finish();
        if (i % 3 === 0) await recordAsset(store, siteId, key);
      }
      const clock = new TestClock();
      expect(await removeOrphanedFiles(assets, store.db, clock.now())).toBe(0);
      clock.advance(DAY_AND_A_BIT);
      expect(await removeOrphanedFiles(assets, store.db, clock.now())).toBe(802);
      const left = filesOf(dir, siteId);
      expect(left).toHaveLength(401);
      expect(left.every((name) => Number(name.split('_').at(-1)) % 3 === 0)).toBe(true);
    });
  });
}

describe('orphaned files, from the command line', () => {
  it('`schoolgate janitor --once` removes them and says how many', async () => {
    const dir = folder();
    const assets = join(dir, 'assets');
    await finishedFile(new LocalAssetStore(assets), 'site_x/file_orphan', DAY_AND_A_BIT);
    await finishedFile(new LocalAssetStore(assets), 'site_x/file_recent', 1_000);
    const result = await cli(['janitor', '--once'], cliEnv(`sqlite:${join(dir, 'janitor.db')}`, { ASSETS_DIR: assets }));
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^orphaned files +1 removed$/m);
    expect(filesOf(assets, 'site_x')).toEqual(['file_recent']);
  });
});
