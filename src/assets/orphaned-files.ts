// Finished files that no asset row names. An upload's file is complete before the operation that records
// it commits, so a crash in between, or a staged file whose removal failed after its operation was
// refused, leaves a file nothing can ever serve; so does a deleted asset whose file could not be removed.
// `serve` (on the janitor's schedule) and `schoolgate janitor --once` remove such files once nothing has
// written to them for a day: a request that could still record one has long ended by then (requests time
// out after 30 s). Only stores that can list their files offer this (local disk; on S3, see the README).
import type { Kysely } from 'kysely';
import { storageKeysInUse } from '../school/assets.repository.js';
import type { Database } from '../storage/schema.js';
import { ABANDONED_AFTER_MS } from './abandoned-uploads.js';
import type { AssetStore } from './asset-store.js';

/** How long a finished file must have gone unwritten before a missing row makes it an orphan. */
export const ORPHANED_AFTER_MS = ABANDONED_AFTER_MS;
/** Keys looked up per statement: well under SQLite's and PostgreSQL's limits on bound parameters. */
const BATCH = 500;

/** Removes the orphaned files as of `now`; answers how many (0 where the store cannot list its files). */
export async function removeOrphanedFiles(store: AssetStore, db: Kysely<Database>, now: number): Promise<number> {
  if (!store.finishedFiles) return 0;
  let removed = 0;
  const sweep = async (keys: string[]) => {
    const inUse = await storageKeysInUse(db, keys);
    for (const key of keys) {
      if (inUse.has(key)) continue;
      await store.remove(key);
      removed++;
    }
  };
  let batch: string[] = [];
  for await (const key of store.finishedFiles(now - ORPHANED_AFTER_MS)) {
    batch.push(key);
    if (batch.length < BATCH) continue;
    await sweep(batch);
    batch = [];
  }
  await sweep(batch);
  return removed;
}
