import { isReferralToken } from '../../attribution/service.js';
import { REFERRAL_PARAMETER } from '../../attribution/store-url.js';
import type { IncomingOrder } from '../../orders/service.js';
import { decimalToMinorUnits, isIsoCurrency } from '../../shared/currency.js';

/**
 * Shopify's order webhooks (the REST Order and Refund resources) as the service's orders and
 * reversals. An order's referral token is the `ref` the shopper's visit landed with
 * (referralTokenOf); its partner code is the first discount code it used.
 */
export interface ShopifyOrderPayload {
  id: number;
  /** The order's GraphQL id, exact where a 64-bit `id` may not survive JSON parsing. */
  admin_graphql_api_id?: string;
  created_at: string;
  currency: string;
  total_price: string;
  /** After discounts, before shipping, duties, taxes and tips (Shopify's words): the commission's base. */
  subtotal_price?: string | null;
  landing_site?: string | null;
  /** Shopify's reading of the landing page's `ref` (or `source`, `r`). */
  landing_site_ref?: string | null;
  note_attributes?: Array<{ name: string; value: string }> | null;
  discount_codes?: Array<{ code: string }> | null;
  /** Shopify's order webhooks no longer carry the customer's order count: the Admin API says (webhooks.ts). */
  customer?: { id: number } | null;
}

type MoneySet = { shop_money?: { amount: string; currency_code: string }; presentment_money?: { amount: string; currency_code: string } };

export interface ShopifyRefundPayload {
  id: number;
  order_id: number;
  created_at: string;
  /** Shopify's own example of the topic has `currency: null` on every transaction. */
  transactions?: Array<{ kind: string; status: string; amount: string; currency: string | null }> | null;
  refund_line_items?: Array<{ subtotal_set?: MoneySet | null }> | null;
}

/** A body Shopify sent that cannot be booked as it is (an amount or currency the service cannot read): retrying will not help. */
export class UnreadablePayloadError extends Error {
  override name = 'UnreadablePayloadError';
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

/** An amount in the currency's minor units by ISO 4217 (JPY has none, KWD three): never a multiplication by 100. */
function minorUnits(amount: string, currency: string): number {
  const code = currency.toUpperCase();
  const minor = isIsoCurrency(code) ? decimalToMinorUnits(amount, code) : undefined;
  if (minor === undefined) throw new UnreadablePayloadError(`${amount} is not an amount of ${currency}`);
  return minor;
}

/** An order's customer journey as Shopify tells it (ShopifyCommerce.orderJourney). */
export interface OrderJourney {
  customerOrderIndex: number | null;
  /** The visits' referral codes (the `ref`, `source` or `r` of their landing page), the last visit's first. */
  referralCodes: string[];
  /** The visits' landing pages (absolute URLs), the last visit's first. */
  landingPages: string[];
}

const STORE_BASE = 'https://store.invalid';

/**
 * The `ref` values a landing page carries: its own, and those of the page a discount link sends
 * the shopper on to (`/discount/{code}?redirect=%2F%3Fref%3D…`), for Shopify may record either
 * page as where the visit landed. Whatever the page, it never throws.
 */
export function referralsInLandingPage(landingPage: string): string[] {
  const parse = (address: string) => {
    try {
      return new URL(address, STORE_BASE);
    } catch {
      return undefined;
    }
  };
  const url = parse(landingPage);
  if (!url) return [];
  const onward = url.searchParams.getAll('redirect').flatMap((redirect) => parse(redirect)?.searchParams.getAll(REFERRAL_PARAMETER) ?? []);
  return [...url.searchParams.getAll(REFERRAL_PARAMETER), ...onward];
}

/**
 * The referral token the shopper arrived with, wherever Shopify recorded it: a `ref` note
 * attribute, the order's landing page (`landing_site`, or Shopify's reading of its `ref`,
 * `landing_site_ref`), then the customer journey's visits (their referral codes and landing
 * pages, the last visit's first). The first that has a token's shape wins; anything else a store
 * recorded (another app's `ref`, a hostile string) is passed over.
 */
export function referralTokenOf(
  order: ShopifyOrderPayload,
  journey?: Pick<OrderJourney, 'referralCodes' | 'landingPages'>,
): string | undefined {
  const candidates = [
    ...(order.note_attributes ?? []).filter((attribute) => attribute.name === REFERRAL_PARAMETER).map((attribute) => attribute.value),
    ...(order.landing_site ? referralsInLandingPage(order.landing_site) : []),
    ...(order.landing_site_ref ? [order.landing_site_ref] : []),
    ...(journey?.referralCodes ?? []),
    ...(journey?.landingPages ?? []).flatMap(referralsInLandingPage),
  ];
  return candidates.find((candidate) => typeof candidate === 'string' && isReferralToken(candidate));
}

/** The order as src/orders takes it; null for an order without a customer (nobody to count as new). */
export function incomingOrder(shop: string, order: ShopifyOrderPayload): IncomingOrder | null {
  if (!order.customer) return null;
  const totalCents = minorUnits(order.total_price, order.currency);
  const subtotalCents = order.subtotal_price ? minorUnits(order.subtotal_price, order.currency) : undefined;
  return {
    storeDomain: shop,
    orderId: String(order.id),
    customerId: String(order.customer.id),
    totalCents,
    // A subtotal is never more than what the shopper paid; should Shopify ever say otherwise, the total bounds the base.
    merchandiseCents: subtotalCents === undefined ? undefined : Math.min(subtotalCents, totalCents),
    currency: order.currency,
    placedAt: new Date(order.created_at),
    referralToken: referralTokenOf(order),
    discountCode: order.discount_codes?.[0]?.code,
  };
}

/**
 * A refund's transactions move the shopper's money, in the currency they paid in; when a
 * transaction names none (Shopify's own example has `currency: null`), the refund's line items
 * say which (their presentment money is the shopper's currency).
 */
export function refundReversal(shop: string, refund: ShopifyRefundPayload): OrderReversal {
  const paidIn = refund.refund_line_items?.find((item) => item.subtotal_set?.presentment_money)?.subtotal_set?.presentment_money;
  const byCurrency = new Map<string, number>();
  for (const transaction of refund.transactions ?? []) {
    if (transaction.kind !== 'refund' || transaction.status !== 'success') continue;
    const currency = (transaction.currency ?? paidIn?.currency_code)?.toUpperCase();
    if (!currency) throw new UnreadablePayloadError(`refund ${refund.id} names no currency for its transactions`);
    byCurrency.set(currency, (byCurrency.get(currency) ?? 0) + minorUnits(transaction.amount, currency));
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
