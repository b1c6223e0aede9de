import { beforeAll, describe, expect, it } from 'vitest';
import { ShopifyStandIn } from './stand-in.js';

const SHOP = 'northwind.myshopify.com';
const NOW = new Date('2026-11-02T12:00:00Z');

describe('Shopify stand-in: what a commerce adapter reads and writes', () => {
  const standIn = new ShopifyStandIn({ now: () => NOW });
  let token = '';
  const graphql = async (query: string, variables: Record<string, unknown> = {}, accessToken = token) => {
    const response = await standIn.fetch(`https://${SHOP}/admin/api/2026-10/graphql.json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-shopify-access-token': accessToken },
      body: JSON.stringify({ query, variables }),
    });
    return (await response.json()) as { data?: Record<string, any>; errors?: Array<Record<string, any>>; extensions: Record<string, any> };
  };

  beforeAll(() => {
    standIn.createShop({ name: 'northwind', products: 120, orders: 400, inactiveShare: 0.25, withoutImagesShare: 0.1 });
    token = standIn.installApp(SHOP, ['read_products', 'read_orders', 'read_all_orders', 'read_customers', 'write_discounts']);
  });

  it('pages through every active product with first/after cursors', async () => {
    const active = standIn.shop(SHOP).products.filter((product) => product.status === 'ACTIVE');
    const seen: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 10; page++) {
      const body = await graphql(
        `#graphql
        query Products($after: String) {
          products(first: 50, after: $after, query: "status:active") {
            edges { cursor node { id status } } pageInfo { hasNextPage endCursor }
          }
        }`,
        { after },
      );
      const connection = body.data!.products;
      seen.push(...connection.edges.map((edge: { node: { id: string; status: string } }) => edge.node.status === 'ACTIVE' && edge.node.id));
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
    }
    expect(seen).toEqual(active.map((product) => `gid://shopify/Product/${product.id}`));
    const count = await graphql('{ productsCount(query: "status:active") { count precision } }');
    expect(count.data!.productsCount).toEqual({ count: active.length, precision: 'EXACT' });
  });

  it('insists on first or last, at most 250, as Shopify does', async () => {
    const missing = await graphql('{ products { nodes { id } } }');
    expect(missing.errors![0]!.message).toBe('you must provide one of first or last');
    const tooMany = await graphql('{ products(first: 251) { nodes { id } } }');
    expect(tooMany.errors![0]!.message).toMatch(/250/);
  });

  it('filters orders on created_at, counts them, and hides orders older than 60 days without read_all_orders', async () => {
    const since = '2026-09-01T00:00:00Z';
    const expected = standIn.shop(SHOP).orders.filter((order) => order.createdAt >= new Date(since));
    const body = await graphql(
      `#graphql
      query Recent($query: String) {
        ordersCount(query: $query) { count precision } orders(first: 250, query: $query) { nodes { id createdAt } }
      }`,
      { query: `created_at:>='${since}'` },
    );
    expect(body.data!.ordersCount.count).toBe(expected.length);
    expect(body.data!.orders.nodes.map((order: { id: string }) => order.id)).toEqual(
      expected.slice(0, 250).map((order) => `gid://shopify/Order/${order.id}`),
    );

    const narrowToken = standIn.installApp(SHOP, ['read_orders']);
    const narrow = await graphql('{ ordersCount { count } }', {}, narrowToken);
    const sixtyDaysAgo = NOW.getTime() - 60 * 86_400_000;
    expect(narrow.data!.ordersCount.count).toBe(
      standIn.shop(SHOP).orders.filter((order) => order.createdAt.getTime() >= sixtyDaysAgo).length,
    );
    token = standIn.installApp(SHOP, ['read_products', 'read_orders', 'read_all_orders', 'read_customers', 'write_discounts']);
  });

  it('shows an order’s customer, order index, money, discount code and the landing URL its referral parameter came on', async () => {
    const created = await graphql(`#graphql
      mutation { discountCodeBasicCreate(basicCodeDiscount: {
        title: "Partner welcome", code: "NORTHWIND-15", startsAt: "2026-01-01T00:00:00Z", appliesOncePerCustomer: true,
        customerGets: { value: { percentage: 0.15 }, items: { all: true } }, context: { all: ALL }
      }) { codeDiscountNode { id } userErrors { field message code } } }`);
    expect(created.data!.discountCodeBasicCreate.userErrors).toEqual([]);
    const product = standIn.shop(SHOP).products.find((candidate) => candidate.status === 'ACTIVE')!;
    const order = await standIn.placeOrder(SHOP, {
      lineItems: [{ productId: product.id, quantity: 2 }],
      discountCode: 'northwind-15',
      landingSite: '/products/tee?ref=partner-42&utm_source=partner',
    });
    const body = await graphql(
      `#graphql
      query One($id: ID!) { order(id: $id) { name discountCodes customer { id numberOfOrders }
        customerJourneySummary { customerOrderIndex firstVisit { landingPage referralCode utmParameters { source } } }
        totalPriceSet { shopMoney { amount currencyCode } } lineItems(first: 5) { nodes { quantity product { id } } } } }`,
      { id: `gid://shopify/Order/${order.id}` },
    );
    const expectedTotal = Math.round(product.priceCents * 2 * 0.85);
    expect(body.data!.order).toEqual({
      name: `#${order.number}`,
      discountCodes: ['NORTHWIND-15'],
      customer: { id: `gid://shopify/Customer/${order.customerId}`, numberOfOrders: '1' },
      customerJourneySummary: {
        customerOrderIndex: 1,
        firstVisit: {
          landingPage: 'https://northwind.example/products/tee?ref=partner-42&utm_source=partner',
          // Shopify reads the landing page's ref (else source, else r) as the visit's referral code.
          referralCode: 'partner-42',
          utmParameters: { source: 'partner' },
        },
      },
      totalPriceSet: {
        shopMoney: {
          amount: String(expectedTotal / 100).includes('.') ? String(expectedTotal / 100) : `${expectedTotal / 100}.0`,
          currencyCode: 'USD',
        },
      },
      lineItems: { nodes: [{ quantity: 2, product: { id: `gid://shopify/Product/${product.id}` } }] },
    });
    // A shareable discount link: the code goes on the cart, the shopper goes on to the redirect's store path only, and the
    // visit's landing page is the link itself, as Shopify records it.
    expect(standIn.visit('https://northwind.example/discount/NORTHWIND-15?redirect=%2Fproducts%2Ftee%3Fref%3Dp-1')).toEqual({
      domain: SHOP,
      landingSite: '/discount/NORTHWIND-15?redirect=%2Fproducts%2Ftee%3Fref%3Dp-1',
      discountCode: 'NORTHWIND-15',
      location: '/products/tee?ref=p-1',
    });
    expect(standIn.visit(`https://${SHOP}/discount/NORTHWIND-15?redirect=https://evil.example/`).location).toBe('/');
    expect(standIn.visit(`https://${SHOP}/discount/NORTHWIND-15?redirect=//evil.example/`).location).toBe('/');
    expect(standIn.visit(`https://${SHOP}/collections/all?r=x`)).toEqual({
      domain: SHOP,
      landingSite: '/collections/all?r=x',
      location: '/collections/all?r=x',
    });
    // The code applies once per customer: the same customer's next checkout with it is refused.
    await expect(standIn.placeOrder(SHOP, { customerId: order.customerId!, discountCode: 'NORTHWIND-15' })).rejects.toThrow(/already used/);
  });

  it('refuses a duplicate discount code with Shopify’s userErrors, then renames and deletes the code', async () => {
    const create = (code: string) =>
      graphql(
        `#graphql
        mutation Create($input: DiscountCodeBasicInput!) { discountCodeBasicCreate(basicCodeDiscount: $input) {
          codeDiscountNode { id codeDiscount { ... on DiscountCodeBasic {
            title status appliesOncePerCustomer codes(first: 1) { nodes { code } }
            customerGets { value { ... on DiscountPercentage { percentage } } }
          } } }
          userErrors { field message code }
        } }`,
        {
          input: {
            title: 'Partner offer',
            code,
            startsAt: '2026-01-01T00:00:00Z',
            appliesOncePerCustomer: true,
            customerGets: { value: { percentage: 0.1 }, items: { all: true } },
          },
        },
      );
    const first = await create('PARTNER10');
    const node = first.data!.discountCodeBasicCreate.codeDiscountNode;
    expect(node.codeDiscount).toEqual({
      title: 'Partner offer',
      status: 'ACTIVE',
      appliesOncePerCustomer: true,
      codes: { nodes: [{ code: 'PARTNER10' }] },
      customerGets: { value: { percentage: 0.1 } },
    });
    const duplicate = await create('partner10');
    expect(duplicate.data!.discountCodeBasicCreate).toEqual({
      codeDiscountNode: null,
      userErrors: [{ field: ['basicCodeDiscount', 'code'], message: 'Code must be unique. Please try a different code.', code: 'TAKEN' }],
    });
    const renamed = await graphql(
      `#graphql
      mutation Rename($id: ID!) {
        discountCodeBasicUpdate(
          id: $id, basicCodeDiscount: { code: "PARTNER12", customerGets: { value: { percentage: 0.12 }, items: { all: true } } }
        ) {
          codeDiscountNode { id } userErrors { message }
        }
      }`,
      { id: node.id },
    );
    expect(renamed.data!.discountCodeBasicUpdate.userErrors).toEqual([]);
    const byCode = await graphql(
      '{ codeDiscountNodeByCode(code: "PARTNER12") { id } old: codeDiscountNodeByCode(code: "PARTNER10") { id } }',
    );
    expect(byCode.data).toEqual({ codeDiscountNodeByCode: { id: node.id }, old: null });
    const deleted = await graphql(
      'mutation Delete($id: ID!) { discountCodeDelete(id: $id) { deletedCodeDiscountId userErrors { message } } }',
      { id: node.id },
    );
    expect(deleted.data!.discountCodeDelete).toEqual({ deletedCodeDiscountId: node.id, userErrors: [] });
    const again = await graphql(
      'mutation Delete($id: ID!) { discountCodeDelete(id: $id) { deletedCodeDiscountId userErrors { message } } }',
      { id: node.id },
    );
    expect(again.data!.discountCodeDelete).toEqual({ deletedCodeDiscountId: null, userErrors: [{ message: 'Discount does not exist' }] });
  });

  it('stores webhook subscriptions, HTTPS addresses only, one per topic and address', async () => {
    const subscribe = (uri: string) =>
      graphql(
        'mutation Sub($uri: String!) { webhookSubscriptionCreate(topic: ORDERS_CREATE, webhookSubscription: { uri: $uri, format: JSON }) ' +
          '{ webhookSubscription { id topic uri } userErrors { field message } } }',
        { uri },
      );
    const created = await subscribe('https://svc.test/commerce/shopify/webhooks');
    expect(created.data!.webhookSubscriptionCreate.webhookSubscription).toMatchObject({
      topic: 'ORDERS_CREATE',
      uri: 'https://svc.test/commerce/shopify/webhooks',
    });
    expect((await subscribe('https://svc.test/commerce/shopify/webhooks')).data!.webhookSubscriptionCreate.userErrors).toEqual([
      { field: ['webhookSubscription', 'callbackUrl'], message: 'Address for this topic has already been taken' },
    ]);
    expect((await subscribe('http://svc.test/hooks')).data!.webhookSubscriptionCreate.userErrors[0].message).toBe(
      'Address protocol http:// is not supported',
    );
    const listed = await graphql(
      '{ webhookSubscriptions(first: 10, topics: [ORDERS_CREATE]) ' +
        '{ nodes { topic uri endpoint { __typename ... on WebhookHttpEndpoint { callbackUrl } } } } }',
    );
    expect(listed.data!.webhookSubscriptions.nodes).toEqual([
      {
        topic: 'ORDERS_CREATE',
        uri: 'https://svc.test/commerce/shopify/webhooks',
        endpoint: { __typename: 'WebhookHttpEndpoint', callbackUrl: 'https://svc.test/commerce/shopify/webhooks' },
      },
    ]);
  });

  it('runs a bulk query: RUNNING on the first poll, then COMPLETED with a JSONL file the fetch bridge serves', async () => {
    const started = await graphql(`#graphql
      mutation { bulkOperationRunQuery(query: """
        { orders { edges { node { id createdAt lineItems { edges { node { quantity product { id } } } } } } } }
      """) { bulkOperation { id status } userErrors { field message code } } }`);
    expect(started.data!.bulkOperationRunQuery.userErrors).toEqual([]);
    const { id, status } = started.data!.bulkOperationRunQuery.bulkOperation;
    expect(status).toBe('CREATED');
    const poll = () => graphql('{ currentBulkOperation { id status objectCount rootObjectCount url } }');
    expect((await poll()).data!.currentBulkOperation).toMatchObject({ id, status: 'RUNNING', url: null });
    const done = (await poll()).data!.currentBulkOperation;
    const orders = standIn.shop(SHOP).orders;
    const lineItems = orders.reduce((sum, order) => sum + order.lineItems.length, 0);
    expect(done).toMatchObject({
      id,
      status: 'COMPLETED',
      rootObjectCount: String(orders.length),
      objectCount: String(orders.length + lineItems),
    });
    const lines = (await (await standIn.fetch(done.url)).text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, any>);
    expect(lines).toHaveLength(orders.length + lineItems);
    expect(lines[0]).toEqual({ id: `gid://shopify/Order/${orders[0]!.id}`, createdAt: orders[0]!.createdAt.toISOString() });
    expect(lines[1]).toEqual({
      quantity: orders[0]!.lineItems[0]!.quantity,
      product: { id: `gid://shopify/Product/${orders[0]!.lineItems[0]!.productId}` },
      __parentId: `gid://shopify/Order/${orders[0]!.id}`,
    });

    const invalid = await graphql(
      'mutation { bulkOperationRunQuery(query: "{ shop { name } }") { bulkOperation { id } userErrors { message code } } }',
    );
    expect(invalid.data!.bulkOperationRunQuery).toEqual({
      bulkOperation: null,
      userErrors: [{ message: 'Bulk queries must contain at least one connection.', code: 'INVALID' }],
    });
  });

  it('keeps a bulk operation RUNNING for as long as the stand-in’s bulk speed says', async () => {
    let clock = NOW.getTime();
    const slow = new ShopifyStandIn({ now: () => new Date(clock), bulkObjectsPerSecond: 100 });
    slow.createShop({ name: 'slowpoke', products: 120 });
    const slowToken = slow.installApp('slowpoke.myshopify.com', ['read_products']);
    const ask = async (query: string) =>
      (
        (await (
          await slow.fetch('https://slowpoke.myshopify.com/admin/api/2026-10/graphql.json', {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-shopify-access-token': slowToken },
            body: JSON.stringify({ query }),
          })
        ).json()) as { data: Record<string, any> }
      ).data;
    await ask('mutation { bulkOperationRunQuery(query: "{ products { edges { node { id } } } }") { userErrors { message } } }');
    const status = async () => (await ask('{ currentBulkOperation { status } }')).currentBulkOperation.status;
    // 120 objects at 100 a second: ready 1.2 s after the start.
    expect(await status()).toBe('RUNNING');
    clock += 1_100;
    expect(await status()).toBe('RUNNING');
    clock += 200;
    expect(await status()).toBe('COMPLETED');
  });
});
