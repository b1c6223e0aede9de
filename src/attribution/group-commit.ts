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
 * Group commit for attribution counters: deltas recorded while a write is running wait together
 * and go to the database as one statement when it finishes, so the number of writes follows the
 * database's speed rather than the request rate. `record` settles only once its deltas are
 * committed, which lets a response wait for durability without one write per request.
 */
export class CounterCommitter {
  private pending = new Map<string, CounterRow>();
  private waiters: Waiter[] = [];
  private running: Promise<void> | undefined;
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
        this.pending.set(key, { ...delta, day });
      }
    }
    const committed = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    this.running ??= this.run();
    return committed;
  }

  /** Resolves once everything recorded so far has been written (or has failed). */
  async drain(): Promise<void> {
    while (this.running) await this.running;
  }

  private async run(): Promise<void> {
    // Requests already parsed in this turn of the event loop join the first batch.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.waiters.length > 0) {
      const rows = [...this.pending.values()];
      const waiters = this.waiters;
      this.pending = new Map();
      this.waiters = [];
      try {
        await this.write(rows);
        this.batchesWritten += 1;
        for (const waiter of waiters) waiter.resolve();
      } catch (error) {
        for (const waiter of waiters) waiter.reject(error);
      }
    }
    this.running = undefined;
  }
}
