import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CounterRow, LinkKey } from './dal.js';
import { CounterCommitter } from './group-commit.js';

const link: LinkKey = { platformId: 'platform', campaignId: 'campaign', brandId: 'brand', partnerId: 'partner' };
const at = new Date('2026-11-22T12:00:00Z');

/** A database stand-in whose writes finish when the test says so. */
function controlledWrites() {
  const writes: Array<{ rows: CounterRow[]; finish: () => void; fail: (error: Error) => void }> = [];
  const write = (rows: CounterRow[]) =>
    new Promise<void>((resolve, reject) => {
      writes.push({ rows, finish: resolve, fail: reject });
    });
  return { writes, committer: new CounterCommitter(write) };
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
