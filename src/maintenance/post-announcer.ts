// The scheduler that announces posts when they become published (issue 10: "a scheduled post appears on
// time without a request triggering it"). A post's state needs nothing to run: it is read from its
// publish moment. What does need a clock is telling the members: every interval this looks for posts
// that are due and not yet announced and announces each once (school/posts.repository.ts claims them, so
// the nodes of a deployment can all run it).
import type { Kysely } from 'kysely';
import type { Clock } from '../kernel/clock.js';
import { announceDuePosts } from '../school/posts.repository.js';
import type { Database } from '../storage/schema.js';
import { RepeatingJob } from './repeating-job.js';

export class PostAnnouncer {
  private readonly schedule: RepeatingJob<number>;

  constructor(db: Kysely<Database>, clock: Clock) {
    this.schedule = new RepeatingJob(() => announceDuePosts(db, clock.now()));
  }

  /** Announces what is due now; answers how many posts. */
  runOnce(): Promise<number> {
    return this.schedule.runOnce();
  }

  /** Runs every `intervalMs` until stop(). */
  start(intervalMs: number, onError: (err: unknown) => void): void {
    this.schedule.start(intervalMs, onError);
  }

  stop(): Promise<void> {
    return this.schedule.stop();
  }
}
