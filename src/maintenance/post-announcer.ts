// The scheduler that announces posts when they become published (issue 10: "a scheduled post appears on
// time without a request triggering it"). A post's state needs nothing to run: it is read from its
// publish moment. What does need a clock is telling the members: every interval this looks for posts
// that are due and not yet announced and announces each once (school/posts.repository.ts claims them, so
// the nodes of a deployment can all run it).
import type { Kysely } from 'kysely';
import type { Clock } from '../kernel/clock.js';
import { announceDuePosts } from '../school/posts.repository.js';
import type { Database } from '../storage/schema.js';

export class PostAnnouncer {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private stopped = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /** Announces what is due now; answers how many posts. */
  runOnce(): Promise<number> {
    this.running ??= announceDuePosts(this.db, this.clock.now()).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Runs every `intervalMs` until stop(). */
  start(intervalMs: number, onError: (err: unknown) => void): void {
    this.stopped = false;
    const tick = () => {
      this.timer = setTimeout(async () => {
        try {
          await this.runOnce();
        } catch (err) {
          onError(err);
        }
        if (!this.stopped) tick();
      }, intervalMs);
      this.timer.unref();
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => {});
  }
}
