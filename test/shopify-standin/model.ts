import type { RefreshTokenRecord, TokenPair, TokenRequest } from './tokens.js';

/**
 * The stand-in's in-memory shop data: what a Shopify store holds that a commerce adapter reads or
 * writes. Money is kept in integer cents in the shop's currency; the GraphQL and webhook layers
 * format it the way Shopify does.
 */
export type ProductStatus = 'ACTIVE' | 'DRAFT' | 'ARCHIVED';
export type ShopPlan = 'standard' | 'advanced' | 'plus' | 'enterprise';

export interface Product {
  id: number;
  variantId: number;
  mediaId: number | null;
  title: string;
  handle: string;
  vendor: string;
  productType: string;
  status: ProductStatus;
  createdAt: Date;
  imageUrl: string | null;
  priceCents: number;
  inventory: number;
}

export interface Customer {
  id: number;
  email: string;
  createdAt: Date;
  /** Orders this customer placed, test orders excluded, as Customer.numberOfOrders counts them. */
  orderCount: number;
}

export interface LineItem {
  id: number;
  productId: number;
  variantId: number;
  title: string;
  quantity: number;
  unitPriceCents: number;
  refundedQuantity: number;
}

export interface Refund {
  id: number;
  createdAt: Date;
  note: string | null;
  amountCents: number;
  lineItems: Array<{ id: number; lineItemId: number; quantity: number; subtotalCents: number }>;
}

export interface NoteAttribute {
  name: string;
  value: string;
}

export interface Order {
  id: number;
  /** The shop's order number: name is `#${number}`. */
  number: number;
  createdAt: Date;
  customerId: number | null;
  email: string | null;
  lineItems: LineItem[];
  subtotalCents: number;
  discountCents: number;
  totalCents: number;
  discountCode: string | null;
  /** The storefront URL the customer's visit started on, query string included (REST `landing_site`). */
  landingSite: string | null;
  /**
   * The landing page of the customer's first visit before the order, when it was an earlier visit
   * than the order's own (the journey's `firstVisit`); absent, the order's visit was the only one.
   */
  earlierLandingSite?: string;
  referringSite: string | null;
  noteAttributes: NoteAttribute[];
  /** 1 for the customer's first order, 2 for the second, … (CustomerJourneySummary.customerOrderIndex). */
  customerOrderIndex: number | null;
  cancelledAt: Date | null;
  cancelReason: string | null;
  refunds: Refund[];
}

export interface BasicDiscount {
  id: number;
  redeemCodeId: number;
  title: string;
  code: string;
  /** A fraction between 0 and 1, as the API takes it. */
  percentage: number;
  appliesOncePerCustomer: boolean;
  usageLimit: number | null;
  startsAt: Date;
  endsAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  usageCount: number;
  /** Customers who used the code, for appliesOncePerCustomer. */
  usedBy: Set<number>;
}

export interface WebhookSubscriptionRecord {
  id: number;
  topic: string;
  uri: string;
  format: 'JSON' | 'XML';
  includeFields: string[];
  metafieldNamespaces: string[];
  filter: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export type AppSubscriptionStatus = 'PENDING' | 'ACTIVE' | 'DECLINED' | 'CANCELLED' | 'EXPIRED' | 'FROZEN' | 'ACCEPTED';

export interface UsageRecord {
  id: number;
  createdAt: Date;
  description: string;
  idempotencyKey: string | null;
  priceCents: number;
  currency: string;
}

export type PricingDetails =
  | {
      kind: 'usage';
      terms: string;
      cappedAmountCents: number;
      currency: string;
      balanceUsedCents: number;
      /** A raise asked with appSubscriptionLineItemUpdate, waiting for the merchant's approval. */
      pendingCappedAmountCents?: number;
    }
  | { kind: 'recurring'; priceCents: number; currency: string; interval: 'EVERY_30_DAYS' | 'ANNUAL' };

export interface SubscriptionLineItem {
  index: number;
  pricing: PricingDetails;
  usageRecords: UsageRecord[];
}

export interface AppSubscription {
  id: number;
  name: string;
  status: AppSubscriptionStatus;
  test: boolean;
  trialDays: number;
  returnUrl: string;
  createdAt: Date;
  currentPeriodEnd: Date | null;
  lineItems: SubscriptionLineItem[];
}

export interface BulkOperation {
  id: number;
  query: string;
  status: 'CREATED' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELED' | 'EXPIRED';
  createdAt: Date;
  completedAt: Date | null;
  objectCount: number;
  rootObjectCount: number;
  /** The JSONL result; null until the operation completed. */
  jsonl: string | null;
  /** Whether a query asked for the operation yet: the first read reports RUNNING, whatever its size. */
  polled: boolean;
  /** When the result is ready (ms since epoch), from the object count and the stand-in's bulk speed. */
  readyAt: number;
}

export interface Installation {
  installed: boolean;
  scopes: string[];
  /** Live access tokens for this shop; revoked ones are removed. */
  tokens: Set<string>;
  /** When each expiring access token stops working (ms); a token not here never expires. */
  accessExpiries: Map<string, number>;
  refreshTokens: Map<string, RefreshTokenRecord>;
  /** Non-expiring tokens exchanged for an expiring pair, and when (a retry answers the same pair). */
  migrations: Map<string, { pair: TokenPair; at: number }>;
  tokenRequests: TokenRequest[];
}

export interface ShopRecord {
  id: number;
  /** `{name}.myshopify.com` */
  domain: string;
  name: string;
  email: string;
  description: string | null;
  currency: string;
  country: string;
  countryCode: string;
  /** The host of the primary domain: the custom domain shoppers see, or the myshopify.com domain when there is none. */
  primaryHost: string;
  plan: ShopPlan;
  /** A partner's development store or a Shopify staff store: Shopify takes test charges only there. */
  testStore: 'development' | 'staff' | null;
  createdAt: Date;
  products: Product[];
  productsById: Map<number, Product>;
  customers: Map<number, Customer>;
  orders: Order[];
  ordersById: Map<number, Order>;
  nextOrderNumber: number;
  discounts: Map<number, BasicDiscount>;
  webhookSubscriptions: Map<number, WebhookSubscriptionRecord>;
  subscriptions: AppSubscription[];
  bulkOperations: BulkOperation[];
  installation: Installation;
}

/** Shopify's numeric ids are global across shops; one counter per kind of object keeps them readable. */
export class IdAllocator {
  private readonly counters = new Map<string, number>();

  next(kind: string): number {
    const value = (this.counters.get(kind) ?? 1_000_000) + 1;
    this.counters.set(kind, value);
    return value;
  }

  /** Reserves `count` consecutive ids at once (the generator's bulk path) and returns the first. */
  reserve(kind: string, count: number): number {
    const first = (this.counters.get(kind) ?? 1_000_000) + 1;
    this.counters.set(kind, first + count - 1);
    return first;
  }
}

export const gid = (kind: string, id: number): string => `gid://shopify/${kind}/${id}`;

/** The kind and numeric id of a `gid://shopify/{Kind}/{id}` (a query string, as line items have, is ignored). */
export function parseGid(value: string): { kind: string; id: number } | null {
  const match = /^gid:\/\/shopify\/([A-Za-z]+)\/(\d{1,19})(?:\?.*)?$/.exec(value);
  return match ? { kind: match[1]!, id: Number(match[2]) } : null;
}
