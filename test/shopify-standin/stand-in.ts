import { approveCappedAmount, usageBalance } from './billing.js';
import { BULK_RESULTS_HOST, type AppRegistration, type StandInCore, type UsageStats } from './core.js';
import { listenLocally, routeBrowserToStandIn, standInFetch, type LocalListener } from './fetch-bridge.js';
import { generateShopData } from './generator.js';
import { IdAllocator, type NoteAttribute, type Order, type Refund, type ShopPlan, type ShopRecord } from './model.js';
import { hostParameter, OAuthEndpoints, signQuery } from './oauth.js';
import { newAccessToken, SHOPIFY_TOKEN_LIFETIMES, TokenIssuer, type TokenLifetimes, type TokenRequest } from './tokens.js';
import { route, SHOP_HOST_PATTERN } from './router.js';
import { installManaged, uninstallApp } from './installation.js';
import { ADMIN_HOST, APP_STORE_HOST, ShopifySites } from './sites.js';
import { signSessionToken, type SessionTokenVariant } from './session-tokens.js';
import { StaffDirectory, type NewStaff, type StaffAccount } from './staff.js';
import { LeakyBucket, PLAN_THROTTLE, type ThrottleSettings, type ThrottleStatus } from './throttle.js';
import {
  customersDataRequestPayload,
  customersRedactPayload,
  orderPayload,
  refundPayload,
  shopRedactPayload,
  WebhookDispatcher,
  type Deliver,
  type WebhookDelivery,
} from './webhooks.js';
import { refundedCents } from './views.js';
import type { BrowserContext, Page } from 'playwright-core';

/**
 * A Shopify stand-in for tests and benches: OAuth, the GraphQL Admin API (2026-10 schema, cost
 * throttling), billing, webhooks, and a test API to make shops and make things happen in them.
 * See test/shopify-standin/README.md.
 */
export interface ShopifyStandInOptions {
  app?: Partial<AppRegistration>;
  /** Overrides the plan's bucket for every shop, so a test can make throttling happen fast. */
  throttle?: Partial<ThrottleSettings>;
  /** The stand-in's clock; a test that moves time passes its own. */
  now?: () => Date;
  /**
   * Objects a second a bulk operation writes; unset, an operation is done by its second poll.
   * Shopify documents no figure: a bench sets one to see polling cost real time.
   */
  bulkObjectsPerSecond?: number;
  /** How webhooks reach the app; by default the global fetch, to loopback addresses only. */
  deliverWebhook?: Deliver;
  /** Lifetimes of expiring offline tokens; Shopify's (1 hour, 90 days) unless a test compresses them. */
  tokenLifetimes?: TokenLifetimes;
  /** How long a webhook delivery may take to be answered; Shopify's 5 s unless a test shortens it. */
  webhookAnswerDeadlineMs?: number;
  /**
   * Milliseconds every request to the stand-in waits before it is answered (the network and
   * Shopify's own work): the Admin API, OAuth, the admin's pages and bulk result downloads. Unset, none.
   */
  latencyMs?: number;
  /** How the latency is waited; real time unless a test passes its own. */
  sleep?: (ms: number) => Promise<void>;
}

export interface CreateShopOptions {
  /** `acme` for acme.myshopify.com */
  name: string;
  seed?: string;
  products?: number;
  orders?: number;
  plan?: ShopPlan;
  testStore?: 'development' | 'staff';
  title?: string;
  currency?: string;
  /** The currency Shopify bills the merchant in; USD unless given (Shopify bills EU merchants in EUR, for example). */
  billingCurrency?: string;
  country?: string;
  countryCode?: string;
  description?: string | null;
  withoutImagesShare?: number;
  inactiveShare?: number;
  /**
   * The host of the store's primary domain (`Shop.primaryDomain`), its custom domain: `{name}.example`
   * by default; null for a store without one, whose primary domain is then its myshopify.com
   * domain, as on Shopify.
   */
  primaryDomain?: string | null;
}

export interface PlaceOrderInput {
  lineItems?: Array<{ productId: number; quantity?: number }>;
  /** An existing customer's id; omitted, a new customer places the order. */
  customerId?: number;
  discountCode?: string;
  /** The storefront URL the visit landed on, e.g. `/products/tee?ref=partner-42`. */
  landingSite?: string;
  /**
   * The landing page of an earlier visit by the same shopper (the journey's `firstVisit`), e.g. a
   * discount link they followed before coming back directly to order; the webhook's `landing_site`
   * stays the order's own visit's.
   */
  earlierLandingSite?: string;
  referringSite?: string;
  noteAttributes?: NoteAttribute[];
  /** The shopper pays in another currency (Shopify Markets): its code, and how many of it one unit of the shop's buys. */
  presentment?: { currency: string; rate: number };
}

/** A shopper following a link into a shop's online store, as Shopify keeps the visit for the order (`ShopifyStandIn.visit`). */
export interface StorefrontVisit {
  /** The shop's `{name}.myshopify.com` domain, whichever of its hosts the link named. */
  domain: string;
  /** The page the visit landed on, path and query as requested: the order's `landing_site`. */
  landingSite: string;
  /** The code a discount link (`/discount/{code}`) put on the shopper's cart. */
  discountCode?: string;
  /** Where the store sent the shopper on: a discount link's `redirect` when it is a path on the store, else its home page. */
  location: string;
}

export interface RefundInput {
  /** Items to refund; omitted (and no amount), the whole remaining order is refunded. */
  lineItems?: Array<{ lineItemId: number; quantity: number }>;
  amountCents?: number;
  note?: string;
}

/** Tests reach no other machine: without a deliverWebhook of its own, the stand-in posts to loopback only. */
const deliverToLoopback: Deliver = async (url, init) => {
  const host = new URL(url).hostname;
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '[::1]')
    throw new Error(`webhook to ${host} not sent: pass deliverWebhook to route it`);
  return fetch(url, init);
};

export const DEFAULT_APP: AppRegistration = {
  apiKey: 'standin-api-key-0123456789abcdef',
  apiSecret: 'standin-api-secret-0123456789abcdef',
  id: 4242,
  title: 'Partner Network',
  handle: 'partner-network',
  redirectUrls: ['https://svc.test/commerce/shopify/callback'],
  webhooks: [],
  scopes: ['read_products', 'read_orders', 'write_discounts'],
  applicationUrl: 'https://svc.test/commerce/shopify/app',
};

export class ShopifyStandIn {
  readonly app: AppRegistration;
  /** fetch for `@shopify/shopify-api` (setAbstractFetchFunc) and for downloading bulk results. */
  readonly fetch: typeof fetch;
  private readonly core: StandInCore;
  private readonly oauth: OAuthEndpoints;
  private readonly sites: ShopifySites;
  private readonly buckets = new Map<string, LeakyBucket>();
  private readonly usageByShop = new Map<string, UsageStats>();
  private readonly now: () => Date;
  private listener: LocalListener | null = null;

  constructor(options: ShopifyStandInOptions = {}) {
    // Its own list of declared webhooks: a test that declares one must not declare it for every other stand-in.
    this.app = {
      ...DEFAULT_APP,
      ...options.app,
      webhooks: [...(options.app?.webhooks ?? DEFAULT_APP.webhooks)],
      scopes: [...(options.app?.scopes ?? DEFAULT_APP.scopes)],
    };
    this.now = options.now ?? (() => new Date());
    const throttle = options.throttle ?? {};
    const ids = new IdAllocator();
    this.core = {
      app: this.app,
      ids,
      now: this.now,
      shops: new Map(),
      bucketFor: (shop) => {
        let bucket = this.buckets.get(shop.domain);
        if (!bucket) {
          bucket = new LeakyBucket({ ...PLAN_THROTTLE[shop.plan], ...throttle }, () => this.now().getTime());
          this.buckets.set(shop.domain, bucket);
        }
        return bucket;
      },
      usage: (shop) => {
        let usage = this.usageByShop.get(shop.domain);
        if (!usage) {
          usage = { adminApiCalls: 0, pointsSpent: 0, throttledCalls: 0 };
          this.usageByShop.set(shop.domain, usage);
        }
        return usage;
      },
      staff: new StaffDirectory(() => ids.next('StaffMember')),
      tokens: new TokenIssuer(options.tokenLifetimes ?? SHOPIFY_TOKEN_LIFETIMES, () => this.now().getTime()),
      webhooks: new WebhookDispatcher(this.app, this.now, options.deliverWebhook ?? deliverToLoopback, options.webhookAnswerDeadlineMs),
      bulkObjectsPerSecond: options.bulkObjectsPerSecond ?? null,
      bulkResultUrl: (shop, operationId) => `https://${BULK_RESULTS_HOST}/${shop.domain.split('.')[0]}/${operationId}.jsonl`,
    };
    this.oauth = new OAuthEndpoints(this.core);
    this.sites = new ShopifySites(this.core);
    this.fetch = standInFetch(this.handle);
    this.latencyMs = options.latencyMs ?? 0;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  private readonly latencyMs: number;
  private readonly sleep: (ms: number) => Promise<void>;

  /**
   * How long, between `from` and `to` (ms of the stand-in's clock), at least one caller was kept
   * waiting by Shopify (a request's latency, a bulk operation running): what the work would take
   * if the app itself took no time. Overlapping waits count once.
   */
  waitedMs(from: number, to: number): number {
    const bulk = [...this.core.shops.values()].flatMap((shop) =>
      shop.bulkOperations.map((operation): [number, number] => [operation.createdAt.getTime(), operation.readyAt]),
    );
    const intervals = [...this.waits, ...bulk]
      .map(([start, end]): [number, number] => [Math.max(start, from), Math.min(end, to)])
      .filter(([start, end]) => end > start)
      .sort((a, b) => a[0] - b[0]);
    let total = 0;
    let reached = from;
    for (const [start, end] of intervals) {
      if (end <= reached) continue;
      total += end - Math.max(start, reached);
      reached = end;
    }
    return total;
  }

  /** Admin API requests held per shop until released: a test sees what answers without waiting for them. */
  private readonly holds = new Map<string, { released: Promise<void>; waiting: number }>();

  /**
   * When the stand-in kept a caller waiting, as [start, end] in ms of its clock: each request's
   * latency and each bulk operation from its creation until it is ready.
   */
  private readonly waits: Array<[number, number]> = [];

  /** Answers one request to https://{shop}.myshopify.com/... or the bulk results host. */
  readonly handle = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (this.latencyMs > 0) {
      const start = this.now().getTime();
      await this.sleep(this.latencyMs);
      this.waits.push([start, start + this.latencyMs]);
    }
    const hold = this.holds.get(url.hostname);
    if (hold && url.pathname.startsWith('/admin/api/')) {
      hold.waiting += 1;
      await hold.released;
    }
    return route(this.core, this.oauth, this.sites, request);
  };

  /**
   * Holds the shop's Admin API requests (they wait, unanswered) until `release`; `waiting` counts
   * the requests that arrived meanwhile.
   */
  holdAdminApi(domain: string): { release: () => void; waiting: () => number } {
    let release = () => {};
    const hold = { released: new Promise<void>((resolve) => (release = resolve)), waiting: 0 };
    this.holds.set(domain, hold);
    return {
      release: () => {
        this.holds.delete(domain);
        release();
      },
      waiting: () => hold.waiting,
    };
  }

  /**
   * Makes a Playwright context (or page) reach the stand-in's pages at their real https URLs.
   * `mayRedirect` narrows which other navigations are fetched by the route to catch a redirect
   * into the stand-in (an app's install path); by default every navigation is.
   */
  routeBrowser(target: BrowserContext | Page, mayRedirect?: (url: URL) => boolean): Promise<void> {
    return routeBrowserToStandIn(target, this.handle, mayRedirect);
  }

  /** Serves the stand-in on 127.0.0.1 too, for another process: see fetch-bridge.ts. */
  async listen(): Promise<LocalListener> {
    this.listener ??= await listenLocally(this.handle);
    return this.listener;
  }

  async close(): Promise<void> {
    await this.listener?.close();
    this.listener = null;
  }

  createShop(options: CreateShopOptions): ShopRecord {
    const domain = `${options.name}.myshopify.com`;
    if (!SHOP_HOST_PATTERN.test(domain)) throw new Error(`not a shop name: ${options.name}`);
    if (this.core.shops.has(domain)) throw new Error(`shop ${domain} exists already`);
    const now = this.now();
    const data = generateShopData(this.core.ids, domain, {
      seed: options.seed ?? options.name,
      products: options.products ?? 10,
      orders: options.orders ?? 0,
      now,
      withoutImagesShare: options.withoutImagesShare ?? 0,
      inactiveShare: options.inactiveShare ?? 0,
    });
    const shop: ShopRecord = {
      id: this.core.ids.next('Shop'),
      domain,
      name: options.title ?? options.name.replace(/-/g, ' ').replace(/\b\w/g, (letter) => letter.toUpperCase()),
      email: `owner@${options.name}.example`,
      description: options.description === undefined ? `${options.name} sells good things.` : options.description,
      currency: options.currency ?? 'USD',
      billingCurrency: options.billingCurrency ?? 'USD',
      country: options.country ?? 'United States',
      countryCode: options.countryCode ?? 'US',
      primaryHost: options.primaryDomain === undefined ? `${options.name}.example` : (options.primaryDomain ?? domain),
      plan: options.plan ?? 'standard',
      testStore: options.testStore ?? null,
      createdAt: now,
      products: data.products,
      productsById: new Map(data.products.map((product) => [product.id, product])),
      customers: new Map(data.customers.map((customer) => [customer.id, customer])),
      orders: data.orders,
      ordersById: new Map(data.orders.map((order) => [order.id, order])),
      nextOrderNumber: 1001 + data.orders.length,
      discounts: new Map(),
      webhookSubscriptions: new Map(),
      subscriptions: [],
      bulkOperations: [],
      installation: {
        installed: false,
        scopes: [],
        tokens: new Set(),
        accessExpiries: new Map(),
        refreshTokens: new Map(),
        migrations: new Map(),
        tokenRequests: [],
      },
    };
    this.core.shops.set(domain, shop);
    this.core.staff.add(domain, { email: shop.email, firstName: 'Store', lastName: 'Owner', accountOwner: true });
    return shop;
  }

  /**
   * Makes a Shopify account staff of the store (its owner is made with the store: `owner@{name}.example`).
   * The same email at another store is the same account, which then chooses a store when it installs.
   * The password is `STAFF_PASSWORD` unless given.
   */
  addStaff(domain: string, staff: NewStaff): StaffAccount {
    this.shop(domain);
    return this.core.staff.add(domain, staff);
  }

  /** The store's owner, or the staff account with that email. */
  staffMember(domain: string, email?: string): StaffAccount {
    const account = email === undefined ? this.core.staff.owner(domain) : this.core.staff.account(email);
    if (!account?.stores.has(domain)) throw new Error(`${email} is not staff of ${domain}`);
    return account;
  }

  /**
   * A session token as the admin gives the app now, for the store and a staff member (the owner by
   * default), in a session of its own; `variant` makes one the app must refuse (expired, another
   * secret, another audience).
   */
  sessionToken(domain: string, options: { staff?: StaffAccount; sessionId?: string } & SessionTokenVariant = {}): string {
    const { staff = this.staffMember(domain), sessionId = `standin-session-${staff.id}`, ...variant } = options;
    return signSessionToken(this.app, { shopDomain: this.shop(domain).domain, userId: staff.id, sessionId, now: this.now() }, variant);
  }

  shop(domain: string): ShopRecord {
    const shop = this.core.shops.get(domain);
    if (!shop) throw new Error(`no shop ${domain} in the stand-in`);
    return shop;
  }

  /**
   * The address Shopify opens when the merchant opens the app (from the admin's Apps, or Install in
   * the App Store): the app's App URL with `shop`, `host` and `timestamp`, signed with `hmac` as the
   * OAuth callback is. Shopify does so whether or not the app is installed; the app must start OAuth
   * when it is not.
   */
  appLaunchUrl(domain: string, appUrl: string): string {
    const shop = this.shop(domain);
    const target = new URL(appUrl);
    target.searchParams.set('host', hostParameter(shop.domain));
    target.searchParams.set('shop', shop.domain);
    target.searchParams.set('timestamp', String(Math.floor(this.now().getTime() / 1000)));
    target.searchParams.set('hmac', signQuery(this.app.apiSecret, Object.fromEntries(target.searchParams)));
    return target.toString();
  }

  /**
   * Installs the app as a Shopify-managed installation does (the App Store's Install, then the admin's):
   * with the scopes of the app's configuration, no call to the app and no token; the app gets one by
   * token exchange when the admin opens it.
   */
  installManaged(domain: string): void {
    installManaged(this.core, this.shop(domain));
  }

  /** The admin's address of the app at a store (`https://admin.shopify.com/store/{name}/apps/{handle}`), a path of the app after it. */
  adminAppUrl(domain: string, appPath = ''): string {
    return `https://${ADMIN_HOST}/store/${this.shop(domain).domain.split('.')[0]}/apps/${this.app.handle}${appPath}`;
  }

  /** The app's App Store listing, `https://apps.shopify.com/{handle}`. */
  listingUrl(): string {
    return `https://${APP_STORE_HOST}/${this.app.handle}`;
  }

  /** Installs the app without the OAuth pages, for tests about something else; returns a non-expiring token. */
  installApp(domain: string, scopes: string[]): string {
    const shop = this.shop(domain);
    shop.installation.installed = true;
    shop.installation.scopes = [...scopes];
    const token = newAccessToken();
    shop.installation.tokens.add(token);
    return token;
  }

  /** Ends the life of the shop's expiring access tokens now (their refresh tokens still work), as time passing would. */
  expireAccessTokens(domain: string): void {
    const expiries = this.shop(domain).installation.accessExpiries;
    const now = this.now().getTime();
    for (const token of expiries.keys()) expiries.set(token, now);
  }

  /** Requests to the shop's token endpoint, by grant: refreshes and migrations a test counts. */
  tokenRequests(domain: string): TokenRequest[] {
    return [...this.shop(domain).installation.tokenRequests];
  }

  /**
   * A shopper opens a link to a shop's online store (its myshopify domain or its primary host):
   * the visit lands on that page, which Shopify records with the order as it was requested, query
   * included. A shareable discount link (`/discount/{code}?redirect={path}`) puts the code on the
   * cart and sends the shopper on to `redirect` (a path on the store only; anything else, the home
   * page); the landing page stays the discount link itself, as in a real order's
   * `"landing_site": "/discount/vip30?utm_source=…"`. Pass `landingSite` and `discountCode` to
   * `placeOrder` for the order that visit ends in.
   */
  visit(url: string): StorefrontVisit {
    const address = new URL(url);
    // A custom domain answers with and without `www.` (Shopify sends the other form on to the primary one).
    const bare = (host: string) => host.replace(/^www\./, '');
    const shop = [...this.core.shops.values()].find(
      (candidate) => candidate.domain === address.hostname || bare(candidate.primaryHost) === bare(address.hostname),
    );
    if (!shop) throw new Error(`no shop at ${address.hostname} in the stand-in`);
    const landingSite = `${address.pathname}${address.search}`;
    const discount = /^\/discount\/([^/]+)\/?$/.exec(address.pathname);
    if (!discount) return { domain: shop.domain, landingSite, location: landingSite };
    const redirect = address.searchParams.get('redirect') ?? '';
    const onStore = redirect.startsWith('/') && !redirect.startsWith('//');
    return { domain: shop.domain, landingSite, discountCode: decodeURIComponent(discount[1]!), location: onStore ? redirect : '/' };
  }

  async placeOrder(domain: string, input: PlaceOrderInput = {}): Promise<Order> {
    const shop = this.shop(domain);
    const now = this.now();
    const last = shop.orders.at(-1);
    if (last && last.createdAt > now) throw new Error('orders are placed in time order: the clock is behind the last order');
    const wanted = input.lineItems ?? [{ productId: shop.products.find((product) => product.status === 'ACTIVE')?.id ?? -1, quantity: 1 }];
    const lineItems = wanted.map(({ productId, quantity = 1 }) => {
      const product = shop.productsById.get(productId);
      if (product?.status !== 'ACTIVE') throw new Error(`product ${productId} cannot be bought at ${domain}`);
      return {
        id: this.core.ids.next('LineItem'),
        productId,
        variantId: product.variantId,
        title: product.title,
        quantity,
        unitPriceCents: product.priceCents,
        refundedQuantity: 0,
      };
    });
    let customer = input.customerId === undefined ? undefined : shop.customers.get(input.customerId);
    if (input.customerId !== undefined && !customer) throw new Error(`no customer ${input.customerId} at ${domain}`);
    if (!customer) {
      const id = this.core.ids.next('Customer');
      customer = { id, email: `buyer${id}@example.com`, createdAt: now, orderCount: 0 };
      shop.customers.set(id, customer);
    }
    const subtotalCents = lineItems.reduce((sum, item) => sum + item.unitPriceCents * item.quantity, 0);
    let discountCents = 0;
    let discountCode: string | null = null;
    if (input.discountCode !== undefined) {
      const wantedCode = input.discountCode.toLowerCase();
      const discount = [...shop.discounts.values()].find((candidate) => candidate.code.toLowerCase() === wantedCode);
      const active =
        discount &&
        discount.startsAt <= now &&
        (!discount.endsAt || discount.endsAt > now) &&
        (discount.usageLimit === null || discount.usageCount < discount.usageLimit);
      if (!discount || !active) throw new Error(`checkout refused: discount code ${input.discountCode} is not valid at ${domain}`);
      if (discount.appliesOncePerCustomer && discount.usedBy.has(customer.id))
        throw new Error(`checkout refused: customer ${customer.id} already used ${discount.code}`);
      discountCents = Math.round(subtotalCents * discount.percentage);
      discountCode = discount.code;
      discount.usageCount += 1;
      discount.usedBy.add(customer.id);
    }
    customer.orderCount += 1;
    const order: Order = {
      id: this.core.ids.next('Order'),
      number: shop.nextOrderNumber++,
      createdAt: now,
      customerId: customer.id,
      email: customer.email,
      lineItems,
      subtotalCents,
      discountCents,
      totalCents: subtotalCents - discountCents,
      discountCode,
      landingSite: input.landingSite ?? '/',
      ...(input.earlierLandingSite === undefined ? {} : { earlierLandingSite: input.earlierLandingSite }),
      referringSite: input.referringSite ?? null,
      noteAttributes: input.noteAttributes ?? [],
      customerOrderIndex: customer.orderCount,
      presentment: input.presentment ?? null,
      cancelledAt: null,
      cancelReason: null,
      refunds: [],
    };
    shop.orders.push(order);
    shop.ordersById.set(order.id, order);
    await this.core.webhooks.trigger(shop, 'orders/create', orderPayload(shop, order, 'orders/create'));
    await this.core.webhooks.trigger(shop, 'orders/paid', orderPayload(shop, order, 'orders/paid'));
    return order;
  }

  private order(domain: string, orderId: number): { shop: ShopRecord; order: Order } {
    const shop = this.shop(domain);
    const order = shop.ordersById.get(orderId);
    if (!order) throw new Error(`no order ${orderId} at ${domain}`);
    return { shop, order };
  }

  /** A refund of whole items, of an amount, or of everything left; sends refunds/create. */
  async refundOrder(domain: string, orderId: number, input: RefundInput = {}): Promise<Refund> {
    const { shop, order } = this.order(domain, orderId);
    const remaining = order.totalCents - refundedCents(order);
    const share = order.subtotalCents === 0 ? 0 : order.discountCents / order.subtotalCents;
    const wholeOrder = !input.lineItems && input.amountCents === undefined;
    const lines = (
      input.lineItems ??
      (wholeOrder ? order.lineItems.map((item) => ({ lineItemId: item.id, quantity: item.quantity - item.refundedQuantity })) : [])
    )
      .filter((line) => line.quantity > 0)
      .map((line) => {
        const item = order.lineItems.find((candidate) => candidate.id === line.lineItemId);
        if (!item || line.quantity > item.quantity - item.refundedQuantity)
          throw new Error(`cannot refund ${line.quantity} of line item ${line.lineItemId}`);
        return { item, quantity: line.quantity, subtotalCents: Math.round(item.unitPriceCents * line.quantity * (1 - share)) };
      });
    const amountCents = wholeOrder ? remaining : (input.amountCents ?? lines.reduce((sum, line) => sum + line.subtotalCents, 0));
    if (amountCents <= 0 || amountCents > remaining)
      throw new Error(`cannot refund ${amountCents} cents of order ${orderId}: ${remaining} left`);
    for (const line of lines) line.item.refundedQuantity += line.quantity;
    const refund: Refund = {
      id: this.core.ids.next('Refund'),
      createdAt: this.now(),
      note: input.note ?? null,
      amountCents,
      lineItems: lines.map((line) => ({
        id: this.core.ids.next('RefundLineItem'),
        lineItemId: line.item.id,
        quantity: line.quantity,
        subtotalCents: line.subtotalCents,
      })),
    };
    order.refunds.push(refund);
    await this.core.webhooks.trigger(shop, 'refunds/create', refundPayload(shop, order, refund));
    return refund;
  }

  /** Cancels an order (refunding what is left unless told not to); sends refunds/create, then orders/cancelled. */
  async cancelOrder(domain: string, orderId: number, options: { reason?: string; refund?: boolean } = {}): Promise<Order> {
    const { shop, order } = this.order(domain, orderId);
    if (order.cancelledAt) throw new Error(`order ${orderId} is cancelled already`);
    if ((options.refund ?? true) && refundedCents(order) < order.totalCents) await this.refundOrder(domain, orderId);
    order.cancelledAt = this.now();
    order.cancelReason = options.reason ?? 'customer';
    await this.core.webhooks.trigger(shop, 'orders/cancelled', orderPayload(shop, order, 'orders/cancelled'));
    return order;
  }

  /**
   * The shop's staff uninstalls the app: its tokens stop working, its subscriptions are cancelled,
   * app/uninstalled goes out, and the webhook subscriptions it made through the API are gone.
   */
  uninstall(domain: string): Promise<WebhookDelivery[]> {
    return uninstallApp(this.core, this.shop(domain));
  }

  /**
   * Revokes one access token, or (none named) every token of the app at the shop, refresh tokens
   * included, while the app stays installed: the Admin API answers 401 and a refresh invalid_grant.
   */
  revokeToken(domain: string, token?: string): void {
    const installation = this.shop(domain).installation;
    if (token) {
      installation.tokens.delete(token);
      return;
    }
    installation.tokens.clear();
    installation.refreshTokens.clear();
  }

  redeliverWebhook(webhookId: string): Promise<WebhookDelivery> {
    const delivery = this.core.webhooks.deliveries().find((candidate) => candidate.webhookId === webhookId);
    if (!delivery) throw new Error(`no webhook delivery ${webhookId}`);
    return this.core.webhooks.redeliver(this.shop(delivery.shop), webhookId);
  }

  /** Shopify's retries that are due by the stand-in's clock (move it to see them): each failed delivery due is tried again. */
  retryDueWebhooks(): Promise<WebhookDelivery[]> {
    return this.core.webhooks.retryDue(this.core.shops);
  }

  webhookDeliveries(filter: { shop?: string; topic?: string } = {}): WebhookDelivery[] {
    return this.core.webhooks.deliveries(filter);
  }

  /** Shopify's compliance request on a shopper's behalf: customers/data_request. */
  async requestCustomerData(domain: string, customerId: number): Promise<WebhookDelivery[]> {
    const shop = this.shop(domain);
    const customer = shop.customers.get(customerId);
    if (!customer) throw new Error(`no customer ${customerId} at ${domain}`);
    const orderIds = shop.orders.filter((order) => order.customerId === customerId).map((order) => order.id);
    return this.core.webhooks.trigger(
      shop,
      'customers/data_request',
      customersDataRequestPayload(shop, customer, orderIds, this.core.ids.next('DataRequest')),
    );
  }

  async redactCustomer(domain: string, customerId: number): Promise<WebhookDelivery[]> {
    const shop = this.shop(domain);
    const customer = shop.customers.get(customerId);
    if (!customer) throw new Error(`no customer ${customerId} at ${domain}`);
    const orderIds = shop.orders.filter((order) => order.customerId === customerId).map((order) => order.id);
    return this.core.webhooks.trigger(shop, 'customers/redact', customersRedactPayload(shop, customer, orderIds));
  }

  /** shop/redact, which Shopify sends 48 hours after an uninstall; only an uninstalled shop gets it. */
  async redactShop(domain: string): Promise<WebhookDelivery[]> {
    const shop = this.shop(domain);
    if (shop.installation.installed) throw new Error(`shop/redact comes only after the app was uninstalled from ${domain}`);
    return this.core.webhooks.trigger(shop, 'shop/redact', shopRedactPayload(shop));
  }

  /** Admin API calls, points spent (actual cost) and throttled calls for the shop, and its bucket now. */
  apiUsage(domain: string): UsageStats & { throttleStatus: ThrottleStatus } {
    const shop = this.shop(domain);
    return { ...this.core.usage(shop), throttleStatus: this.core.bucketFor(shop).status() };
  }

  /** Usage charges recorded on the shop's subscriptions, in cents. */
  /** The merchant approves the raise of the capped amount the app asked for (appSubscriptionLineItemUpdate). Returns the new cap. */
  approveCappedAmount(domain: string): Promise<number> {
    return approveCappedAmount(this.core, this.shop(domain));
  }

  usageCharged(domain: string): number {
    return this.shop(domain).subscriptions.reduce((sum, subscription) => sum + usageBalance(subscription), 0);
  }
}
