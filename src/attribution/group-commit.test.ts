import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CounterRow, LinkKey } from './dal.js';
import { CounterCommitter } from './group-commit.js';

const link: LinkKey = { platformId: 'platform', campaignId: 'campaign', brandId: 'brand', partnerId: 'partner' };
const at = new Date('2026-11-22T12:00:00Z');

/** The longest a request waits for its counters in these tests. */
const WAIT_LIMIT_MS = 4_000;

/** A database stand-in whose writes finish when the test says so. */
function controlledWrites() {
  const writes: Array<{ rows: CounterRow[]; signal: AbortSignal; finish: () => void; fail: (error: Error) => void }> = [];
  const write = (rows: CounterRow[], signal: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      writes.push({ rows, signal, finish: resolve, fail: reject });
    });
  return { writes, committer: new CounterCommitter(write, WAIT_LIMIT_MS) };
}

/** Settles as `promise` does, recording when; lets a test look without awaiting. */
function watch(promise: Promise<void>) {
  const state: { outcome: 'waiting' | 'committed' | 'rejected'; error?: unknown } = { outcome: 'waiting' };
  promise.then(
    () => (state.outcome = 'committed'),
    (error: unknown) => Object.assign(state, { outcome: 'rejected', error }),
  );
  return state;
}

/** Runs what is due now (setImmediate, expired timers) and the promise callbacks they start. */
const settle = () => vi.advanceTimersByTimeAsync(0);

describe('CounterCommitter', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'performance'] });
    // A process's clock is well past zero; so the first write is not within 2 ms of time zero.
    vi.advanceTimersByTime(1_000);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('writes at once when idle, and sends what arrives meanwhile as one statement after the write', async () => {
    const { writes, committer } = controlledWrites();
    const first = committer.record([link], 1, 0, at);
    await settle();
    expect(writes).toHaveLength(1);

    const later = [committer.record([link], 1, 0, at), committer.record([link], 0, 1, at), committer.record([link], 1, 0, at)];
    await settle();
    expect(writes).toHaveLength(1);

    writes[0]!.finish();
    await expect(first).resolves.toBeUndefined();
    await vi.advanceTimersByTimeAsync(2);
    expect(writes).toHaveLength(2);
    expect(writes[1]!.rows).toEqual([expect.objectContaining({ ...link, day: '2026-11-22', views: 2, clicks: 1 })]);
    writes[1]!.finish();
    await expect(Promise.all(later)).resolves.toHaveLength(3);
    expect(committer.batchesWritten).toBe(2);
  });

  it('starts the next write without waiting out the interval once as many requests wait as the last write answered', async () => {
    const { writes, committer } = controlledWrites();
    const wave = () => Array.from({ length: 3 }, () => committer.record([link], 1, 0, at));
    const firstWave = wave();
    await settle();
    writes[0]!.finish();
    await Promise.all(firstWave);

    committer.record([link], 1, 0, at);
    committer.record([link], 1, 0, at);
    await settle();
    expect(writes).toHaveLength(1);

    committer.record([link], 1, 0, at);
    await settle();
    expect(writes).toHaveLength(2);
    expect(writes[1]!.rows[0]!.views).toBe(3);
  });

  it('waits at most 2 ms between the starts of two writes when fewer requests come back', async () => {
    const { writes, committer } = controlledWrites();
    const firstWave = Array.from({ length: 3 }, () => committer.record([link], 1, 0, at));
    await settle();
    writes[0]!.finish();
    await Promise.all(firstWave);

    committer.record([link], 1, 0, at);
    await vi.advanceTimersByTimeAsync(1);
    expect(writes).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(writes).toHaveLength(2);
    expect(writes[1]!.rows[0]!.views).toBe(1);
  });

  it('rejects every request of a failed write and keeps writing later ones', async () => {
    const { writes, committer } = controlledWrites();
    const failed = [committer.record([link], 1, 0, at), committer.record([link], 1, 0, at)];
    await settle();
    writes[0]!.fail(new Error('database unavailable'));
    for (const request of failed) await expect(request).rejects.toThrow('database unavailable');

    const retried = committer.record([link], 1, 0, at);
    await vi.advanceTimersByTimeAsync(2);
    expect(writes).toHaveLength(2);
    expect(writes[1]!.rows[0]!.views).toBe(1);
    writes[1]!.finish();
    await expect(retried).resolves.toBeUndefined();
  });

  it('rejects a request still waiting for a slot at its deadline, and leaves its counts out of the next batch', async () => {
    const { writes, committer } = controlledWrites();
    const other: LinkKey = { ...link, partnerId: 'other partner' };
    const inFlight = watch(committer.record([link], 1, 0, at));
    await settle();
    // The database keeps the first write; these wait for the slot meanwhile.
    await vi.advanceTimersByTimeAsync(1_000);
    const expiring = watch(committer.record([link, other], 1, 0, at));
    await vi.advanceTimersByTimeAsync(1_000);
    const later = watch(committer.record([link], 0, 1, at));

    await vi.advanceTimersByTimeAsync(WAIT_LIMIT_MS - 2_000);
    // The request of the write in flight has reached its deadline; the write is told.
    expect(inFlight).toMatchObject({
      outcome: 'rejected',
      error: new Error(`the database did not confirm the counters within ${WAIT_LIMIT_MS} ms`),
    });
    expect(writes[0]!.signal.aborted).toBe(true);
    expect(expiring.outcome).toBe('waiting');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(expiring.outcome).toBe('rejected');
    expect(later.outcome).toBe('waiting');

    // The slot frees only when the write in flight ends, whatever its requests were told.
    writes[0]!.finish();
    await vi.advanceTimersByTimeAsync(2);
    expect(writes).toHaveLength(2);
    expect(writes[1]!.rows).toEqual([expect.objectContaining({ partnerId: 'partner', views: 0, clicks: 1 })]);
    expect(writes[1]!.signal.aborted).toBe(false);
    writes[1]!.finish();
    await settle();
    expect(later.outcome).toBe('committed');
    expect(inFlight.outcome).toBe('rejected');
  });

  it('answers a batch by the deadline of its oldest request, even when it was sent later', async () => {
    const { writes, committer } = controlledWrites();
    const first = watch(committer.record([link], 1, 0, at));
    await settle();
    await vi.advanceTimersByTimeAsync(3_000);
    const waited = watch(committer.record([link], 1, 0, at));
    writes[0]!.finish();
    await vi.advanceTimersByTimeAsync(2);
    expect(first.outcome).toBe('committed');
    expect(writes).toHaveLength(2);

    await vi.advanceTimersByTimeAsync(WAIT_LIMIT_MS - 3);
    expect(waited.outcome).toBe('waiting');
    await vi.advanceTimersByTimeAsync(1);
    expect(waited.outcome).toBe('rejected');
    expect(writes[1]!.signal.aborted).toBe(true);
    // Committed after its request gave up: still not reported as committed.
    writes[1]!.finish();
    await settle();
    expect(waited.outcome).toBe('rejected');
    expect(committer.batchesWritten).toBe(1);
  });

  it('keeps each UTC day and each link in its own row', async () => {
    const { writes, committer } = controlledWrites();
    const other: LinkKey = { ...link, partnerId: 'other partner' };
    committer.record([link, other], 1, 0, at);
    committer.record([{ ...link }], 1, 0, at);
    committer.record([link], 1, 0, new Date('2026-11-23T00:00:00Z'));
    await settle();
    expect(writes[0]!.rows.map(({ partnerId, day, views }) => ({ partnerId, day, views }))).toEqual([
      { partnerId: 'partner', day: '2026-11-22', views: 2 },
      { partnerId: 'other partner', day: '2026-11-22', views: 1 },
      { partnerId: 'partner', day: '2026-11-23', views: 1 },
    ]);
  });
});
