import crypto from 'node:crypto';
import type { CounterRow, LinkKey } from './dal.js';

interface Counts {
  views: number;
  clicks: number;
}

const DAY_MS = 86_400_000;

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
  /** When its request stops waiting (performance.now()). */
  deadline: number;
  /** Its deltas, taken out of the pending batch should its deadline pass before the batch is sent. */
  day: string;
  links: readonly LinkKey[];
  views: number;
  clicks: number;
}

/** Writes a batch; `signal` aborts once its requests have stopped waiting (see CounterWriter). */
export type CounterWrite = (rows: CounterRow[], signal: AbortSignal) => Promise<void>;

/**
 * Writes in flight at once, per instance. Requests that arrive while a write runs wait together
 * for the next one, so a busy moment makes bigger batches rather than more statements. On this
 * project's two-core machine one write in flight served more requests than 2, 4 or 8 and halved
 * PostgreSQL's CPU time (docs/performance-offers.md): every statement costs both processes a
 * round trip and a commit, whatever its size.
 */
const WRITE_SLOTS = 1;

/**
 * The longest a busy instance waits between the starts of two writes. A quiet instance writes at
 * once; a busy one collects up to a couple of milliseconds of requests per statement instead of
 * the few that arrive during one commit, which on the two-core machine served more requests per
 * second with less CPU in both processes (docs/performance-offers.md). It starts sooner once the
 * requests it answered last time are back (see answeredSinceFlush): waiting for the clock then
 * only left the process idle, and cost the offers endpoint a quarter of its throughput.
 */
const MAX_FLUSH_INTERVAL_MS = 2;

/**
 * Counter rows a key is spread over. Each instance writes its own shard, picked at random when it
 * starts, so the writes of several instances rarely wait on each other's row locks.
 */
const COUNTER_SHARDS = 16;

/** This instance's shards, one per write slot, from a random first one. */
function shardsFrom(first: number): number[] {
  return Array.from({ length: WRITE_SLOTS }, (_, slot) => (first + slot) % COUNTER_SHARDS);
}

/**
 * Group commit for attribution counters: deltas recorded while writes are running wait together
 * and go to the database as one statement when a slot frees up and the batch is full or old
 * enough, so the number of writes follows the database's speed rather than the request rate.
 * `record` settles only once its deltas are committed, which lets a response wait for durability
 * without one write per request.
 *
 * No request waits longer than `waitLimitMs`, however long the database keeps a write: one that
 * has not been sent yet is taken out of the pending batch, and the requests of a batch in flight
 * are rejected together while the write is told (its signal aborts) that nobody waits for it any
 * more, so that it is settled as not counted (src/attribution/counter-writer.ts).
 */
export class CounterCommitter {
  /**
   * Deltas by UTC day, then by link object: the links of a cached offer set are the same objects
   * on every request, so the hot path adds to a map without building or hashing key strings.
   * Equal links held by different objects are merged when the batch is written.
   */
  private pending = new Map<string, Map<LinkKey, Counts>>();
  private waiters: Waiter[] = [];
  private readonly freeShards = shardsFrom(crypto.randomInt(COUNTER_SHARDS));
  private readonly running = new Set<Promise<void>>();
  private flushScheduled = false;
  private flushTimer: NodeJS.Timeout | undefined;
  /** Fires when the oldest pending request's deadline passes; one at a time. */
  private expiryTimer: NodeJS.Timeout | undefined;
  private lastFlushAt = 0;
  /**
   * Requests answered since the current wait for a write began. Once as many wait again, the
   * clients that send their next request when the previous answer arrives (browsers, connection
   * pools) are back, and waiting out the interval would only add latency.
   */
  private answeredSinceFlush = 0;
  private today = { number: -1, day: '' };
  /** Statements written so far; lets tests and metrics see how many requests shared a write. */
  batchesWritten = 0;

  constructor(
    private readonly write: CounterWrite,
    private readonly waitLimitMs: number,
  ) {}

  /** Adds `views` and `clicks` to each link; settles once they are committed, rejects if not within the wait limit. */
  record(links: readonly LinkKey[], views: number, clicks: number, at: Date): Promise<void> {
    const day = this.dayOf(at);
    let byLink = this.pending.get(day);
    if (!byLink) {
      byLink = new Map();
      this.pending.set(day, byLink);
    }
    for (const link of links) {
      const counts = byLink.get(link);
      if (counts) {
        counts.views += views;
        counts.clicks += clicks;
      } else {
        byLink.set(link, { views, clicks });
      }
    }
    const deadline = performance.now() + this.waitLimitMs;
    const committed = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject, deadline, day, links, views, clicks }));
    this.expiryTimer ??= setTimeout(this.expirePending, this.waitLimitMs).unref();
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
    if (this.waiters.length === 0 || this.freeShards.length === 0) return;
    const full = this.waiters.length >= this.answeredSinceFlush;
    if (this.flushScheduled) {
      if (full && this.flushTimer) {
        clearTimeout(this.flushTimer);
        this.flushTimer = undefined;
        setImmediate(this.flushNow);
      }
      return;
    }
    this.flushScheduled = true;
    // Requests already parsed in this turn of the event loop join the batch; under load, so do
    // those of the next couple of milliseconds, unless the batch is full before then.
    const wait = this.lastFlushAt + MAX_FLUSH_INTERVAL_MS - performance.now();
    if (wait > 0 && !full) this.flushTimer = setTimeout(this.flushNow, wait);
    else setImmediate(this.flushNow);
  }

  /** Rejects the pending requests whose deadline has passed and takes their deltas out of the batch. */
  private readonly expirePending = (): void => {
    this.expiryTimer = undefined;
    const now = performance.now();
    while (this.waiters.length > 0 && this.waiters[0]!.deadline <= now) {
      const waiter = this.waiters.shift()!;
      const byLink = this.pending.get(waiter.day)!;
      for (const link of waiter.links) {
        const counts = byLink.get(link)!;
        counts.views -= waiter.views;
        counts.clicks -= waiter.clicks;
        if (counts.views === 0 && counts.clicks === 0) byLink.delete(link);
      }
      if (byLink.size === 0) this.pending.delete(waiter.day);
      waiter.reject(this.timeoutError());
    }
    if (this.waiters.length > 0) this.expiryTimer = setTimeout(this.expirePending, this.waiters[0]!.deadline - now).unref();
  };

  private timeoutError(): Error {
    return new Error(`the database did not confirm the counters within ${this.waitLimitMs} ms`);
  }

  private readonly flushNow = (): void => {
    this.flushScheduled = false;
    this.flushTimer = undefined;
    this.lastFlushAt = performance.now();
    this.answeredSinceFlush = 0;
    this.flush();
  };

  private flush(): void {
    this.expirePending();
    const shard = this.freeShards.pop();
    if (shard === undefined || this.waiters.length === 0) {
      if (shard !== undefined) this.freeShards.push(shard);
      return;
    }
    const rows = this.takePendingRows(shard);
    const waiters = this.waiters;
    this.waiters = [];
    // The oldest request of the batch has the earliest deadline; the whole batch is answered by then.
    const gaveUp = new AbortController();
    const deadline = setTimeout(() => {
      const error = this.timeoutError();
      gaveUp.abort(error);
      for (const waiter of waiters) waiter.reject(error);
    }, waiters[0]!.deadline - performance.now());
    const written: Promise<void> = this.write(rows, gaveUp.signal)
      .then(
        () => {
          if (gaveUp.signal.aborted) return;
          this.batchesWritten += 1;
          for (const waiter of waiters) waiter.resolve();
        },
        (error: unknown) => {
          for (const waiter of waiters) waiter.reject(error);
        },
      )
      .finally(() => {
        clearTimeout(deadline);
        this.answeredSinceFlush += waiters.length;
        this.running.delete(written);
        this.freeShards.push(shard);
        this.scheduleFlush();
      });
    this.running.add(written);
  }

  /** One row per distinct key: a statement may not update the same row twice. */
  private takePendingRows(shard: number): CounterRow[] {
    const rows = new Map<string, CounterRow>();
    for (const [day, byLink] of this.pending) {
      for (const [link, counts] of byLink) {
        const key = `${day}\u0000${link.platformId}\u0000${link.campaignId}\u0000${link.brandId}\u0000${link.partnerId}`;
        const row = rows.get(key);
        if (row) {
          row.views += counts.views;
          row.clicks += counts.clicks;
        } else {
          rows.set(key, {
            platformId: link.platformId,
            campaignId: link.campaignId,
            brandId: link.brandId,
            partnerId: link.partnerId,
            day,
            shard,
            views: counts.views,
            clicks: counts.clicks,
          });
        }
      }
    }
    this.pending = new Map();
    return [...rows.values()];
  }

  private dayOf(at: Date): string {
    const number = Math.floor(at.getTime() / DAY_MS);
    if (number !== this.today.number) this.today = { number, day: at.toISOString().slice(0, 10) };
    return this.today.day;
  }
}
