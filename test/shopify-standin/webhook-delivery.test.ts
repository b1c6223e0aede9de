import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { schemaForWebhook } from 'shopify-webhook-schemas';
import { describe, expect, it } from 'vitest';
import { EXAMPLES_VERSION } from './example-payloads.js';
import { ShopifyStandIn } from './stand-in.js';
import type { AppSubscription } from './model.js';
import { appSubscriptionPayload, FAILURES_BEFORE_DELETION, WEBHOOK_RETRY_DELAYS_MS, type Deliver } from './webhooks.js';

const APP_URI = 'https://app.test/webhooks';
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
/** Shopify's examples are draft 2020-12 schemas with formats (date-time, email, hostname, uri). */
const schemaValidator = () => addFormats(new Ajv2020({ allErrors: true, strict: false }));

/**
 * A stand-in whose deliveries reach `answer`, on a clock the test moves; the shop has the app and
 * an API-made orders/create subscription.
 */
async function standInAnswering(answer: Deliver, options: { deadlineMs?: number } = {}) {
  let now = new Date('2026-11-01T10:00:00Z');
  const standIn = new ShopifyStandIn({
    now: () => now,
    deliverWebhook: answer,
    ...(options.deadlineMs === undefined ? {} : { webhookAnswerDeadlineMs: options.deadlineMs }),
  });
  const shop = standIn.createShop({ name: `hooks-${crypto.randomUUID().slice(0, 8)}`, products: 3 }).domain;
  const token = standIn.installApp(shop, ['read_orders']);
  const created = await standIn.fetch(`https://${shop}/admin/api/2026-10/graphql.json`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-shopify-access-token': token },
    body: JSON.stringify({
      query:
        `mutation { webhookSubscriptionCreate(topic: ORDERS_CREATE, webhookSubscription: { uri: "${APP_URI}" }) ` +
        '{ userErrors { message } } }',
    }),
  });
  expect(
    ((await created.json()) as { data: { webhookSubscriptionCreate: { userErrors: unknown[] } } }).data.webhookSubscriptionCreate,
  ).toEqual({
    userErrors: [],
  });
  return { standIn, shop, advance: (ms: number) => (now = new Date(now.getTime() + ms)) };
}

describe('Shopify stand-in: webhooks delivered as Shopify delivers them', () => {
  it('sends one delivery per subscription, each with its own webhook id and the event’s shared event id', async () => {
    const received: Array<Record<string, string>> = [];
    const { standIn, shop } = await standInAnswering(async (_url, init) => {
      received.push(init.headers);
      return new Response(null, { status: 200 });
    });
    standIn.app.webhooks.push({ topic: 'orders/create', uri: APP_URI });
    await standIn.placeOrder(shop);
    const created = received.filter((headers) => headers['x-shopify-topic'] === 'orders/create');
    expect(created).toHaveLength(2);
    expect(created[0]!['x-shopify-webhook-id']).not.toBe(created[1]!['x-shopify-webhook-id']);
    expect(created[0]!['x-shopify-event-id']).toBe(created[1]!['x-shopify-event-id']);
    expect(new Set(standIn.webhookDeliveries({ shop, topic: 'orders/create' }).map((delivery) => delivery.subscription)).size).toBe(2);
  });

  it('retries a failed delivery 8 times over 4 hours with the same body and ids, and stops once answered', async () => {
    let failing = true;
    const sent: Array<{ webhookId: string; eventId: string; body: string }> = [];
    const { standIn, shop, advance } = await standInAnswering(async (_url, init) => {
      sent.push({ webhookId: init.headers['x-shopify-webhook-id']!, eventId: init.headers['x-shopify-event-id']!, body: init.body });
      return new Response(null, { status: failing ? 500 : 200 });
    });
    // The app's own subscription (not deleted by failures), so all 8 retries happen.
    standIn.app.webhooks.push({ topic: 'orders/paid', uri: APP_URI });
    await standIn.placeOrder(shop);
    const [paid] = standIn.webhookDeliveries({ shop, topic: 'orders/paid' });
    expect(paid).toMatchObject({ status: 500, attempts: 1, error: 'answered 500' });
    expect(WEBHOOK_RETRY_DELAYS_MS.reduce((sum, delay) => sum + delay, 0)).toBe(4 * 60 * 60_000);
    // Nothing is retried before it is due.
    advance(WEBHOOK_RETRY_DELAYS_MS[0]! - 1);
    expect(await standIn.retryDueWebhooks()).toEqual([]);
    for (const delay of WEBHOOK_RETRY_DELAYS_MS.slice(0, 3)) {
      advance(delay);
      await standIn.retryDueWebhooks();
    }
    expect(paid!.attempts).toBe(4);
    failing = false;
    advance(WEBHOOK_RETRY_DELAYS_MS[3]!);
    await standIn.retryDueWebhooks();
    expect(paid).toMatchObject({ status: 200, error: null, attempts: 5, nextRetryAt: null });
    const ofPaid = sent.filter((each) => each.webhookId === paid!.webhookId);
    expect(ofPaid).toHaveLength(5);
    expect(new Set(ofPaid.map((each) => `${each.eventId} ${each.body}`)).size).toBe(1);

    // Failing for good: the first attempt and 8 retries, then no more.
    failing = true;
    await standIn.placeOrder(shop);
    const last = standIn.webhookDeliveries({ shop, topic: 'orders/paid' }).at(-1)!;
    for (const delay of WEBHOOK_RETRY_DELAYS_MS) {
      advance(delay);
      await standIn.retryDueWebhooks();
    }
    expect(last).toMatchObject({ attempts: 9, nextRetryAt: null });
  });

  it('counts an answer later than 5 seconds as a failure', async () => {
    const { standIn, shop } = await standInAnswering(
      (_url, init) =>
        new Promise<Response>((resolve, reject) => {
          const late = setTimeout(() => resolve(new Response(null, { status: 200 })), 1_000);
          init.signal?.addEventListener('abort', () => {
            clearTimeout(late);
            reject(new Error('aborted'));
          });
        }),
      { deadlineMs: 50 },
    );
    await standIn.placeOrder(shop);
    const [created] = standIn.webhookDeliveries({ shop, topic: 'orders/create' });
    expect(created).toMatchObject({ status: null, error: 'no answer within 50 ms', nextRetryAt: expect.any(Date) });
  });

  it('deletes a subscription made through the Admin API after 8 failed attempts in a row; the app’s own stays', async () => {
    const { standIn, shop, advance } = await standInAnswering(async () => new Response(null, { status: 503 }));
    standIn.app.webhooks.push({ topic: 'orders/create', uri: 'https://app.test/declared' });
    await standIn.placeOrder(shop);
    const [declared, created] = standIn.webhookDeliveries({ shop, topic: 'orders/create' });
    expect(created!.subscription).toMatch(/^api:/);
    for (const delay of WEBHOOK_RETRY_DELAYS_MS.slice(0, FAILURES_BEFORE_DELETION - 2)) {
      advance(delay);
      await standIn.retryDueWebhooks();
    }
    expect(created!.attempts).toBe(FAILURES_BEFORE_DELETION - 1);
    expect(standIn.shop(shop).webhookSubscriptions.size).toBe(1);
    advance(WEBHOOK_RETRY_DELAYS_MS[FAILURES_BEFORE_DELETION - 2]!);
    await standIn.retryDueWebhooks();
    expect(created).toMatchObject({ attempts: FAILURES_BEFORE_DELETION, nextRetryAt: null });
    expect(standIn.shop(shop).webhookSubscriptions.size).toBe(0);
    expect(declared!.nextRetryAt).not.toBeNull();
    // The next order reaches only the app's declared subscription.
    await standIn.placeOrder(shop);
    expect(
      standIn
        .webhookDeliveries({ shop, topic: 'orders/create' })
        .slice(2)
        .map((delivery) => delivery.uri),
    ).toEqual(['https://app.test/declared']);
  });

  it('sends bodies that validate against shopify-webhook-schemas’ schema of their topic', async () => {
    const ajv = schemaValidator();
    /**
     * The package infers `items: false` from an example whose array was empty (an order's refunds
     * and returns): that says "no example", not "always empty", so those arrays take any items.
     */
    const schemaOf = (topic: string) =>
      JSON.parse(JSON.stringify(schemaForWebhook(EXAMPLES_VERSION, topic)), (key, value) =>
        key === 'items' && value === false ? {} : value,
      );
    const { standIn, shop } = await standInAnswering(async () => new Response(null, { status: 200 }));
    for (const topic of ['orders/paid', 'orders/cancelled', 'refunds/create', 'app/uninstalled', 'app_subscriptions/update'])
      standIn.app.webhooks.push({ topic, uri: APP_URI });
    for (const topic of ['customers/data_request', 'customers/redact', 'shop/redact']) standIn.app.webhooks.push({ topic, uri: APP_URI });
    const product = standIn.shop(shop).products[0]!;
    const order = await standIn.placeOrder(shop, {
      lineItems: [{ productId: product.id, quantity: 2 }],
      landingSite: '/?ref=partner-7',
      noteAttributes: [{ name: 'ref', value: 'partner-7' }],
    });
    await standIn.refundOrder(shop, order.id, { lineItems: [{ lineItemId: order.lineItems[0]!.id, quantity: 1 }] });
    await standIn.cancelOrder(shop, order.id);
    // A shopper who paid in EUR: refunds paid back in EUR, an amount on its own with its order adjustment.
    const abroad = await standIn.placeOrder(shop, {
      lineItems: [{ productId: product.id, quantity: 2 }],
      presentment: { currency: 'EUR', rate: 0.92 },
    });
    await standIn.refundOrder(shop, abroad.id, { lineItems: [{ lineItemId: abroad.lineItems[0]!.id, quantity: 1 }] });
    await standIn.refundOrder(shop, abroad.id, { amountCents: 100 });
    await standIn.requestCustomerData(shop, order.customerId!);
    await standIn.redactCustomer(shop, order.customerId!);
    await standIn.uninstall(shop);
    await standIn.redactShop(shop);

    const deliveries = standIn.webhookDeliveries({ shop });
    expect(new Set(deliveries.map((delivery) => delivery.topic))).toEqual(
      new Set([
        'orders/create',
        'orders/paid',
        'orders/cancelled',
        'refunds/create',
        'customers/data_request',
        'customers/redact',
        'app/uninstalled',
        'shop/redact',
      ]),
    );
    for (const delivery of deliveries) {
      const validate = ajv.compile(schemaOf(delivery.topic));
      const valid = validate(JSON.parse(delivery.body));
      expect(valid, `${delivery.topic}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
    // The stand-in's own values, not the example's, where it models them.
    const created = JSON.parse(deliveries.find((delivery) => delivery.topic === 'orders/create')!.body);
    expect(created).toMatchObject({
      id: order.id,
      total_price: ((product.priceCents * 2) / 100).toFixed(2),
      total_price_set: { shop_money: { amount: ((product.priceCents * 2) / 100).toFixed(2), currency_code: 'USD' } },
      customer: { id: order.customerId },
      line_items: [{ id: order.lineItems[0]!.id, product_id: product.id, quantity: 2 }],
      landing_site: '/?ref=partner-7',
    });
    expect(created.line_items).toHaveLength(1);
    const [itemBack, amountBack] = deliveries
      .filter((delivery) => delivery.topic === 'refunds/create')
      .map((delivery) => JSON.parse(delivery.body))
      .slice(-2);
    expect(itemBack).toMatchObject({
      order_id: abroad.id,
      transactions: [{ amount: (Math.round(product.priceCents * 0.92) / 100).toFixed(2), currency: 'EUR' }],
      refund_line_items: [{ subtotal_set: { shop_money: { currency_code: 'USD' }, presentment_money: { currency_code: 'EUR' } } }],
      order_adjustments: [],
    });
    expect(amountBack).toMatchObject({
      transactions: [{ amount: '0.92', currency: 'EUR' }],
      refund_line_items: [],
      order_adjustments: [
        {
          kind: 'refund_discrepancy',
          amount: '-1.00',
          amount_set: {
            shop_money: { amount: '-1.00', currency_code: 'USD' },
            presentment_money: { amount: '-0.92', currency_code: 'EUR' },
          },
        },
      ],
    });
  });

  it('sends app_subscriptions/update bodies that validate against the package’s schema', async () => {
    const ajv = schemaValidator();
    const standIn = new ShopifyStandIn();
    const shop = standIn.createShop({ name: `subs-${crypto.randomUUID().slice(0, 8)}` });
    const subscription: AppSubscription = {
      id: 7,
      name: 'Partner Network usage',
      status: 'ACTIVE',
      test: true,
      trialDays: 0,
      returnUrl: 'https://app.test/return',
      createdAt: new Date(),
      currentPeriodEnd: null,
      lineItems: [
        {
          index: 0,
          pricing: { kind: 'usage', terms: '5% of referred orders', cappedAmountCents: 50_000, currency: 'USD', balanceUsedCents: 0 },
          usageRecords: [],
        },
      ],
    };
    const body = appSubscriptionPayload(shop, subscription, new Date());
    const validate = ajv.compile(schemaForWebhook(EXAMPLES_VERSION, 'app_subscriptions/update'));
    expect(validate(body), ajv.errorsText(validate.errors)).toBe(true);
    expect(body).toMatchObject({ app_subscription: { status: 'ACTIVE', capped_amount: '500.0', currency: 'USD' } });
  });
});
