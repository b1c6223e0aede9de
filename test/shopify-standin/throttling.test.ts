import { beforeAll, describe, expect, it } from 'vitest';
import { ShopifyStandIn } from './stand-in.js';
import { PLAN_THROTTLE } from './throttle.js';

const SHOP = 'bucket.myshopify.com';

describe('Shopify stand-in: cost-based throttling', () => {
  let clock = new Date('2026-11-02T12:00:00Z').getTime();
  // A small bucket that refills at 10 points a second, on a clock the test moves.
  const standIn = new ShopifyStandIn({ now: () => new Date(clock), throttle: { bucketSize: 100, restoreRate: 10 } });
  let token = '';
  const graphql = async (query: string) => {
    const response = await standIn.fetch(`https://${SHOP}/admin/api/2026-10/graphql.json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-shopify-access-token': token },
      body: JSON.stringify({ query }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as {
      data?: Record<string, any>;
      errors?: Array<Record<string, any>>;
      extensions: { cost: Record<string, any> };
    };
  };
  // 2 + 50 × 1: every product exists, so the actual cost is the requested one.
  const FIFTY_PRODUCTS = '{ products(first: 50) { edges { node { id } } } }';

  beforeAll(() => {
    standIn.createShop({ name: 'bucket', products: 200 });
    token = standIn.installApp(SHOP, ['read_products']);
  });

  it('throttles a query the bucket cannot pay for, and runs it once the restore time has passed', async () => {
    const first = await graphql(FIFTY_PRODUCTS);
    expect(first.extensions.cost).toEqual({
      requestedQueryCost: 52,
      actualQueryCost: 52,
      throttleStatus: { maximumAvailable: 100, currentlyAvailable: 48, restoreRate: 10 },
    });

    const throttled = await graphql(FIFTY_PRODUCTS);
    expect(throttled).not.toHaveProperty('data');
    expect(throttled.errors).toEqual([
      { message: 'Throttled', extensions: { code: 'THROTTLED', documentation: 'https://shopify.dev/api/usage/rate-limits' } },
    ]);
    expect(throttled.extensions.cost).toEqual({
      requestedQueryCost: 52,
      actualQueryCost: null,
      throttleStatus: { maximumAvailable: 100, currentlyAvailable: 48, restoreRate: 10 },
    });

    // 4 points short at 10 points a second: 0.3 s is not enough, 0.4 s is.
    clock += 300;
    expect((await graphql(FIFTY_PRODUCTS)).errors?.[0]?.extensions?.code).toBe('THROTTLED');
    clock += 100;
    const restored = await graphql(FIFTY_PRODUCTS);
    expect(restored.errors).toBeUndefined();
    expect(restored.data!.products.edges).toHaveLength(50);
    expect(restored.extensions.cost.throttleStatus.currentlyAvailable).toBe(0);

    expect(standIn.apiUsage(SHOP)).toMatchObject({ adminApiCalls: 4, throttledCalls: 2, pointsSpent: 104 });
  });

  it('refunds the difference when less comes back than was asked for', async () => {
    clock += 10_000;
    const body = await graphql(
      '{ products(first: 50, query: "id:>0", reverse: true, after: null) { nodes { id } } ' +
        'p2: products(first: 40, query: "status:draft") { nodes { id } } }',
    );
    // Two connections of 52 and 42 requested; no product is a draft, so the second costs 2.
    expect(body.extensions.cost).toEqual({
      requestedQueryCost: 94,
      actualQueryCost: 54,
      throttleStatus: { maximumAvailable: 100, currentlyAvailable: 46, restoreRate: 10 },
    });
  });

  it('refuses a single query that costs more than 1000 points with MAX_COST_EXCEEDED, whatever the bucket holds', async () => {
    clock += 10_000;
    const body = await graphql('{ products(first: 250) { edges { node { id variants(first: 3) { nodes { id } } } } } }');
    // 2 + 250 × (1 + (2 + 3 × 1)) = 1502
    expect(body).not.toHaveProperty('data');
    expect(body.errors![0]).toMatchObject({ extensions: { code: 'MAX_COST_EXCEEDED', cost: 1502, maxCost: 1000 } });
    expect(body.errors![0]!.message).toMatch(/^Query cost is 1502, which exceeds the single query max cost limit \(1000\)\./);
    expect(body.extensions.cost).toMatchObject({ requestedQueryCost: 1502, actualQueryCost: null });
  });

  it('charges 10 points a mutation, and gives each plan the documented bucket', async () => {
    clock += 10_000;
    const body = await graphql(
      'mutation { webhookSubscriptionDelete(id: "gid://shopify/WebhookSubscription/1") { userErrors { message } } }',
    );
    expect(body.extensions.cost).toMatchObject({ requestedQueryCost: 10, actualQueryCost: 10 });
    expect(PLAN_THROTTLE).toEqual({
      standard: { bucketSize: 2000, restoreRate: 100, maxQueryCost: 1000 },
      advanced: { bucketSize: 4000, restoreRate: 200, maxQueryCost: 1000 },
      plus: { bucketSize: 20000, restoreRate: 1000, maxQueryCost: 1000 },
      enterprise: { bucketSize: 40000, restoreRate: 2000, maxQueryCost: 1000 },
    });
  });
});
