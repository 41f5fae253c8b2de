// Uploads cut off by a crash leave a partial file that no request will finish or abort (asset-store.ts
// writes under a temporary name first). `serve` (on the janitor's schedule) and `schoolgate janitor --once`
// remove those nothing has written to for a day; a live upload keeps writing, so its file is never that old.
import type { AssetStore } from './asset-store.js';

/** How long a partial file must have gone unwritten before it counts as abandoned. */
export const ABANDONED_AFTER_MS = 24 * 60 * 60 * 1000;

/** Removes the partial files abandoned as of `now`; answers how many (0 where the store cleans up itself). */
export async function removeAbandonedUploads(store: AssetStore, now: number): Promise<number> {
  return (await store.removeAbandoned?.(now - ABANDONED_AFTER_MS)) ?? 0;
}
