import { describe, expect, it } from 'vitest';
import { ShopifyStandIn } from './stand-in.js';

const NOW = new Date('2026-11-02T12:00:00Z').getTime();
const RUN = (query: string) =>
  `mutation { bulkOperationRunQuery(query: ${JSON.stringify(query)}) { bulkOperation { id status } userErrors { field message code } } }`;
const PRODUCTS = '{ products { edges { node { id } } } }';
const UNITS_SOLD = '{ orders { edges { node { id lineItems { edges { node { quantity } } } } } } }';

function standInWith(options: ConstructorParameters<typeof ShopifyStandIn>[0], shop: { products: number; orders: number }) {
  const standIn = new ShopifyStandIn(options);
  standIn.createShop({ name: 'bulky', ...shop });
  const token = standIn.installApp('bulky.myshopify.com', ['read_products', 'read_orders', 'read_all_orders']);
  const graphql = async (query: string) =>
    (await (
      await standIn.fetch('https://bulky.myshopify.com/admin/api/2026-10/graphql.json', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-shopify-access-token': token },
        body: JSON.stringify({ query }),
      })
    ).json()) as { data: Record<string, any> };
  return { standIn, graphql };
}

describe('Shopify stand-in: bulk query operations as 2026-10 runs them', () => {
  it('runs five bulk queries of a shop at once, refuses a sixth with LIMIT_REACHED, and takes one again when a slot frees', async () => {
    let clock = NOW;
    // 120 products at 100 objects a second: each operation runs 1.2 s.
    const { standIn, graphql } = standInWith({ now: () => new Date(clock), bulkObjectsPerSecond: 100 }, { products: 120, orders: 0 });
    const started: string[] = [];
    for (let index = 0; index < 5; index++) {
      const answer = (await graphql(RUN(PRODUCTS))).data.bulkOperationRunQuery;
      expect(answer.userErrors).toEqual([]);
      started.push(answer.bulkOperation.id);
      clock += 100;
    }
    const sixth = (await graphql(RUN(PRODUCTS))).data.bulkOperationRunQuery;
    expect(sixth).toEqual({
      bulkOperation: null,
      userErrors: [{ field: ['query'], message: 'Bulk operations limit reached. Please try again later.', code: 'LIMIT_REACHED' }],
    });
    expect(standIn.shop('bulky.myshopify.com').bulkOperations).toHaveLength(5);

    // Each is read by its id; the deprecated currentBulkOperation names the newest only.
    for (const id of started) {
      expect((await graphql(`{ bulkOperation(id: "${id}") { id status } }`)).data.bulkOperation).toEqual({ id, status: 'RUNNING' });
    }
    expect((await graphql('{ currentBulkOperation { id } }')).data.currentBulkOperation.id).toBe(started[4]);

    // 1.25 s after the first started, it is done (the second is not): one slot is free.
    clock = NOW + 1_250;
    expect((await graphql(`{ bulkOperation(id: "${started[0]}") { status } }`)).data.bulkOperation.status).toBe('COMPLETED');
    expect((await graphql(RUN(PRODUCTS))).data.bulkOperationRunQuery.userErrors).toEqual([]);
    expect((await graphql(RUN(PRODUCTS))).data.bulkOperationRunQuery.userErrors).toEqual([
      expect.objectContaining({ code: 'LIMIT_REACHED' }),
    ]);
  });

  it('counts every JSONL line as an object, nested connections’ nodes included, and reports the running total while it runs', async () => {
    let clock = NOW;
    const { standIn, graphql } = standInWith({ now: () => new Date(clock), bulkObjectsPerSecond: 500 }, { products: 20, orders: 200 });
    const orders = standIn.shop('bulky.myshopify.com').orders;
    const objects = orders.length + orders.reduce((sum, order) => sum + order.lineItems.length, 0);
    const id = (await graphql(RUN(UNITS_SOLD))).data.bulkOperationRunQuery.bulkOperation.id;
    const read = async () =>
      (await graphql(`{ bulkOperation(id: "${id}") { status objectCount rootObjectCount url } }`)).data.bulkOperation;

    // Half the time it takes at 500 objects a second: half the objects written.
    const duration = Math.ceil((objects / 500) * 1000);
    clock += duration / 2;
    const halfway = await read();
    expect(halfway.status).toBe('RUNNING');
    expect(Number(halfway.objectCount)).toBeGreaterThanOrEqual(Math.floor(objects / 2) - 1);
    expect(Number(halfway.objectCount)).toBeLessThanOrEqual(Math.ceil(objects / 2));
    clock = NOW + duration;
    const done = await read();
    expect(done).toMatchObject({ status: 'COMPLETED', objectCount: String(objects), rootObjectCount: String(orders.length) });
    const lines = (await (await standIn.fetch(done.url)).text()).trim().split('\n');
    expect(lines).toHaveLength(objects);
  });

  it('holds every request for its latency (Admin API, OAuth, result downloads) and adds overlapping waits once', async () => {
    let clock = NOW;
    const slept: number[] = [];
    // The test's sleep moves the stand-in's clock: the waits are on a timeline it can add up.
    const sleep = async (ms: number) => {
      slept.push(ms);
      clock += ms;
    };
    const { standIn, graphql } = standInWith(
      { now: () => new Date(clock), bulkObjectsPerSecond: 100, latencyMs: 50, sleep },
      { products: 100, orders: 0 },
    );
    const from = clock;
    await graphql('{ shop { name } }');
    expect(slept).toEqual([50]);
    const id = (await graphql(RUN(PRODUCTS))).data.bulkOperationRunQuery.bulkOperation.id;
    expect((await graphql(`{ bulkOperation(id: "${id}") { status } }`)).data.bulkOperation.status).toBe('RUNNING');
    // Time the app spends on its own: not Shopify's.
    clock += 1_000;
    const url = (await graphql(`{ bulkOperation(id: "${id}") { url } }`)).data.bulkOperation.url;
    expect(url).toMatch(/^https:\/\//);
    await standIn.fetch(url);
    const refused = await standIn.fetch('https://bulky.myshopify.com/admin/oauth/access_token', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: standIn.app.apiKey, client_secret: standIn.app.apiSecret, code: 'unknown' }),
    });
    expect(refused.status).toBe(400);
    expect(slept).toEqual([50, 50, 50, 50, 50, 50]);
    // 6 × 50 ms of latency and the app's own 1 s; the bulk operation's 1 s (100 objects at 100 a
    // second) overlaps the poll's wait and most of the app's second, which counts as Shopify's.
    expect(clock - from).toBe(1_300);
    expect(standIn.waitedMs(from, clock)).toBe(1_250);
  });
});
