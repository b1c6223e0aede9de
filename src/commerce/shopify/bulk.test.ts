import { setAbstractFetchFunc } from '@shopify/shopify-api/runtime';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases.js';
import { adapterOptions, installWithoutOAuth } from '../../../test/support/shopify.js';
import { ShopifyStandIn } from '../../../test/shopify-standin/stand-in.js';
import type { BulkOperation } from '../../../test/shopify-standin/model.js';
import { ShopifyCommerce } from './adapter.js';
import { createdAtSlices, MAX_CONCURRENT_BULK_QUERIES } from './bulk.js';

/**
 * Setup's bulk queries at the same time (2026-10 allows five per store): the catalog beside the
 * units-sold count split by date, on a stand-in whose bulk operations take time (500 objects a
 * second) on a clock the adapter's own waits move, so a run takes little real time.
 */
describe('Shopify adapter: bulk queries at once, within Shopify’s five per store', () => {
  let clock = Date.now();
  const standIn = new ShopifyStandIn({ now: () => new Date(clock), bulkObjectsPerSecond: 500, throttle: { restoreRate: 10_000 } });
  let database: TestDatabase;

  /**
   * While true, the clock stands still: a test holds it until every query meant to start together
   * was asked for, so that the database and the token reads (real time) do not decide whether
   * one query finished on the stand-in's clock before another began.
   */
  let holdClock = () => false;
  // Waits that start together end together: the clock moves to the latest wake-up, not by their sum.
  const sleep = async (ms: number) => {
    const wake = clock + ms;
    await new Promise((resolve) => setImmediate(resolve));
    await vi.waitUntil(() => !holdClock(), { timeout: 30_000, interval: 1 });
    clock = Math.max(clock, wake);
  };

  function adapter(bulkConcurrency: number): ShopifyCommerce {
    return new ShopifyCommerce(adapterOptions(database.db, standIn, { sleep }, { bulkConcurrency, bulkPollMs: 50 }));
  }

  /** Shopify's refusals of a bulk query over the store's five. */
  let refusedOverLimit = 0;

  beforeAll(async () => {
    setAbstractFetchFunc(async (input, init) => {
      const response = await standIn.fetch(input, init);
      if ((await response.clone().text()).includes('LIMIT_REACHED')) refusedOverLimit += 1;
      return response;
    });
    database = await createTestDatabase('postgres');
  });
  afterAll(() => database?.close());

  async function installed(name: string): Promise<string> {
    // Over 1,000 products: the catalog is read in bulk too. 6,000 orders over two years: about 500 in the 60 days the app sees.
    const shop = standIn.createShop({ name, products: 1_200, orders: 6_000, seed: 'bulk-concurrency' }).domain;
    await installWithoutOAuth(database.db, standIn, adapter(5), shop);
    return shop;
  }

  /** The most operations running at one moment, by when each was created and when it was ready. */
  const mostAtOnce = (operations: BulkOperation[]) =>
    Math.max(
      ...operations.map(
        (at) =>
          operations.filter((other) => other.createdAt.getTime() <= at.createdAt.getTime() && at.createdAt.getTime() < other.readyAt)
            .length,
      ),
    );

  /** Setup's two reads as the setup worker makes them: the profile (import), then best sellers (offer). */
  async function setupReads(shopify: ShopifyCommerce, shop: string) {
    const profile = await shopify.profile(shop);
    const best = await shopify.bestSellers(shop, 3);
    return { profile, best };
  }

  it('splits orders by date into ranges with no gap or overlap', () => {
    const oldest = new Date('2026-01-01T00:00:00Z');
    expect(createdAtSlices(oldest, new Date('2026-01-05T00:00:00Z'), 4)).toEqual([
      "created_at:<'2026-01-02T00:00:00.000Z'",
      "created_at:>='2026-01-02T00:00:00.000Z' AND created_at:<'2026-01-03T00:00:00.000Z'",
      "created_at:>='2026-01-03T00:00:00.000Z' AND created_at:<'2026-01-04T00:00:00.000Z'",
      "created_at:>='2026-01-04T00:00:00.000Z'",
    ]);
    expect(createdAtSlices(oldest, new Date('2026-01-05T00:00:00Z'), 1)).toEqual(['']);
  });

  it('runs the catalog and four date ranges of units sold at once, and finds what one query at a time finds', async () => {
    const concurrent = await installed('at-once');
    const sequential = await installed('one-by-one');

    holdClock = () => standIn.shop(concurrent).bulkOperations.length < 1 + 4;
    const together = await setupReads(adapter(5), concurrent).finally(() => {
      holdClock = () => false;
    });
    const operations = standIn.shop(concurrent).bulkOperations;
    expect(operations).toHaveLength(1 + 4);
    expect(mostAtOnce(operations)).toBe(5);
    // Each range's lines are its own orders: together, every order the app sees, once.
    const orderLines = operations.flatMap((operation) =>
      (operation.jsonl ?? '').split('\n').filter((line) => line.includes('gid://shopify/Order/') && !line.includes('__parentId')),
    );
    expect(orderLines.length).toBeGreaterThan(0);
    expect(new Set(orderLines).size).toBe(orderLines.length);

    const alone = await setupReads(adapter(1), sequential);
    const sequentialOperations = standIn.shop(sequential).bulkOperations;
    expect(sequentialOperations).toHaveLength(2);
    expect(mostAtOnce(sequentialOperations)).toBe(1);

    // Same seed, same store (ids and addresses apart): the same answers either way.
    const withoutIds = (best: typeof together.best) => best.map(({ title, unitsSold, priceCents }) => ({ title, unitsSold, priceCents }));
    expect(withoutIds(together.best)).toEqual(withoutIds(alone.best));
    expect(refusedOverLimit).toBe(0);
    expect(together.best).toHaveLength(3);
    expect(together.best[0]!.unitsSold).toBeGreaterThan(0);
    expect(together.profile.productCount).toBe(alone.profile.productCount);
    const objects = (list: BulkOperation[]) => list.reduce((sum, operation) => sum + operation.objectCount, 0);
    expect(objects(operations)).toBe(objects(sequentialOperations));
  });

  it('keeps two API instances setting up one store within five at once: Shopify’s refusals of a sixth are waited out', async () => {
    const shop = await installed('two-instances');
    // Both instances ask for their five before any finishes: five are created, the other five refused.
    const refusedBefore = refusedOverLimit;
    holdClock = () => standIn.shop(shop).bulkOperations.length + (refusedOverLimit - refusedBefore) < 2 * (1 + 4);
    const [first, second] = await Promise.all([setupReads(adapter(5), shop), setupReads(adapter(5), shop)]).finally(() => {
      holdClock = () => false;
    });
    expect(first.best).toEqual(second.best);
    const operations = standIn.shop(shop).bulkOperations;
    expect(operations).toHaveLength(2 * (1 + 4));
    expect(mostAtOnce(operations)).toBeLessThanOrEqual(MAX_CONCURRENT_BULK_QUERIES);
    expect(refusedOverLimit - refusedBefore).toBeGreaterThan(0);
  });
});
