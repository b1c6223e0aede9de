import crypto from 'node:crypto';
import type { AppRegistration } from './core.js';
import type { AppSubscription, Customer, Order, Refund, ShopRecord } from './model.js';
import { ADMIN_API_VERSION } from './schema.js';
import { decimal, financialStatus } from './views.js';

/**
 * Webhook delivery as Shopify does it: a JSON body in the REST resource's shape, POSTed to every
 * subscription of the topic with the X-Shopify-* headers, signed with the app's secret
 * (X-Shopify-Hmac-Sha256: base64 HMAC-SHA256 of the raw body). A redelivery sends the same body
 * with the same webhook and event ids, as Shopify's retries do.
 */
export type Deliver = (url: string, init: { method: 'POST'; headers: Record<string, string>; body: string }) => Promise<Response>;

export interface WebhookDelivery {
  webhookId: string;
  eventId: string;
  topic: string;
  shop: string;
  uri: string;
  body: string;
  headers: Record<string, string>;
  triggeredAt: Date;
  /** HTTP status of the last attempt; null when the request failed before an answer. */
  status: number | null;
  error: string | null;
  attempts: number;
}

/** `orders/create` ↔ `ORDERS_CREATE`, the REST topic and the GraphQL enum value. */
export const topicToEnum = (topic: string) => topic.toUpperCase().replace('/', '_');
export function signWebhookBody(secret: string, body: string): string {
  return crypto.createHmac('sha256', secret).update(body, 'utf8').digest('base64');
}

export class WebhookDispatcher {
  private readonly log: WebhookDelivery[] = [];

  constructor(
    private readonly app: AppRegistration,
    private readonly now: () => Date,
    private readonly deliver: Deliver,
  ) {}

  /** Subscriptions for `topic`: the app's declared ones plus the shop's API-created ones. */
  subscribers(shop: ShopRecord, topic: string): string[] {
    const declared = this.app.webhooks.filter((webhook) => webhook.topic === topic).map((webhook) => webhook.uri);
    const created = [...shop.webhookSubscriptions.values()]
      .filter((subscription) => subscription.topic === topicToEnum(topic))
      .map((subscription) => subscription.uri);
    return [...new Set([...declared, ...created])];
  }

  /** Sends `payload` to every subscriber of `topic`; resolves when each delivery was answered. */
  async trigger(shop: ShopRecord, topic: string, payload: unknown): Promise<WebhookDelivery[]> {
    const body = JSON.stringify(payload);
    const triggeredAt = this.now();
    const eventId = crypto.randomUUID();
    const deliveries = this.subscribers(shop, topic).map((uri) => {
      const webhookId = crypto.randomUUID();
      const delivery: WebhookDelivery = {
        webhookId,
        eventId,
        topic,
        shop: shop.domain,
        uri,
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
      };
      this.log.push(delivery);
      return delivery;
    });
    for (const delivery of deliveries) await this.attempt(delivery);
    return deliveries;
  }

  /** Sends a delivery again, byte for byte, as Shopify's retry of the same webhook does. */
  async redeliver(webhookId: string): Promise<WebhookDelivery> {
    const delivery = this.log.find((candidate) => candidate.webhookId === webhookId);
    if (!delivery) throw new Error(`no webhook delivery ${webhookId}`);
    await this.attempt(delivery);
    return delivery;
  }

  deliveries(filter: { shop?: string; topic?: string } = {}): WebhookDelivery[] {
    return this.log.filter(
      (delivery) => (!filter.shop || delivery.shop === filter.shop) && (!filter.topic || delivery.topic === filter.topic),
    );
  }

  private async attempt(delivery: WebhookDelivery): Promise<void> {
    delivery.attempts += 1;
    try {
      const response = await this.deliver(delivery.uri, { method: 'POST', headers: { ...delivery.headers }, body: delivery.body });
      await response.arrayBuffer();
      delivery.status = response.status;
      delivery.error = null;
    } catch (error) {
      delivery.status = null;
      delivery.error = error instanceof Error ? error.message : String(error);
    }
  }
}

const restMoney = (cents: number) => (cents / 100).toFixed(2);

function restCustomer(shop: ShopRecord, customer: Customer | undefined) {
  if (!customer) return null;
  return {
    id: customer.id,
    admin_graphql_api_id: `gid://shopify/Customer/${customer.id}`,
    email: customer.email,
    created_at: customer.createdAt.toISOString(),
    currency: shop.currency,
  };
}

/** The REST Order resource, as orders/create, orders/paid and orders/cancelled carry it. */
export function orderPayload(shop: ShopRecord, order: Order) {
  const discountAmount = restMoney(order.discountCents);
  return {
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
    cancelled_at: order.cancelledAt?.toISOString() ?? null,
    cancel_reason: order.cancelReason,
    currency: shop.currency,
    presentment_currency: shop.currency,
    subtotal_price: restMoney(order.subtotalCents - order.discountCents),
    total_line_items_price: restMoney(order.subtotalCents),
    total_discounts: discountAmount,
    total_price: restMoney(order.totalCents),
    total_tax: '0.00',
    financial_status: financialStatus(order).toLowerCase(),
    fulfillment_status: null,
    test: false,
    source_name: 'web',
    landing_site: order.landingSite,
    referring_site: order.referringSite,
    note: null,
    note_attributes: order.noteAttributes,
    discount_codes: order.discountCode ? [{ code: order.discountCode, amount: discountAmount, type: 'percentage' }] : [],
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
      price: restMoney(item.unitPriceCents),
      sku: `SKU-${item.productId}`,
    })),
    refunds: order.refunds.map((refund) => refundPayload(shop, order, refund)),
  };
}

/** The REST Refund resource, as refunds/create carries it. */
export function refundPayload(shop: ShopRecord, order: Order, refund: Refund) {
  return {
    id: refund.id,
    admin_graphql_api_id: `gid://shopify/Refund/${refund.id}`,
    order_id: order.id,
    created_at: refund.createdAt.toISOString(),
    processed_at: refund.createdAt.toISOString(),
    note: refund.note,
    restock: false,
    refund_line_items: refund.lineItems.map((line) => {
      const item = order.lineItems.find((candidate) => candidate.id === line.lineItemId)!;
      return {
        id: line.id,
        line_item_id: line.lineItemId,
        quantity: line.quantity,
        subtotal: restMoney(line.subtotalCents),
        line_item: {
          id: item.id,
          product_id: item.productId,
          variant_id: item.variantId,
          title: item.title,
          quantity: item.quantity,
          price: restMoney(item.unitPriceCents),
        },
      };
    }),
    transactions: [
      {
        id: refund.id,
        order_id: order.id,
        kind: 'refund',
        status: 'success',
        amount: restMoney(refund.amountCents),
        currency: shop.currency,
        created_at: refund.createdAt.toISOString(),
      },
    ],
  };
}

/** The REST Shop resource, as app/uninstalled carries it. */
export function shopPayload(shop: ShopRecord) {
  return {
    id: shop.id,
    name: shop.name,
    email: shop.email,
    domain: shop.primaryHost,
    myshopify_domain: shop.domain,
    country_code: shop.countryCode,
    country_name: shop.country,
    currency: shop.currency,
    plan_name: shop.plan,
    created_at: shop.createdAt.toISOString(),
  };
}

export function appSubscriptionPayload(shop: ShopRecord, subscription: AppSubscription, now: Date) {
  const usage = subscription.lineItems.find((item) => item.pricing.kind === 'usage')?.pricing;
  return {
    app_subscription: {
      admin_graphql_api_id: `gid://shopify/AppSubscription/${subscription.id}`,
      name: subscription.name,
      status: subscription.status,
      admin_graphql_api_shop_id: `gid://shopify/Shop/${shop.id}`,
      created_at: subscription.createdAt.toISOString(),
      updated_at: now.toISOString(),
      currency: usage?.kind === 'usage' ? usage.currency : shop.currency,
      capped_amount: usage?.kind === 'usage' ? decimal(usage.cappedAmountCents) : null,
    },
  };
}

export function customersDataRequestPayload(shop: ShopRecord, customer: Customer, orderIds: number[], requestId: number) {
  return {
    shop_id: shop.id,
    shop_domain: shop.domain,
    orders_requested: orderIds,
    customer: { id: customer.id, email: customer.email, phone: null },
    data_request: { id: requestId },
  };
}

export function customersRedactPayload(shop: ShopRecord, customer: Customer, orderIds: number[]) {
  return {
    shop_id: shop.id,
    shop_domain: shop.domain,
    customer: { id: customer.id, email: customer.email, phone: null },
    orders_to_redact: orderIds,
  };
}

export function shopRedactPayload(shop: ShopRecord) {
  return { shop_id: shop.id, shop_domain: shop.domain };
}
