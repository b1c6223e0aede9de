import { abstractFetch } from '@shopify/shopify-api/runtime';
import type { FastifyBaseLogger } from 'fastify';
import { boundedCache } from '../../cache/bounded.js';
import { linkStoreDomains } from '../../companies/service.js';
import { heldCommerceCharges } from '../../orders/service.js';
import type { ShopifyConfig } from '../../config.js';
import { decimalToMinorUnits, isIsoCurrency, minorUnitsToDecimal } from '../../shared/currency.js';
import type { Db } from '../../db/database.js';
import type { Publisher } from '../../service-context.js';
import type {
  BestSeller,
  BillingApproval,
  CatalogProduct,
  CommerceAdapter,
  CommerceEvent,
  DiscountCodeRequest,
  OwnershipAnswer,
  PastOrder,
  PlatformLink,
  StoreEligibility,
  StoreProfile,
  StoreStatus,
} from '../adapter.js';
import { AdminClient, ShopifyUserError, StoreDisconnectedError } from './admin-client.js';
import { BulkSlots, createdAtSlices, runBulkQuery, withSearch } from './bulk.js';
import * as dal from './dal.js';
import * as documents from './documents.js';
import type { OrderJourney } from './orders.js';
import { adminAppUrl, shopifyLibrary, type ShopifyLibrary, WEBHOOK_PATH } from './library.js';
import { TokenCipher } from './token-crypto.js';
import { ShopTokens } from './tokens.js';

export const SHOPIFY_PLATFORM_NAME = 'Shopify';
/** Shops are named by their permanent `{name}.myshopify.com` domain, never a custom one. */
const SHOP_DOMAIN = /^[a-z0-9][a-z0-9-]{0,60}\.myshopify\.com$/;
export const isShopDomain = (value: unknown): value is string => typeof value === 'string' && SHOP_DOMAIN.test(value);

/**
 * The usage plan (DESIGN 4: no monthly fee, a share of first orders), capped every 30 days: 500 of
 * the plan's currency. Shopify takes app charges in USD or in the merchant's local billing
 * currency (`shopBillingPreferences`); its help centre names EUR, for merchants in the EU. Another
 * local billing currency joins `LOCAL_CAPPED_AMOUNTS` with a cap chosen for it.
 */
export const USAGE_PLAN = { name: 'Partner network: a share of first orders', cappedAmount: { amount: 500, currencyCode: 'USD' } };
const LOCAL_CAPPED_AMOUNTS: Readonly<Record<string, number>> = { EUR: 500 };

/**
 * The plan's currency: the store's own when Shopify bills the merchant in it, so every order is
 * charged from its shop money; USD otherwise (an order is then charged when the shopper paid in
 * USD, held as other_currency when not).
 */
export function planCappedAmount(shopCurrency: string, billingCurrency: string): { amount: number; currencyCode: string } {
  const local = LOCAL_CAPPED_AMOUNTS[billingCurrency];
  if (local !== undefined && billingCurrency === shopCurrency) return { amount: local, currencyCode: billingCurrency };
  return USAGE_PLAN.cappedAmount;
}

/**
 * The plan's terms, which the merchant reads on Shopify's approval page: the commission rate in
 * words, as the ledger applies it (basis points of a new customer's first order).
 */
export function usageTerms(commissionBasisPoints: number): string {
  const percent = String(commissionBasisPoints / 100);
  return `${percent} percent of each new customer's first order that a partner brings you, charged per order; no monthly fee`;
}

/** Shopify refuses real charges on these stores (publicDisplayName of a staff store; partnerDevelopment for the rest). */
const isTestStorePlan = (plan: { partnerDevelopment: boolean; publicDisplayName: string }) =>
  plan.partnerDevelopment || /^(development|staff)/i.test(plan.publicDisplayName);

/** Catalogs larger than this are read with a bulk operation instead of pages. */
const LARGE_CATALOG = 1000;
const ELIGIBILITY_CACHE_MS = 60_000;
const ORDER_INDEX_CACHE_MS = 60 * 60_000;
/** How long units sold counted alongside the import wait for setup's offer step to take them. */
const UNITS_SOLD_AHEAD_MS = 10 * 60_000;

export interface ShopifyCommerceOptions {
  db: Db;
  /** Where a change of a store's linked domains is announced (the plugin's lookups cache them). */
  bus: Publisher;
  config: ShopifyConfig;
  baseUrl: string;
  serviceEnv: 'test' | 'dev' | 'prod';
  log: FastifyBaseLogger;
  /** The commission rate the ledger applies, stated in the plan's terms. */
  commissionBasisPoints: number;
  sleep?: (ms: number) => Promise<void>;
}

export { StoreNotInstalledError } from './tokens.js';

interface ProductNode {
  id: string;
  title: string;
  status: string;
  featuredImage: { url: string } | null;
  priceRangeV2: { minVariantPrice: { amount: string; currencyCode: string } };
}

/** Shopify's MoneyV2 in the currency's minor units by ISO 4217 (a currency Shopify names that ISO does not: 0). */
const minorUnitsOf = (money: { amount: string; currencyCode: string }) =>
  isIsoCurrency(money.currencyCode) ? (decimalToMinorUnits(money.amount, money.currencyCode) ?? 0) : 0;
const productOf = (node: ProductNode): CatalogProduct => ({
  id: node.id,
  title: node.title,
  imageUrl: node.featuredImage?.url ?? null,
  priceCents: minorUnitsOf(node.priceRangeV2.minVariantPrice),
  active: node.status === 'ACTIVE',
});

/**
 * Shopify behind the commerce adapter interface (docs/shopify.md): install is OAuth, plan
 * approval a usage subscription, the catalog and best sellers come from the GraphQL Admin API
 * (bulk operations for large stores), the discount code is a basic code discount usable once per
 * customer, and Shopify's webhooks become the adapter's events.
 */
export class ShopifyCommerce implements CommerceAdapter {
  platformNameOf(): string {
    return SHOPIFY_PLATFORM_NAME;
  }
  ownershipSteps(domain: string): string {
    return (
      `Open the app in the Shopify admin of ${domain} (Confirm at your store), signed in as its owner or staff, and confirm there ` +
      'that you act for the store. This page notices the confirmation by itself.'
    );
  }
  readonly library: ShopifyLibrary;
  readonly admin: AdminClient;
  readonly tokens: ShopTokens;
  private readonly listeners: Array<(event: CommerceEvent) => Promise<void>> = [];
  private readonly eligibilityCache = boundedCache<StoreEligibility>(10_000, ELIGIBILITY_CACHE_MS);
  private readonly journeyCache = boundedCache<OrderJourney>(50_000, ORDER_INDEX_CACHE_MS);
  private readonly unitsSoldAhead = boundedCache<{ units: Promise<Map<string, number>> }>(1_000, UNITS_SOLD_AHEAD_MS);
  private readonly bulkSlots: BulkSlots;

  constructor(private readonly options: ShopifyCommerceOptions) {
    this.library = shopifyLibrary(options.config, options.baseUrl, options.log);
    this.tokens = new ShopTokens({
      db: options.db,
      library: this.library,
      cipher: new TokenCipher(options.config.tokenEncryptionKey),
      log: options.log,
      onRefused: (shop, reason) => this.tokenRefused(shop, reason),
    });
    this.admin = new AdminClient({ library: this.library, sessions: this.tokens, sleep: options.sleep });
    this.bulkSlots = new BulkSlots(options.config.bulkConcurrency);
  }

  /** Shopify's test charges everywhere but prod, where charges are real. */
  get testCharges(): boolean {
    return this.options.serviceEnv !== 'prod';
  }

  onEvent(listener: (event: CommerceEvent) => Promise<void>): void {
    this.listeners.push(listener);
  }

  async emit(event: CommerceEvent): Promise<void> {
    for (const listener of this.listeners) await listener(event);
  }

  async request<T>(shop: string, document: string, variables?: Record<string, unknown>): Promise<T> {
    return this.admin.request<T>(shop, document, variables);
  }

  /**
   * The store left: uninstalled, or Shopify refused to renew the app's token (`reason`). It leaves
   * the network at once; the plugin shows install again. An uninstall is the merchant's choice,
   * logged at info; a store that lost the app's access otherwise is support's (an error, and
   * `GET /admin/shopify/attention`, with the reason on the store's row).
   */
  async disconnect(shop: string, how: 'uninstalled' | 'disconnected', reason: string | null = null): Promise<void> {
    this.eligibilityCache.delete(shop);
    if (await dal.disconnectShop(this.options.db, shop, how, new Date(), how === 'uninstalled' ? 'uninstalled' : reason)) {
      if (how === 'disconnected')
        this.options.log.error({ shop, reason }, 'Shopify store disconnected: the app lost its access; the merchant must install again');
      else this.options.log.info({ shop }, 'Shopify store uninstalled the app: it left the network');
      await this.emit({ type: 'app_uninstalled', domain: shop });
    }
  }

  /**
   * Shopify refused to renew the store's token. Uninstalling the app revokes it first, then sends
   * app/uninstalled: a refusal once that delivery is in (its own check meets the revoked token) is
   * the uninstall; before it, the store is recorded as disconnected, and the delivery, when it
   * comes, records it as the uninstall it was (`confirmUninstalled`).
   */
  private async tokenRefused(shop: string, reason: string): Promise<void> {
    if (await dal.uninstallDelivered(this.options.db, shop)) await this.disconnect(shop, 'uninstalled');
    else await this.disconnect(shop, 'disconnected', reason);
  }

  /** app/uninstalled for a store recorded as disconnected (a call met the revoked token first): recorded as uninstalled. */
  async uninstalledAfterDisconnect(shop: string): Promise<boolean> {
    if (!(await dal.recordDisconnectAsUninstall(this.options.db, shop, new Date()))) return false;
    this.options.log.info({ shop }, 'Shopify store uninstalled the app: its earlier refused token was the uninstall');
    return true;
  }

  async status(domain: string): Promise<StoreStatus> {
    const row = await dal.findShop(this.options.db, domain);
    // Uninstalled or disconnected, the store starts again at install (docs/shopify.md).
    if (!row?.accessTokenEncrypted) return { installation: 'not_installed', planApproved: false };
    return { installation: 'installed', planApproved: row.planApprovedAt !== null, billingApprovalWaits: row.capRaise !== null };
  }

  private link(path: string, domain: string, link: PlatformLink): string {
    const query = new URLSearchParams({ shop: domain });
    if (link.returnTo) query.set('return', link.returnTo);
    if (link.state) query.set('challenge', link.state);
    if (link.platformId) query.set('platform', link.platformId);
    return `${path}?${query.toString()}`;
  }

  installUrl(domain: string, link: PlatformLink): string {
    return this.link('/commerce/shopify/install', domain, link);
  }

  planApprovalUrl(domain: string, link: PlatformLink): string {
    return this.link('/commerce/shopify/plan', domain, link);
  }

  /**
   * Installing again signs the store's staff in at Shopify (which skips its grant page when the
   * app holds its scopes); the service's page after the callback asks them (routes.ts).
   */
  merchantConfirmationUrl(domain: string, state: string, platformId?: string): string {
    return this.installUrl(domain, { returnTo: null, state, platformId });
  }

  /** The store's name as its staff know it at Shopify, for the pages that ask them. */
  async shopName(domain: string): Promise<string> {
    const data = await this.request<{ shop: { name: string } }>(domain, documents.SHOP_PROFILE);
    return data.shop.name;
  }

  /**
   * The store's own domain (its primary one, `brand.com`) linked to the store, so the plugin, a
   * sign-up and the dashboard find the brand by it as by `{name}.myshopify.com` (docs/shopify.md).
   */
  async refreshDomains(domain: string): Promise<void> {
    const data = await this.request<{ shop: ShopDomains }>(domain, documents.SHOP_DOMAINS);
    await this.linkDomains(domain, data.shop);
  }

  private async linkDomains(domain: string, shop: ShopDomains): Promise<void> {
    await linkStoreDomains(this.options, domain, { primary: shop.primaryDomain.host });
  }

  /** The store's own domains unlinked (`shop/redact`: they were Shopify's word about the shop). */
  async unlinkDomains(domain: string): Promise<void> {
    await linkStoreDomains(this.options, domain, { primary: null });
  }

  /**
   * The shop, and its catalog read in full (pages, or a bulk operation for a large one): the active
   * products it counts. Setup asks for best sellers next, so the units-sold count starts now too:
   * its bulk queries run beside the catalog's instead of after it.
   */
  async profile(domain: string): Promise<StoreProfile> {
    if (!this.unitsSoldAhead.has(domain)) {
      const units = this.unitsSold(domain);
      // Taken (and its failure seen) by bestSellers; unclaimed, it is dropped with its entry.
      units.catch(() => undefined);
      this.unitsSoldAhead.set(domain, { units });
    }
    const data = await this.request<{
      shop: { name: string; description: string | null; billingAddress: { countryCodeV2: string | null } | null } & ShopDomains;
    }>(domain, documents.SHOP_PROFILE);
    await this.linkDomains(domain, data.shop);
    const products = await this.catalog(domain);
    return {
      domain,
      businessName: data.shop.name,
      tagline: data.shop.description || null,
      logoImageUrl: null,
      categories: [],
      country: data.shop.billingAddress?.countryCodeV2 ?? null,
      productCount: products.filter((product) => product.active).length,
      welcomeDiscountPercent: null,
      platformName: SHOPIFY_PLATFORM_NAME,
    };
  }

  /**
   * What Shopify knows of the order's customer journey: which of its customer's orders this one
   * is (1: the first; null when Shopify has no journey for it) and the landing pages and referral
   * codes of the visits that led to it (where a referral token can be). Cached per order:
   * orders/create and orders/paid, and every redelivery, ask once.
   */
  async orderJourney(domain: string, orderGid: string): Promise<OrderJourney> {
    const key = `${domain}:${orderGid}`;
    const cached = this.journeyCache.get(key);
    if (cached) return cached;
    type Visit = { landingPage: string | null; referralCode: string | null } | null;
    const data = await this.request<{
      order: { customerJourneySummary: { customerOrderIndex: number | null; firstVisit: Visit; lastVisit: Visit } | null } | null;
    }>(domain, documents.ORDER_JOURNEY, { id: orderGid });
    const summary = data.order?.customerJourneySummary;
    // The last visit first: a shopper who came back through another partner's link last clicked that one.
    const visits = [summary?.lastVisit, summary?.firstVisit].filter((visit): visit is NonNullable<Visit> => Boolean(visit));
    const journey: OrderJourney = {
      customerOrderIndex: summary?.customerOrderIndex ?? null,
      referralCodes: visits.flatMap((visit) => (visit.referralCode ? [visit.referralCode] : [])),
      landingPages: visits.flatMap((visit) => (visit.landingPage ? [visit.landingPage] : [])),
    };
    this.journeyCache.set(key, journey);
    return journey;
  }

  async eligibility(domain: string): Promise<StoreEligibility> {
    const cached = this.eligibilityCache.get(domain);
    if (cached) return cached;
    const data = await this.request<{
      ordersCount: { count: number } | null;
      products: { nodes: Array<{ featuredImage: { url: string } | null }> };
    }>(domain, documents.ELIGIBILITY);
    const eligibility = {
      orders: data.ordersCount?.count ?? 0,
      activeProductsWithImages: data.products.nodes.filter((product) => product.featuredImage).length,
    };
    this.eligibilityCache.set(domain, eligibility);
    return eligibility;
  }

  async catalog(domain: string): Promise<CatalogProduct[]> {
    const counted = await this.request<{ productsCount: { count: number; precision: string } | null }>(domain, documents.PRODUCTS_COUNT);
    const count = counted.productsCount?.count ?? 0;
    if (count > LARGE_CATALOG || counted.productsCount?.precision === 'AT_LEAST') {
      const rows = await this.bulk<ProductNode>(domain, documents.BULK_CATALOG);
      return rows.map(productOf);
    }
    const products: CatalogProduct[] = [];
    let after: string | null = null;
    for (;;) {
      const page: {
        products: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: ProductNode[] };
      } = await this.request(domain, documents.CATALOG_PAGE, { after });
      products.push(...page.products.nodes.map(productOf));
      if (!page.products.pageInfo.hasNextPage) return products;
      after = page.products.pageInfo.endCursor;
    }
  }

  /**
   * Units sold by product from the orders' line items: the orders split by date into as many
   * ranges as the store's bulk slots allow beside the catalog's, one bulk query each, all at once.
   */
  private async unitsSold(domain: string): Promise<Map<string, number>> {
    const oldest = await this.request<{ orders: { nodes: Array<{ createdAt: string }> } }>(domain, documents.OLDEST_ORDER);
    const units = new Map<string, number>();
    const first = oldest.orders.nodes[0];
    if (!first) return units;
    const slices = createdAtSlices(new Date(first.createdAt), new Date(), Math.max(1, this.options.config.bulkConcurrency - 1));
    const parts = await Promise.all(
      slices.map((search) =>
        this.bulk<{ quantity?: number; product?: { id: string } | null; __parentId?: string }>(
          domain,
          withSearch(documents.BULK_UNITS_SOLD, search),
        ),
      ),
    );
    for (const rows of parts) {
      for (const row of rows) {
        if (row.__parentId && row.product?.id && row.quantity) units.set(row.product.id, (units.get(row.product.id) ?? 0) + row.quantity);
      }
    }
    return units;
  }

  /** Units sold (counted beside the import when setup read the profile just before, else now), then the top active products. */
  async bestSellers(domain: string, limit: number): Promise<BestSeller[]> {
    const ahead = this.unitsSoldAhead.get(domain);
    this.unitsSoldAhead.delete(domain);
    const units = (ahead ? await ahead.units.catch(() => null) : null) ?? (await this.unitsSold(domain));
    const ranked = [...units.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    const best: BestSeller[] = [];
    // Some of the best sellers may be archived or drafts now: look at a few more than asked for.
    for (let start = 0; start < ranked.length && best.length < limit; start += limit * 4) {
      const slice = ranked.slice(start, start + limit * 4);
      const found = await this.request<{ nodes: Array<ProductNode | null> }>(domain, documents.PRODUCTS_BY_ID, {
        ids: slice.map(([id]) => id),
      });
      for (const node of found.nodes) {
        if (node?.status === 'ACTIVE' && best.length < limit) best.push({ ...productOf(node), unitsSold: units.get(node.id) ?? 0 });
      }
    }
    return best;
  }

  async ordersCount(domain: string): Promise<number> {
    return (await this.eligibility(domain)).orders;
  }

  private bulk<T>(domain: string, query: string): Promise<Array<T & { __parentId?: string }>> {
    return this.bulkSlots.run(domain, () =>
      runBulkQuery<T>({
        request: (document, variables) => this.request(domain, document, variables),
        // The library's fetch (the node adapter's, or a test's stand-in): bulk results come from Shopify too.
        fetch: (url) => abstractFetch(url),
        pollMs: this.options.config.bulkPollMs,
        sleep: this.options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
        query,
      }),
    );
  }

  private discountInput(request: DiscountCodeRequest) {
    return {
      title: `Partner network: ${request.percent}% off a first order`,
      code: request.code,
      startsAt: new Date().toISOString(),
      context: { all: 'ALL' },
      customerGets: { value: { percentage: request.percent / 100 }, items: { all: true } },
      appliesOncePerCustomer: request.oncePerCustomer,
    };
  }

  private async discountId(domain: string, code: string): Promise<string | null> {
    const found = await this.request<{ codeDiscountNodeByCode: { id: string } | null }>(domain, documents.DISCOUNT_BY_CODE, { code });
    return found.codeDiscountNodeByCode?.id ?? null;
  }

  private async mutate(domain: string, name: string, document: string, variables: Record<string, unknown>): Promise<void> {
    const data = await this.request<Record<string, { userErrors: Array<{ field: string[] | null; message: string; code?: string }> }>>(
      domain,
      document,
      variables,
    );
    const userErrors = data[name]?.userErrors ?? [];
    if (userErrors.length > 0) throw new ShopifyUserError(name, userErrors);
  }

  /** discountCodeBasicCreate with the chosen percentage, once per customer; a code already there is left as it is. */
  async createDiscountCode(domain: string, request: DiscountCodeRequest): Promise<void> {
    if (await this.discountId(domain, request.code)) return;
    try {
      await this.mutate(domain, 'discountCodeBasicCreate', documents.CREATE_DISCOUNT, { discount: this.discountInput(request) });
    } catch (error) {
      // Two consents racing: the other made it.
      if (error instanceof ShopifyUserError && error.userErrors.every((entry) => entry.code === 'TAKEN')) return;
      throw error;
    }
  }

  async saveDiscountCode(domain: string, request: DiscountCodeRequest, replaces: string | null): Promise<void> {
    const id = (await this.discountId(domain, request.code)) ?? (replaces ? await this.discountId(domain, replaces) : null);
    if (!id) return this.createDiscountCode(domain, request);
    await this.mutate(domain, 'discountCodeBasicUpdate', documents.UPDATE_DISCOUNT, { id, discount: this.discountInput(request) });
  }

  async removeDiscountCode(domain: string, code: string): Promise<void> {
    const id = await this.discountId(domain, code);
    if (id) await this.mutate(domain, 'discountCodeDelete', documents.DELETE_DISCOUNT, { id });
  }

  /**
   * The store's staff prove the claim inside the app embedded in their admin (issue 45): the app
   * home lists the store's waiting claims, and Shopify's session token of its Confirm names the
   * store and the staff member. The claimant is sent to the app in the admin (Shopify installs it
   * first where it is not), which no lure can stand in for; nothing about the claim rides in the URL.
   */
  async requestOwnershipConfirmation(domain: string): Promise<string> {
    return adminAppUrl(domain, this.library.config.apiKey);
  }

  async ownershipAnswer(domain: string, claimId: string): Promise<OwnershipAnswer> {
    return (await dal.ownershipConfirmed(this.options.db, domain, claimId)) ? 'confirmed' : 'pending';
  }

  /** The order webhooks are registered at install; asking again registers any that went missing. */
  async subscribeToOrders(domain: string): Promise<void> {
    await this.registerWebhooks(domain);
  }

  async pastOrders(domain: string, before: Date): Promise<PastOrder[]> {
    const rows = await this.bulk<{
      id: string;
      createdAt: string;
      customer: { id: string } | null;
      totalPriceSet: { shopMoney: { amount: string; currencyCode: string } };
    }>(domain, documents.BULK_PAST_ORDERS);
    return rows
      .filter((row) => row.customer && new Date(row.createdAt) < before)
      .map((row) => ({
        orderId: row.id.split('/').pop()!,
        customerId: row.customer!.id.split('/').pop()!,
        totalCents: minorUnitsOf(row.totalPriceSet.shopMoney),
        placedAt: new Date(row.createdAt),
      }))
      .sort((a, b) => a.placedAt.getTime() - b.placedAt.getTime());
  }

  /** The service leaves the store on its own side: Shopify keeps the app until the merchant removes it. */
  async uninstall(domain: string): Promise<void> {
    await this.disconnect(domain, 'uninstalled');
  }

  /** Order, refund and lifecycle topics, subscribed for the shop; the compliance topics are the app configuration's. */
  async registerWebhooks(domain: string, topics: readonly string[] = WEBHOOK_TOPICS): Promise<void> {
    const uri = `${this.options.baseUrl}${WEBHOOK_PATH}`;
    for (const topic of topics) {
      try {
        await this.mutate(domain, 'webhookSubscriptionCreate', documents.SUBSCRIBE_WEBHOOK, { topic, uri });
      } catch (error) {
        // Already subscribed is what a second registration finds.
        if (error instanceof ShopifyUserError && error.userErrors.every((entry) => /already been taken/i.test(entry.message))) continue;
        if (error instanceof StoreDisconnectedError) throw error;
        this.options.log.error({ err: error, shop: domain, topic }, 'could not subscribe to a Shopify webhook topic');
      }
    }
  }

  /**
   * Shopify deletes a subscription made through the Admin API after 8 failed deliveries in a row:
   * one read of the shop's subscriptions, and the missing topics subscribed again. Returns them.
   * The read also brings the store's primary domain, linked again (a domain changed at Shopify).
   */
  async reconcileWebhooks(domain: string): Promise<string[]> {
    const data = await this.request<{ webhookSubscriptions: { nodes: Array<{ topic: string }> }; shop: ShopDomains }>(
      domain,
      documents.WEBHOOK_SUBSCRIPTIONS,
      { uri: `${this.options.baseUrl}${WEBHOOK_PATH}` },
    );
    // The same answer carries the store's primary domain: a change made at Shopify is linked within the hour.
    await this.linkDomains(domain, data.shop);
    const subscribed = new Set(data.webhookSubscriptions.nodes.map((node) => node.topic));
    const missing = WEBHOOK_TOPICS.filter((topic) => !subscribed.has(topic));
    if (missing.length > 0) {
      this.options.log.warn({ shop: domain, topics: missing }, 'Shopify webhook subscriptions were missing: subscribed again');
      await this.registerWebhooks(domain, missing);
    }
    return missing;
  }

  /** The plan as the installation has it (the truth, whatever a return URL or webhook body says). */
  async readSubscription(domain: string): Promise<dal.Subscription | null> {
    const data = await this.request<{
      currentAppInstallation: {
        activeSubscriptions: Array<{
          id: string;
          name: string;
          status: string;
          lineItems: Array<{
            id: string;
            plan: { pricingDetails: { __typename: string; cappedAmount?: { amount: string; currencyCode: string } } };
          }>;
        }>;
      };
    }>(domain, documents.INSTALLATION);
    const subscription = data.currentAppInstallation.activeSubscriptions.find((candidate) => candidate.name === USAGE_PLAN.name);
    if (!subscription) return null;
    const usage = subscription.lineItems.find((item) => item.plan.pricingDetails.__typename === 'AppUsagePricing');
    const capped = usage?.plan.pricingDetails.cappedAmount;
    return {
      id: subscription.id,
      status: subscription.status,
      usageLineItemId: usage?.id ?? null,
      usageCurrency: capped?.currencyCode ?? null,
      usageCappedMinor: capped ? (decimalToMinorUnits(String(capped.amount), capped.currencyCode) ?? null) : null,
    };
  }

  /**
   * Shopify says the usage balance crossed 90% of the capped amount: asks the merchant to double
   * it (appSubscriptionLineItemUpdate) and keeps the confirmation URL Shopify answers for the
   * store's staff to open; the cap changes only when they approve. A repeated delivery while that
   * raise waits asks nothing new. Returns the cap asked for, or null when there is no plan to raise.
   */
  async askToRaiseCap(domain: string): Promise<{ cappedMinor: number; currency: string; confirmationUrl: string } | null> {
    const subscription = await this.readSubscription(domain);
    await dal.recordSubscription(this.options.db, domain, subscription, new Date());
    if (subscription?.status !== 'ACTIVE' || !subscription.usageLineItemId || !subscription.usageCurrency) return null;
    if (subscription.usageCappedMinor === null) return null;
    const currency = subscription.usageCurrency;
    const cappedMinor = subscription.usageCappedMinor * 2;
    const waiting = (await dal.findShop(this.options.db, domain))?.capRaise;
    if (waiting && waiting.cappedMinor === cappedMinor) return { cappedMinor, currency, confirmationUrl: waiting.confirmationUrl };
    const data = await this.request<{
      appSubscriptionLineItemUpdate: { confirmationUrl: string | null; userErrors: Array<{ field: string[] | null; message: string }> };
    }>(domain, documents.UPDATE_CAPPED_AMOUNT, {
      id: subscription.usageLineItemId,
      cappedAmount: { amount: minorUnitsToDecimal(cappedMinor, currency), currencyCode: currency },
    });
    const result = data.appSubscriptionLineItemUpdate;
    if (result.userErrors.length > 0 || !result.confirmationUrl)
      throw new ShopifyUserError('appSubscriptionLineItemUpdate', result.userErrors);
    await dal.setCapRaise(this.options.db, domain, { confirmationUrl: result.confirmationUrl, cappedMinor }, new Date());
    return { cappedMinor, currency, confirmationUrl: result.confirmationUrl };
  }

  /**
   * The raise of the capped amount the merchant was asked for and has not approved yet, while the
   * store is connected, with the commissions held over the cap until then (a second read, only
   * while a raise waits).
   */
  async pendingBillingApproval(domain: string): Promise<BillingApproval | null> {
    const row = await dal.findShop(this.options.db, domain);
    if (!row?.accessTokenEncrypted || !row.capRaise || !row.usageCurrency) return null;
    const held = new Map<string, number>();
    for (const charge of await heldCommerceCharges(this.options.db, domain)) {
      if (charge.reason === 'over_cap') held.set(charge.currency, (held.get(charge.currency) ?? 0) + charge.amountMinor);
    }
    return {
      ...row.capRaise,
      currency: row.usageCurrency,
      held: [...held.entries()].map(([currency, amountMinor]) => ({ amountMinor, currency })),
    };
  }

  /**
   * Reads the plan back and records it; announces plan_approved once. Returns whether the plan is approved.
   * `ownerReturned`: the merchant is back from Shopify's charge page and waits on the answer. The
   * approval may have been recorded a moment before by `app_subscriptions/update`, whose setup job is
   * not queued yet: announced again (queueing is idempotent), so the page shows setup, not the plan.
   */
  async refreshSubscription(domain: string, options: { ownerReturned?: boolean } = {}): Promise<boolean> {
    const subscription = await this.readSubscription(domain);
    const recorded = await dal.recordSubscription(this.options.db, domain, subscription, new Date());
    if (recorded.newlyApproved || (options.ownerReturned && recorded.approved)) await this.emit({ type: 'plan_approved', domain });
    return recorded.approved;
  }

  /**
   * Where the merchant approves the usage plan: the confirmation page of the subscription created
   * for them before, while Shopify still has it pending (a second click costs one read, not a
   * second subscription), or of a new one (appSubscriptionCreate).
   */
  async subscriptionConfirmationUrl(domain: string, returnUrl: string): Promise<string> {
    const pending = (await dal.findShop(this.options.db, domain))?.pending;
    if (pending && pending.returnUrl === returnUrl) {
      const data = await this.request<{ node: { status?: string } | null }>(domain, documents.SUBSCRIPTION_STATUS, {
        id: pending.subscriptionId,
      });
      if (data.node?.status === 'PENDING') return pending.confirmationUrl;
    }
    // Development and staff stores take test charges only, on every host; the currencies pick the plan's.
    const { shop, shopBillingPreferences } = await this.request<{
      shop: { currencyCode: string; plan: { partnerDevelopment: boolean; publicDisplayName: string } };
      shopBillingPreferences: { currency: string };
    }>(domain, documents.SHOP_PLAN);
    const data = await this.request<{
      appSubscriptionCreate: {
        confirmationUrl: string | null;
        appSubscription: { id: string } | null;
        userErrors: Array<{ field: string[] | null; message: string }>;
      };
    }>(domain, documents.CREATE_SUBSCRIPTION, {
      name: USAGE_PLAN.name,
      returnUrl,
      test: this.testCharges || isTestStorePlan(shop.plan),
      lineItems: [
        {
          plan: {
            appUsagePricingDetails: {
              terms: usageTerms(this.options.commissionBasisPoints),
              cappedAmount: planCappedAmount(shop.currencyCode, shopBillingPreferences.currency),
            },
          },
        },
      ],
    });
    const result = data.appSubscriptionCreate;
    if (result.userErrors.length > 0 || !result.confirmationUrl || !result.appSubscription) {
      throw new ShopifyUserError('appSubscriptionCreate', result.userErrors);
    }
    await dal.setPendingSubscription(
      this.options.db,
      domain,
      { subscriptionId: result.appSubscription.id, confirmationUrl: result.confirmationUrl, returnUrl },
      new Date(),
    );
    return result.confirmationUrl;
  }
}

interface ShopDomains {
  primaryDomain: { host: string };
}

/** The Admin API's names of the topics the adapter subscribes a shop to. */
export const WEBHOOK_TOPICS = [
  'ORDERS_CREATE',
  'ORDERS_PAID',
  'ORDERS_CANCELLED',
  'REFUNDS_CREATE',
  'APP_UNINSTALLED',
  'APP_SUBSCRIPTIONS_UPDATE',
  'APP_SUBSCRIPTIONS_APPROACHING_CAPPED_AMOUNT',
] as const;
