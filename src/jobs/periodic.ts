/**
 * A background job run on a timer, one run at a time: a tick that finds the previous run still
 * going skips. `stop` waits for the run in flight, so the database can be closed after it.
 */
export class PeriodicJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    /** One run; `stopped` tells a long run to end early. */
    private readonly run: (stopped: () => boolean) => Promise<void>,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /**
   * In the API the timer must not keep a closing process alive; a worker process lives for it.
   * `runNow` starts the first run at once instead of after one interval.
   */
  start(options: { keepProcessAlive?: boolean; runNow?: boolean } = {}): void {
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    if (!options.keepProcessAlive) this.timer.unref();
    if (options.runNow) this.tick();
  }

  private tick(): void {
    if (this.running || this.stopped) return;
    this.running = this.run(() => this.stopped)
      .catch(this.onError)
      .finally(() => {
        this.running = undefined;
      });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
