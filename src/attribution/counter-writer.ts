import crypto from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/database.js';
import { registerCounterWriter, takeBackCounterBatch, writeCounterBatch, type CounterRow } from './dal.js';

/** How often a batch left unsettled is settled again while no new batch comes to do it. */
const SETTLE_RETRY_MS = 1_000;

/**
 * Writes the group commit's batches so that a batch counts exactly when its requests were told it
 * did. Each batch is one statement that also moves this writer's batch number on
 * (writeCounterBatch). When a batch's answer does not come back, or comes after its requests
 * stopped waiting and were answered 503, nobody can tell from here whether it committed, or
 * whether it is still on its way to a database that will commit it later. The writer keeps it as
 * unsettled and settles it (takeBackCounterBatch) before the next batch, and every second until
 * that succeeds: taken back if it was added, fenced off if not. So once the database answers
 * again, no view or click of a 503 is counted, and none of a 200 is lost.
 */
export class CounterWriter {
  private writerId = crypto.randomUUID();
  private registered = false;
  private lastBatch = 0;
  private unsettled: { batch: number; rows: CounterRow[] } | undefined;
  private tail: Promise<unknown> = Promise.resolve();
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly log: Pick<FastifyBaseLogger, 'warn'>,
  ) {}

  /** Writes `rows` as the next batch; resolves only if it committed before `signal` aborted. */
  write(rows: CounterRow[], signal: AbortSignal): Promise<void> {
    return this.serially(async () => {
      await this.settle();
      signal.throwIfAborted();
      if (rows.length === 0) return;
      const batch = this.lastBatch + 1;
      this.unsettled = { batch, rows };
      if (!(await writeCounterBatch(this.db, this.writerId, this.lastBatch, rows))) {
        // The writer's row is not where this process left it (a database restored from a backup,
        // or failed over to a replica that missed the last commits): nothing was added, and a new
        // writer starts from a row of its own.
        this.writerId = crypto.randomUUID();
        this.registered = false;
        this.lastBatch = 0;
        this.unsettled = undefined;
        throw new Error('the counter writer was out of step with the database; nothing was written');
      }
      this.lastBatch = batch;
      signal.throwIfAborted();
      this.unsettled = undefined;
    });
  }

  /** Stops the retries and makes one last attempt to settle, for a clean shutdown. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    await this.serially(() => this.settle());
  }

  private async settle(): Promise<void> {
    if (!this.registered) {
      await registerCounterWriter(this.db, this.writerId);
      this.registered = true;
    }
    if (!this.unsettled) return;
    const { batch, rows } = this.unsettled;
    const outcome = await takeBackCounterBatch(this.db, this.writerId, batch, rows);
    this.log.warn({ writerId: this.writerId, batch, outcome }, 'counter batch whose requests were answered 503 settled');
    this.lastBatch = batch + 1;
    this.unsettled = undefined;
  }

  /** Runs `step` after the steps before it, then retries settling while a batch is left unsettled. */
  private serially<T>(step: () => Promise<T>): Promise<T> {
    const result = this.tail.then(step);
    this.tail = result.then(
      () => this.retryLater(),
      () => this.retryLater(),
    );
    return result;
  }

  private retryLater(): void {
    if (!this.unsettled || this.closed || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.serially(() => this.settle()).catch(() => undefined);
    }, SETTLE_RETRY_MS).unref();
  }
}
