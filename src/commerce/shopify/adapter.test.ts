import { Session } from '@shopify/shopify-api';
import { setAbstractFetchFunc } from '@shopify/shopify-api/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases.js';
import { adapterOptions, installWithoutOAuth } from '../../../test/support/shopify.js';
import { ShopifyStandIn } from '../../../test/shopify-standin/stand-in.js';
import { DEFAULT_SHOPIFY_SCOPES } from '../../config.js';
import { ShopifyCommerce } from './adapter.js';
import { tokenColumns } from './dal.js';

/**
 * The adapter's reads against a stand-in with a small, fast bucket: pages paced by the bucket,
 * THROTTLED answers retried, bulk operations for large catalogs, best sellers from line items.
 */
describe('Shopify adapter: catalog, best sellers and cost-based throttling', () => {
  const standIn = new ShopifyStandIn({ throttle: { bucketSize: 1000, restoreRate: 2500 } });
  let database: TestDatabase;
  let shopify: ShopifyCommerce;
  let shopifyOptions: ConstructorParameters<typeof ShopifyCommerce>[0];

  beforeAll(async () => {
    setAbstractFetchFunc(standIn.fetch);
    database = await createTestDatabase('postgres');
    shopifyOptions = adapterOptions(database.db, standIn, {}, { bulkPollMs: 10 });
    shopify = new ShopifyCommerce(shopifyOptions);
  });
  afterAll(() => database?.close());

  async function installed(name: string, products: number, orders = 50): Promise<string> {
    const shop = standIn.createShop({ name, products, orders }).domain;
    await installWithoutOAuth(database.db, standIn, shopify, shop);
    return shop;
  }

  it.each([
    ['development', true],
    ['staff', true],
    [undefined, false],
  ] as const)('a %s store gets a test subscription even in prod: %s; the terms state the rate in words', async (testStore, test) => {
    const prod = new ShopifyCommerce({ ...shopifyOptions, serviceEnv: 'prod' });
    const shop = standIn.createShop({ name: `plan-${testStore ?? 'real'}`, products: 1, orders: 0, testStore }).domain;
    const token = standIn.installApp(shop, DEFAULT_SHOPIFY_SCOPES);
    await database.db
      .insertInto('shopify_shops')
      .values({
        shop,
        ...tokenColumns(prod.tokens.toStore(new Session({ id: `offline_${shop}`, shop, state: '', isOnline: false, accessToken: token }))),
        scopes: DEFAULT_SHOPIFY_SCOPES.join(','),
        installed_at: new Date(),
      })
      .execute();
    expect(await prod.subscriptionConfirmationUrl(shop, 'https://svc.test/commerce/shopify/plan/return')).toMatch(/^https:\/\//);
    const [subscription] = standIn.shop(shop).subscriptions;
    expect(subscription!.test).toBe(test);
    expect(subscription!.lineItems[0]!.pricing).toMatchObject({
      terms: "5 percent of each new customer's first order that a partner brings you, charged per order; no monthly fee",
    });
  });

  it('pages through a catalog within the bucket: one client is never throttled', async () => {
    const shop = await installed('paced', 700);
    const catalog = await shopify.catalog(shop);
    expect(catalog).toHaveLength(700);
    expect(new Set(catalog.map((product) => product.id)).size).toBe(700);
    const usage = standIn.apiUsage(shop);
    expect(usage.throttledCalls).toBe(0);
    // 1 count + 4 pages of 200.
    expect(usage.adminApiCalls).toBe(5);
    expect(shopify.admin.usageOf(shop)).toMatchObject({ calls: 5, throttled: 0 });
  });

  it('retries THROTTLED answers with backoff when another reader spent the bucket, losing nothing', async () => {
    const shop = await installed('contended', 700);
    const [first, second] = await Promise.all([shopify.catalog(shop), shopify.catalog(shop)]);
    expect(first).toHaveLength(700);
    expect(second).toEqual(first);
    expect(standIn.apiUsage(shop).throttledCalls).toBeGreaterThan(0);
    expect(shopify.admin.usageOf(shop).throttled).toBe(standIn.apiUsage(shop).throttledCalls);
  });

  it('reads a large catalog with a bulk operation, and best sellers from the orders’ line items', async () => {
    const shop = await installed('large', 1500, 400);
    const catalog = await shopify.catalog(shop);
    expect(catalog).toHaveLength(1500);
    expect(standIn.shop(shop).bulkOperations).toHaveLength(1);
    const best = await shopify.bestSellers(shop, 3);
    expect(best).toHaveLength(3);
    expect(best.every((product) => product.active)).toBe(true);
    expect(best.map((product) => product.unitsSold)).toEqual([...best.map((product) => product.unitsSold)].sort((a, b) => b - a));
    expect(best[0]!.unitsSold).toBeGreaterThan(0);
    const profile = await shopify.profile(shop);
    expect(profile).toMatchObject({
      domain: shop,
      platformName: 'Shopify',
      productCount: catalog.filter((product) => product.active).length,
    });
  });
});
