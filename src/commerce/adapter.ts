/**
 * The service's view of a store's commerce platform. The plugin and the setup job only talk to
 * this interface; the sandbox (built into the service) is one implementation, and a real
 * platform's API client would be another.
 */
export type AppInstallation = 'not_installed' | 'installed' | 'uninstalled';

export interface StoreStatus {
  installation: AppInstallation;
  planApproved: boolean;
}

export interface StoreProfile {
  domain: string;
  businessName: string;
  tagline: string | null;
  logoImageUrl: string | null;
  categories: string[];
  country: string | null;
  productCount: number;
  /** A percentage the store already gives new customers, when it has one (SPEC 6.2 consent). */
  welcomeDiscountPercent: number | null;
  platformName: string;
}

export interface CatalogProduct {
  id: string;
  title: string;
  imageUrl: string | null;
  priceCents: number;
  active: boolean;
}

export interface BestSeller extends CatalogProduct {
  unitsSold: number;
}

export interface DiscountCodeRequest {
  code: string;
  percent: number;
  oncePerCustomer: boolean;
}

export type CommerceEvent = { type: 'app_installed' | 'plan_approved' | 'app_uninstalled'; domain: string };

export interface CommerceAdapter {
  readonly platformName: string;
  status(domain: string): Promise<StoreStatus>;
  /** Where the merchant installs the app; `returnTo` is a path of this service to come back to. */
  installUrl(domain: string, returnTo: string | null): string;
  /** Where the merchant approves the plan (no monthly fees). */
  planApprovalUrl(domain: string, returnTo: string | null): string;
  profile(domain: string): Promise<StoreProfile>;
  catalog(domain: string): Promise<CatalogProduct[]>;
  bestSellers(domain: string, limit: number): Promise<BestSeller[]>;
  ordersCount(domain: string): Promise<number>;
  /** Idempotent on the code: asking twice for the same code creates one. */
  createDiscountCode(domain: string, request: DiscountCodeRequest): Promise<void>;
  uninstall(domain: string): Promise<void>;
  /** Webhooks, in the sandbox's case delivered in-process. */
  onEvent(listener: (event: CommerceEvent) => Promise<void>): void;
}
