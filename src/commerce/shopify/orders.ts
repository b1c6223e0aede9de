import type { IncomingOrder } from '../../orders/service.js';

/**
 * Shopify's order webhooks (the REST Order and Refund resources) as the service's orders and
 * reversals. An order's referral parameter is the `ref` of the landing URL its visit began on,
 * or a `ref` note attribute; its partner code is the first discount code it used.
 */
export interface ShopifyOrderPayload {
  id: number;
  created_at: string;
  currency: string;
  total_price: string;
  landing_site?: string | null;
  note_attributes?: Array<{ name: string; value: string }> | null;
  discount_codes?: Array<{ code: string }> | null;
  customer?: { id: number; orders_count?: number } | null;
}

export interface ShopifyRefundPayload {
  id: number;
  order_id: number;
  created_at: string;
  transactions?: Array<{ kind: string; status: string; amount: string; currency: string }> | null;
}

/** A cancelled order or a refund, in the shape the ledger's reversal takes (issue 16). */
export interface OrderReversal {
  storeDomain: string;
  orderId: string;
  /** The refund's id; null for a cancellation (whose refund, if any, comes as its own refunds/create). */
  refundId: string | null;
  /** What went back to the shopper, by currency (minor units); empty for a cancellation. */
  refunded: Array<{ amountCents: number; currency: string }>;
  at: string;
}

export const REFERRAL_PARAMETER = 'ref';

const cents = (amount: string) => Math.round(Number(amount) * 100);

function referralOf(order: ShopifyOrderPayload): string | undefined {
  const noted = order.note_attributes?.find((attribute) => attribute.name === REFERRAL_PARAMETER)?.value;
  if (noted) return noted;
  if (!order.landing_site) return undefined;
  try {
    return new URL(order.landing_site, 'https://store.invalid').searchParams.get(REFERRAL_PARAMETER) ?? undefined;
  } catch {
    return undefined;
  }
}

/** The order as src/orders takes it; null for an order without a customer (nobody to count as new). */
export function incomingOrder(shop: string, order: ShopifyOrderPayload): IncomingOrder | null {
  if (!order.customer) return null;
  return {
    storeDomain: shop,
    orderId: String(order.id),
    customerId: String(order.customer.id),
    totalCents: cents(order.total_price),
    currency: order.currency,
    placedAt: new Date(order.created_at),
    referralToken: referralOf(order),
    discountCode: order.discount_codes?.[0]?.code,
    // Shopify counts the customer's orders, this one included: the ledger records it as the reason.
    customerOrderCount: order.customer.orders_count,
  };
}

export function refundReversal(shop: string, refund: ShopifyRefundPayload): OrderReversal {
  const byCurrency = new Map<string, number>();
  for (const transaction of refund.transactions ?? []) {
    if (transaction.kind !== 'refund' || transaction.status !== 'success') continue;
    byCurrency.set(transaction.currency, (byCurrency.get(transaction.currency) ?? 0) + cents(transaction.amount));
  }
  return {
    storeDomain: shop,
    orderId: String(refund.order_id),
    refundId: String(refund.id),
    refunded: [...byCurrency.entries()].map(([currency, amountCents]) => ({ amountCents, currency })),
    at: refund.created_at,
  };
}

export function cancellationReversal(shop: string, order: ShopifyOrderPayload & { cancelled_at?: string | null }): OrderReversal {
  return { storeDomain: shop, orderId: String(order.id), refundId: null, refunded: [], at: order.cancelled_at ?? order.created_at };
}
