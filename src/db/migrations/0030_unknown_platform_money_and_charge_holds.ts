import { sql, type Kysely } from 'kysely';

const MONEY = ['orders', 'new_customers', 'revenue_minor', 'commission_minor'] as const;
const moneyList = MONEY.join(', ');
const moneySums = MONEY.map((figure) => `sum(${figure})::int8`).join(', ');
const anyMoney = MONEY.map((figure) => `sum(${figure}) <> 0`).join(' or ');
const addExcluded = MONEY.map((figure) => `${figure} = t.${figure} + excluded.${figure}`).join(', ');

/** Whether the money rollups take orders credited to no platform (this migration) or skip them (0019, its down). */
type Platformless = 'kept' | 'skipped';

/**
 * Migration 0019's statement that adds `delta` to both money rollups, unchanged but for the key of
 * performance_money_days, whose platform may now be null: the conflict target is the unique key
 * that treats nulls as equal (0030's `up`), or 0019's primary key.
 */
function recordMoney(delta: string): string {
  return `
    with delta as (${delta}),
    by_day as (
      insert into performance_money_days as t (company_id, side, day, platform_id, currency, ${moneyList})
      select side.company_id, side.role, d.day, d.platform_id, d.currency, ${moneySums}
      from delta d cross join lateral (values (d.brand_id, 'shown'), (d.partner_id, 'received')) as side(company_id, role)
      where side.role = 'shown' or d.partner_id <> d.brand_id
      group by 1, 2, 3, 4, 5 having ${anyMoney} order by 1, 2, 3, 4, 5
      on conflict (company_id, side, day, platform_id, currency) do update set ${addExcluded}
    )
    insert into performance_pair_money_days as t (brand_id, partner_id, day, currency, ${moneyList})
    select d.brand_id, d.partner_id, d.day, d.currency, ${moneySums} from delta d
    group by 1, 2, 3, 4 having ${anyMoney} order by 1, 2, 3, 4
    on conflict (brand_id, partner_id, day, currency) do update set ${addExcluded}`;
}

const ORDER_KEY = 'store_domain, order_id, platform_id, placed_at, brand_id, partner_id, currency, new_customer, total_cents';

/** The attributed orders among `rows` (a brand pair credited): with or without a platform, as `platformless` says. */
const attributed = (platformless: Platformless, rows: string, figures: string) => `
  select o.platform_id, (o.placed_at at time zone 'UTC')::date as day, o.brand_id, o.partner_id, o.currency, ${figures}
  from (${rows}) o
  where ${platformless === 'kept' ? '' : 'o.platform_id is not null and '}o.brand_id is not null and o.partner_id is not null`;

const orderMoney = (platformless: Platformless, rows: string, sign: 1 | -1) =>
  attributed(
    platformless,
    rows,
    `${sign}::int8 as orders, ${sign} * o.new_customer::int::int8 as new_customers,
     ${sign} * (o.total_cents - coalesce((select sum(e.amount_cents) from order_events e
                                          where e.store_domain = o.store_domain and e.order_id = o.order_id), 0))::int8 as revenue_minor,
     ${sign} * coalesce((select sum(l.amount_minor) from commission_ledger l
                         where l.store_domain = o.store_domain and l.order_id = o.order_id), 0)::int8 as commission_minor`,
  );

const ofTheirOrders = (
  platformless: Platformless,
  rows: string,
  sign: 1 | -1,
  figure: 'revenue_minor' | 'commission_minor',
  amount: string,
) =>
  attributed(
    platformless,
    `select o.*, x.${amount} as amount from (${rows}) x
     join attributed_orders o on o.store_domain = x.store_domain and o.order_id = x.order_id`,
    MONEY.map((column) => (column === figure ? `${sign} * o.amount::int8 as ${column}` : `0::int8 as ${column}`)).join(', '),
  );

/** rebuild_performance as 0019 left it: the rollups of 0009 (orders with a platform only, as they count platforms' views) and the money. */
const rebuildMoney = (platformless: Platformless) => `
  truncate performance_money_days, performance_pair_money_days;
  ${recordMoney(orderMoney(platformless, 'select * from attributed_orders', 1))};`;

const REBUILD_ROLLUPS = `
  truncate performance_days, performance_pair_days;
  update performance_sealed set sealed_through = null;
  perform record_performance(array_agg(platform_id), array_agg(day), array_agg(brand_id), array_agg(partner_id),
    null::bigint[], null::bigint[],
    array_agg(orders), array_agg(new_customers), array_agg(revenue_cents), array_agg(commission_cents))
  from (select platform_id, (placed_at at time zone 'UTC')::date as day, brand_id, partner_id, count(*)::bigint as orders,
               count(*) filter (where new_customer) as new_customers, sum(total_cents)::bigint as revenue_cents,
               sum(commission_cents)::bigint as commission_cents
        from attributed_orders where platform_id is not null group by 1, 2, 3, 4) orders;
  perform seal_performance(performance_seal_day());`;

/** The three money triggers' functions and rebuild_performance, taking platformless orders or not. */
async function defineMoneyFunctions(db: Kysely<unknown>, platformless: Platformless): Promise<void> {
  const changedFrom = (a: string, b: string) => `select ${ORDER_KEY} from ${a} except all select ${ORDER_KEY} from ${b}`;
  const money = (rows: string, sign: 1 | -1) => orderMoney(platformless, rows, sign);
  await sql`
    create or replace function record_order_money() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        ${sql.raw(recordMoney(money('select * from added', 1)))};
      elsif tg_op = 'DELETE' then
        ${sql.raw(recordMoney(money('select * from removed', -1)))};
      else
        ${sql.raw(recordMoney(`${money(changedFrom('removed', 'added'), -1)} union all ${money(changedFrom('added', 'removed'), 1)}`))};
      end if;
      return null;
    end $$`.execute(db);
  const taken = (rows: string) =>
    ofTheirOrders(platformless, `select * from ${rows}`, rows === 'added' ? -1 : 1, 'revenue_minor', 'amount_cents');
  await sql`
    create or replace function record_order_event_money() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        ${sql.raw(recordMoney(taken('added')))};
      elsif tg_op = 'DELETE' then
        ${sql.raw(recordMoney(taken('removed')))};
      else
        ${sql.raw(recordMoney(`${taken('removed')} union all ${taken('added')}`))};
      end if;
      return null;
    end $$`.execute(db);
  await sql`
    create or replace function record_ledger_money() returns trigger language plpgsql as $$
    begin
      ${sql.raw(recordMoney(ofTheirOrders(platformless, 'select * from added', 1, 'commission_minor', 'amount_minor')))};
      return null;
    end $$`.execute(db);
  await sql
    .raw(`create or replace function rebuild_performance() returns void language plpgsql as $$
    begin ${REBUILD_ROLLUPS}${rebuildMoney(platformless)}
    end $$`)
    .execute(db);
}

/**
 * Money a finance team signs off (issue 26), the rest of it.
 *
 * - Orders credited to a brand pair with no platform (matched by the partner's discount code
 *   alone: "unknown platform", migration 0023) go into the money rollups of 0019 like any other,
 *   so Performance counts them. performance_money_days keeps them under a null platform: its
 *   primary key becomes a unique key whose nulls are equal (PostgreSQL 15), so the triggers'
 *   `on conflict` still adds to one row per key. The views-and-clicks rollups of 0009 are not
 *   touched: a view or click always has its platform.
 * - `commission_charge_holds`: the commerce platform was asked to charge an order's commission and
 *   did not (the store's capped amount was reached, its usage plan is not approved, the order is
 *   in another currency than the plan); the statement shows that commission as held, with the
 *   reason, until a charge id fills the ledger entry. One row per order, the latest reason.
 * - `statement_totals.held_minor` and `held_reasons`: what a statement fixed as held at its close,
 *   and why (0 and none for those closed before: they did not know holds); `owed_minor` is then net
 *   less charged less held.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table performance_money_days
      drop constraint performance_money_days_pkey,
      alter column platform_id drop not null,
      add constraint performance_money_days_key unique nulls not distinct (company_id, side, day, platform_id, currency)`.execute(db);
  await defineMoneyFunctions(db, 'kept');
  await sql.raw(`do $$ begin ${rebuildMoney('kept')} end $$`).execute(db);

  await sql`
    create table commission_charge_holds (
      store_domain text not null,
      order_id text not null,
      reason text not null check (reason in ('over_cap', 'no_plan', 'other_currency')),
      held_at timestamptz not null,
      primary key (store_domain, order_id)
    )`.execute(db);
  await sql`
    alter table statement_totals
      add column held_minor bigint not null default 0,
      add column held_reasons text[] not null default '{}'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table statement_totals drop column held_reasons, drop column held_minor`.execute(db);
  await sql`drop table if exists commission_charge_holds`.execute(db);
  await sql`delete from performance_money_days where platform_id is null`.execute(db);
  await sql`
    alter table performance_money_days
      drop constraint performance_money_days_key,
      alter column platform_id set not null,
      add primary key (company_id, side, day, platform_id, currency)`.execute(db);
  await defineMoneyFunctions(db, 'skipped');
  await sql.raw(`do $$ begin ${rebuildMoney('skipped')} end $$`).execute(db);
}
