import type { FastifyBaseLogger } from 'fastify';
import { isDatabaseUnavailable } from '../http/error-handler.js';

/**
 * A worker of durable jobs kept in the database: it drains every due job, then sleeps until the
 * next poll unless nudged. A nudge while it drains makes it look again at once after, so a job
 * recorded mid-drain never waits a whole poll. Subclasses claim and run one job in runOnce.
 */
export abstract class DrainingWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private wakeAgain = false;

  protected constructor(private readonly loop: { pollMs: number; log: FastifyBaseLogger; claimFailure: string }) {}

  /** Claims and runs one due job; false when none was due. */
  abstract runOnce(): Promise<boolean>;

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** Looks for work now instead of at the next poll. */
  nudge(): void {
    if (this.stopped) return;
    if (this.running) {
      this.wakeAgain = true;
      return;
    }
    this.schedule(0);
  }

  /** Runs due jobs until none is left (or the worker stops); returns how many ran. */
  async drain(): Promise<number> {
    let ran = 0;
    for (;;) {
      const worked = await this.runOnce().catch((error: unknown) => {
        // The database away is expected and retried at the next poll: one line, not a stack trace each poll.
        if (isDatabaseUnavailable(error)) {
          const reason = error instanceof Error ? error.message : String(error);
          this.loop.log.warn({ reason, retryInMs: this.loop.pollMs }, `${this.loop.claimFailure}: the database is unavailable; will retry`);
        } else this.loop.log.error({ err: error }, this.loop.claimFailure);
        return false;
      });
      if (!worked) return ran;
      ran += 1;
      if (this.stopped) return ran;
    }
  }

  private schedule(delayMs: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.running = this.drain()
        .then(() => undefined)
        .finally(() => {
          this.running = undefined;
          if (!this.stopped) this.schedule(this.wakeAgain ? 0 : this.loop.pollMs);
          this.wakeAgain = false;
        });
    }, delayMs);
    this.timer.unref();
  }
}
