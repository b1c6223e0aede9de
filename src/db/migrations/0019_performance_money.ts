import { sql, type Kysely } from 'kysely';

const MONEY = ['orders', 'new_customers', 'revenue_minor', 'commission_minor'] as const;
const moneyColumns = MONEY.map((figure) => `${figure} bigint not null default 0`).join(',\n');
const moneyList = MONEY.join(', ');
const moneySums = MONEY.map((figure) => `sum(${figure})::int8`).join(', ');
const anyMoney = MONEY.map((figure) => `sum(${figure}) <> 0`).join(' or ');
const addExcluded = MONEY.map((figure) => `${figure} = t.${figure} + excluded.${figure}`).join(', ');

/**
 * The statement that adds `delta` (rows of platform_id, day, brand_id, partner_id, currency and
 * the money figures) to both money rollups: per role, day, platform and currency, and per showing
 * brand, partner, day and currency. Rows go in key order, so writers touching the same rows lock
 * them in the same order; keys whose figures add up to nothing are not written.
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

/** What an order's money rows depend on, besides its events and ledger entries. */
const ORDER_KEY = 'store_domain, order_id, platform_id, placed_at, brand_id, partner_id, currency, new_customer, total_cents';

/** The attributed orders among `rows`: their day, keys and `figures`. */
const attributed = (rows: string, figures: string) => `
  select o.platform_id, (o.placed_at at time zone 'UTC')::date as day, o.brand_id, o.partner_id, o.currency, ${figures}
  from (${rows}) o
  where o.platform_id is not null and o.brand_id is not null and o.partner_id is not null`;

/**
 * Each order of `rows`, `sign` times: one order, a new customer or not, its total less what its
 * cancel and refund events took, and the sum of its ledger entries (commission and reversals).
 */
const orderMoney = (rows: string, sign: 1 | -1) =>
  attributed(
    rows,
    `${sign}::int8 as orders, ${sign} * o.new_customer::int::int8 as new_customers,
     ${sign} * (o.total_cents - coalesce((select sum(e.amount_cents) from order_events e
                                          where e.store_domain = o.store_domain and e.order_id = o.order_id), 0))::int8 as revenue_minor,
     ${sign} * coalesce((select sum(l.amount_minor) from commission_ledger l
                         where l.store_domain = o.store_domain and l.order_id = o.order_id), 0)::int8 as commission_minor`,
  );

/** The orders of `rows` (events or ledger entries, by store_domain and order_id) with one money figure of theirs, `sign` times. */
const ofTheirOrders = (rows: string, sign: 1 | -1, figure: 'revenue_minor' | 'commission_minor', amount: string) =>
  attributed(
    `select o.*, x.${amount} as amount from (${rows}) x
     join attributed_orders o on o.store_domain = x.store_domain and o.order_id = x.order_id`,
    MONEY.map((column) => (column === figure ? `${sign} * o.amount::int8 as ${column}` : `0::int8 as ${column}`)).join(', '),
  );

/** rebuild_performance of migration 0009: views and clicks from the counters, orders' unsided figures. */
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

const REBUILD_MONEY = `
  truncate performance_money_days, performance_pair_money_days;
  ${recordMoney(orderMoney('select * from attributed_orders', 1))};`;

const rebuild = (body: string) =>
  sql.raw(`create or replace function rebuild_performance() returns void language plpgsql as $$
  begin ${body}
  end $$`);

/**
 * Each role's order money per currency, kept as the ledger changes (issue 16, performance).
 *
 * The performance page's two roles read orders, new customers, revenue (what cancels and refunds
 * left of the orders' totals) and commission (the sum of each order's ledger entries) per
 * currency. Reading them from every order of the range (two index lookups each) cost a year-long
 * range about 30× `GET /v1/partners`; these rollups hold them per role, day, platform and
 * currency, and per showing brand, partner, day and currency (one row per pair, as
 * performance_pair_days), by the order's UTC day like the other rollups.
 *
 * Statement triggers keep them, so every writer moves them (support's SQL included): an order's
 * insert, update or delete moves its whole money, computed from its events and ledger entries
 * as they are at that moment; an event moves its order's revenue, a ledger entry (append-only,
 * so inserted only) its order's commission. So the rollups are always the sum, over the
 * attributed orders, of what the ledger and the events say of each. Orders arrive for any day and
 * are never in the counters, so no sealing is involved. Amounts of different currencies are
 * never added: the currency is part of every key.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table performance_money_days (
      company_id text not null,
      side text not null check (side in ('shown', 'received')),
      day date not null,
      platform_id uuid not null,
      currency text not null,
      ${sql.raw(moneyColumns)},
      primary key (company_id, side, day, platform_id, currency)
    ) with (fillfactor = 70)`.execute(db);
  // A page of partners probes the primary key from either end of a pair; the CSV reads all of a
  // brand's pairs as the showing brand (the primary key) or as the partner (this index).
  await sql`
    create table performance_pair_money_days (
      brand_id text not null,
      partner_id text not null,
      day date not null,
      currency text not null,
      ${sql.raw(moneyColumns)},
      primary key (brand_id, partner_id, day, currency)
    ) with (fillfactor = 70)`.execute(db);
  await sql`create index performance_pair_money_days_partner_day_idx on performance_pair_money_days (partner_id, day)`.execute(db);

  // An update moves only the orders whose money changed (a redacted customer, say, moves nothing).
  const changedFrom = (a: string, b: string) => `select ${ORDER_KEY} from ${a} except all select ${ORDER_KEY} from ${b}`;
  await sql`
    create function record_order_money() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        ${sql.raw(recordMoney(orderMoney('select * from added', 1)))};
      elsif tg_op = 'DELETE' then
        ${sql.raw(recordMoney(orderMoney('select * from removed', -1)))};
      else
        ${sql.raw(
          recordMoney(`${orderMoney(changedFrom('removed', 'added'), -1)} union all ${orderMoney(changedFrom('added', 'removed'), 1)}`),
        )};
      end if;
      return null;
    end $$`.execute(db);
  // An event takes its amount off its order's revenue; one removed gives it back.
  const taken = (rows: string) => ofTheirOrders(`select * from ${rows}`, rows === 'added' ? -1 : 1, 'revenue_minor', 'amount_cents');
  await sql`
    create function record_order_event_money() returns trigger language plpgsql as $$
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
    create function record_ledger_money() returns trigger language plpgsql as $$
    begin
      ${sql.raw(recordMoney(ofTheirOrders('select * from added', 1, 'commission_minor', 'amount_minor')))};
      return null;
    end $$`.execute(db);
  for (const [table, op, transitions, fn] of [
    ['attributed_orders', 'insert', 'new table as added', 'record_order_money'],
    ['attributed_orders', 'update', 'old table as removed new table as added', 'record_order_money'],
    ['attributed_orders', 'delete', 'old table as removed', 'record_order_money'],
    ['order_events', 'insert', 'new table as added', 'record_order_event_money'],
    ['order_events', 'update', 'old table as removed new table as added', 'record_order_event_money'],
    ['order_events', 'delete', 'old table as removed', 'record_order_event_money'],
    // The ledger refuses updates of amounts and every delete (migration 0015): its inserts are all that move money.
    ['commission_ledger', 'insert', 'new table as added', 'record_ledger_money'],
  ] as const) {
    await sql
      .raw(`create trigger ${table}_money_${op} after ${op} on ${table}
            referencing ${transitions} for each statement execute function ${fn}()`)
      .execute(db);
  }
  await rebuild(`${REBUILD_ROLLUPS}${REBUILD_MONEY}`).execute(db);
  await sql.raw(`do $$ begin ${REBUILD_MONEY} end $$`).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await rebuild(REBUILD_ROLLUPS).execute(db);
  for (const [table, op] of [
    ['commission_ledger', 'insert'],
    ['order_events', 'delete'],
    ['order_events', 'update'],
    ['order_events', 'insert'],
    ['attributed_orders', 'delete'],
    ['attributed_orders', 'update'],
    ['attributed_orders', 'insert'],
  ] as const) {
    await sql.raw(`drop trigger if exists ${table}_money_${op} on ${table}`).execute(db);
  }
  await sql`drop function if exists record_ledger_money()`.execute(db);
  await sql`drop function if exists record_order_event_money()`.execute(db);
  await sql`drop function if exists record_order_money()`.execute(db);
  await sql`drop table if exists performance_pair_money_days`.execute(db);
  await sql`drop table if exists performance_money_days`.execute(db);
}
