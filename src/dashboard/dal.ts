import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database.js';
import type { PartnershipStatus } from '../db/schema.js';

// --- brand search ---

export interface BrandRow {
  id: string;
  business_name: string | null;
  domain: string | null;
  logo_image_url: string | null;
  categories: string[];
  status: PartnershipStatus | null;
  requester_id: string | null;
}

/** Below this many characters a contains-search has no trigram to use; it matches starts of words instead. */
const MIN_CONTAINS_SEARCH = 3;

/**
 * Brands whose name, domain or a category contains the text (case-insensitive), by name, with
 * the open or last partnership with the caller. The trigram index of migration 0009 answers a
 * text of three characters or more; a shorter one matches names, domains and categories, or
 * words of them, that start with it, which the same index answers from its word-start trigrams.
 * For a text that most brands contain, the planner walks brands by name instead and stops at
 * `limit`.
 */
export async function searchBrands(db: Db, companyId: string, text: string, limit: number): Promise<BrandRow[]> {
  const literal = text.replace(/\s+/g, ' ').replace(/[\\%_]/g, (c) => `\\${c}`);
  const searchText = sql`company_search_text(c.business_name, c.domain, c.categories)`;
  // Fields are separated by new lines in the indexed text (company_search_text).
  const matches =
    text.length >= MIN_CONTAINS_SEARCH
      ? sql`${searchText} like lower(${`%${literal}%`})`
      : sql`(${searchText} like lower(${`%\n${literal}%`}) or ${searchText} like lower(${`% ${literal}%`}))`;
  const result = await sql<BrandRow>`
    select c.id, c.business_name, c.domain, c.logo_image_url, c.categories, p.status, p.requester_id
    from companies c
    left join lateral (
      select status, requester_id from partnerships
      where (requester_id = ${companyId} and recipient_id = c.id) or (requester_id = c.id and recipient_id = ${companyId})
      order by created_at desc, id desc limit 1
    ) p on true
    where c.id <> ${companyId} and ${matches}
    order by c.business_name, c.id
    limit ${limit}`.execute(db);
  return result.rows;
}

// --- the referral links that lead to the brand's store ---

export interface ReferralLinkRow {
  token: string;
  platform_name: string | null;
  campaign_name: string | null;
  shower_name: string | null;
  domain: string | null;
  discount_code: string | null;
  created_at: Date;
}

/**
 * The referral links partners' pages use for the brand's offer (the brand is the link's partner),
 * newest first, from referral_links_partner_idx (migration 0017), with where each leads: the
 * brand's store and its discount code, unless the brand left the discount out of that campaign.
 */
export async function referralLinksToBrand(db: Db, companyId: string, limit: number): Promise<ReferralLinkRow[]> {
  const result = await sql<ReferralLinkRow>`
    select rl.token, p.name as platform_name, c.name as campaign_name, shower.business_name as shower_name, me.domain,
           case when co.include_discount = false then null else o.discount_code end as discount_code, rl.created_at
    from referral_links rl
    join companies me on me.id = rl.partner_id
    join companies shower on shower.id = rl.brand_id
    join campaigns c on c.id = rl.campaign_id
    join platforms p on p.id = rl.platform_id
    left join offers o on o.company_id = rl.partner_id and o.live
    left join campaign_offers co on co.campaign_id = rl.campaign_id and co.company_id = rl.partner_id
    where rl.partner_id = ${companyId}
    order by rl.created_at desc, rl.token
    limit ${limit}`.execute(db);
  return result.rows;
}

// --- performance (the rollups of migration 0009 for sealed days, the counters for the live week) ---

export interface PerformanceFigureRow {
  views: number;
  clicks: number;
  orders: number;
  new_customers: number;
  revenue_cents: number;
  commission_cents: number;
}

const FIGURE_COLUMNS: Array<keyof PerformanceFigureRow> = [
  'views',
  'clicks',
  'orders',
  'new_customers',
  'revenue_cents',
  'commission_cents',
];
/** Each figure of the rows `alias`, summed (`sum`) or as is (`value`), as a bigint that is 0 when there is none. */
const figures = (alias: string, shape: 'sum' | 'value') =>
  sql.raw(
    FIGURE_COLUMNS.map(
      (figure) => `coalesce(${shape === 'sum' ? `sum(${alias}.${figure})` : `${alias}.${figure}`}, 0)::int8 as ${figure}`,
    ).join(', '),
  );
const figureList = (alias: string) => sql.raw(FIGURE_COLUMNS.map((figure) => `${alias}.${figure}`).join(', '));

/** The last day whose views and clicks are in the rollups; later days are read from the counters. */
const sealedThrough = sql`(select coalesce(sealed_through, '-infinity'::date) from performance_sealed)`;

/**
 * Views and clicks of the days not sealed yet (at most a week), from the raw counters and from
 * both sides, as the rollups hold them: as the showing brand (attribution_counters_brand_idx) and
 * as the partner whose offer another brand showed (attribution_counters_partner_idx). Orders are
 * in the rollups whatever their day. `others` limits the rows to some brands.
 */
function liveRows(companyId: string, from: string, to: string, others?: RawBuilder<unknown>) {
  const days = sql`c.day between ${from}::date and ${to}::date and c.day > ${sealedThrough}`;
  const noOrders = sql.raw('0::int8 as orders, 0::int8 as new_customers, 0::int8 as revenue_cents, 0::int8 as commission_cents');
  return sql`
    select c.day, c.platform_id, c.partner_id as other_id, c.views, c.clicks, ${noOrders} from attribution_counters c
    where c.brand_id = ${companyId} and ${days} ${others ? sql`and c.partner_id = ${others}` : sql``}
    union all
    select c.day, c.platform_id, c.brand_id, c.views, c.clicks, ${noOrders} from attribution_counters c
    where c.partner_id = ${companyId} and c.brand_id <> ${companyId} and ${days} ${others ? sql`and c.brand_id = ${others}` : sql``}`;
}

/**
 * The brand's figures per day and per platform (one grouping each), from both sides: offers of
 * partners it showed, and its own offer shown by partners. Days are UTC, from and to inclusive.
 * Reads at most days x platforms rollup rows, and the counters of the live days only.
 */
export async function performanceByDayAndPlatform(db: Db, companyId: string, from: string, to: string) {
  const result = await sql<PerformanceFigureRow & { day: string | null; platform_id: string | null; platform_name: string | null }>`
    select to_char(f.day, 'YYYY-MM-DD') as day, f.platform_id::text as platform_id, max(p.name) as platform_name, ${figures('f', 'sum')}
    from (
      select d.day, d.platform_id, ${figureList('d')} from performance_days d
      where d.company_id = ${companyId} and d.day between ${from}::date and ${to}::date
      union all
      select live.day, live.platform_id, ${figureList('live')} from (${liveRows(companyId, from, to)}) live
    ) f
    left join platforms p on p.id = f.platform_id
    group by grouping sets ((f.day), (f.platform_id))
    order by 1, 2`.execute(db);
  return result.rows;
}

export async function countPerformancePartners(db: Db, companyId: string): Promise<number> {
  const row = await db
    .selectFrom('performance_partners')
    .select(sql<number>`count(*)::int8`.as('n'))
    .where('company_id', '=', companyId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export type PerformancePartnerRow = PerformanceFigureRow & { other_id: string; other_name: string | null };

/**
 * The company's rows with each other brand over the range, from both sides: as the showing
 * brand, and as the partner whose offer another brand showed (its own showings of its own offer
 * count once); sealed days from the rollups, live days' views and clicks from the counters.
 * `others` limits them to some brands.
 */
function pairRows(companyId: string, from: string, to: string, others?: RawBuilder<unknown>) {
  const days = sql`d.day between ${from}::date and ${to}::date`;
  return sql`
    select d.partner_id as other_id, ${figureList('d')} from performance_pair_days d
    where d.brand_id = ${companyId} and ${days} ${others ? sql`and d.partner_id = ${others}` : sql``}
    union all
    select d.brand_id, ${figureList('d')} from performance_pair_days d
    where d.partner_id = ${companyId} and d.brand_id <> ${companyId} and ${days} ${others ? sql`and d.brand_id = ${others}` : sql``}
    union all
    select live.other_id, ${figureList('live')} from (${liveRows(companyId, from, to, others)}) live`;
}

/**
 * One page of the brands the company has run campaigns with, by name, each with its figures over
 * the range: only the page's brands are summed, through (brand, partner, day) from either side.
 */
export async function performancePartnerPage(
  db: Db,
  companyId: string,
  from: string,
  to: string,
  window: { fromEnd: boolean; offset: number; limit: number },
) {
  const direction = window.fromEnd ? sql`desc` : sql`asc`;
  const result = await sql<PerformancePartnerRow>`
    select page.other_id, page.other_name, figures.*
    from (
      select other_id, other_name from performance_partners
      where company_id = ${companyId}
      order by other_name ${direction}, other_id ${direction}
      offset ${window.offset} limit ${window.limit}
    ) page
    cross join lateral (
      select ${figures('pair', 'sum')} from (${pairRows(companyId, from, to, sql`page.other_id`)}) pair
    ) figures
    order by page.other_name ${direction}, page.other_id ${direction}`.execute(db);
  return window.fromEnd ? result.rows.reverse() : result.rows;
}

/**
 * Every brand the company has run campaigns with, by name, with its figures over the range (the
 * CSV export): sums all of the company's rows with other brands in the range.
 */
export async function performanceAllPartners(db: Db, companyId: string, from: string, to: string): Promise<PerformancePartnerRow[]> {
  const result = await sql<PerformancePartnerRow>`
    select p.other_id, p.other_name, ${figures('f', 'value')}
    from performance_partners p
    left join (
      select pair.other_id, ${figures('pair', 'sum')} from (${pairRows(companyId, from, to)}) pair group by pair.other_id
    ) f on f.other_id = p.other_id
    where p.company_id = ${companyId}
    order by p.other_name, p.other_id`.execute(db);
  return result.rows;
}

/**
 * Folds the views and clicks of every day older than the live window into the rollups (one
 * transaction; concurrent callers wait their turn and find it done); returns the last sealed day.
 */
export async function sealPerformance(db: Db): Promise<string | null> {
  const result = await sql<{
    sealed: string | null;
  }>`select to_char(seal_performance(performance_seal_day()), 'YYYY-MM-DD') as sealed`.execute(db);
  return result.rows[0]?.sealed ?? null;
}

// --- performance per role: `shown` (offers the brand showed on its own pages) or `received` (its offer on a partner's) ---

export type Side = 'shown' | 'received';

/**
 * Views and clicks of the live days (not sealed yet) for one role, from the raw counters: as the
 * showing brand (attribution_counters_brand_idx), or as the partner whose offer another brand
 * showed (attribution_counters_partner_idx). `other` names the other brand of each row.
 */
function liveSideRows(companyId: string, side: Side, from: string, to: string, others?: RawBuilder<unknown>) {
  const days = sql`c.day between ${from}::date and ${to}::date and c.day > ${sealedThrough}`;
  return side === 'shown'
    ? sql`
      select c.day, c.platform_id, c.partner_id as other_id, c.views, c.clicks from attribution_counters c
      where c.brand_id = ${companyId} and ${days} ${others ? sql`and c.partner_id = ${others}` : sql``}`
    : sql`
      select c.day, c.platform_id, c.brand_id as other_id, c.views, c.clicks from attribution_counters c
      where c.partner_id = ${companyId} and c.brand_id <> ${companyId} and ${days} ${others ? sql`and c.brand_id = ${others}` : sql``}`;
}

export interface ViewsClicksRow {
  views: number;
  clicks: number;
}

/** One role's views and clicks per day and per platform: the role's rollup rows of sealed days, the counters of live ones. */
export async function sideViewsByDayAndPlatform(db: Db, companyId: string, side: Side, from: string, to: string) {
  const result = await sql<ViewsClicksRow & { day: string | null; platform_id: string | null; platform_name: string | null }>`
    select to_char(f.day, 'YYYY-MM-DD') as day, f.platform_id::text as platform_id, max(p.name) as platform_name,
           coalesce(sum(f.views), 0)::int8 as views, coalesce(sum(f.clicks), 0)::int8 as clicks
    from (
      select d.day, d.platform_id, d.views, d.clicks from performance_days d
      where d.company_id = ${companyId} and d.side = ${side} and d.day between ${from}::date and ${to}::date
      union all
      select live.day, live.platform_id, live.views, live.clicks from (${liveSideRows(companyId, side, from, to)}) live
    ) f
    left join platforms p on p.id = f.platform_id
    group by grouping sets ((f.day), (f.platform_id))
    order by 1, 2`.execute(db);
  return result.rows;
}

/** One role's rows with other brands: the pair rollups in that direction, and the live counters. */
function sidePairRows(companyId: string, side: Side, from: string, to: string, others?: RawBuilder<unknown>) {
  const days = sql`d.day between ${from}::date and ${to}::date`;
  const rollups =
    side === 'shown'
      ? sql`select d.partner_id as other_id, d.views, d.clicks from performance_pair_days d
            where d.brand_id = ${companyId} and ${days} ${others ? sql`and d.partner_id = ${others}` : sql``}`
      : sql`select d.brand_id as other_id, d.views, d.clicks from performance_pair_days d
            where d.partner_id = ${companyId} and d.brand_id <> ${companyId} and ${days}
            ${others ? sql`and d.brand_id = ${others}` : sql``}`;
  const live = liveSideRows(companyId, side, from, to, others);
  return sql`${rollups} union all select live.other_id, live.views, live.clicks from (${live}) live`;
}

/** One page of the brands the company has run campaigns with, by name, with one role's views and clicks with each. */
export async function sidePartnerPage(
  db: Db,
  companyId: string,
  side: Side,
  from: string,
  to: string,
  window: { fromEnd: boolean; offset: number; limit: number },
) {
  const direction = window.fromEnd ? sql`desc` : sql`asc`;
  const result = await sql<ViewsClicksRow & { other_id: string; other_name: string | null }>`
    select page.other_id, page.other_name, figures.views, figures.clicks
    from (
      select other_id, other_name from performance_partners
      where company_id = ${companyId}
      order by other_name ${direction}, other_id ${direction}
      offset ${window.offset} limit ${window.limit}
    ) page
    cross join lateral (
      select coalesce(sum(pair.views), 0)::int8 as views, coalesce(sum(pair.clicks), 0)::int8 as clicks
      from (${sidePairRows(companyId, side, from, to, sql`page.other_id`)}) pair
    ) figures
    order by page.other_name ${direction}, page.other_id ${direction}`.execute(db);
  return window.fromEnd ? result.rows.reverse() : result.rows;
}

/** Every brand the company has run campaigns with, by name, with one role's views and clicks (the CSV). */
export async function sideAllPartners(db: Db, companyId: string, side: Side, from: string, to: string) {
  const result = await sql<ViewsClicksRow & { other_id: string; other_name: string | null }>`
    select p.other_id, p.other_name, coalesce(f.views, 0)::int8 as views, coalesce(f.clicks, 0)::int8 as clicks
    from performance_partners p
    left join (
      select pair.other_id, sum(pair.views) as views, sum(pair.clicks) as clicks
      from (${sidePairRows(companyId, side, from, to)}) pair group by pair.other_id
    ) f on f.other_id = p.other_id
    where p.company_id = ${companyId}
    order by p.other_name, p.other_id`.execute(db);
  return result.rows;
}

/** A role's orders and money in one currency. */
export interface MoneyRow {
  currency: string;
  orders: number;
  new_customers: number;
  revenue_minor: number;
  commission_minor: number;
}

const moneySums = sql.raw(
  ['orders', 'new_customers', 'revenue_minor', 'commission_minor'].map((figure) => `sum(m.${figure})::int8 as ${figure}`).join(', '),
);

/** Which grouping a money row is: one day's, one platform's (null: "unknown platform"), or the range's total. */
export type MoneyGrouping = 'day' | 'platform' | 'total';

/**
 * One role's attributed orders placed in the range, per currency: per day, per platform and in
 * all, from the money rollups of migrations 0019 and 0030 (at most days x platforms x currencies
 * rows). Orders credited to a brand pair with no platform (matched by the partner's discount code
 * alone) are a platform row of their own with a null platform. Revenue is the orders' totals less
 * what cancels and refunds took; commission is the sum of the orders' ledger entries (reversals
 * included), as the ledger holds them.
 */
export async function sideMoneyByDayAndPlatform(
  db: Db,
  companyId: string,
  side: Side,
  from: string,
  to: string,
): Promise<Array<MoneyRow & { grouping: MoneyGrouping; day: string | null; platform_id: string | null }>> {
  const result = await sql<MoneyRow & { grouping: MoneyGrouping; day: string | null; platform_id: string | null }>`
    select case grouping(m.day, m.platform_id) when 1 then 'day' when 2 then 'platform' else 'total' end as grouping,
           to_char(m.day, 'YYYY-MM-DD') as day, m.platform_id::text as platform_id, m.currency, ${moneySums}
    from performance_money_days m
    where m.company_id = ${companyId} and m.side = ${side} and m.day between ${from}::date and ${to}::date
    group by grouping sets ((m.day, m.currency), (m.platform_id, m.currency), (m.currency))
    having sum(m.orders) > 0
    order by m.currency, 2, 3`.execute(db);
  return result.rows;
}

/**
 * One role's orders and money per other brand and currency over the range, from the pair money
 * rollups (one row per showing brand, partner, day and currency): for the brands `others`, or for
 * every brand (the CSV).
 */
export async function sidePartnerMoney(
  db: Db,
  companyId: string,
  side: Side,
  from: string,
  to: string,
  others?: string[],
): Promise<Array<MoneyRow & { other_id: string }>> {
  const days = sql`m.day between ${from}::date and ${to}::date`;
  const [other, mine] =
    side === 'shown'
      ? [sql.ref('m.partner_id'), sql`m.brand_id = ${companyId}`]
      : [sql.ref('m.brand_id'), sql`m.partner_id = ${companyId} and m.brand_id <> ${companyId}`];
  const result = await sql<MoneyRow & { other_id: string }>`
    select ${other} as other_id, m.currency, ${moneySums}
    from performance_pair_money_days m
    where ${mine} and ${days} ${others ? sql`and ${other} = any(${others}::text[])` : sql``}
    group by 1, 2
    having sum(m.orders) > 0
    order by 1, 2`.execute(db);
  return result.rows;
}
