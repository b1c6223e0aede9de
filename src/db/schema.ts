import type { ColumnType, Generated } from 'kysely';

type CreatedAt = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null, Date | string | null>;

export interface PlatformsTable {
  id: string;
  name: string;
  active: Generated<boolean>;
  offer_types: ColumnType<string[], string[] | undefined, string[]>;
  approved_origins: ColumnType<string[], string[] | undefined, string[]>;
  plugin_page_url: string | null;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface PlatformKeysTable {
  id: Generated<string>;
  platform_id: string;
  key_hash: string;
  key_last_four: string;
  environment: 'test' | 'live';
  expires_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
  created_at: CreatedAt;
  last_used_at: NullableTimestamp;
}

export interface PlatformBrandsTable {
  platform_id: string;
  domain: string;
  business_name: string | null;
  status: 'active' | 'closed';
  end_date: NullableTimestamp;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface CompaniesTable {
  id: string;
  domain: string | null;
  business_name: string | null;
  logo_image_url: string | null;
  description: string | null;
  business_size: string | null;
  country: string | null;
  categories: ColumnType<string[], string[] | undefined, string[]>;
  product_count: number | null;
  commerce_platform: string | null;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface BrandApiKeysTable {
  id: Generated<string>;
  company_id: string;
  name: string;
  key_hash: string;
  key_last_four: string;
  environment: 'test' | 'live';
  created_at: CreatedAt;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
  /** Added by migration 0043: who issued the key; null for keys issued before it. */
  issued_by: ColumnType<'staff' | 'support' | 'fixture' | null, 'staff' | 'support' | 'fixture' | null | undefined, never>;
  /** Added by migration 0043: the staff account that issued the key in the dashboard; null when support did, or it was removed. */
  created_by_user_id: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface PlatformCompaniesTable {
  platform_id: string;
  company_id: string;
  first_seen_at: CreatedAt;
  last_seen_at: CreatedAt;
}

export type PartnershipStatus = 'pending' | 'active' | 'declined' | 'removed';

export interface PartnershipsTable {
  id: Generated<string>;
  requester_id: string;
  recipient_id: string;
  status: PartnershipStatus;
  message: string | null;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

/** `scheduled` is stored only: it is reported as draft until its start date, then as active. */
export type StoredCampaignStatus = 'draft' | 'scheduled' | 'active' | 'closed';

export interface CampaignsTable {
  id: string;
  partnership_id: string | null;
  owner_id: string;
  partner_id: string;
  name: string | null;
  status: StoredCampaignStatus;
  start_date: NullableTimestamp;
  end_date: NullableTimestamp;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface OffersTable {
  company_id: string;
  title: string;
  subtitle: string | null;
  image_url: string;
  discount_percent: number | null;
  discount_code: string | null;
  live: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: CreatedAt;
  /** Added by migration 0026: what store setup proposed ({ title, subtitle, imageUrl }); null when setup never ran. */
  setup_proposal: ColumnType<unknown, string | null | undefined, string | null>;
  /** Added by migration 0041: the store (its domain at its commerce platform) whose leaving hid this offer; null otherwise. */
  left_with_store: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface OAuthClientsTable {
  client_id: string;
  name: string;
  secret_hash: string | null;
  redirect_uris: string[];
  created_at: CreatedAt;
  /** Added by migration 0005: the brand a confidential client's client_credentials tokens act for. */
  company_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Added by migration 0017: the brand that registered the app on its dashboard; null for support's clients. */
  owner_company_id: ColumnType<string | null, string | null | undefined, string | null>;
}

/** Tables of migration 0001. Each later domain declares its own tables and Database extends them. */
export interface FoundationTables {
  platforms: PlatformsTable;
  platform_keys: PlatformKeysTable;
  platform_brands: PlatformBrandsTable;
  companies: CompaniesTable;
  brand_api_keys: BrandApiKeysTable;
  platform_companies: PlatformCompaniesTable;
  partnerships: PartnershipsTable;
  campaigns: CampaignsTable;
  offers: OffersTable;
  oauth_clients: OAuthClientsTable;
}

export interface RecommendationScoresTable {
  company_id: string;
  candidate_id: string;
  match_rate: number;
  scored_at: CreatedAt;
}

export interface ScoringQueueTable {
  company_id: string;
  queued_at: CreatedAt;
}

/** Tables of migration 0002. */
export interface RecommendationTables {
  recommendation_scores: RecommendationScoresTable;
  scoring_queue: ScoringQueueTable;
}

export interface ReferralLinksTable {
  token: string;
  platform_id: string;
  campaign_id: string;
  brand_id: string;
  partner_id: string;
  created_at: CreatedAt;
}

type Counter = ColumnType<number, number | undefined, number>;

/** Views and clicks credited to a platform, per campaign, showing brand, partner and UTC day. */
export interface AttributionCountersTable {
  platform_id: string;
  day: ColumnType<Date, string, string>;
  campaign_id: string;
  brand_id: string;
  partner_id: string;
  shard: ColumnType<number, number | undefined, number>;
  views: Counter;
  clicks: Counter;
}

/** A group-commit writer's last batch written or fenced off (migration 0013). */
export interface AttributionWritersTable {
  writer_id: string;
  last_batch: ColumnType<number, number, number>;
  written_at: CreatedAt;
}

/** Tables of migrations 0003 and 0013. */
export interface AttributionTables {
  referral_links: ReferralLinksTable;
  attribution_counters: AttributionCountersTable;
  attribution_writers: AttributionWritersTable;
}

export interface BrandUsersTable {
  id: Generated<string>;
  /** Null while the account's claim of a store waits for the store owner's confirmation (migration 0008). */
  company_id: string | null;
  email: string;
  display_name: string | null;
  password_hash: string;
  created_at: CreatedAt;
  last_sign_in_at: NullableTimestamp;
}

export interface UserSessionsTable {
  id: Generated<string>;
  user_id: string;
  token_hash: string;
  created_at: CreatedAt;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  revoked_at: NullableTimestamp;
}

export interface SignInFailuresTable {
  id: Generated<number>;
  email: string;
  ip: string;
  failed_at: CreatedAt;
  /** Added by migration 0043: the trusted device (a valid device cookie's nonce) the attempt came from; null otherwise. */
  device: ColumnType<string | null, string | null | undefined, never>;
}

export interface OAuthGrantsTable {
  id: Generated<string>;
  client_id: string;
  company_id: string;
  user_id: string | null;
  platform_id: string | null;
  scope: string[];
  created_at: CreatedAt;
  revoked_at: NullableTimestamp;
  revoked_reason: string | null;
}

export interface OAuthAuthorizationCodesTable {
  code_hash: string;
  grant_id: string;
  redirect_uri: string;
  code_challenge: string;
  code_challenge_method: 'S256';
  expires_at: ColumnType<Date, Date | string, Date | string>;
  used_at: NullableTimestamp;
  created_at: CreatedAt;
}

export interface OAuthAccessTokensTable {
  id: Generated<string>;
  token_hash: string;
  grant_id: string;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  revoked_at: NullableTimestamp;
  created_at: CreatedAt;
}

export interface OAuthRefreshTokensTable {
  id: Generated<string>;
  token_hash: string;
  grant_id: string;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  rotated_at: NullableTimestamp;
  successor_sealed: string | null;
  created_at: CreatedAt;
}

/** Tables of migration 0005: brand staff accounts and the OAuth server. */
export interface AccountsOAuthTables {
  brand_users: BrandUsersTable;
  user_sessions: UserSessionsTable;
  sign_in_failures: SignInFailuresTable;
  oauth_grants: OAuthGrantsTable;
  oauth_authorization_codes: OAuthAuthorizationCodesTable;
  oauth_access_tokens: OAuthAccessTokensTable;
  oauth_refresh_tokens: OAuthRefreshTokensTable;
}

export interface SandboxStoresTable {
  /** Set when the service subscribed to the store's orders (migration 0008). */
  orders_webhook_since: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  domain: string;
  business_name: string;
  tagline: string | null;
  logo_image_url: string | null;
  category: string | null;
  country: string | null;
  app_status: Generated<'not_installed' | 'installed' | 'uninstalled'>;
  plan_approved_at: NullableTimestamp;
  welcome_discount_percent: number | null;
  import_failures_left: Generated<number>;
  created_at: CreatedAt;
}

export interface SandboxProductsTable {
  store_domain: string;
  id: string;
  title: string;
  image_url: string | null;
  price_cents: number;
  status: 'active' | 'draft';
}

export interface SandboxOrdersTable {
  store_domain: string;
  id: string;
  product_id: string;
  quantity: number;
  total_cents: number;
  placed_at: ColumnType<Date, Date | string, Date | string>;
  customer_email: ColumnType<string | null, string | null | undefined, string | null>;
  discount_code: ColumnType<string | null, string | null | undefined, string | null>;
  referral_token: ColumnType<string | null, string | null | undefined, string | null>;
  /** HTTP status of the delivery to the service's order webhook; null when not delivered. */
  webhook_status: ColumnType<number | null, number | null | undefined, number | null>;
  refunded_cents: ColumnType<number, number | undefined, number>;
  cancelled_at: NullableTimestamp;
}

export interface SandboxDiscountCodesTable {
  store_domain: string;
  code: string;
  percent: number;
  once_per_customer: boolean;
  created_at: CreatedAt;
}

export interface SetupJobsTable {
  domain: string;
  /** 'parked' (migration 0018): the store left mid-setup; its setup waits for it to come back. */
  status: Generated<'pending' | 'done' | 'parked'>;
  step: Generated<'import' | 'offer' | 'match' | 'done'>;
  attempts: Generated<number>;
  started_at: CreatedAt;
  next_attempt_at: CreatedAt;
  locked_until: NullableTimestamp;
  /** Set by each claim; only the worker holding this lease may write the job's progress. */
  lease_id: string | null;
  last_error: string | null;
  completed_at: NullableTimestamp;
}

export interface MerchantStoresTable {
  domain: string;
  company_id: string | null;
  best_sellers: ColumnType<unknown, string | undefined, string>;
  existing_discount_percent: number | null;
  consented_at: NullableTimestamp;
  discount_percent: number | null;
  discount_code: string | null;
  turned_off_at: NullableTimestamp;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

/** Tables of migration 0004: the sandbox commerce platform and merchants onboarding through the plugin. */
export interface PluginCommerceTables {
  sandbox_stores: SandboxStoresTable;
  sandbox_products: SandboxProductsTable;
  sandbox_orders: SandboxOrdersTable;
  sandbox_discount_codes: SandboxDiscountCodesTable;
  setup_jobs: SetupJobsTable;
  merchant_stores: MerchantStoresTable;
}

export interface BrandInvitationsTable {
  code_hash: string;
  company_id: string;
  created_by: string;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  used_at: NullableTimestamp;
  created_at: CreatedAt;
}

export interface PasswordResetsTable {
  token_hash: string;
  user_id: string;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  used_at: NullableTimestamp;
  created_at: CreatedAt;
}

export interface AttributedOrdersTable {
  store_domain: string;
  order_id: string;
  customer_ref: string;
  total_cents: ColumnType<number, number, number>;
  currency: string;
  placed_at: ColumnType<Date, Date | string, Date | string>;
  platform_id: string | null;
  campaign_id: string | null;
  brand_id: string | null;
  partner_id: string | null;
  matched_by: 'referral_link' | 'discount_code' | null;
  new_customer: boolean;
  commission_cents: ColumnType<number, number | undefined, number>;
  received_at: CreatedAt;
  /** Which showing won the order (migration 0015): a click, or a view where the store allows view-through. */
  touch: ColumnType<'click' | 'view' | null, 'click' | 'view' | null | undefined, 'click' | 'view' | null>;
  /** The UTC day of that showing. */
  touched_on: ColumnType<string | null, string | null | undefined, string | null>;
  /** True when the order named a showing but none was within the attribution window: recorded, not attributed. */
  outside_window: ColumnType<boolean, boolean | undefined, boolean>;
  customer_basis: ColumnType<CustomerBasis | null, CustomerBasis | null | undefined, CustomerBasis | null>;
  /** Merchandise after discounts, without tax, shipping and duties (migration 0023): the commission's base; null: the total. */
  merchandise_minor: ColumnType<number | null, number | null | undefined, never>;
}

/** Why an order's customer counts as new or returning: the store's history the service keeps, or the commerce platform's count. */
export type CustomerBasis = 'store_history' | 'platform_order_count';

export interface StoreCustomersTable {
  store_domain: string;
  customer_ref: string;
  first_order_id: string;
}

/** Tables of migration 0007: the brand dashboard and order intake. */
export interface DashboardOrdersTables {
  brand_invitations: BrandInvitationsTable;
  password_resets: PasswordResetsTable;
  attributed_orders: AttributedOrdersTable;
  store_customers: StoreCustomersTable;
}

/** Table of migration 0031: a sign-up waiting for the link mailed to its address. */
export interface SignUpRequestsTable {
  token_hash: string;
  email: string;
  invitation_code_hash: string | null;
  domain: string | null;
  business_name: string | null;
  categories: string[] | null;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  created_at: CreatedAt;
}

export interface SignUpRequestTables {
  sign_up_requests: SignUpRequestsTable;
}

export interface BrandClaimsTable {
  id: Generated<string>;
  user_id: string;
  domain: string;
  business_name: string;
  categories: ColumnType<string[], string[] | undefined, string[]>;
  status: Generated<'pending' | 'verified' | 'declined' | 'refused'>;
  /** Where the store owner answers, as the commerce platform gave it. */
  confirm_url: string | null;
  created_at: CreatedAt;
  decided_at: NullableTimestamp;
}

export interface MailOutboxTable {
  id: Generated<string>;
  recipient: string;
  subject: string;
  body: string;
  created_at: CreatedAt;
}

export interface CampaignOffersTable {
  campaign_id: string;
  company_id: string;
  title: string;
  subtitle: string | null;
  image_url: string;
  include_discount: boolean;
  updated_at: CreatedAt;
}

export interface SandboxStoreOwnersTable {
  domain: string;
  email: string;
  password_hash: string;
  created_at: CreatedAt;
}

export interface SandboxOwnerSessionsTable {
  token_hash: string;
  domain: string;
  expires_at: ColumnType<Date, Date | string, Date | string>;
}

export interface SandboxOwnershipRequestsTable {
  id: string;
  domain: string;
  requested_by: string;
  return_to: string;
  status: Generated<'pending' | 'confirmed' | 'declined'>;
  created_at: CreatedAt;
  decided_at: NullableTimestamp;
}

/** Tables of migration 0008: store ownership claims, the development mailbox, per-campaign offers, sandbox owners. */
export interface ClaimsMailCampaignOfferTables {
  brand_claims: BrandClaimsTable;
  mail_outbox: MailOutboxTable;
  campaign_offers: CampaignOffersTable;
  sandbox_store_owners: SandboxStoreOwnersTable;
  sandbox_owner_sessions: SandboxOwnerSessionsTable;
  sandbox_ownership_requests: SandboxOwnershipRequestsTable;
}

/** A brand's figures in a performance rollup (migration 0009). */
interface PerformanceFigures {
  views: Counter;
  clicks: Counter;
  orders: Counter;
  new_customers: Counter;
  revenue_cents: Counter;
  commission_cents: Counter;
}

export interface PerformanceDaysTable extends PerformanceFigures {
  company_id: string;
  /** The company's role (migration 0015): `shown` on its own pages, `received` for its offer on a partner's. */
  side: 'shown' | 'received';
  day: ColumnType<Date, string, string>;
  platform_id: string;
}

export interface PerformancePairDaysTable extends PerformanceFigures {
  brand_id: string;
  partner_id: string;
  day: ColumnType<Date, string, string>;
}

/** A role's attributed orders and their money in one currency (migration 0019): minor units, never added across currencies. */
interface PerformanceMoney {
  orders: Counter;
  new_customers: Counter;
  /** The orders' totals less what their cancel and refund events took. */
  revenue_minor: Counter;
  /** The sum of the orders' ledger entries: commissions less reversals. */
  commission_minor: Counter;
}

export interface PerformanceMoneyDaysTable extends PerformanceMoney {
  company_id: string;
  side: 'shown' | 'received';
  day: ColumnType<Date, string, string>;
  /** Null: orders credited to a brand pair with no platform ("unknown platform", migration 0030). */
  platform_id: string | null;
  currency: string;
}

export interface PerformancePairMoneyDaysTable extends PerformanceMoney {
  brand_id: string;
  partner_id: string;
  day: ColumnType<Date, string, string>;
  currency: string;
}

export interface PerformancePartnersTable {
  company_id: string;
  other_id: string;
  /** The other brand's business name, kept current by a trigger on companies: the sort key of the per-partner table. */
  other_name: string | null;
}

/** One row: the days whose views and clicks are in the rollups (through this day; none when null). */
export interface PerformanceSealedTable {
  singleton: Generated<boolean>;
  sealed_through: ColumnType<Date | null, string | null, string | null>;
}

/** Tables of migration 0009: the performance page's rollups, sealed day by day, and orders as they come; 0019: money per currency. */
export interface PerformanceTables {
  performance_days: PerformanceDaysTable;
  performance_pair_days: PerformancePairDaysTable;
  performance_money_days: PerformanceMoneyDaysTable;
  performance_pair_money_days: PerformancePairMoneyDaysTable;
  performance_partners: PerformancePartnersTable;
  performance_sealed: PerformanceSealedTable;
}

/** Every table the service has: the foundation's plus each domain's own. */
/** Migration 0012: password reset requests per client address, for their budget (src/accounts/throttle.ts). */
export interface PasswordResetRequestsTable {
  id: Generated<number>;
  ip: string;
  requested_at: ColumnType<Date, Date | string, Date | string>;
}

export interface ResetThrottleTables {
  password_reset_requests: PasswordResetRequestsTable;
}

/** The commerce platform's word that the owner finished an action a plugin link started, by the hash of the embed app's secret. */
export interface MerchantConfirmationsTable {
  challenge: string;
  domain: string;
  confirmed_at: ColumnType<Date, Date, Date>;
}

/** A store-bound token of the embed app, by its hash (migration 0014). */
export interface MerchantTokensTable {
  token_hash: string;
  domain: string;
  platform_id: string;
  expires_at: ColumnType<Date, Date, Date>;
  /** Migration 0018: the challenge the token was traded for (a link carrying it still proves the merchant). */
  challenge: ColumnType<string | null, string | null | undefined, never>;
}

/** Tables of migration 0014: what lets the embed app act for a store. */
export interface MerchantTokenTables {
  merchant_confirmations: MerchantConfirmationsTable;
  merchant_tokens: MerchantTokensTable;
}

/** A store that installed the Shopify app (migration 0016); the offline token is AES-256-GCM encrypted. */
export interface ShopifyShopsTable {
  shop: string;
  access_token_encrypted: string | null;
  scopes: string | null;
  installed_at: NullableTimestamp;
  uninstalled_at: NullableTimestamp;
  disconnected_at: NullableTimestamp;
  subscription_id: string | null;
  subscription_status: string | null;
  plan_approved_at: NullableTimestamp;
  usage_line_item_id: string | null;
  usage_currency: string | null;
  /** Migration 0018: the subscription created for the merchant to approve, reused while Shopify still has it pending. */
  pending_subscription_id: ColumnType<string | null, string | null | undefined, string | null>;
  pending_confirmation_url: ColumnType<string | null, string | null | undefined, string | null>;
  pending_return_url: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * Migration 0028: expiring offline tokens (no expiry: a non-expiring token, exchanged at its next
   * use) and why the store was disconnected.
   */
  access_token_expires_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  refresh_token_encrypted: ColumnType<string | null, string | null | undefined, string | null>;
  refresh_token_expires_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  disconnect_reason: ColumnType<string | null, string | null | undefined, string | null>;
  /** Migration 0035: the raise of the capped amount asked of the merchant, until the installation shows it. */
  cap_raise_confirmation_url: ColumnType<string | null, string | null | undefined, string | null>;
  cap_raise_minor: ColumnType<number | null, number | null | undefined, number | null>;
  cap_raise_requested_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

/** Migration 0047: the state of a callback Shopify signed, taken by its first answer; a replay finds it here. */
export interface ShopifyOAuthStatesTakenTable {
  state_hash: string;
  shop: string;
  taken_at: ColumnType<Date, Date, Date>;
}

/** Migration 0020: what a verified callback asks the store's staff, until they answer with a POST (by the hash of the form's token). */
export interface ShopifyConfirmationRequestsTable {
  token_hash: string;
  shop: string;
  shop_name: string;
  claim_id: string | null;
  claimant_session_id: string | null;
  claimant_email: string | null;
  challenge: string | null;
  platform_id: string | null;
  platform_name: string | null;
  return_to: string | null;
  created_at: ColumnType<Date, Date, Date>;
}

export interface ShopifyOwnershipConfirmationsTable {
  claim_id: string;
  shop: string;
  confirmed_at: ColumnType<Date, Date, Date>;
  /** The Shopify staff member (session token `sub`) who confirmed inside the embedded app; null on the OAuth callback's page. */
  staff_id: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A webhook delivery, by Shopify's webhook id: the dedupe key and a durable job with a lease. */
export interface ShopifyWebhookDeliveriesTable {
  webhook_id: string;
  shop: string;
  topic: string;
  payload: ColumnType<unknown, string | null, string | null>;
  /** Migration 0029: 'failed', a delivery that stopped after its attempts, for support. */
  status: ColumnType<'pending' | 'done' | 'failed', 'pending' | 'done' | 'failed' | undefined, 'pending' | 'done' | 'failed'>;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: ColumnType<Date, Date, Date>;
  locked_until: NullableTimestamp;
  lease_id: string | null;
  last_error: string | null;
  received_at: ColumnType<Date, Date, Date>;
  completed_at: NullableTimestamp;
  failed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Migration 0034: X-Shopify-Event-Id, shared by the deliveries of one event to each subscription; null before. */
  event_id: ColumnType<string | null, string | null | undefined, never>;
  /** Migration 0034: when the raw body of a stopped delivery was erased (only its ids kept). */
  body_erased_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** A usage charge on a store's subscription, by its idempotency key. */
export interface ShopifyUsageRecordsTable {
  idempotency_key: string;
  shop: string;
  order_id: string;
  amount_cents: ColumnType<string, number, number>;
  currency: string;
  usage_record_id: string | null;
  created_at: CreatedAt;
}

/** Migration 0040: an order's commission in the shopper's currency, from Shopify's presentment money. */
export interface ShopifyOrderCommissionsTable {
  shop: string;
  order_id: string;
  currency: string;
  commission_minor: ColumnType<number, number, number>;
  created_at: CreatedAt;
}

/** Tables of migration 0016: Shopify. */
export interface ShopifyTables {
  shopify_shops: ShopifyShopsTable;
  shopify_oauth_states_taken: ShopifyOAuthStatesTakenTable;
  shopify_confirmation_requests: ShopifyConfirmationRequestsTable;
  shopify_ownership_confirmations: ShopifyOwnershipConfirmationsTable;
  shopify_webhook_deliveries: ShopifyWebhookDeliveriesTable;
  shopify_usage_records: ShopifyUsageRecordsTable;
  shopify_order_commissions: ShopifyOrderCommissionsTable;
}

/** Whether a store counts orders after a view of its offer (view-through); click-through always counts. */
export interface StoreAttributionSettingsTable {
  company_id: string;
  view_through: boolean;
  updated_at: CreatedAt;
}

/** A cancel or refund the commerce platform sent, once per event id and store. */
export interface OrderEventsTable {
  store_domain: string;
  event_id: string;
  order_id: string;
  kind: 'refund' | 'cancel';
  amount_cents: number;
  occurred_at: ColumnType<Date, Date, Date>;
  received_at: CreatedAt;
}

/**
 * One money movement, append-only: a commission on an attributed order, its reversal (negative), or
 * support's manual adjustment (migration 0023: no order, a reason and who posted it). An entry
 * with no platform credits the brand pair only (an order matched by its discount code alone).
 */
export interface CommissionLedgerTable {
  id: Generated<number>;
  kind: 'commission' | 'reversal' | 'adjustment';
  receiving_brand_id: string;
  showing_brand_id: string | null;
  platform_id: string | null;
  campaign_id: string | null;
  store_domain: string | null;
  order_id: string | null;
  event_id: ColumnType<string, string | undefined, never>;
  amount_minor: number;
  currency: string;
  rate_basis_points: number;
  basis_minor: number;
  customer: 'new' | 'returning' | null;
  customer_basis: CustomerBasis | null;
  touch: 'click' | 'view' | null;
  commerce_charge_id: ColumnType<string | null, string | null | undefined, string>;
  reason: ColumnType<string | null, string | null | undefined, never>;
  posted_by: ColumnType<string | null, string | null | undefined, never>;
  created_at: CreatedAt;
}

/** A cancel or refund that came before its order (migration 0023), applied when the order arrives. */
export interface OrderEventsAheadTable {
  store_domain: string;
  event_id: string;
  order_id: string;
  kind: 'refund' | 'cancel';
  /** A refund's amount; a cancel takes what is left of the order once it is known. */
  amount_minor: ColumnType<number | null, number | null, never>;
  currency: string | null;
  occurred_at: ColumnType<Date, Date, never>;
  received_at: CreatedAt;
}

/** A month the closing job closed for every brand (migration 0024). */
export interface StatementClosingsTable {
  month: ColumnType<string, string, never>;
  closed_at: ColumnType<Date, Date, never>;
}

/** A brand's closed monthly statement: numbered, never changed. */
export interface StatementsTable {
  id: Generated<number>;
  number: string;
  company_id: string;
  month: ColumnType<string, string, never>;
  closed_at: ColumnType<Date, Date, never>;
  due_on: ColumnType<string, string, never>;
}

/** Which closed statement claimed a ledger entry (each entry is on one statement at most). */
export interface StatementEntriesTable {
  ledger_id: number;
  statement_id: number;
}

/** A closed statement's fixed totals in one currency. */
export interface StatementTotalsTable {
  statement_id: number;
  currency: string;
  commission_minor: number;
  reversals_minor: number;
  adjustments_minor: number;
  net_minor: number;
  charged_minor: number;
  /** Migration 0030: what the commerce platform was asked to charge and did not, at the close. */
  held_minor: ColumnType<number, number | undefined, never>;
  held_reasons: ColumnType<ChargeHoldReason[], ChargeHoldReason[] | undefined, never>;
  owed_minor: number;
  entries: number;
}

/**
 * Why the commerce platform did not charge a commission it was asked to: the store's capped amount
 * is used up (`over_cap`), its usage plan is not approved (`no_plan`), or the plan is in another
 * currency than the order (`other_currency`).
 */
export type ChargeHoldReason = 'over_cap' | 'no_plan' | 'other_currency';

/** Migration 0030: the commerce platform was asked to charge an order's commission and did not, and why. */
export interface CommissionChargeHoldsTable {
  store_domain: string;
  order_id: string;
  reason: ChargeHoldReason;
  held_at: ColumnType<Date, Date, Date>;
  /** Migration 0035: when the held commission was charged after all (the hold is kept, settled). */
  settled_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** Migration 0040: what the commerce platform charged for an order's commission, in the charge's currency. */
export interface CommissionCommerceChargesTable {
  store_domain: string;
  order_id: string;
  charge_id: string;
  amount_minor: ColumnType<number, number, number>;
  currency: string;
  charged_at: ColumnType<Date, Date, Date>;
}

/** Tables of migration 0015: the commission ledger and what feeds it. */
export interface LedgerTables {
  store_attribution_settings: StoreAttributionSettingsTable;
  order_events: OrderEventsTable;
  commission_ledger: CommissionLedgerTable;
  order_events_ahead: OrderEventsAheadTable;
  statement_closings: StatementClosingsTable;
  statements: StatementsTable;
  statement_entries: StatementEntriesTable;
  statement_totals: StatementTotalsTable;
  commission_charge_holds: CommissionChargeHoldsTable;
  commission_commerce_charges: CommissionCommerceChargesTable;
}

/** A host shoppers know a store by, linked to the store's domain at its commerce platform (migration 0038). */
export interface StoreDomainsTable {
  domain: string;
  store_domain: string;
  is_primary: Generated<boolean>;
  updated_at: CreatedAt;
}

/** Tables of migration 0038. */
export interface StoreDomainTables {
  store_domains: StoreDomainsTable;
}

/** Migration 0043: server-side keys made once per database, shared by every instance (the device cookies' HMAC key). */
export interface ServiceSecretsTable {
  name: string;
  secret: string;
  created_at: CreatedAt;
}

export interface ServiceSecretTables {
  service_secrets: ServiceSecretsTable;
}

export interface Database
  extends FoundationTables,
    RecommendationTables,
    AttributionTables,
    AccountsOAuthTables,
    PluginCommerceTables,
    DashboardOrdersTables,
    ClaimsMailCampaignOfferTables,
    PerformanceTables,
    ResetThrottleTables,
    MerchantTokenTables,
    ShopifyTables,
    LedgerTables,
    SignUpRequestTables,
    StoreDomainTables,
    ServiceSecretTables {}
