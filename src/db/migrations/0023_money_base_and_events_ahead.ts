import { sql, type Kysely } from 'kysely';

/**
 * Money a finance team signs off (issue 26), the ledger's side.
 *
 * - `attributed_orders.merchandise_minor`: the merchandise the customer bought, after discounts,
 *   without tax, shipping and duties: the commission's base. Orders received before it have their
 *   total as their base, as they were charged.
 * - `order_events_ahead`: a cancel or refund that came before its order, kept until the order
 *   arrives and then applied (a cancel's amount is only known then).
 * - `commission_ledger` takes two more kinds of entry. An order matched by its discount code alone
 *   credits the brand pair with no platform (`platform_id` null: "unknown platform"). Support's
 *   manual `adjustment` belongs to no order: it has an amount of either sign, a reason and who
 *   posted it, and none of an order's fields.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table attributed_orders add column merchandise_minor bigint check (merchandise_minor >= 0)`.execute(db);

  await sql`
    create table order_events_ahead (
      store_domain text not null,
      event_id text not null,
      order_id text not null,
      kind text not null check (kind in ('refund', 'cancel')),
      amount_minor bigint check (amount_minor > 0),
      currency text check (currency ~ '^[A-Z]{3}$'),
      occurred_at timestamptz not null,
      received_at timestamptz not null default now(),
      primary key (store_domain, event_id),
      check ((kind = 'refund') = (amount_minor is not null))
    )`.execute(db);
  await sql`create index order_events_ahead_order_idx on order_events_ahead (store_domain, order_id)`.execute(db);

  await sql`
    alter table commission_ledger
      drop constraint commission_ledger_kind_check,
      drop constraint commission_ledger_check,
      drop constraint commission_ledger_check1,
      alter column platform_id drop not null,
      alter column showing_brand_id drop not null,
      alter column campaign_id drop not null,
      alter column store_domain drop not null,
      alter column order_id drop not null,
      alter column customer drop not null,
      alter column customer_basis drop not null,
      alter column touch drop not null,
      add column reason text,
      add column posted_by text,
      add constraint commission_ledger_kind_check check (kind in ('commission', 'reversal', 'adjustment')),
      add constraint commission_ledger_event_check check ((kind = 'reversal') = (event_id <> '')),
      add constraint commission_ledger_sign_check check (
        kind = 'commission' and amount_minor >= 0 or kind = 'reversal' and amount_minor < 0 or kind = 'adjustment' and amount_minor <> 0),
      add constraint commission_ledger_order_check check (
        kind = 'adjustment'
          and reason is not null and posted_by is not null and order_id is null and store_domain is null and showing_brand_id is null
        or kind <> 'adjustment'
          and reason is null and posted_by is null and order_id is not null and store_domain is not null
          and showing_brand_id is not null and campaign_id is not null
          and customer is not null and customer_basis is not null and touch is not null)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // Adjustments and platformless entries cannot be kept under the old rules; the ledger is history, so refuse rather than drop them.
  await sql`
    alter table commission_ledger
      drop constraint commission_ledger_order_check,
      drop constraint commission_ledger_sign_check,
      drop constraint commission_ledger_event_check,
      drop constraint commission_ledger_kind_check,
      drop column posted_by,
      drop column reason,
      alter column touch set not null,
      alter column customer_basis set not null,
      alter column customer set not null,
      alter column order_id set not null,
      alter column store_domain set not null,
      alter column campaign_id set not null,
      alter column showing_brand_id set not null,
      alter column platform_id set not null,
      add constraint commission_ledger_kind_check check (kind in ('commission', 'reversal')),
      add constraint commission_ledger_check check ((kind = 'commission') = (event_id = '')),
      add constraint commission_ledger_check1 check (
        kind = 'commission' and amount_minor >= 0 or kind = 'reversal' and amount_minor < 0)`.execute(db);
  await sql`drop table if exists order_events_ahead`.execute(db);
  await sql`alter table attributed_orders drop column merchandise_minor`.execute(db);
}
