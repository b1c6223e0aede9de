import type { Db } from '../../db/database.js';
import crypto from 'node:crypto';
import type {
  BestSeller,
  CatalogProduct,
  CommerceAdapter,
  CommerceEvent,
  DiscountCodeRequest,
  OwnershipAnswer,
  OwnershipRequest,
  PastOrder,
  PlatformLink,
  StoreEligibility,
  StoreProfile,
  StoreStatus,
} from '../adapter.js';
import * as dal from './dal.js';
import { generateStore } from './generator.js';
import { SIGNATURE_HEADER, signOrderBody, TIMESTAMP_HEADER } from '../../orders/signature.js';
import { retryDelayMs } from '../../shared/retry.js';

export const SANDBOX_PLATFORM_NAME = 'Sandbox Commerce';

/** The sandbox's stores sell in US dollars; their amounts are minor units of it (ISO 4217: cents). */
export const SANDBOX_CURRENCY = 'USD';
const ORDER_WEBHOOK_PATH = '/webhooks/commerce/orders';
const ORDER_EVENT_WEBHOOK_PATH = '/webhooks/commerce/order-events';
const WEBHOOK_TIMEOUT_MS = 10_000;
export const MAX_ORDER_QUANTITY = 10;

/** What a price comes to with a percent off, rounded to the cent as the checkout charges it. */
export function discountedCents(cents: number, percent: number): number {
  return Math.round((cents * (100 - percent)) / 100);
}

interface CheckoutInput {
  productId: string;
  quantity: number;
  customerEmail: string;
  discountCode: string | null;
  referralToken: string | null;
}

/** What became of the webhook delivery of one order. */
export type OrderDelivery =
  | { kind: 'delivered'; status: number; body: string }
  | { kind: 'failed'; reason: string }
  | { kind: 'not_subscribed' }
  | { kind: 'no_secret' };

export type CheckoutResult =
  | { outcome: 'placed'; orderId: string; totalCents: number; discountPercent: number | null; delivery: OrderDelivery }
  | { outcome: 'refused'; reason: string; codeRefused?: true };

/** A transient failure of the commerce platform; the setup job retries it. */
export class CommerceUnavailableError extends Error {
  override name = 'CommerceUnavailableError';
}

/**
 * How many imports a `slow-` store fails before it answers, so that setup, retrying on the
 * worker's schedule, is still running when the delayed stage begins and stays on it for at least
 * one more retry: the preset the demo platform offers for the delayed stage shows it whatever
 * SETUP_DELAYED_AFTER_SECONDS and SETUP_RETRY_MS say (2 min and 5 s: five failures, 135 s).
 */
export function slowStoreFailures(delayedAfterMs: number, retryMs: number): number {
  let failures = 0;
  for (let waited = 0; waited < delayedAfterMs + retryMs; waited += retryDelayMs(retryMs, failures)) failures++;
  return failures;
}

/**
 * The commerce platform built into the service, so onboarding can be walked end to end with no
 * outside account. Every domain is a store: it is generated the first time it is asked about.
 */
export class SandboxCommerce implements CommerceAdapter {
  platformNameOf(): string {
    return SANDBOX_PLATFORM_NAME;
  }
  ownershipSteps(domain: string): string {
    return `Confirm at ${SANDBOX_PLATFORM_NAME}, signed in as the owner of ${domain}, that you act for the store.`;
  }
  private readonly listeners: Array<(event: CommerceEvent) => Promise<void>> = [];

  constructor(
    private readonly db: Db,
    /** Absolute base of the service, for the image addresses the catalog hands out. */
    private readonly baseUrl: string,
    /** Simulated time to hand over a store's data on import. */
    private readonly importMs = 0,
    /** The order webhook's shared secret; without it orders stay at the store. */
    private readonly orderWebhookSecret?: string,
    /** How many imports of a `slow-` store fail first (slowStoreFailures). */
    private readonly slowImportFailures = 0,
  ) {}

  onEvent(listener: (event: CommerceEvent) => Promise<void>): void {
    this.listeners.push(listener);
  }

  async store(domain: string): Promise<dal.SandboxStoreRow> {
    const existing = await dal.findStore(this.db, domain);
    if (existing) return existing;
    const base = `${this.baseUrl}/sandbox/images/${encodeURIComponent(domain)}`;
    // A brand already in the network gets a store that matches it: its name, its kind of
    // catalog, and the discount code its offer names, so a referral link's code works there.
    // One whose offer is live runs the app already (through another way in than this plugin):
    // installed, plan approved, its orders going to the service.
    const brand = await dal.networkBrandOfDomain(this.db, domain);
    const now = new Date();
    const generated = generateStore(
      domain,
      now,
      brand && { businessName: brand.business_name, categories: brand.categories, country: brand.country },
    );
    const discountCode =
      brand?.discount_code && brand.discount_percent ? { code: brand.discount_code, percent: brand.discount_percent } : null;
    await dal.insertStoreIfAbsent(
      this.db,
      domain,
      generated,
      `${base}/logo.svg`,
      (id) => `${base}/${id}.svg`,
      {
        discountCode,
        connectedSince: brand?.live ? now : null,
      },
      generated.slow ? this.slowImportFailures : 0,
    );
    return (await dal.findStore(this.db, domain))!;
  }

  async status(domain: string): Promise<StoreStatus> {
    const store = await this.store(domain);
    return { installation: store.appStatus, planApproved: store.planApprovedAt !== null };
  }

  installUrl(domain: string, link: PlatformLink): string {
    return this.pageUrl(domain, 'install', link);
  }

  planApprovalUrl(domain: string, link: PlatformLink): string {
    return this.pageUrl(domain, 'plan', link);
  }

  merchantConfirmationUrl(domain: string, state: string): string {
    return this.pageUrl(domain, 'confirm', { returnTo: null, state });
  }

  private pageUrl(domain: string, page: string, link: PlatformLink): string {
    const query = new URLSearchParams();
    if (link.returnTo) query.set('return', link.returnTo);
    if (link.state) query.set('state', link.state);
    const text = query.toString();
    return `/sandbox/stores/${encodeURIComponent(domain)}/${page}${text ? `?${text}` : ''}`;
  }

  async profile(domain: string): Promise<StoreProfile> {
    if (await dal.takeImportFailure(this.db, domain)) {
      throw new CommerceUnavailableError(`${SANDBOX_PLATFORM_NAME} did not answer for ${domain} (simulated slow store)`);
    }
    if (this.importMs > 0) await new Promise((resolve) => setTimeout(resolve, this.importMs));
    const store = await this.store(domain);
    const products = await dal.listProducts(this.db, domain);
    return {
      domain,
      businessName: store.businessName,
      tagline: store.tagline,
      logoImageUrl: store.logoImageUrl,
      categories: store.category ? [store.category] : [],
      country: store.country,
      productCount: products.filter((product) => product.status === 'active').length,
      welcomeDiscountPercent: store.welcomeDiscountPercent,
      platformName: SANDBOX_PLATFORM_NAME,
    };
  }

  async catalog(domain: string): Promise<CatalogProduct[]> {
    await this.store(domain);
    const products = await dal.listProducts(this.db, domain);
    return products.map((product) => ({
      id: product.id,
      title: product.title,
      imageUrl: product.image_url,
      priceCents: product.price_cents,
      active: product.status === 'active',
    }));
  }

  async eligibility(domain: string): Promise<StoreEligibility> {
    const [orders, catalog] = await Promise.all([this.ordersCount(domain), this.catalog(domain)]);
    return { orders, activeProductsWithImages: catalog.filter((product) => product.active && product.imageUrl).length };
  }

  async bestSellers(domain: string, limit: number): Promise<BestSeller[]> {
    await this.store(domain);
    const rows = await dal.bestSellers(this.db, domain, limit);
    return rows.map((row) => ({
      id: row.id,
      title: row.title,
      imageUrl: row.image_url,
      priceCents: row.price_cents,
      active: true,
      unitsSold: row.units,
    }));
  }

  async ordersCount(domain: string): Promise<number> {
    await this.store(domain);
    return dal.countOrders(this.db, domain);
  }

  async createDiscountCode(domain: string, request: DiscountCodeRequest): Promise<void> {
    await this.store(domain);
    await dal.insertDiscountCode(this.db, domain, request.code, request.percent, request.oncePerCustomer);
  }

  async saveDiscountCode(domain: string, request: DiscountCodeRequest, replaces: string | null): Promise<void> {
    await this.store(domain);
    await dal.saveDiscountCode(this.db, domain, request, replaces);
  }

  async removeDiscountCode(domain: string, code: string): Promise<void> {
    await dal.deleteDiscountCode(this.db, domain, code);
  }

  async requestOwnershipConfirmation(domain: string, request: OwnershipRequest): Promise<string> {
    await this.store(domain);
    await dal.insertOwnershipRequest(this.db, domain, {
      id: request.claimId,
      requestedBy: request.requestedBy,
      returnTo: request.returnTo,
    });
    return `/sandbox/stores/${encodeURIComponent(domain)}/ownership/${request.claimId}`;
  }

  async ownershipAnswer(domain: string, claimId: string): Promise<OwnershipAnswer> {
    return (await dal.findOwnershipRequest(this.db, domain, claimId))?.status ?? 'pending';
  }

  async subscribeToOrders(domain: string): Promise<void> {
    await this.store(domain);
    await dal.subscribeToOrders(this.db, domain, new Date());
  }

  async pastOrders(domain: string, before: Date): Promise<PastOrder[]> {
    await this.store(domain);
    const rows = await dal.ordersBefore(this.db, domain, before);
    return rows.map((row) => ({ orderId: row.id, customerId: row.customer_email!, totalCents: row.total_cents, placedAt: row.placed_at }));
  }

  // --- what the sandbox's own pages show (src/commerce/sandbox/routes.ts, store-admin-routes.ts) ---

  /** The stores opened most recently, for the sandbox's front page. */
  recentStores() {
    return dal.listStores(this.db);
  }

  /** Looked up, not opened: a store nobody opened has none (and has not installed the app). */
  findStore(domain: string): Promise<dal.SandboxStoreRow | undefined> {
    return dal.findStore(this.db, domain);
  }

  /** The store admin's page: products, the latest orders and how many there are, and the discount codes. */
  async storeAdmin(domain: string) {
    const [products, orders, orderCount, codes] = await Promise.all([
      dal.listProducts(this.db, domain),
      dal.recentOrders(this.db, domain, 15),
      dal.countOrders(this.db, domain),
      dal.listDiscountCodes(this.db, domain),
    ]);
    return { products, orders, orderCount, codes };
  }

  /** The store's discount code a shopper typed at the storefront, if it has it. */
  findDiscountCode(domain: string, typed: string) {
    return dal.findDiscountCode(this.db, domain, typed);
  }

  ownershipRequest(domain: string, claimId: string) {
    return dal.findOwnershipRequest(this.db, domain, claimId);
  }

  /** The owner answers a request to act for the store; one answered before keeps its answer. Returns the request as it stands. */
  async answerOwnershipRequest(domain: string, claimId: string, answer: 'confirmed' | 'declined', now = new Date()) {
    await dal.answerOwnershipRequest(this.db, domain, claimId, answer, now);
    return dal.findOwnershipRequest(this.db, domain, claimId);
  }

  /**
   * A shopper's checkout at the sandbox storefront: the store checks its own discount code (once
   * per customer), records the order, then delivers it to the service's signed order webhook
   * when the service subscribed to the store's orders or the app is installed there.
   */
  async placeOrder(domain: string, input: CheckoutInput, now = new Date()): Promise<CheckoutResult> {
    const store = await this.store(domain);
    const product = (await dal.listProducts(this.db, domain)).find((item) => item.id === input.productId && item.status === 'active');
    if (!product) return { outcome: 'refused', reason: 'That product is not for sale at this store.' };
    if (!Number.isInteger(input.quantity) || input.quantity < 1 || input.quantity > MAX_ORDER_QUANTITY) {
      return { outcome: 'refused', reason: `Order 1 to ${MAX_ORDER_QUANTITY} of a product.` };
    }
    let discount: { code: string; percent: number; once_per_customer: boolean } | undefined;
    if (input.discountCode) {
      discount = await dal.findDiscountCode(this.db, domain, input.discountCode);
      if (!discount) {
        return { outcome: 'refused', reason: `The discount code ${input.discountCode} does not exist at this store.`, codeRefused: true };
      }
    }
    const fullCents = product.price_cents * input.quantity;
    const totalCents = discount ? discountedCents(fullCents, discount.percent) : fullCents;
    const order: dal.StorefrontOrder = {
      id: `#S${crypto.randomBytes(4).toString('hex').toUpperCase()}`,
      productId: product.id,
      quantity: input.quantity,
      totalCents,
      placedAt: now,
      customerEmail: input.customerEmail,
      discountCode: discount?.code ?? null,
      referralToken: input.referralToken,
    };
    if (!(await dal.insertStorefrontOrder(this.db, domain, order, discount?.once_per_customer ?? false))) {
      return {
        outcome: 'refused',
        reason: `The discount code ${discount!.code} can be used once per customer, and ${input.customerEmail} already used it.`,
        codeRefused: true,
      };
    }
    // The app's own configuration subscribes every store that installs it, as platforms' app-level webhooks do.
    const subscribed = store.ordersWebhookSince !== null || store.appStatus === 'installed';
    const delivery = subscribed ? await this.deliverOrder(domain, order) : ({ kind: 'not_subscribed' } as const);
    return { outcome: 'placed', orderId: order.id, totalCents, discountPercent: discount?.percent ?? null, delivery };
  }

  private async deliverOrder(domain: string, order: dal.StorefrontOrder): Promise<OrderDelivery> {
    const delivery = await this.postSigned(ORDER_WEBHOOK_PATH, {
      orderId: order.id,
      storeDomain: domain,
      customerId: order.customerEmail,
      totalCents: order.totalCents,
      currency: SANDBOX_CURRENCY,
      placedAt: order.placedAt.toISOString(),
      ...(order.referralToken ? { referralToken: order.referralToken } : {}),
      ...(order.discountCode ? { discountCode: order.discountCode } : {}),
    });
    await dal.setOrderWebhookStatus(this.db, domain, order.id, delivery.kind === 'delivered' ? delivery.status : null);
    return delivery;
  }

  /**
   * The store admin's refund (of `amountCents`, at most what is left) or cancel (all that is
   * left) of an order, then the event delivered to the service's signed order-events webhook,
   * when the service receives the store's orders. Undefined for an order that does not exist or
   * is cancelled already.
   */
  async takeBack(
    domain: string,
    orderId: string,
    change: { kind: 'refund'; amountCents: number } | { kind: 'cancel' },
    now = new Date(),
  ): Promise<{ takenCents: number; delivery: OrderDelivery } | undefined> {
    const store = await this.store(domain);
    const takenCents = await dal.takeFromOrder(
      this.db,
      domain,
      orderId,
      change.kind === 'cancel' ? { cancel: true, now } : { cancel: false, amountCents: change.amountCents },
    );
    if (takenCents === undefined) return undefined;
    const subscribed = store.ordersWebhookSince !== null || store.appStatus === 'installed';
    if (!subscribed) return { takenCents, delivery: { kind: 'not_subscribed' } };
    const delivery = await this.postSigned(ORDER_EVENT_WEBHOOK_PATH, {
      eventId: `${change.kind}-${crypto.randomBytes(6).toString('hex')}`,
      type: change.kind,
      orderId,
      storeDomain: domain,
      ...(change.kind === 'refund' ? { amountCents: takenCents } : {}),
      currency: SANDBOX_CURRENCY,
      occurredAt: now.toISOString(),
    });
    return { takenCents, delivery };
  }

  /** Posts a body to a webhook of the service, signed with the shared secret. */
  private async postSigned(path: string, payload: Record<string, unknown>): Promise<OrderDelivery> {
    if (!this.orderWebhookSecret) return { kind: 'no_secret' };
    const body = JSON.stringify(payload);
    const timestamp = Math.floor(Date.now() / 1000);
    try {
      const response = await fetch(`${this.baseUrl}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [TIMESTAMP_HEADER]: String(timestamp),
          [SIGNATURE_HEADER]: signOrderBody(this.orderWebhookSecret, timestamp, body),
        },
        body,
        signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
      });
      return { kind: 'delivered', status: response.status, body: await response.text() };
    } catch (error) {
      return { kind: 'failed', reason: error instanceof Error ? error.message : String(error) };
    }
  }

  async install(domain: string): Promise<void> {
    await this.store(domain);
    await dal.setAppStatus(this.db, domain, 'installed');
    await this.emit({ type: 'app_installed', domain });
  }

  /** Every approval by the owner is announced, a repeated one too: it is how an owner starts a setup the service never ran. */
  async approvePlan(domain: string): Promise<boolean> {
    const approved = await dal.approvePlan(this.db, domain, new Date());
    if (approved) await this.emit({ type: 'plan_approved', domain });
    return approved;
  }

  /** The store's owner finished, signed in, an action whose link carried `state`. */
  async confirmMerchant(domain: string, state: string): Promise<void> {
    await this.emit({ type: 'merchant_confirmed', domain, state });
  }

  /** The store admin's "close the cross-promotion campaign" control, answered by the service. */
  async closeCampaign(domain: string): Promise<void> {
    await this.emit({ type: 'campaign_closed', domain });
  }

  /** The sandbox charges nothing through the platform: nothing to approve. */
  async pendingBillingApproval(): Promise<null> {
    return null;
  }

  async uninstall(domain: string): Promise<void> {
    const store = await this.store(domain);
    if (store.appStatus !== 'installed') return;
    await dal.setAppStatus(this.db, domain, 'uninstalled');
    await this.emit({ type: 'app_uninstalled', domain });
  }

  private async emit(event: CommerceEvent): Promise<void> {
    for (const listener of this.listeners) await listener(event);
  }
}
