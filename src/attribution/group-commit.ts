import type { CounterRow, LinkKey } from './dal.js';

export interface CounterDelta extends LinkKey {
  views: number;
  clicks: number;
}

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Writes that may run at once. Each takes its own counter shard, so concurrent writes never wait
 * on each other's row locks and PostgreSQL flushes their commits to disk together; when commits
 * are slow (a busy disk), throughput then grows with the slots instead of stalling on one flush.
 */
export const WRITE_SLOTS = 4;

/**
 * Group commit for attribution counters: deltas recorded while writes are running wait together
 * and go to the database as one statement when a slot frees up, so the number of writes follows
 * the database's speed rather than the request rate. `record` settles only once its deltas are
 * committed, which lets a response wait for durability without one write per request.
 */
export class CounterCommitter {
  private pending = new Map<string, CounterRow>();
  private waiters: Waiter[] = [];
  private readonly freeShards = Array.from({ length: WRITE_SLOTS }, (_, shard) => shard);
  private readonly running = new Set<Promise<void>>();
  private flushScheduled = false;
  /** Statements written so far; lets tests and metrics see how many requests shared a write. */
  batchesWritten = 0;

  constructor(private readonly write: (rows: CounterRow[]) => Promise<void>) {}

  record(deltas: CounterDelta[], at: Date): Promise<void> {
    const day = at.toISOString().slice(0, 10);
    for (const delta of deltas) {
      const key = `${delta.platformId}\u0000${day}\u0000${delta.campaignId}\u0000${delta.brandId}\u0000${delta.partnerId}`;
      const row = this.pending.get(key);
      if (row) {
        row.views += delta.views;
        row.clicks += delta.clicks;
      } else {
        this.pending.set(key, { ...delta, day, shard: 0 });
      }
    }
    const committed = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    this.scheduleFlush();
    return committed;
  }

  /** Resolves once everything recorded so far has been written (or has failed). */
  async drain(): Promise<void> {
    while (this.running.size > 0 || this.flushScheduled) {
      await Promise.all([...this.running, new Promise<void>((resolve) => setImmediate(resolve))]);
    }
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || this.waiters.length === 0 || this.freeShards.length === 0) return;
    this.flushScheduled = true;
    // Requests already parsed in this turn of the event loop join the batch.
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    const shard = this.freeShards.pop();
    if (shard === undefined || this.waiters.length === 0) {
      if (shard !== undefined) this.freeShards.push(shard);
      return;
    }
    const rows = [...this.pending.values()];
    for (const row of rows) row.shard = shard;
    const waiters = this.waiters;
    this.pending = new Map();
    this.waiters = [];
    const written: Promise<void> = this.write(rows)
      .then(
        () => {
          this.batchesWritten += 1;
          for (const waiter of waiters) waiter.resolve();
        },
        (error: unknown) => {
          for (const waiter of waiters) waiter.reject(error);
        },
      )
      .finally(() => {
        this.running.delete(written);
        this.freeShards.push(shard);
        this.scheduleFlush();
      });
    this.running.add(written);
  }
}
