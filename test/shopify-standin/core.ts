import type { IdAllocator, ShopRecord } from './model.js';
import type { StaffDirectory } from './staff.js';
import type { LeakyBucket } from './throttle.js';
import type { TokenIssuer } from './tokens.js';
import type { WebhookDispatcher } from './webhooks.js';

/** The app as registered in the Partner dashboard (or its shopify.app.toml). */
export interface AppRegistration {
  apiKey: string;
  apiSecret: string;
  /** Numeric app id, part of charge confirmation URLs. */
  id: number;
  title: string;
  handle: string;
  /** Allowed redirection URL(s): an authorize request with another redirect_uri is refused. */
  redirectUrls: string[];
  /**
   * Webhook subscriptions declared in the app's configuration, for every shop that installs it:
   * the only way to get the compliance topics (customers/data_request, customers/redact,
   * shop/redact), which the Admin API cannot subscribe to.
   */
  webhooks: Array<{ topic: string; uri: string }>;
  /**
   * The access scopes of its configuration (`[access_scopes] scopes`): what a Shopify-managed
   * install grants, with no call to the app.
   */
  scopes: string[];
  /** The App URL (`application_url`): what the admin frames, launched with Shopify's signed parameters. */
  applicationUrl: string;
}

export interface UsageStats {
  adminApiCalls: number;
  pointsSpent: number;
  throttledCalls: number;
}

export interface StandInCore {
  app: AppRegistration;
  ids: IdAllocator;
  now(): Date;
  shops: Map<string, ShopRecord>;
  bucketFor(shop: ShopRecord): LeakyBucket;
  usage(shop: ShopRecord): UsageStats;
  webhooks: WebhookDispatcher;
  tokens: TokenIssuer;
  /** Shopify accounts of the stores' staff, and their sign-in sessions. */
  staff: StaffDirectory;
  /** How fast a bulk operation runs; null: done by the second poll, however large. */
  bulkObjectsPerSecond: number | null;
  /** Bulk operation results live on a host of their own, as Shopify's do (a storage bucket). */
  bulkResultUrl(shop: ShopRecord, operationId: number): string;
}

/** What every resolver sees: the shop the access token is for, and whether a bulk operation runs. */
export interface ResolverContext {
  core: StandInCore;
  shop: ShopRecord;
  scopes: ReadonlySet<string>;
  bulk: boolean;
}

export const BULK_RESULTS_HOST = 'bulk-operations.shopify-standin.invalid';

export function hasScope(scopes: ReadonlySet<string>, scope: string): boolean {
  // write_X implies read_X, as Shopify's scopes do.
  return scopes.has(scope) || (scope.startsWith('read_') && scopes.has(`write_${scope.slice('read_'.length)}`));
}
