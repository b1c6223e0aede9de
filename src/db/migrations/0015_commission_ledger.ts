import { sql, type Kysely } from 'kysely';

const FIGURES = ['views', 'clicks', 'orders', 'new_customers', 'revenue_cents', 'commission_cents'] as const;
const addExcluded = sql.raw(FIGURES.map((figure) => `${figure} = t.${figure} + excluded.${figure}`).join(', '));
const sums = sql.raw(FIGURES.map((figure) => `sum(${figure})`).join(', '));
const figureList = sql.raw(FIGURES.join(', '));

/**
 * Money brands can trust (issue 16): the commission ledger, the commerce platform's cancel and
 * refund events, how each order was attributed, each store's view-through setting, and the
 * performance rollups per role.
 *
 * - `commission_ledger` is append-only: a trigger refuses every delete and every update but the
 *   one that fills a commission entry's empty `commerce_charge_id` (the commerce platform's usage
 *   charge, written by its adapter later). A correction is a new entry of the opposite sign.
 * - `order_events`: each cancel or refund the platform sent, once (its event id per store).
 * - `attributed_orders` records which kind of showing won (`touch`, `touched_on`), whether a
 *   showing was found only outside the window (`outside_window`) and why the customer counts as
 *   new or returning (`customer_basis`).
 * - `performance_days` gets the brand's role (`side`): `shown` for showings on its own pages,
 *   `received` for its offer on a partner's, so the performance page reads each role apart.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table attributed_orders
      add column touch text check (touch in ('click', 'view')),
      add column touched_on date,
      add column outside_window boolean not null default false,
      add column customer_basis text check (customer_basis in ('store_history', 'platform_order_count'))`.execute(db);

  await sql`
    create table store_attribution_settings (
      company_id text primary key references companies (id) on delete cascade,
      view_through boolean not null,
      updated_at timestamptz not null default now()
    )`.execute(db);

  await sql`
    create table order_events (
      store_domain text not null,
      event_id text not null,
      order_id text not null,
      kind text not null check (kind in ('refund', 'cancel')),
      amount_cents bigint not null check (amount_cents >= 0),
      occurred_at timestamptz not null,
      received_at timestamptz not null default now(),
      primary key (store_domain, event_id)
    )`.execute(db);
  await sql`create index order_events_order_idx on order_events (store_domain, order_id)`.execute(db);

  // Like the orders, the ledger keeps no foreign keys: it is billing history and outlives brands.
  await sql`
    create table commission_ledger (
      id bigint generated always as identity primary key,
      kind text not null check (kind in ('commission', 'reversal')),
      receiving_brand_id text not null,
      showing_brand_id text not null,
      platform_id uuid not null,
      campaign_id text not null,
      store_domain text not null,
      order_id text not null,
      event_id text not null default '',
      amount_minor bigint not null,
      currency text not null check (currency ~ '^[A-Z]{3}$'),
      rate_basis_points integer not null check (rate_basis_points between 0 and 10000),
      basis_minor bigint not null check (basis_minor >= 0),
      customer text not null check (customer in ('new', 'returning')),
      customer_basis text not null check (customer_basis in ('store_history', 'platform_order_count')),
      touch text not null check (touch in ('click', 'view')),
      commerce_charge_id text,
      created_at timestamptz not null default now(),
      check ((kind = 'commission') = (event_id = '')),
      check (kind = 'commission' and amount_minor >= 0 or kind = 'reversal' and amount_minor < 0),
      unique (store_domain, order_id, kind, event_id)
    )`.execute(db);
  await sql`create index commission_ledger_receiving_idx on commission_ledger (receiving_brand_id, created_at)`.execute(db);
  await sql`
    create function refuse_ledger_change() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE' and old.commerce_charge_id is null
         and (to_jsonb(new) - 'commerce_charge_id') = (to_jsonb(old) - 'commerce_charge_id') then
        return new;
      end if;
      raise exception 'commission_ledger is append-only: correct an entry with an entry of the opposite sign'
        using errcode = 'restrict_violation';
    end $$`.execute(db);
  await sql`
    create trigger commission_ledger_append_only before update or delete on commission_ledger
    for each row execute function refuse_ledger_change()`.execute(db);

  // The sandbox store admin cancels and refunds orders.
  await sql`
    alter table sandbox_orders
      add column refunded_cents integer not null default 0 check (refunded_cents >= 0),
      add column cancelled_at timestamptz`.execute(db);

  await sql`alter table performance_days add column side text not null default 'shown' check (side in ('shown', 'received'))`.execute(db);
  await sql`alter table performance_days drop constraint performance_days_pkey`.execute(db);
  await sql`alter table performance_days add primary key (company_id, side, day, platform_id)`.execute(db);
  await sql`alter table performance_days alter column side drop default`.execute(db);
  await recordPerformance(db, 'sided');
  await sql`select rebuild_performance()`.execute(db);
}

/**
 * `record_performance` of migration 0009, writing each showing's day rows once per role: for the
 * showing brand (`shown`) and, unless it showed its own offer, for the partner (`received`).
 */
async function recordPerformance(db: Kysely<unknown>, shape: 'sided' | 'unsided'): Promise<void> {
  const sided = shape === 'sided';
  await sql`
    create or replace function record_performance(
      platform_ids uuid[], days date[], brand_ids text[], partner_ids text[],
      view_counts bigint[], click_counts bigint[], order_counts bigint[], new_customer_counts bigint[],
      revenue bigint[], commission bigint[]
    ) returns void language plpgsql as $$
    begin
      with delta as (
        select d.platform_id, d.day, d.brand_id, d.partner_id,
               coalesce(d.views, 0) as views, coalesce(d.clicks, 0) as clicks, coalesce(d.orders, 0) as orders,
               coalesce(d.new_customers, 0) as new_customers, coalesce(d.revenue_cents, 0) as revenue_cents,
               coalesce(d.commission_cents, 0) as commission_cents
        from unnest(
          platform_ids, days, brand_ids, partner_ids, view_counts, click_counts, order_counts, new_customer_counts, revenue, commission
        )
               as d(platform_id, day, brand_id, partner_id, views, clicks, orders, new_customers, revenue_cents, commission_cents)
        where d.platform_id is not null
      ),
      by_day as (
        insert into performance_days as t (company_id, ${sql.raw(sided ? 'side, ' : '')}day, platform_id, ${figureList})
        select side.company_id, ${sql.raw(sided ? 'side.role, ' : '')}d.day, d.platform_id, ${sums}
        from delta d cross join lateral (values (d.brand_id, 'shown'), (d.partner_id, 'received')) as side(company_id, role)
        where side.role = 'shown' or d.partner_id <> d.brand_id
        group by ${sql.raw(sided ? '1, 2, 3, 4 order by 1, 2, 3, 4' : '1, 2, 3 order by 1, 2, 3')}
        on conflict (company_id, ${sql.raw(sided ? 'side, ' : '')}day, platform_id) do update set ${addExcluded}
      )
      insert into performance_pair_days as t (brand_id, partner_id, day, ${figureList})
      select brand_id, partner_id, day, ${sums} from delta group by 1, 2, 3 order by 1, 2, 3
      on conflict (brand_id, partner_id, day) do update set ${addExcluded};
    end $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // The rows of the two roles would collide without the side: rebuild_performance writes them again.
  await sql`truncate performance_days`.execute(db);
  await sql`alter table performance_days drop constraint performance_days_pkey`.execute(db);
  await sql`alter table performance_days drop column side`.execute(db);
  await sql`alter table performance_days add primary key (company_id, day, platform_id)`.execute(db);
  await recordPerformance(db, 'unsided');
  await sql`select rebuild_performance()`.execute(db);
  await sql`alter table sandbox_orders drop column cancelled_at, drop column refunded_cents`.execute(db);
  await sql`drop table if exists commission_ledger`.execute(db);
  await sql`drop function if exists refuse_ledger_change()`.execute(db);
  await sql`drop table if exists order_events`.execute(db);
  await sql`drop table if exists store_attribution_settings`.execute(db);
  await sql`
    alter table attributed_orders
      drop column customer_basis, drop column outside_window, drop column touched_on, drop column touch`.execute(db);
}
