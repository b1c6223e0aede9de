/**
 * The service's view of a store's commerce platform. The plugin and the setup job only talk to
 * this interface; the sandbox (built into the service, test and dev hosts only) is one
 * implementation, and a real platform's API client would be another.
 */
export type AppInstallation = 'not_installed' | 'installed' | 'uninstalled';

export interface StoreStatus {
  installation: AppInstallation;
  planApproved: boolean;
  /** The store's staff are asked to approve something at the platform (pendingBillingApproval says what); absent: nothing. */
  billingApprovalWaits?: boolean;
}

import type { StoreProfile } from '../companies/store-profile.js';

export type { StoreProfile };

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

/**
 * What eligibility (SPEC 6.3) looks at. `activeProductsWithImages` is at least the number given:
 * a platform may stop counting once it has found some, since the rule needs one.
 */
export interface StoreEligibility {
  orders: number;
  activeProductsWithImages: number;
}

export interface DiscountCodeRequest {
  code: string;
  percent: number;
  oncePerCustomer: boolean;
}

export type CommerceEvent =
  | { type: 'app_installed' | 'plan_approved' | 'app_uninstalled' | 'campaign_closed'; domain: string }
  /**
   * The store's owner, signed in at the platform, finished an action the plugin's link started
   * (install, plan approval, or a confirmation of its own) that carried `state`: the hash of the
   * embed app's secret. The service then lets that app act for the store (docs/plugin.md).
   */
  | { type: 'merchant_confirmed'; domain: string; state: string };

/** What the service passes along on a link to the platform; either may be null. */
export interface PlatformLink {
  /** A path of this service where the merchant comes back to (the return flow of SPEC 4.7). */
  returnTo: string | null;
  /** Handed back in a `merchant_confirmed` event once the store's owner finished the action. */
  state: string | null;
  /** The tech platform whose plugin made the link: a platform that asks its owner names it. */
  platformId?: string | undefined;
}

/** A sign-up that says it acts for the store, which the store's owner confirms at the platform. */
export interface OwnershipRequest {
  /** The service's claim id; the platform hands it back with the owner's answer. */
  claimId: string;
  /** Shown to the owner: who asks to act for the store. */
  requestedBy: string;
  /** A path of this service where the owner continues after answering. */
  returnTo: string;
}

export type OwnershipAnswer = 'pending' | 'confirmed' | 'declined';

/** An order the store took before the service subscribed to its orders. */
export interface PastOrder {
  orderId: string;
  /** The store's customer id; the service keeps only its hash. */
  customerId: string;
  totalCents: number;
  placedAt: Date;
}

/** Something the store's staff must approve at the platform for its billing to go on (Shopify: a higher capped amount). */
export interface BillingApproval {
  /** The platform's page where the store's staff approve it (they sign in there). */
  confirmationUrl: string;
  /** The cap asked for, in minor units of `currency`. */
  cappedMinor: number;
  currency: string;
  requestedAt: Date;
  /** The commissions held over the cap until it is approved, per currency (minor units); empty while none is held yet. */
  held: Array<{ amountMinor: number; currency: string }>;
}

export interface CommerceAdapter {
  /** The name of the platform the store is on, as its owner knows it ("Shopify"). */
  platformNameOf(domain: string): string;
  /** What a claimant of the store does to have its owner confirm, in words for the claimant's dashboard. */
  ownershipSteps(domain: string): string;
  status(domain: string): Promise<StoreStatus>;
  /** Where the merchant installs the app. */
  installUrl(domain: string, link: PlatformLink): string;
  /** Where the merchant approves the plan (no monthly fees). */
  planApprovalUrl(domain: string, link: PlatformLink): string;
  /**
   * Where the store's owner, signed in at the platform, confirms that the plugin session that
   * made `state` acts for the store; the platform answers with a `merchant_confirmed` event.
   */
  merchantConfirmationUrl(domain: string, state: string, platformId?: string): string;
  profile(domain: string): Promise<StoreProfile>;
  catalog(domain: string): Promise<CatalogProduct[]>;
  /** Read at every plugin load until the merchant consents, so a platform answers it cheaply. */
  eligibility(domain: string): Promise<StoreEligibility>;
  bestSellers(domain: string, limit: number): Promise<BestSeller[]>;
  ordersCount(domain: string): Promise<number>;
  /** Idempotent on the code: asking twice for the same code creates one. */
  createDiscountCode(domain: string, request: DiscountCodeRequest): Promise<void>;
  /**
   * Makes `request` the store's one code from the service (DESIGN 4): the code it replaces, when
   * given, is changed into it (renamed, new percent); otherwise it is created. Idempotent.
   */
  saveDiscountCode(domain: string, request: DiscountCodeRequest, replaces: string | null): Promise<void>;
  /** Removes the service's code from the store (the brand stopped offering a discount). */
  removeDiscountCode(domain: string, code: string): Promise<void>;
  /**
   * Proof of ownership: asks the store's owner, signed in at the platform, to confirm that the
   * requester acts for the store; returns the address where the owner answers. Idempotent on the
   * claim id. A real platform does this with its OAuth or app-install consent.
   */
  requestOwnershipConfirmation(domain: string, request: OwnershipRequest): Promise<string>;
  /** The owner's answer to a request made with requestOwnershipConfirmation. */
  ownershipAnswer(domain: string, claimId: string): Promise<OwnershipAnswer>;
  /**
   * Order delivery: from now on the platform posts every order placed at the store to the
   * service's signed order webhook (POST /webhooks/commerce/orders). Idempotent.
   */
  subscribeToOrders(domain: string): Promise<void>;
  /**
   * The store's order history before `before`, oldest first: which customers the store already
   * has, so a returning customer's order is not taken for a new customer's first one.
   */
  pastOrders(domain: string, before: Date): Promise<PastOrder[]>;
  uninstall(domain: string): Promise<void>;
  /** What the store's staff must approve at the platform for held commissions to be charged; null when nothing waits. */
  pendingBillingApproval(domain: string): Promise<BillingApproval | null>;
  /** Webhooks, in the sandbox's case delivered in-process. */
  onEvent(listener: (event: CommerceEvent) => Promise<void>): void;
}
