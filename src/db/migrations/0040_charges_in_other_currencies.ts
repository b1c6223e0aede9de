import { sql, type Kysely } from 'kysely';

/**
 * A commission charged in another currency than the ledger's (issue 25, section 4):
 * - `shopify_order_commissions`: an order's commission in the shopper's (presentment) currency,
 *   from Shopify's own converted amounts, where it differs from the shop's currency the ledger
 *   books in. A usage record in that currency charges this amount, then or on a retry.
 * - `commission_commerce_charges`: what the commerce platform charged for an order's commission,
 *   in the charge's currency, so a statement shows a commission booked in EUR and charged in USD as
 *   both. Beside the ledger (append-only, its one update the charge id) rather than in it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table shopify_order_commissions (
      shop text not null,
      order_id text not null,
      currency text not null check (currency ~ '^[A-Z]{3}$'),
      commission_minor bigint not null check (commission_minor >= 0),
      created_at timestamptz not null default now(),
      primary key (shop, order_id, currency)
    )`.execute(db);
  await sql`
    create table commission_commerce_charges (
      store_domain text not null,
      order_id text not null,
      charge_id text not null,
      amount_minor bigint not null check (amount_minor > 0),
      currency text not null check (currency ~ '^[A-Z]{3}$'),
      charged_at timestamptz not null,
      primary key (store_domain, order_id)
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists commission_commerce_charges`.execute(db);
  await sql`drop table if exists shopify_order_commissions`.execute(db);
}
