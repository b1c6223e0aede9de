import { setAbstractFetchFunc } from '@shopify/shopify-api/runtime';
import { beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_USER_AGENT } from '../../../test/shopify-standin/example-app.js';
import { ShopifyStandIn } from '../../../test/shopify-standin/stand-in.js';
import { describeEachDatabase } from '../../../test/support/harness.js';
import { deliveriesWorkedOff, reversalsAt, shopifyEnv, standInFor } from '../../../test/support/shopify.js';
import { shopifyCollab } from '../../../test/support/shopify-collab.js';
import { planCappedAmount } from './adapter.js';
import { usageDescription } from './billing.js';

const BASE_URL = 'https://svc.test';
const ENV = { LOG_LEVEL: 'error', BASE_URL, SETUP_POLL_MS: '20', SETUP_RETRY_MS: '50', ...shopifyEnv(new ShopifyStandIn()) };

describe('the usage plan and record, by the currency', () => {
  it('is in the store’s currency where Shopify bills the merchant in it, USD otherwise', () => {
    expect(planCappedAmount('EUR', 'EUR')).toEqual({ amount: 500, currencyCode: 'EUR' });
    // Billed in USD, or locally in a currency the store does not sell in: USD.
    expect(planCappedAmount('EUR', 'USD')).toEqual({ amount: 500, currencyCode: 'USD' });
    expect(planCappedAmount('USD', 'EUR')).toEqual({ amount: 500, currencyCode: 'USD' });
    expect(planCappedAmount('JPY', 'JPY')).toEqual({ amount: 500, currencyCode: 'USD' });
  });

  it('writes amounts with the currency’s own decimals (JPY none, KWD three), never cents over 100', () => {
    const charge = { shop: 'a.myshopify.com', orderId: '7', amountMinor: 1500, currency: 'JPY' };
    expect(usageDescription(charge, 1500, 'JPY')).toBe("Commission 1500 JPY on order 7, a new customer's first order brought by a partner");
    expect(usageDescription({ ...charge, amountMinor: 1234, currency: 'KWD' }, 1010, 'USD')).toBe(
      "Commission 10.10 USD on order 7, a new customer's first order brought by a partner (1.234 KWD in your store's currency)",
    );
  });
});

describeEachDatabase(
  'Shopify: commissions charged in the plan’s currency from Shopify’s own amounts',
  (use) => {
    let standIn: ShopifyStandIn;
    const settled = (shop: string) => deliveriesWorkedOff(use().db, shop);
    const referredOrder = async (
      store: { currency: string; billingCurrency: string },
      presentment?: { currency: string; rate: number },
    ) => {
      const collab = await shopifyCollab(use(), standIn, store);
      const click = await use().app.inject({ method: 'GET', url: `/r/${collab.token}`, headers: { 'user-agent': BROWSER_USER_AGENT } });
      expect(click.statusCode).toBe(302);
      const product = standIn.shop(collab.shop).products.find((entry) => entry.status === 'ACTIVE')!;
      const order = await standIn.placeOrder(collab.shop, {
        lineItems: [{ productId: product.id, quantity: 2 }],
        landingSite: `/?ref=${collab.token}`,
        presentment,
      });
      await settled(collab.shop);
      const ledger = await use()
        .db.selectFrom('commission_ledger')
        .select(['amount_minor', 'currency', 'commerce_charge_id'])
        .where('store_domain', '=', collab.shop)
        .where('order_id', '=', String(order.id))
        .where('kind', '=', 'commission')
        .executeTakeFirstOrThrow();
      const holds = await use()
        .db.selectFrom('commission_charge_holds')
        .select(['reason', 'settled_at'])
        .where('store_domain', '=', collab.shop)
        .execute();
      const statement = await collab.partner.get(`/dashboard/api/statement?month=${new Date().toISOString().slice(0, 7)}`);
      expect(statement.statusCode, statement.body).toBe(200);
      const entry = statement.json().entries.find((each: { orderId: string }) => each.orderId === String(order.id));
      const usageRecords = standIn
        .shop(collab.shop)
        .subscriptions.flatMap((subscription) => subscription.lineItems.flatMap((item) => item.usageRecords));
      return { ...collab, order, ledger, holds, entry, usageRecords };
    };

    beforeAll(() => {
      standIn = standInFor(BASE_URL, () => use().app);
      setAbstractFetchFunc(standIn.fetch);
    });

    it('an EUR store that Shopify bills in EUR gets an EUR plan, and each commission is charged in EUR', async () => {
      const { shop, order, ledger, holds, entry, usageRecords } = await referredOrder({ currency: 'EUR', billingCurrency: 'EUR' });
      const plan = standIn.shop(shop).subscriptions.find((subscription) => subscription.status === 'ACTIVE')!;
      expect(plan.lineItems[0]!.pricing).toMatchObject({ kind: 'usage', currency: 'EUR', cappedAmountCents: 50_000 });
      const commission = Math.round(order.totalCents * 0.05);
      expect(ledger).toMatchObject({
        amount_minor: commission,
        currency: 'EUR',
        commerce_charge_id: expect.stringMatching(/AppUsageRecord/),
      });
      expect(usageRecords).toHaveLength(1);
      expect(usageRecords[0]).toMatchObject({ priceCents: commission, currency: 'EUR' });
      expect(usageRecords[0]!.description).toContain(`EUR on order ${order.id}`);
      expect(holds).toEqual([]);
      expect(entry).toMatchObject({ settlement: 'charged', currency: 'EUR', chargedAs: { amountMinor: commission, currency: 'EUR' } });
    });

    it('an EUR store on a USD plan is charged in USD when the shopper paid in USD, from Shopify’s presentment money', async () => {
      const { order, ledger, holds, entry, usageRecords } = await referredOrder(
        { currency: 'EUR', billingCurrency: 'USD' },
        { currency: 'USD', rate: 1.08 },
      );
      // The ledger books the shop's EUR; the charge is the same rate on the shopper's USD subtotal.
      const commission = Math.round(order.totalCents * 0.05);
      const inUsd = Math.round(Math.round(order.totalCents * 1.08) * 0.05);
      expect(ledger).toMatchObject({
        amount_minor: commission,
        currency: 'EUR',
        commerce_charge_id: expect.stringMatching(/AppUsageRecord/),
      });
      expect(usageRecords.map((record) => [record.priceCents, record.currency])).toEqual([[inUsd, 'USD']]);
      expect(usageRecords[0]!.description).toContain("EUR in your store's currency");
      expect(holds).toEqual([]);
      expect(entry).toMatchObject({ settlement: 'charged', currency: 'EUR', chargedAs: { amountMinor: inUsd, currency: 'USD' } });
    });

    it(`a refund paid back in the shopper's currency reverses the commission in the shop's, from Shopify's converted amounts: \
items, and an amount on its own, once each`, async () => {
      const { shop, order, ledger } = await referredOrder({ currency: 'USD', billingCurrency: 'USD' }, { currency: 'EUR', rate: 0.92 });
      const commission = Math.round(order.totalCents * 0.05);
      expect(ledger).toMatchObject({ amount_minor: commission, currency: 'USD' });
      // One of the two items back, then 5.00 USD worth on its own: Shopify pays the shopper back in EUR each time.
      const item = await standIn.refundOrder(shop, order.id, { lineItems: [{ lineItemId: order.lineItems[0]!.id, quantity: 1 }] });
      await standIn.refundOrder(shop, order.id, { amountCents: 500 });
      await settled(shop);
      const sent = standIn.webhookDeliveries({ shop, topic: 'refunds/create' }).map((delivery) => JSON.parse(delivery.body));
      expect(sent.map((body) => body.transactions[0].currency)).toEqual(['EUR', 'EUR']);
      expect(sent[1].order_adjustments[0]).toMatchObject({ kind: 'refund_discrepancy', amount_set: { shop_money: { amount: '-5.00' } } });
      const deliveries = await use()
        .db.selectFrom('shopify_webhook_deliveries')
        .select(['status', 'payload'])
        .where('shop', '=', shop)
        .where('topic', '=', 'refunds/create')
        .orderBy('received_at')
        .execute();
      expect(deliveries.map((delivery) => delivery.status)).toEqual(['done', 'done']);
      expect(deliveries.map((delivery) => (delivery.payload as { reversal: unknown }).reversal)).toEqual([
        expect.objectContaining({
          refunded: [{ amountCents: item.amountCents, currency: 'USD' }],
          paidBack: [{ amountCents: Math.round(item.amountCents * 0.92), currency: 'EUR' }],
        }),
        expect.objectContaining({ refunded: [{ amountCents: 500, currency: 'USD' }], paidBack: [{ amountCents: 460, currency: 'EUR' }] }),
      ]);
      const entries = await use()
        .db.selectFrom('commission_ledger')
        .select(['kind', 'amount_minor', 'currency'])
        .where('store_domain', '=', shop)
        .where('order_id', '=', String(order.id))
        .orderBy('id')
        .execute();
      // Each refund reverses its share of the commission, rounded on the running total, by an entry of the opposite sign.
      const reversedAfter = (taken: number) => Math.round((commission * taken) / order.totalCents);
      const first = reversedAfter(item.amountCents);
      expect(entries).toEqual([
        { kind: 'commission', amount_minor: commission, currency: 'USD' },
        { kind: 'reversal', amount_minor: -first, currency: 'USD' },
        { kind: 'reversal', amount_minor: -(reversedAfter(item.amountCents + 500) - first), currency: 'USD' },
      ]);
      // Delivered again, neither reverses anything more.
      for (const delivery of standIn.webhookDeliveries({ shop, topic: 'refunds/create' }))
        await standIn.redeliverWebhook(delivery.webhookId);
      await settled(shop);
      expect(await reversalsAt(use().db, shop)).toHaveLength(2);
    });

    it('tells the brand what its store must approve at Shopify only when signed in, and nothing while nothing waits', async () => {
      const anonymous = await use().app.inject({ method: 'GET', url: '/dashboard/api/billing-approval' });
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json()).toMatchObject({ error: 'unauthorized' });
      const { partner } = await referredOrder({ currency: 'EUR', billingCurrency: 'EUR' });
      const none = await partner.get('/dashboard/api/billing-approval');
      expect(none.statusCode).toBe(200);
      expect(none.json()).toEqual({ approval: null });
    });

    it('held, visibly and with its reason, when neither the shop’s nor the shopper’s money is in the plan’s currency', async () => {
      const { ledger, holds, entry, usageRecords } = await referredOrder(
        { currency: 'EUR', billingCurrency: 'USD' },
        { currency: 'GBP', rate: 0.86 },
      );
      expect(ledger).toMatchObject({ currency: 'EUR', commerce_charge_id: null });
      expect(usageRecords).toEqual([]);
      expect(holds).toEqual([{ reason: 'other_currency', settled_at: null }]);
      expect(entry).toMatchObject({ settlement: 'held', heldReason: 'other_currency', chargedAs: null });
    });
  },
  ENV,
);
