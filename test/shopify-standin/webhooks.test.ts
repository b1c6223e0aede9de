import { DeliveryMethod } from '@shopify/shopify-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExampleApp, type ExampleApp } from './example-app.js';
import { offlineSession, shopifyLibraryFor } from './shopify-library.js';
import { ShopifyStandIn } from './stand-in.js';

const SHOP = 'fernhill.myshopify.com';

describe('Shopify stand-in: webhooks, verified by @shopify/shopify-api', () => {
  let app: ExampleApp;
  // API-made subscriptions must be HTTPS, as on Shopify; this routes that address to the local app.
  const standIn = new ShopifyStandIn({ deliverWebhook: (url, init) => fetch(url.replace('https://app.test', app.baseUrl), init) });
  let token = '';
  const graphql = async (query: string, accessToken = token) =>
    standIn.fetch(`https://${SHOP}/admin/api/2026-10/graphql.json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-shopify-access-token': accessToken },
      body: JSON.stringify({ query }),
    });

  beforeAll(async () => {
    standIn.createShop({ name: 'fernhill', products: 20, orders: 30 });
    app = await startExampleApp((hostName) => shopifyLibraryFor(standIn, { hostName, hostScheme: 'http', scopes: ['read_orders'] }));
    // Declared in the app's configuration: app/uninstalled and the three compliance topics.
    for (const topic of ['app/uninstalled', 'customers/data_request', 'customers/redact', 'shop/redact'])
      standIn.app.webhooks.push({ topic, uri: `${app.baseUrl}/webhooks` });
    token = standIn.installApp(SHOP, ['read_orders']);
    for (const topic of ['ORDERS_CREATE', 'ORDERS_PAID', 'ORDERS_CANCELLED', 'REFUNDS_CREATE']) {
      const response = await graphql(
        `mutation { webhookSubscriptionCreate(topic: ${topic}, webhookSubscription: { uri: "https://app.test/webhooks" }) ` +
          '{ userErrors { message } } }',
      );
      expect(((await response.json()) as any).data.webhookSubscriptionCreate.userErrors).toEqual([]);
    }
  });
  afterAll(() => app.close());

  it('delivers orders/create and orders/paid with Shopify’s headers, and the library validates them', async () => {
    const product = standIn.shop(SHOP).products[0]!;
    const order = await standIn.placeOrder(SHOP, {
      lineItems: [{ productId: product.id, quantity: 3 }],
      landingSite: '/?ref=partner-7',
      noteAttributes: [{ name: 'ref', value: 'partner-7' }],
    });
    const deliveries = standIn.webhookDeliveries({ shop: SHOP }).slice(-2);
    expect(deliveries.map((delivery) => [delivery.topic, delivery.status])).toEqual([
      ['orders/create', 200],
      ['orders/paid', 200],
    ]);
    expect(app.webhooks.slice(-2).map((received) => [received.valid, received.topic])).toEqual([
      [true, 'ORDERS_CREATE'],
      [true, 'ORDERS_PAID'],
    ]);
    const [created] = deliveries;
    expect(
      Object.keys(created!.headers)
        .filter((name) => name.startsWith('x-shopify-'))
        .sort(),
    ).toEqual([
      'x-shopify-api-version',
      'x-shopify-event-id',
      'x-shopify-hmac-sha256',
      'x-shopify-shop-domain',
      'x-shopify-topic',
      'x-shopify-triggered-at',
      'x-shopify-webhook-id',
    ]);
    expect(created!.headers).toMatchObject({
      'x-shopify-topic': 'orders/create',
      'x-shopify-shop-domain': SHOP,
      'x-shopify-api-version': '2026-10',
    });
    expect(JSON.parse(created!.body)).toMatchObject({
      id: order.id,
      admin_graphql_api_id: `gid://shopify/Order/${order.id}`,
      name: `#${order.number}`,
      total_price: ((product.priceCents * 3) / 100).toFixed(2),
      financial_status: 'paid',
      landing_site: '/?ref=partner-7',
      note_attributes: [{ name: 'ref', value: 'partner-7' }],
      discount_codes: [],
      customer: { id: order.customerId },
      line_items: [{ product_id: product.id, quantity: 3, price: (product.priceCents / 100).toFixed(2) }],
    });
  });

  it('fails validation when the body is altered in transit', async () => {
    const delivery = standIn.webhookDeliveries({ shop: SHOP, topic: 'orders/create' }).at(-1)!;
    const forged = await fetch(`${app.baseUrl}/webhooks`, {
      method: 'POST',
      headers: delivery.headers,
      body: delivery.body.replace('"financial_status":"paid"', '"financial_status":"refunded"'),
    });
    expect(forged.status).toBe(401);
    expect(app.webhooks.at(-1)!.valid).toBe(false);
  });

  it('redelivers a webhook byte for byte with the same webhook and event ids', async () => {
    const delivery = standIn.webhookDeliveries({ shop: SHOP, topic: 'orders/paid' }).at(-1)!;
    const received = app.webhooks.length;
    const again = await standIn.redeliverWebhook(delivery.webhookId);
    expect(again).toMatchObject({ webhookId: delivery.webhookId, eventId: delivery.eventId, attempts: 2, status: 200 });
    expect(app.webhooks.slice(received)).toEqual([
      { valid: true, topic: 'ORDERS_PAID', webhookId: delivery.webhookId, body: delivery.body },
    ]);
  });

  it('sends refunds/create for a partial refund, and refunds/create then orders/cancelled on a cancel', async () => {
    const product = standIn.shop(SHOP).products[1]!;
    const order = await standIn.placeOrder(SHOP, { lineItems: [{ productId: product.id, quantity: 2 }] });
    await standIn.refundOrder(SHOP, order.id, {
      lineItems: [{ lineItemId: order.lineItems[0]!.id, quantity: 1 }],
      note: 'one came broken',
    });
    const partial = JSON.parse(standIn.webhookDeliveries({ shop: SHOP, topic: 'refunds/create' }).at(-1)!.body);
    expect(partial).toMatchObject({
      order_id: order.id,
      note: 'one came broken',
      refund_line_items: [{ line_item_id: order.lineItems[0]!.id, quantity: 1, subtotal: product.priceCents / 100 }],
      transactions: [{ kind: 'refund', status: 'success', amount: (product.priceCents / 100).toFixed(2) }],
    });
    await standIn.cancelOrder(SHOP, order.id, { reason: 'customer' });
    const topics = standIn
      .webhookDeliveries({ shop: SHOP })
      .slice(-2)
      .map((delivery) => delivery.topic);
    expect(topics).toEqual(['refunds/create', 'orders/cancelled']);
    const cancelled = JSON.parse(standIn.webhookDeliveries({ shop: SHOP, topic: 'orders/cancelled' }).at(-1)!.body);
    expect(cancelled).toMatchObject({
      id: order.id,
      cancel_reason: 'customer',
      financial_status: 'refunded',
      cancelled_at: expect.any(String),
    });
    expect(cancelled.refunds).toHaveLength(2);
  });

  it('sends the compliance topics to the addresses the app declared', async () => {
    const order = standIn.shop(SHOP).orders.at(-1)!;
    await standIn.requestCustomerData(SHOP, order.customerId!);
    await standIn.redactCustomer(SHOP, order.customerId!);
    const [request, redact] = standIn.webhookDeliveries({ shop: SHOP }).slice(-2);
    expect(JSON.parse(request!.body)).toMatchObject({
      shop_domain: SHOP,
      customer: { id: order.customerId },
      orders_requested: [order.id],
      data_request: { id: expect.any(Number) },
    });
    expect(JSON.parse(redact!.body)).toMatchObject({ shop_domain: SHOP, customer: { id: order.customerId }, orders_to_redact: [order.id] });
    expect(app.webhooks.slice(-2).map((received) => [received.valid, received.topic])).toEqual([
      [true, 'CUSTOMERS_DATA_REQUEST'],
      [true, 'CUSTOMERS_REDACT'],
    ]);
    await expect(standIn.redactShop(SHOP)).rejects.toThrow(/only after the app was uninstalled/);
  });

  it('answers the library’s webhooks.register: reads the subscriptions, creates the missing one, leaves the rest', async () => {
    const shopify = shopifyLibraryFor(standIn, { hostName: 'app.test', scopes: ['read_orders'] });
    await shopify.webhooks.addHandlers({
      ORDERS_CREATE: [{ deliveryMethod: DeliveryMethod.Http, callbackUrl: '/webhooks' }],
      ORDERS_UPDATED: [{ deliveryMethod: DeliveryMethod.Http, callbackUrl: '/webhooks' }],
    });
    const results = await shopify.webhooks.register({ session: offlineSession(SHOP, token, 'read_orders') });
    expect(results.ORDERS_UPDATED).toEqual([expect.objectContaining({ success: true, operation: 'create' })]);
    expect(results.ORDERS_CREATE).toEqual([]);
    const topics = [...standIn.shop(SHOP).webhookSubscriptions.values()]
      .map((subscription) => `${subscription.topic} ${subscription.uri}`)
      .sort();
    expect(topics).toContain('ORDERS_UPDATED https://app.test/webhooks');
    expect(topics).toContain('ORDERS_CREATE https://app.test/webhooks');
  });

  it('on uninstall: app/uninstalled goes out, the token stops working, the API-made subscriptions are gone, then shop/redact', async () => {
    const [uninstalled] = await standIn.uninstall(SHOP);
    expect(uninstalled).toMatchObject({ topic: 'app/uninstalled', status: 200 });
    expect(JSON.parse(uninstalled!.body)).toMatchObject({ myshopify_domain: SHOP });
    expect(app.webhooks.at(-1)).toMatchObject({ valid: true, topic: 'APP_UNINSTALLED' });
    expect((await graphql('{ shop { name } }')).status).toBe(401);

    const before = standIn.webhookDeliveries({ shop: SHOP }).length;
    await standIn.placeOrder(SHOP);
    expect(standIn.webhookDeliveries({ shop: SHOP })).toHaveLength(before);

    const [redact] = await standIn.redactShop(SHOP);
    expect(JSON.parse(redact!.body)).toEqual({ shop_id: standIn.shop(SHOP).id, shop_domain: SHOP });
    expect(app.webhooks.at(-1)).toMatchObject({ valid: true, topic: 'SHOP_REDACT' });
  });
});
