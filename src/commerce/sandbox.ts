import type { Db } from '../db/database.js';
import type {
  BestSeller,
  CatalogProduct,
  CommerceAdapter,
  CommerceEvent,
  DiscountCodeRequest,
  StoreProfile,
  StoreStatus,
} from './adapter.js';
import * as dal from './dal.js';
import { generateStore } from './sandbox-generator.js';

export const SANDBOX_PLATFORM_NAME = 'Sandbox Commerce';

/** A transient failure of the commerce platform; the setup job retries it. */
export class CommerceUnavailableError extends Error {
  override name = 'CommerceUnavailableError';
}

/**
 * The commerce platform built into the service, so onboarding can be walked end to end with no
 * outside account. Every domain is a store: it is generated the first time it is asked about.
 */
export class SandboxCommerce implements CommerceAdapter {
  readonly platformName = SANDBOX_PLATFORM_NAME;
  private readonly listeners: Array<(event: CommerceEvent) => Promise<void>> = [];

  constructor(
    private readonly db: Db,
    /** Absolute base of the service, for the image addresses the catalog hands out. */
    private readonly baseUrl: string,
    /** Simulated time to hand over a store's data on import. */
    private readonly importMs = 0,
  ) {}

  onEvent(listener: (event: CommerceEvent) => Promise<void>): void {
    this.listeners.push(listener);
  }

  async store(domain: string): Promise<dal.SandboxStoreRow> {
    const existing = await dal.findStore(this.db, domain);
    if (existing) return existing;
    const base = `${this.baseUrl}/sandbox/images/${encodeURIComponent(domain)}`;
    await dal.insertStoreIfAbsent(this.db, domain, generateStore(domain, new Date()), `${base}/logo.svg`, (id) => `${base}/${id}.svg`);
    return (await dal.findStore(this.db, domain))!;
  }

  async status(domain: string): Promise<StoreStatus> {
    const store = await this.store(domain);
    return { installation: store.appStatus, planApproved: store.planApprovedAt !== null };
  }

  installUrl(domain: string, returnTo: string | null): string {
    return this.pageUrl(domain, 'install', returnTo);
  }

  planApprovalUrl(domain: string, returnTo: string | null): string {
    return this.pageUrl(domain, 'plan', returnTo);
  }

  private pageUrl(domain: string, page: string, returnTo: string | null): string {
    const query = returnTo ? `?return=${encodeURIComponent(returnTo)}` : '';
    return `/sandbox/stores/${encodeURIComponent(domain)}/${page}${query}`;
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

  async install(domain: string): Promise<void> {
    await this.store(domain);
    await dal.setAppStatus(this.db, domain, 'installed');
    await this.emit({ type: 'app_installed', domain });
  }

  async approvePlan(domain: string): Promise<boolean> {
    const approved = await dal.approvePlan(this.db, domain, new Date());
    if (approved) await this.emit({ type: 'plan_approved', domain });
    return approved;
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
