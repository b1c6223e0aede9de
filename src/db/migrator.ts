import { Migrator, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import type { Db } from './database.js';
import * as foundation from './migrations/0001_foundation.js';
import * as recommendationScores from './migrations/0002_recommendation_scores.js';
import * as attribution from './migrations/0003_attribution.js';
import * as pluginCommerce from './migrations/0004_plugin_commerce.js';
import * as accountsOAuth from './migrations/0005_accounts_oauth.js';
import * as listIndexes from './migrations/0006_list_indexes.js';
import * as dashboardOrders from './migrations/0007_dashboard_orders.js';
import * as claimsMailCampaignOffers from './migrations/0008_store_claims_mail_campaign_offers.js';
import * as performanceRollups from './migrations/0009_performance_rollups.js';
import * as setupJobLeases from './migrations/0010_setup_job_leases.js';
import * as canonicalDomains from './migrations/0011_canonical_domains.js';
import * as passwordResetRequests from './migrations/0012_password_reset_requests.js';
import * as attributionWriters from './migrations/0013_attribution_writers.js';
import * as merchantTokens from './migrations/0014_merchant_tokens.js';
import * as commissionLedger from './migrations/0015_commission_ledger.js';
import * as shopify from './migrations/0016_shopify.js';
import * as brandOAuthApps from './migrations/0017_brand_oauth_apps.js';
import * as shopifyProofAndParking from './migrations/0018_shopify_proof_and_parking.js';
import * as performanceMoney from './migrations/0019_performance_money.js';
import * as shopifyConfirmationRequests from './migrations/0020_shopify_confirmation_requests.js';
import * as ledgerRefusesTruncate from './migrations/0021_ledger_refuses_truncate.js';
import * as moneyBaseAndEventsAhead from './migrations/0023_money_base_and_events_ahead.js';
import * as statements from './migrations/0024_statements.js';
import * as offerSetupProposals from './migrations/0026_offer_setup_proposals.js';
import * as shopifyExpiringTokens from './migrations/0028_shopify_expiring_tokens.js';
import * as shopifyFailedDeliveries from './migrations/0029_shopify_failed_deliveries.js';
import * as unknownPlatformMoneyAndChargeHolds from './migrations/0030_unknown_platform_money_and_charge_holds.js';
import * as signUpRequests from './migrations/0031_sign_up_requests.js';
import * as rescoreKnownTermsOnly from './migrations/0032_rescore_known_terms_only.js';
import * as shopifyEventIds from './migrations/0034_shopify_event_ids.js';
import * as chargeHoldsSettled from './migrations/0035_charge_holds_settled.js';
import * as shopifyHomeSessions from './migrations/0036_shopify_home_sessions.js';
import * as storeDomains from './migrations/0038_store_domains.js';
import * as chargesInOtherCurrencies from './migrations/0040_charges_in_other_currencies.js';
import * as offersLeftWithStore from './migrations/0041_offers_left_with_store.js';
import * as signUpPasswordAtFinish from './migrations/0042_sign_up_password_at_finish.js';
import * as keyOwnersAndDeviceCookies from './migrations/0043_key_owners_and_device_cookies.js';
import * as namesAreOneLine from './migrations/0044_names_are_one_line.js';
import * as closedMoneyRefusesTruncate from './migrations/0045_closed_money_refuses_truncate.js';
import * as dropShopifyHomeSessions from './migrations/0046_drop_shopify_home_sessions.js';
import * as shopifyOAuthStatesTaken from './migrations/0047_shopify_oauth_states_taken.js';
import * as ownershipConfirmedByStaff from './migrations/0048_ownership_confirmed_by_staff.js';

/** Migrations in the order they apply; a new one is added at the end, never edited once landed. */
const MIGRATIONS: Record<string, Migration> = {
  '0001_foundation': foundation,
  '0002_recommendation_scores': recommendationScores,
  '0003_attribution': attribution,
  '0004_plugin_commerce': pluginCommerce,
  '0005_accounts_oauth': accountsOAuth,
  '0006_list_indexes': listIndexes,
  '0007_dashboard_orders': dashboardOrders,
  '0008_store_claims_mail_campaign_offers': claimsMailCampaignOffers,
  '0009_performance_rollups': performanceRollups,
  '0010_setup_job_leases': setupJobLeases,
  '0011_canonical_domains': canonicalDomains,
  '0012_password_reset_requests': passwordResetRequests,
  '0013_attribution_writers': attributionWriters,
  '0014_merchant_tokens': merchantTokens,
  '0015_commission_ledger': commissionLedger,
  '0016_shopify': shopify,
  '0017_brand_oauth_apps': brandOAuthApps,
  '0018_shopify_proof_and_parking': shopifyProofAndParking,
  '0019_performance_money': performanceMoney,
  '0020_shopify_confirmation_requests': shopifyConfirmationRequests,
  '0021_ledger_refuses_truncate': ledgerRefusesTruncate,
  '0023_money_base_and_events_ahead': moneyBaseAndEventsAhead,
  '0024_statements': statements,
  '0026_offer_setup_proposals': offerSetupProposals,
  '0028_shopify_expiring_tokens': shopifyExpiringTokens,
  '0029_shopify_failed_deliveries': shopifyFailedDeliveries,
  '0030_unknown_platform_money_and_charge_holds': unknownPlatformMoneyAndChargeHolds,
  '0031_sign_up_requests': signUpRequests,
  '0032_rescore_known_terms_only': rescoreKnownTermsOnly,
  '0034_shopify_event_ids': shopifyEventIds,
  '0035_charge_holds_settled': chargeHoldsSettled,
  '0036_shopify_home_sessions': shopifyHomeSessions,
  '0038_store_domains': storeDomains,
  '0040_charges_in_other_currencies': chargesInOtherCurrencies,
  '0041_offers_left_with_store': offersLeftWithStore,
  '0042_sign_up_password_at_finish': signUpPasswordAtFinish,
  '0043_key_owners_and_device_cookies': keyOwnersAndDeviceCookies,
  '0044_names_are_one_line': namesAreOneLine,
  '0045_closed_money_refuses_truncate': closedMoneyRefusesTruncate,
  '0046_drop_shopify_home_sessions': dropShopifyHomeSessions,
  '0047_shopify_oauth_states_taken': shopifyOAuthStatesTaken,
  '0048_ownership_confirmed_by_staff': ownershipConfirmedByStaff,
};

class StaticMigrationProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return MIGRATIONS;
  }
}

export async function migrateToLatest(db: Db): Promise<string[]> {
  return migrate(db, (migrator) => migrator.migrateToLatest());
}

/** Applies the migrations up to and including `name`, or undoes the later ones: a migration's test starts from the schema before it. */
export async function migrateTo(db: Db, name: string): Promise<string[]> {
  return migrate(db, (migrator) => migrator.migrateTo(name));
}

async function migrate(db: Db, run: (migrator: Migrator) => Promise<MigrationResultSet>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: new StaticMigrationProvider() });
  const { error, results } = await run(migrator);
  if (error) {
    const failed = results?.find((result) => result.status === 'Error');
    throw new Error(`Migration ${failed?.migrationName ?? '(unknown)'} failed: ${String(error)}`, {
      cause: error,
    });
  }
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
}
