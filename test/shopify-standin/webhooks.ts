import crypto from 'node:crypto';
import type { AppRegistration } from './core.js';
import type { AppSubscription, Customer, Order, Refund, ShopRecord } from './model.js';
import { fromExample, moneySet } from './example-payloads.js';
import { ADMIN_API_VERSION } from './schema.js';
import { decimal, financialStatus } from './views.js';

/**
 * Webhook delivery as Shopify does it (shopify.dev, "Deliver webhooks through HTTPS" and the
 * 2024-09 retry change): a JSON body in the REST resource's shape, POSTed once per subscription of
 * the topic (an app-specific one from the app's configuration and a shop-specific one made through
 * the Admin API are two deliveries) with the X-Shopify-* headers, signed with the app's secret
 * (X-Shopify-Hmac-Sha256: base64 HMAC-SHA256 of the raw body). Every delivery of one event has its
 * own X-Shopify-Webhook-Id and the event's X-Shopify-Event-Id. An answer that is not 2xx, or none
 * within 5 seconds, fails the attempt: the delivery is tried again 8 times over 4 hours with the
 * same body and ids, and a subscription made through the Admin API is deleted after 8 failed
 * attempts in a row (app-specific ones stay).
 */
export type Deliver = (
  url: string,
  init: { method: 'POST'; headers: Record<string, string>; body: string; signal?: AbortSignal },
) => Promise<Response>;

/** Shopify retries a failed delivery 8 times over 4 hours with growing delays; it does not publish the steps, so these sum to 4 h. */
export const WEBHOOK_RETRY_DELAYS_MS = [1, 2, 4, 8, 15, 30, 60, 120].map((minutes) => minutes * 60_000);
/** Failed attempts in a row after which Shopify deletes a subscription made through the Admin API. */
export const FAILURES_BEFORE_DELETION = 8;
/** Shopify's answer deadline for an HTTPS delivery. */
export const WEBHOOK_ANSWER_DEADLINE_MS = 5_000;

export interface WebhookDelivery {
  webhookId: string;
  eventId: string;
  topic: string;
  shop: string;
  uri: string;
  /** `api:{id}` for a subscription made through the Admin API, `app:{topic} {uri}` for one of the app's configuration. */
  subscription: string;
  body: string;
  headers: Record<string, string>;
  triggeredAt: Date;
  /** HTTP status of the last attempt; null when the request failed or timed out before an answer. */
  status: number | null;
  error: string | null;
  attempts: number;
  /** When Shopify tries this delivery again; null once answered 2xx, out of retries, or its subscription deleted. */
  nextRetryAt: Date | null;
}

/** `orders/create` ↔ `ORDERS_CREATE`, the REST topic and the GraphQL enum value. */
export const topicToEnum = (topic: string) => topic.toUpperCase().replace('/', '_');
export function signWebhookBody(secret: string, body: string): string {
  return crypto.createHmac('sha256', secret).update(body, 'utf8').digest('base64');
}

interface Subscriber {
  key: string;
  uri: string;
  /** The API-made subscription, which 8 failures in a row delete; null for the app's configuration. */
  apiId: number | null;
}

export class WebhookDispatcher {
  private readonly log: WebhookDelivery[] = [];
  /** Failed attempts in a row, per subscription. */
  private readonly failuresInARow = new Map<string, number>();

  constructor(
    private readonly app: AppRegistration,
    private readonly now: () => Date,
    private readonly deliver: Deliver,
    private readonly answerDeadlineMs = WEBHOOK_ANSWER_DEADLINE_MS,
  ) {}

  /** Subscriptions for `topic`: the app's declared ones plus the shop's API-created ones, each its own delivery. */
  private subscribers(shop: ShopRecord, topic: string): Subscriber[] {
    const declared = this.app.webhooks
      .filter((webhook) => webhook.topic === topic)
      .map((webhook) => ({ key: `app:${topic} ${webhook.uri}`, uri: webhook.uri, apiId: null }));
    const created = [...shop.webhookSubscriptions.values()]
      .filter((subscription) => subscription.topic === topicToEnum(topic))
      .map((subscription) => ({ key: `api:${subscription.id}`, uri: subscription.uri, apiId: subscription.id }));
    return [...declared, ...created];
  }

  /** Sends `payload` to every subscription of `topic`, one event; resolves when each first attempt was answered. */
  async trigger(shop: ShopRecord, topic: string, payload: unknown): Promise<WebhookDelivery[]> {
    const body = JSON.stringify(payload);
    const triggeredAt = this.now();
    const eventId = crypto.randomUUID();
    const deliveries = this.subscribers(shop, topic).map((subscriber) => {
      const webhookId = crypto.randomUUID();
      const delivery: WebhookDelivery = {
        webhookId,
        eventId,
        topic,
        shop: shop.domain,
        uri: subscriber.uri,
        subscription: subscriber.key,
        body,
        triggeredAt,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Shopify-Captain-Hook',
          'x-shopify-topic': topic,
          'x-shopify-hmac-sha256': signWebhookBody(this.app.apiSecret, body),
          'x-shopify-shop-domain': shop.domain,
          'x-shopify-api-version': ADMIN_API_VERSION,
          'x-shopify-webhook-id': webhookId,
          'x-shopify-triggered-at': triggeredAt.toISOString(),
          'x-shopify-event-id': eventId,
        },
        status: null,
        error: null,
        attempts: 0,
        nextRetryAt: null,
      };
      this.log.push(delivery);
      return delivery;
    });
    for (const delivery of deliveries) await this.attempt(shop, delivery);
    return deliveries;
  }

  /** Sends a delivery again, byte for byte, as Shopify's retry of the same webhook does. */
  async redeliver(shop: ShopRecord, webhookId: string): Promise<WebhookDelivery> {
    const delivery = this.log.find((candidate) => candidate.webhookId === webhookId);
    if (!delivery) throw new Error(`no webhook delivery ${webhookId}`);
    await this.attempt(shop, delivery);
    return delivery;
  }

  /** Shopify's retry schedule, by the stand-in's clock: every failed delivery whose next attempt is due is tried again. */
  async retryDue(shops: ReadonlyMap<string, ShopRecord>): Promise<WebhookDelivery[]> {
    const now = this.now().getTime();
    const due = this.log.filter((delivery) => delivery.nextRetryAt !== null && delivery.nextRetryAt.getTime() <= now);
    for (const delivery of due) await this.attempt(shops.get(delivery.shop)!, delivery);
    return due;
  }

  deliveries(filter: { shop?: string; topic?: string } = {}): WebhookDelivery[] {
    return this.log.filter(
      (delivery) => (!filter.shop || delivery.shop === filter.shop) && (!filter.topic || delivery.topic === filter.topic),
    );
  }

  private async attempt(shop: ShopRecord, delivery: WebhookDelivery): Promise<void> {
    delivery.attempts += 1;
    delivery.nextRetryAt = null;
    const deadline = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        deadline.abort();
        reject(new Error(`no answer within ${this.answerDeadlineMs} ms`));
      }, this.answerDeadlineMs);
    });
    try {
      const answer = (async () => {
        const response = await this.deliver(delivery.uri, {
          method: 'POST',
          headers: { ...delivery.headers },
          body: delivery.body,
          signal: deadline.signal,
        });
        await response.arrayBuffer();
        return response.status;
      })();
      answer.catch(() => {});
      delivery.status = await Promise.race([answer, late]);
      delivery.error = delivery.status >= 200 && delivery.status < 300 ? null : `answered ${delivery.status}`;
    } catch (error) {
      delivery.status = null;
      delivery.error = error instanceof Error ? error.message : String(error);
    } finally {
      clearTimeout(timer);
    }
    if (delivery.error === null) {
      this.failuresInARow.set(delivery.subscription, 0);
      return;
    }
    const failures = (this.failuresInARow.get(delivery.subscription) ?? 0) + 1;
    this.failuresInARow.set(delivery.subscription, failures);
    const apiId = delivery.subscription.startsWith('api:') ? Number(delivery.subscription.slice('api:'.length)) : null;
    if (apiId !== null && failures >= FAILURES_BEFORE_DELETION) {
      shop.webhookSubscriptions.delete(apiId);
      for (const pending of this.log) if (pending.subscription === delivery.subscription) pending.nextRetryAt = null;
      return;
    }
    const delay = WEBHOOK_RETRY_DELAYS_MS[delivery.attempts - 1];
    if (delay !== undefined) delivery.nextRetryAt = new Date(this.now().getTime() + delay);
  }
}

const restMoney = (cents: number) => (cents / 100).toFixed(2);

function restCustomer(shop: ShopRecord, customer: Customer | undefined) {
  if (!customer) return null;
  return {
    id: customer.id,
    admin_graphql_api_id: `gid://shopify/Customer/${customer.id}`,
    email: customer.email,
    phone: customerPhone(customer),
    created_at: customer.createdAt.toISOString(),
    updated_at: customer.createdAt.toISOString(),
    currency: shop.currency,
  };
}

/** The stand-in keeps no phone numbers; Shopify's examples always carry one, so each customer gets a fictional 555 number. */
const customerPhone = (customer: Customer) => `+1555${String(customer.id % 10_000_000).padStart(7, '0')}`;

/**
 * The REST Order resource, as orders/create, orders/paid and orders/cancelled carry it: Shopify's
 * example of the topic with the order's own ids, times, amounts, codes, customer and lines.
 */
export function orderPayload(shop: ShopRecord, order: Order, topic = 'orders/create') {
  const presentment = order.presentment ?? { currency: shop.currency, rate: 1 };
  // REST's plain amounts are the shop's currency; each `_set` also carries the shopper's.
  const money = (cents: number) =>
    moneySet(restMoney(cents), shop.currency, { amount: restMoney(Math.round(cents * presentment.rate)), currency: presentment.currency });
  const remainingCents = order.totalCents - order.refunds.reduce((sum, refund) => sum + refund.amountCents, 0);
  const discountAmount = restMoney(order.discountCents);
  const subtotalCents = order.subtotalCents - order.discountCents;
  return fromExample(
    topic,
    {
      id: order.id,
      admin_graphql_api_id: `gid://shopify/Order/${order.id}`,
      name: `#${order.number}`,
      order_number: order.number,
      number: order.number - 1000,
      email: order.email,
      contact_email: order.email,
      created_at: order.createdAt.toISOString(),
      updated_at: (order.cancelledAt ?? order.createdAt).toISOString(),
      processed_at: order.createdAt.toISOString(),
      closed_at: null,
      cancelled_at: order.cancelledAt?.toISOString() ?? null,
      cancel_reason: order.cancelReason,
      currency: shop.currency,
      presentment_currency: presentment.currency,
      subtotal_price: restMoney(subtotalCents),
      subtotal_price_set: money(subtotalCents),
      current_subtotal_price: restMoney(subtotalCents),
      current_subtotal_price_set: money(subtotalCents),
      total_line_items_price: restMoney(order.subtotalCents),
      total_line_items_price_set: money(order.subtotalCents),
      total_discounts: discountAmount,
      total_discounts_set: money(order.discountCents),
      current_total_discounts: discountAmount,
      current_total_discounts_set: money(order.discountCents),
      total_price: restMoney(order.totalCents),
      total_price_set: money(order.totalCents),
      current_total_price: restMoney(remainingCents),
      current_total_price_set: money(remainingCents),
      total_outstanding: '0.00',
      total_tax: '0.00',
      total_tax_set: money(0),
      current_total_tax: '0.00',
      current_total_tax_set: money(0),
      total_shipping_price_set: money(0),
      current_shipping_price_set: money(0),
      total_tip_received: '0.00',
      tax_lines: [],
      shipping_lines: [],
      fulfillments: [],
      financial_status: financialStatus(order).toLowerCase(),
      fulfillment_status: null,
      test: false,
      source_name: 'web',
      landing_site: order.landingSite,
      // Shopify fills it with the landing page's ref; the package's inferred schema wants a URI there (its placeholder
      // was one), so the stand-in leaves it null, as Shopify's own example does, and the token is found in landing_site.
      landing_site_ref: null,
      referring_site: order.referringSite,
      note: null,
      note_attributes: order.noteAttributes,
      discount_codes: order.discountCode ? [{ code: order.discountCode, amount: discountAmount, type: 'percentage' }] : [],
      discount_applications: [],
      customer: restCustomer(shop, order.customerId === null ? undefined : shop.customers.get(order.customerId)),
      line_items: order.lineItems.map((item) => ({
        id: item.id,
        admin_graphql_api_id: `gid://shopify/LineItem/${item.id}`,
        product_id: item.productId,
        variant_id: item.variantId,
        title: item.title,
        name: item.title,
        quantity: item.quantity,
        current_quantity: item.quantity - item.refundedQuantity,
        fulfillable_quantity: item.quantity - item.refundedQuantity,
        price: restMoney(item.unitPriceCents),
        price_set: money(item.unitPriceCents),
        total_discount: '0.00',
        total_discount_set: money(0),
        discount_allocations: [],
        tax_lines: [],
        duties: [],
        sku: `SKU-${item.productId}`,
      })),
      refunds: order.refunds.map((refund) => refundPayload(shop, order, refund)),
    },
    shop.currency,
  );
}

/**
 * The REST Refund resource, as refunds/create carries it. Each amount's `_set` has the shop's money
 * and the shopper's (an order paid in another currency: the shop's times the order's rate); the
 * transactions move the shopper's money, in the currency they paid in, as Shopify's do. Where the
 * refund is not its line items (an amount refunded on its own, or rounding), an order adjustment
 * of kind `refund_discrepancy` accounts for the difference, negative when more went back than the
 * items, as Shopify's are (an amount-only refund of 1.00: an adjustment of -1.00).
 */
export function refundPayload(shop: ShopRecord, order: Order, refund: Refund) {
  const presentment = order.presentment ?? { currency: shop.currency, rate: 1 };
  const shopper = (cents: number) => Math.round(cents * presentment.rate);
  const money = (cents: number) =>
    moneySet(restMoney(cents), shop.currency, { amount: restMoney(shopper(cents)), currency: presentment.currency });
  const discrepancyCents = refund.lineItems.reduce((sum, line) => sum + line.subtotalCents, 0) - refund.amountCents;
  return fromExample(
    'refunds/create',
    {
      id: refund.id,
      admin_graphql_api_id: `gid://shopify/Refund/${refund.id}`,
      order_id: order.id,
      created_at: refund.createdAt.toISOString(),
      processed_at: refund.createdAt.toISOString(),
      // Shopify's example (and so the package's schema) has a note string; the stand-in's refunds without one send it empty.
      note: refund.note ?? '',
      restock: false,
      duties: [],
      order_adjustments:
        discrepancyCents === 0
          ? []
          : [
              {
                id: refund.id,
                order_id: order.id,
                refund_id: refund.id,
                amount: restMoney(discrepancyCents),
                amount_set: money(discrepancyCents),
                tax_amount: '0.00',
                tax_amount_set: money(0),
                kind: 'refund_discrepancy',
                reason: 'Refund discrepancy',
              },
            ],
      refund_shipping_lines: [],
      return: null,
      total_duties_set: money(0),
      refund_line_items: refund.lineItems.map((line) => {
        const item = order.lineItems.find((candidate) => candidate.id === line.lineItemId)!;
        return {
          id: line.id,
          line_item_id: line.lineItemId,
          quantity: line.quantity,
          subtotal: line.subtotalCents / 100,
          subtotal_set: money(line.subtotalCents),
          total_tax: 0,
          total_tax_set: money(0),
          line_item: {
            id: item.id,
            admin_graphql_api_id: `gid://shopify/LineItem/${item.id}`,
            product_id: item.productId,
            variant_id: item.variantId,
            title: item.title,
            name: item.title,
            quantity: item.quantity,
            price: restMoney(item.unitPriceCents),
            price_set: money(item.unitPriceCents),
            sku: `SKU-${item.productId}`,
            discount_allocations: [],
            tax_lines: [],
            duties: [],
          },
        };
      }),
      transactions: [
        {
          id: refund.id,
          admin_graphql_api_id: `gid://shopify/OrderTransaction/${refund.id}`,
          order_id: order.id,
          kind: 'refund',
          status: 'success',
          amount: restMoney(shopper(refund.amountCents)),
          currency: presentment.currency,
          created_at: refund.createdAt.toISOString(),
          processed_at: refund.createdAt.toISOString(),
          test: false,
        },
      ],
    },
    shop.currency,
  );
}

/** The REST Shop resource, as app/uninstalled carries it. */
export function shopPayload(shop: ShopRecord) {
  return fromExample(
    'app/uninstalled',
    {
      id: shop.id,
      name: shop.name,
      email: shop.email,
      customer_email: shop.email,
      domain: shop.primaryHost,
      myshopify_domain: shop.domain,
      country_code: shop.countryCode,
      country_name: shop.country,
      currency: shop.currency,
      enabled_presentment_currencies: [shop.currency],
      plan_name: shop.plan,
      created_at: shop.createdAt.toISOString(),
      updated_at: shop.createdAt.toISOString(),
    },
    shop.currency,
  );
}

export function appSubscriptionPayload(shop: ShopRecord, subscription: AppSubscription, now: Date) {
  const usage = subscription.lineItems.find((item) => item.pricing.kind === 'usage')?.pricing;
  return fromExample(
    'app_subscriptions/update',
    {
      app_subscription: {
        admin_graphql_api_id: `gid://shopify/AppSubscription/${subscription.id}`,
        name: subscription.name,
        status: subscription.status,
        admin_graphql_api_shop_id: `gid://shopify/Shop/${shop.id}`,
        created_at: subscription.createdAt.toISOString(),
        updated_at: now.toISOString(),
        currency: usage?.kind === 'usage' ? usage.currency : shop.currency,
        // The package's schema (from an example with a price and no cap) wants a string: a plan without a cap says "0.00".
        capped_amount: usage?.kind === 'usage' ? decimal(usage.cappedAmountCents) : '0.00',
        price: '0.00',
        interval: 'every_30_days',
      },
    },
    shop.currency,
  );
}

export function approachingCappedAmountPayload(shop: ShopRecord, subscription: AppSubscription, now: Date) {
  const usage = subscription.lineItems.find((item) => item.pricing.kind === 'usage')?.pricing;
  if (usage?.kind !== 'usage') throw new Error('a subscription without a usage line item has no capped amount');
  return fromExample(
    'app_subscriptions/approaching_capped_amount',
    {
      app_subscription: {
        admin_graphql_api_id: `gid://shopify/AppSubscription/${subscription.id}`,
        name: subscription.name,
        balance_used: usage.balanceUsedCents / 100,
        capped_amount: decimal(usage.cappedAmountCents),
        currency_code: usage.currency,
        admin_graphql_api_shop_id: `gid://shopify/Shop/${shop.id}`,
        created_at: subscription.createdAt.toISOString(),
        updated_at: now.toISOString(),
      },
    },
    shop.currency,
  );
}

export function customersDataRequestPayload(shop: ShopRecord, customer: Customer, orderIds: number[], requestId: number) {
  return fromExample(
    'customers/data_request',
    {
      shop_id: shop.id,
      shop_domain: shop.domain,
      orders_requested: orderIds,
      customer: { id: customer.id, email: customer.email, phone: customerPhone(customer) },
      data_request: { id: requestId },
    },
    shop.currency,
  );
}

export function customersRedactPayload(shop: ShopRecord, customer: Customer, orderIds: number[]) {
  return fromExample(
    'customers/redact',
    {
      shop_id: shop.id,
      shop_domain: shop.domain,
      customer: { id: customer.id, email: customer.email, phone: customerPhone(customer) },
      orders_to_redact: orderIds,
    },
    shop.currency,
  );
}

export function shopRedactPayload(shop: ShopRecord) {
  return fromExample('shop/redact', { shop_id: shop.id, shop_domain: shop.domain }, shop.currency);
}
