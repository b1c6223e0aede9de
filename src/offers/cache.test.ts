import { describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidationBus } from '../cache/invalidation.js';
import { OffersCache } from './cache.js';
import type { OfferSet } from './offer-set.js';

/** A cache whose loader counts its calls and gives each set the lifetime asked for. */
function countingCache(lifetimeMs: number) {
  const bus = new InvalidationBus();
  const loads: string[] = [];
  let release: (() => void) | undefined;
  let hold = false;
  const cache = new OffersCache(async (brandId, platformId, now) => {
    loads.push(`${brandId}/${platformId}`);
    if (hold) await new Promise<void>((resolve) => (release = resolve));
    return { body: `${brandId}/${platformId}#${loads.length}`, views: [], expiresAt: now.getTime() + lifetimeMs } satisfies OfferSet;
  }, bus);
  const holdNextLoad = () => {
    hold = true;
  };
  const releaseLoad = () => {
    hold = false;
    release?.();
  };
  return { bus, cache, loads, holdNextLoad, releaseLoad };
}

describe('OffersCache', () => {
  it('serves a set from memory until its own expiry, then loads it again', async () => {
    const { cache, loads } = countingCache(80);
    const first = await cache.get('b1', 'p1');
    expect(cache.get('b1', 'p1')).toBe(first);
    expect(loads).toEqual(['b1/p1']);
    await sleep(120);
    const again = await cache.get('b1', 'p1');
    expect(again.body).toBe('b1/p1#2');
    expect(loads).toEqual(['b1/p1', 'b1/p1']);
  });

  it('shares one load between concurrent misses, and drops everything on an invalidation', async () => {
    const { bus, cache, loads } = countingCache(60_000);
    const [a, b] = await Promise.all([cache.get('b1', 'p1'), cache.get('b1', 'p1')]);
    expect(a).toBe(b);
    await bus.publish('campaigns');
    expect((await cache.get('b1', 'p1')).body).toBe('b1/p1#2');
    expect(loads).toHaveLength(2);
  });

  it('answers with a load that an invalidation overtook, without keeping it', async () => {
    const { bus, cache, loads, holdNextLoad, releaseLoad } = countingCache(60_000);
    holdNextLoad();
    const pending = cache.get('b1', 'p1');
    await bus.publish('offers');
    releaseLoad();
    expect((await pending).body).toBe('b1/p1#1');
    expect((await cache.get('b1', 'p1')).body).toBe('b1/p1#2');
    expect(loads).toHaveLength(2);
  });

  it('keeps no set that is already past its end', async () => {
    const { cache, loads } = countingCache(-1);
    await cache.get('b1', 'p1');
    await cache.get('b1', 'p1');
    expect(loads).toHaveLength(2);
  });
});
