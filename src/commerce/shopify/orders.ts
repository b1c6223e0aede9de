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
  /** The shop's currency: REST's plain amounts (`total_price`, `subtotal_price`) are in it. */
  currency: string;
  /** The shopper's currency, which each amount's `_set` gives as `presentment_money`. */
  presentment_currency?: string | null;
  total_price: string;
  total_price_set?: MoneySet | null;
  subtotal_price_set?: MoneySet | null;
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

type Money = { amount: string; currency_code: string };
type MoneySet = { shop_money?: Money; presentment_money?: Money };

export interface ShopifyRefundPayload {
  id: number;
  order_id: number;
  created_at: string;
  /**
   * The money that went back, in the currency the shopper paid in. Shopify's own example of the
   * topic has `currency: null` on every transaction. REST's transactions carry no shop money; a
   * body that has it (`amount_set`, as GraphQL's `amountSet`) is read.
   */
  transactions?: Array<{
    kind: string;
    status: string;
    amount: string;
    currency: string | null;
    amount_set?: MoneySet | null;
  }> | null;
  refund_line_items?: Array<{ subtotal_set?: MoneySet | null; total_tax_set?: MoneySet | null }> | null;
  /** Shipping refunded (API 2024-10 and later). */
  refund_shipping_lines?: Array<{ subtotal_amount_set?: MoneySet | null }> | null;
  /** What differs between the items and the money refunded: negative when more went back than the items. */
  order_adjustments?: Array<{ amount_set?: MoneySet | null; tax_amount_set?: MoneySet | null }> | null;
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
  /**
   * What went back, as the ledger books it: in the shop's currency (the order's), converted by
   * Shopify's own amounts when the shopper paid in another (minor units); empty for a cancellation.
   */
  refunded: Array<{ amountCents: number; currency: string }>;
  /** What went back to the shopper, by the currency they were paid in; absent for a cancellation. */
  paidBack?: Array<{ amountCents: number; currency: string }>;
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

/**
 * The commission's base in the shopper's currency, from Shopify's own converted amounts (the
 * subtotal's and total's presentment money, bounded as the shop's are), when the shopper paid in
 * another currency than the shop's; null otherwise, or when Shopify's amounts cannot be read (the
 * charge is then held, visibly, rather than the order refused).
 */
export function presentmentBase(order: ShopifyOrderPayload): { currency: string; baseMinor: number } | null {
  const total = order.total_price_set?.presentment_money;
  if (!total) return null;
  const currency = total.currency_code.toUpperCase();
  if (currency === order.currency.toUpperCase() || !isIsoCurrency(currency)) return null;
  const subtotal = order.subtotal_price_set?.presentment_money;
  const totalMinor = decimalToMinorUnits(total.amount, currency);
  const subtotalMinor =
    subtotal && subtotal.currency_code.toUpperCase() === currency ? decimalToMinorUnits(subtotal.amount, currency) : undefined;
  if (totalMinor === undefined) return null;
  return { currency, baseMinor: subtotalMinor === undefined ? totalMinor : Math.min(subtotalMinor, totalMinor) };
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

/** The refund's shop and shopper money as Shopify converted it: its items, their tax and shipping, less its adjustments. */
function refundMoney(refund: ShopifyRefundPayload): { shop: Money[]; shopper: Money[]; less: { shop: Money[]; shopper: Money[] } } {
  const sets = [
    ...(refund.refund_line_items ?? []).flatMap((item) => [item.subtotal_set, item.total_tax_set]),
    ...(refund.refund_shipping_lines ?? []).map((line) => line.subtotal_amount_set),
  ];
  const adjustments = (refund.order_adjustments ?? []).flatMap((adjustment) => [adjustment.amount_set, adjustment.tax_amount_set]);
  const side = (of: Array<MoneySet | null | undefined>, key: keyof MoneySet) => of.flatMap((set) => (set?.[key] ? [set[key]] : []));
  return {
    shop: side(sets, 'shop_money'),
    shopper: side(sets, 'presentment_money'),
    less: { shop: side(adjustments, 'shop_money'), shopper: side(adjustments, 'presentment_money') },
  };
}

/** A sum of Shopify's money in one currency, in minor units; undefined when a part is in another currency or unreadable. */
function sumIn(currency: string, plus: Money[], minus: Money[] = []): number | undefined {
  let total = 0;
  for (const [parts, sign] of [
    [plus, 1],
    [minus, -1],
  ] as const) {
    for (const money of parts) {
      // Shopify's bodies write amounts as strings; some of its documents show numbers.
      const minor = money.currency_code.toUpperCase() === currency ? decimalToMinorUnits(String(money.amount), currency) : undefined;
      if (minor === undefined) return undefined;
      total += sign * minor;
    }
  }
  return total;
}

/**
 * A refund as the ledger books it. Its transactions move the shopper's money, in the currency
 * they paid in; when a transaction names none (Shopify's own example has `currency: null`), the
 * refund's line items say which (their presentment money is the shopper's currency). The ledger
 * books in the shop's currency (the order's): money in another currency is converted by Shopify's
 * own amounts, never a rate of the service's: a transaction's shop money where the body has it,
 * else the refund's items, their tax and shipping less its adjustments, which Shopify gives in
 * both currencies: that shop money when it is what the transactions moved, else the transactions
 * at the rate those two sums give. Money that nothing converts (an amount refunded on its own,
 * with no adjustment naming it) is booked as it came, and the ledger refuses it as another
 * currency than the order's: it stops for support.
 */
export function refundReversal(shop: string, refund: ShopifyRefundPayload): OrderReversal {
  const money = refundMoney(refund);
  const shopCurrency = (money.shop[0] ?? money.less.shop[0])?.currency_code.toUpperCase();
  const paidIn = refund.refund_line_items?.find((item) => item.subtotal_set?.presentment_money)?.subtotal_set?.presentment_money;
  const paidBack = new Map<string, number>();
  let shopMoneyOfTransactions: number | undefined = 0;
  for (const transaction of refund.transactions ?? []) {
    if (transaction.kind !== 'refund' || transaction.status !== 'success') continue;
    const currency = (transaction.currency ?? paidIn?.currency_code ?? money.less.shopper[0]?.currency_code)?.toUpperCase();
    if (!currency) throw new UnreadablePayloadError(`refund ${refund.id} names no currency for its transactions`);
    paidBack.set(currency, (paidBack.get(currency) ?? 0) + minorUnits(transaction.amount, currency));
    const own = transaction.amount_set?.shop_money;
    shopMoneyOfTransactions =
      own && shopMoneyOfTransactions !== undefined && shopCurrency ? addIn(shopMoneyOfTransactions, own, shopCurrency) : undefined;
  }
  const refunded = new Map<string, number>();
  const book = (currency: string, minor: number) => refunded.set(currency, (refunded.get(currency) ?? 0) + minor);
  if (shopCurrency && shopMoneyOfTransactions !== undefined && paidBack.size > 0) {
    book(shopCurrency, shopMoneyOfTransactions);
  } else {
    for (const [currency, minor] of paidBack) {
      const converted = shopCurrency && currency !== shopCurrency ? inShopMoney(money, shopCurrency, currency, minor) : undefined;
      if (converted === undefined) book(currency, minor);
      else book(shopCurrency!, converted);
    }
  }
  return {
    storeDomain: shop,
    orderId: String(refund.order_id),
    refundId: String(refund.id),
    refunded: [...refunded.entries()].map(([currency, amountCents]) => ({ amountCents, currency })),
    paidBack: [...paidBack.entries()].map(([currency, amountCents]) => ({ amountCents, currency })),
    at: refund.created_at,
  };
}

function addIn(total: number, money: Money, currency: string): number | undefined {
  const minor = sumIn(currency, [money]);
  return minor === undefined ? undefined : total + minor;
}

/**
 * `minor` of the shopper's `currency` in the shop's, by the refund's own two sums (items, tax and
 * shipping less adjustments, in shop and shopper money): the shop's sum when the transactions
 * moved exactly the shopper's sum, else `minor` at that rate. Undefined when the sums are not there.
 */
function inShopMoney(money: ReturnType<typeof refundMoney>, shopCurrency: string, currency: string, minor: number): number | undefined {
  const inShop = sumIn(shopCurrency, money.shop, money.less.shop);
  const inShoppers = sumIn(currency, money.shopper, money.less.shopper);
  if (inShop === undefined || inShoppers === undefined || inShoppers <= 0 || inShop <= 0) return undefined;
  if (inShoppers === minor) return inShop;
  return Math.round((minor * inShop) / inShoppers);
}

export function cancellationReversal(shop: string, order: ShopifyOrderPayload & { cancelled_at?: string | null }): OrderReversal {
  return { storeDomain: shop, orderId: String(order.id), refundId: null, refunded: [], at: order.cancelled_at ?? order.created_at };
}
