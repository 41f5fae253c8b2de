// Where uploaded files live. Both stores take a file as it arrives (never whole in memory) and make it
// visible only once it is complete: on local disk (ASSETS_DIR, by default <data folder>/assets) a file
// per asset under its site, written under a temporary name first; or an S3-compatible bucket
// (s3-asset-store.ts), where a multipart upload appears when it completes.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

/** A file being written: `finish` makes it visible (after the stream ended), `abort` removes what was written. */
export interface PendingFile {
  stream: Writable;
  finish: () => Promise<void>;
  abort: () => Promise<void>;
}

export interface AssetStore {
  create(key: string, mediaType: string): Promise<PendingFile>;
  /** The file of `key` with its size; null when it is not there. */
  open(key: string): Promise<{ stream: Readable; size: number } | null>;
  remove(key: string): Promise<void>;
  /**
   * Removes files whose upload was cut off by a crash (never finished nor aborted) and that nothing has
   * written to since `before`; answers how many. Absent where the storage cleans up itself (S3: a
   * bucket lifecycle rule ends incomplete multipart uploads).
   */
  removeAbandoned?(before: number): Promise<number>;
  /**
   * The keys of finished files that nothing has written to since `before`, for the sweep of files no asset
   * row names (orphaned-files.ts). Absent where the store cannot list cheaply (S3).
   */
  finishedFiles?(before: number): AsyncIterable<string>;
}

/** Keys are ours (site id / random id), never a caller's text; still, refuse anything path-like. */
export const ASSET_KEY = /^[A-Za-z0-9_-]+\/[A-Za-z0-9_-]+$/;

export class LocalAssetStore implements AssetStore {
  constructor(readonly dir: string) {}

  private path(key: string): string {
    if (!ASSET_KEY.test(key)) throw new Error(`not an asset key: ${key}`);
    return join(this.dir, key);
  }

  async create(key: string): Promise<PendingFile> {
    const path = this.path(key);
    await mkdir(join(path, '..'), { recursive: true });
    const partial = `${path}${PARTIAL}`;
    const stream = createWriteStream(partial, { flags: 'wx', mode: 0o640 });
    return {
      stream,
      finish: () => rename(partial, path),
      abort: async () => {
        stream.destroy();
        await rm(partial, { force: true });
      },
    };
  }

  async open(key: string): Promise<{ stream: Readable; size: number } | null> {
    const path = this.path(key);
    try {
      const info = await stat(path);
      return { stream: createReadStream(path), size: info.size };
    } catch {
      return null;
    }
  }

  async remove(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }

  async removeAbandoned(before: number): Promise<number> {
    let removed = 0;
    for await (const { path, name } of this.filesUnwrittenSince(before)) {
      if (!name.endsWith(PARTIAL)) continue;
      await rm(path, { force: true });
      removed++;
    }
    return removed;
  }

  async *finishedFiles(before: number): AsyncIterable<string> {
    for await (const { site, name } of this.filesUnwrittenSince(before)) {
      const key = `${site}/${name}`;
      // Only what create() could have made: a partial file, or anything else put in the folder, is not an asset.
      if (ASSET_KEY.test(key)) yield key;
    }
  }

  /** Every file under a site's folder whose modification time is before `before`. */
  private async *filesUnwrittenSince(before: number): AsyncIterable<{ path: string; site: string; name: string }> {
    for (const site of await entries(this.dir)) {
      if (!site.isDirectory()) continue;
      const folder = join(this.dir, site.name);
      for (const file of await entries(folder)) {
        if (!file.isFile()) continue;
        const path = join(folder, file.name);
        // A live upload writes as its bytes arrive, so its file's modification time stays recent.
        const info = await stat(path).catch(() => null);
        if (info === null || info.mtimeMs >= before) continue;
        yield { path, site: site.name, name: file.name };
      }
    }
  }
}

const PARTIAL = '.partial';

/** A folder's entries; none when it does not exist (yet). */
async function entries(dir: string) {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
