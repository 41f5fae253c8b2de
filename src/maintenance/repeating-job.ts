// A background job that `serve` runs on a schedule (the janitor, the post announcer): every interval
// (the first run after one interval), one run at a time, a timer that never keeps the process alive, and
// a stop that waits for the run in progress.
export class RepeatingJob<T> {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<T> | undefined;
  private stoppedFlag = false;

  constructor(private readonly job: () => Promise<T>) {}

  /** True once stop() was called: a long run may end early between its steps. */
  get stopped(): boolean {
    return this.stoppedFlag;
  }

  /** Runs the job now, or joins the run in progress. */
  runOnce(): Promise<T> {
    this.running ??= this.job().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  start(intervalMs: number, onError: (err: unknown) => void): void {
    this.stoppedFlag = false;
    const tick = () => {
      this.timer = setTimeout(async () => {
        try {
          await this.runOnce();
        } catch (err) {
          onError(err);
        }
        if (!this.stoppedFlag) tick();
      }, intervalMs);
      this.timer.unref();
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stoppedFlag = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }
}
