import { sql, type Kysely } from 'kysely';

/**
 * Billing that never silently fails to charge (issue 25):
 * - A held commission charged later: once the store approves its plan or a raised capped amount,
 *   the held charge is made and the hold is marked settled (when) rather than deleted, so support
 *   can still see that the charge waited and for how long.
 * - A raise of the capped amount asked of the merchant when Shopify says the balance nears it
 *   (app_subscriptions/approaching_capped_amount): the confirmation URL Shopify answered
 *   appSubscriptionLineItemUpdate with, the cap asked for (minor units of the plan's currency) and
 *   when; cleared once the installation shows a cap at least that high.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table commission_charge_holds add column settled_at timestamptz`.execute(db);
  await sql`
    alter table shopify_shops
      add column cap_raise_confirmation_url text,
      add column cap_raise_minor bigint,
      add column cap_raise_requested_at timestamptz`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table shopify_shops
      drop column if exists cap_raise_confirmation_url,
      drop column if exists cap_raise_minor,
      drop column if exists cap_raise_requested_at`.execute(db);
  await sql`alter table commission_charge_holds drop column if exists settled_at`.execute(db);
}
