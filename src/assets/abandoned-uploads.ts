// Uploads cut off by a crash leave a partial file that no request will finish or abort (asset-store.ts
// writes under a temporary name first). `serve` removes those nothing has written to for a day, on the
// janitor's schedule; a live upload keeps writing, so its file is never that old.
import type { Clock } from '../kernel/clock.js';
import { RepeatingJob } from '../maintenance/repeating-job.js';
import type { AssetStore } from './asset-store.js';

/** How long a partial file must have gone unwritten before it counts as abandoned. */
export const ABANDONED_AFTER_MS = 24 * 60 * 60 * 1000;

export class AbandonedUploadSweeper {
  private readonly schedule = new RepeatingJob(() => this.sweep());

  constructor(
    private readonly store: AssetStore,
    private readonly clock: Clock,
    private readonly onRemoved: (files: number) => void = () => {},
  ) {}

  /** Removes the abandoned partial files now; answers how many. */
  runOnce(): Promise<number> {
    return this.schedule.runOnce();
  }

  start(intervalMs: number, onError: (err: unknown) => void): void {
    this.schedule.start(intervalMs, onError);
  }

  stop(): Promise<void> {
    return this.schedule.stop();
  }

  private async sweep(): Promise<number> {
    const removed = (await this.store.removeAbandoned?.(this.clock.now() - ABANDONED_AFTER_MS)) ?? 0;
    if (removed > 0) this.onRemoved(removed);
    return removed;
  }
}
