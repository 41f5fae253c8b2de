// Where uploaded files live: a folder on local disk (ASSETS_DIR, by default <data folder>/assets), one
// file per asset under its site. Files are written as they arrive (never held whole in memory), to a
// temporary name first, so a reader never sees half a file.
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Writable } from 'node:stream';

const KEY = /^[A-Za-z0-9_-]+\/[A-Za-z0-9_-]+$/;

export class LocalAssetStore {
  constructor(readonly dir: string) {}

  private path(key: string): string {
    // Keys are ours (site id / random id), never a caller's text; still, refuse anything path-like.
    if (!KEY.test(key)) throw new Error(`not an asset key: ${key}`);
    return join(this.dir, key);
  }

  /** A stream to write a new file under `key`; `finish` makes it visible, `abort` removes it. */
  async create(key: string): Promise<{ stream: Writable; finish: () => Promise<void>; abort: () => Promise<void> }> {
    const path = this.path(key);
    await mkdir(join(path, '..'), { recursive: true });
    const partial = `${path}.partial`;
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

  /** The file of `key` with its size; null when it is not there. */
  async open(key: string): Promise<{ stream: ReadStream; size: number } | null> {
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
}
