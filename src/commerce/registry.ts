import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Publisher } from '../service-context.js';
import { ApiError } from '../http/errors.js';
import type { CommerceAdapter, CommerceEvent, DiscountCodeRequest, OwnershipRequest, PlatformLink } from './adapter.js';
import { SandboxCommerce, slowStoreFailures } from './sandbox/adapter.js';
import { isShopDomain, ShopifyCommerce } from './shopify/adapter.js';

/** The commerce platforms a host talks to, by platform: each store lives on one of them. */
export class CommerceRegistry {
  private readonly adapters: ReadonlyMap<string, CommerceAdapter>;
  private readonly perStore: CommerceAdapter | null;

  constructor(entries: ReadonlyArray<readonly [platform: string, adapter: CommerceAdapter | null]>) {
    this.adapters = new Map(entries.filter((entry): entry is readonly [string, CommerceAdapter] => entry[1] !== null));
    this.perStore = this.adapters.size === 0 ? null : new PerStoreCommerce(this);
  }

  /** The adapter of one platform, by the key it was registered under (`sandbox`). */
  get(platform: string): CommerceAdapter | undefined {
    return this.adapters.get(platform);
  }

  /**
   * The commerce platforms as one adapter for the plugin, the setup job, a sign-up's claim and the
   * dashboard's discount code: each store goes to the platform it is on (forStore); null on a
   * host with none.
   */
  get primary(): CommerceAdapter | null {
    return this.perStore;
  }

  /**
   * The platform of one store: a `*.myshopify.com` domain is Shopify's when Shopify is configured;
   * any other store is on the first platform registered (the sandbox on test and dev hosts).
   */
  forStore(domain: string): CommerceAdapter {
    const shopify = this.shopify;
    if (shopify && isShopDomain(domain)) return shopify;
    return this.adapters.values().next().value!;
  }

  /** Shopify, when SHOPIFY_API_KEY, SHOPIFY_API_SECRET and TOKEN_ENCRYPTION_KEY are set: its routes need more than the interface. */
  get shopify(): ShopifyCommerce | undefined {
    const shopify = this.adapters.get(SHOPIFY);
    return shopify instanceof ShopifyCommerce ? shopify : undefined;
  }

  /** The sandbox, on test and dev hosts: its pages and support's owner command need more than the adapter interface. */
  get sandbox(): SandboxCommerce | undefined {
    const sandbox = this.adapters.get(SANDBOX);
    return sandbox instanceof SandboxCommerce ? sandbox : undefined;
  }

  all(): CommerceAdapter[] {
    return [...this.adapters.values()];
  }
}

const SANDBOX = 'sandbox';
const SHOPIFY = 'shopify';

/** Every call goes to the adapter of the store it names; events come from all of them. */
class PerStoreCommerce implements CommerceAdapter {
  constructor(private readonly registry: CommerceRegistry) {}

  private of(domain: string): CommerceAdapter {
    return this.registry.forStore(domain);
  }

  platformNameOf(domain: string) {
    return this.of(domain).platformNameOf(domain);
  }
  ownershipSteps(domain: string) {
    return this.of(domain).ownershipSteps(domain);
  }
  status(domain: string) {
    return this.of(domain).status(domain);
  }
  installUrl(domain: string, link: PlatformLink) {
    return this.of(domain).installUrl(domain, link);
  }
  planApprovalUrl(domain: string, link: PlatformLink) {
    return this.of(domain).planApprovalUrl(domain, link);
  }
  merchantConfirmationUrl(domain: string, state: string, platformId?: string) {
    return this.of(domain).merchantConfirmationUrl(domain, state, platformId);
  }
  profile(domain: string) {
    return this.of(domain).profile(domain);
  }
  catalog(domain: string) {
    return this.of(domain).catalog(domain);
  }
  eligibility(domain: string) {
    return this.of(domain).eligibility(domain);
  }
  bestSellers(domain: string, limit: number) {
    return this.of(domain).bestSellers(domain, limit);
  }
  ordersCount(domain: string) {
    return this.of(domain).ordersCount(domain);
  }
  createDiscountCode(domain: string, request: DiscountCodeRequest) {
    return this.of(domain).createDiscountCode(domain, request);
  }
  saveDiscountCode(domain: string, request: DiscountCodeRequest, replaces: string | null) {
    return this.of(domain).saveDiscountCode(domain, request, replaces);
  }
  removeDiscountCode(domain: string, code: string) {
    return this.of(domain).removeDiscountCode(domain, code);
  }
  requestOwnershipConfirmation(domain: string, request: OwnershipRequest) {
    return this.of(domain).requestOwnershipConfirmation(domain, request);
  }
  ownershipAnswer(domain: string, claimId: string) {
    return this.of(domain).ownershipAnswer(domain, claimId);
  }
  subscribeToOrders(domain: string) {
    return this.of(domain).subscribeToOrders(domain);
  }
  pastOrders(domain: string, before: Date) {
    return this.of(domain).pastOrders(domain, before);
  }
  uninstall(domain: string) {
    return this.of(domain).uninstall(domain);
  }
  pendingBillingApproval(domain: string) {
    return this.of(domain).pendingBillingApproval(domain);
  }
  onEvent(listener: (event: CommerceEvent) => Promise<void>): void {
    for (const adapter of this.registry.all()) adapter.onEvent(listener);
  }
}

/**
 * The commerce platforms this host has, one entry per platform (null where the host has none of
 * it); a real platform's adapter is one more entry. The sandbox stands in for commerce platforms
 * on test and dev hosts only; a prod host has none until a real platform's adapter is
 * configured, and then store ownership comes from that platform alone (docs/security.md).
 */
/** A process that caches nothing a commerce platform changes (the CLI) announces to nobody. */
const NOBODY: Publisher = { publish: async () => {} };

export function commercePlatformsFor(
  config: Config,
  db: Db,
  log: FastifyBaseLogger = pino({ level: 'silent' }),
  bus: Publisher = NOBODY,
): CommerceRegistry {
  return new CommerceRegistry([
    [
      SANDBOX,
      config.serviceEnv === 'prod'
        ? null
        : new SandboxCommerce(
            db,
            config.baseUrl,
            config.plugin.sandboxImportMs,
            config.orders.webhookSecret,
            slowStoreFailures(config.plugin.setupDelayedAfterSeconds * 1000, config.plugin.setupRetryMs),
          ),
    ],
    [
      SHOPIFY,
      config.shopify
        ? new ShopifyCommerce({
            db,
            bus,
            config: config.shopify,
            baseUrl: config.baseUrl,
            serviceEnv: config.serviceEnv,
            log,
            commissionBasisPoints: config.orders.commissionBasisPoints,
          })
        : null,
    ],
  ]);
}

/** 409 for an action that needs the store's commerce platform on a host that has none. */
export function noCommercePlatform(what: string): ApiError {
  return new ApiError(409, 'no_commerce_platform', `no store platform is connected on this host, so ${what}`);
}
