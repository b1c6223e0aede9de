import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { executePrepared } from '../db/prepared.js';

/** What a referral link names: the platform that showed the offer, the campaign, the showing brand and the partner. */
export interface LinkKey {
  platformId: string;
  campaignId: string;
  brandId: string;
  partnerId: string;
}

export interface CounterRow extends LinkKey {
  /** UTC day, YYYY-MM-DD. */
  day: string;
  /** Which of the concurrent writers' rows this delta goes to (see WRITE_SLOTS). */
  shard: number;
  views: number;
  clicks: number;
}

export interface ResolvedLink extends LinkKey {
  partnerDomain: string | null;
  /** The partner's discount code while its offer is live. */
  discountCode: string | null;
}

/**
 * Creates the missing links in one statement and returns the token of every requested link.
 * The no-op update makes conflicting rows come back too, including ones a concurrent request
 * inserted a moment ago, so each link keeps the first token ever issued for it.
 */
export async function upsertReferralLinks(db: Db, links: Array<LinkKey & { token: string }>): Promise<Array<LinkKey & { token: string }>> {
  if (links.length === 0) return [];
  const result = await sql<{ token: string; platform_id: string; campaign_id: string; brand_id: string; partner_id: string }>`
    insert into referral_links as rl (token, platform_id, campaign_id, brand_id, partner_id)
    select item.token, item.platform_id::uuid, item.campaign_id, item.brand_id, item.partner_id
    from unnest(${links.map((link) => link.token)}::text[],
                ${links.map((link) => link.platformId)}::text[],
                ${links.map((link) => link.campaignId)}::text[],
                ${links.map((link) => link.brandId)}::text[],
                ${links.map((link) => link.partnerId)}::text[]) as item(token, platform_id, campaign_id, brand_id, partner_id)
    on conflict (platform_id, campaign_id, brand_id, partner_id) do update set token = rl.token
    returning rl.token, rl.platform_id, rl.campaign_id, rl.brand_id, rl.partner_id`.execute(db);
  return result.rows.map((row) => ({
    token: row.token,
    platformId: row.platform_id,
    campaignId: row.campaign_id,
    brandId: row.brand_id,
    partnerId: row.partner_id,
  }));
}

export async function findReferralLink(db: Db, token: string): Promise<ResolvedLink | undefined> {
  const row = await db
    .selectFrom('referral_links as rl')
    .innerJoin('companies as partner', 'partner.id', 'rl.partner_id')
    .leftJoin('offers as o', (join) => join.onRef('o.company_id', '=', 'rl.partner_id').on('o.live', '=', true))
    // The partner may leave its discount out of this one campaign's offer.
    .leftJoin('campaign_offers as co', (join) =>
      join.onRef('co.campaign_id', '=', 'rl.campaign_id').onRef('co.company_id', '=', 'rl.partner_id'),
    )
    .select(['rl.platform_id', 'rl.campaign_id', 'rl.brand_id', 'rl.partner_id', 'partner.domain'])
    .select(sql<string | null>`case when co.include_discount = false then null else o.discount_code end`.as('discount_code'))
    .where('rl.token', '=', token)
    .executeTakeFirst();
  return (
    row && {
      platformId: row.platform_id,
      campaignId: row.campaign_id,
      brandId: row.brand_id,
      partnerId: row.partner_id,
      partnerDomain: row.domain,
      discountCode: row.discount_code,
    }
  );
}

/** Starts a writer's batch numbers at 0 (src/attribution/counter-writer.ts); again is harmless, should an answer be lost. */
export async function registerCounterWriter(db: Db, writerId: string): Promise<void> {
  await db
    .insertInto('attribution_writers')
    .values({ writer_id: writerId, last_batch: 0 })
    .onConflict((conflict) => conflict.column('writer_id').doNothing())
    .execute();
}

/** The rows as the table `item` (one array parameter a column), for the statements that add or take back counters. */
function counterItems(rows: CounterRow[]) {
  return sql`unnest(${rows.map((row) => row.platformId)}::uuid[],
                    ${rows.map((row) => row.day)}::date[],
                    ${rows.map((row) => row.campaignId)}::text[],
                    ${rows.map((row) => row.brandId)}::text[],
                    ${rows.map((row) => row.partnerId)}::text[],
                    ${rows.map((row) => row.shard)}::smallint[],
                    ${rows.map((row) => row.views)}::bigint[],
                    ${rows.map((row) => row.clicks)}::bigint[])
             as item(platform_id, day, campaign_id, brand_id, partner_id, shard, views, clicks)`;
}

/**
 * Adds a batch of counter deltas in one statement (one group-commit write), as the writer's batch
 * `afterBatch + 1`: only while the writer's last batch is `afterBatch`, moving it on in the same
 * statement. A batch that arrives after the writer gave up on it and fenced it off adds nothing.
 * Returns whether it added. Rows go in key order so that two instances writing overlapping
 * batches lock them in the same order and cannot deadlock. The performance rollups are not
 * written here: they take a day's counters once the day has passed (seal_performance, migration
 * 0009), which keeps this statement as small as the hot path needs.
 */
export async function writeCounterBatch(db: Db, writerId: string, afterBatch: number, rows: CounterRow[]): Promise<boolean> {
  const result = await executePrepared(
    db,
    'add_attribution_counters',
    sql`
    with advanced as (
      update attribution_writers set last_batch = last_batch + 1, written_at = now()
      where writer_id = ${writerId}::uuid and last_batch = ${afterBatch}::int8
      returning writer_id
    )
    insert into attribution_counters as c (platform_id, day, campaign_id, brand_id, partner_id, shard, views, clicks)
    select item.platform_id, item.day, item.campaign_id, item.brand_id, item.partner_id, item.shard, item.views, item.clicks
    from ${counterItems(rows)}
    where exists (select from advanced)
    order by 1, 2, 3, 4, 5, 6
    on conflict (platform_id, day, campaign_id, brand_id, partner_id, shard) do update set
      views = c.views + excluded.views,
      clicks = c.clicks + excluded.clicks`,
  );
  return Number(result.numAffectedRows ?? 0) > 0;
}

/**
 * Adds counts of past days outside the group commit (the demo history), in one statement: the
 * counters, and for days the rollups already sealed, the rollups too (seal_performance takes only
 * days after the last sealed one, so it would never count them). The sealed row is locked first,
 * so a seal running meanwhile either came before (and its days are recorded here) or waits.
 */
export async function addPastCounters(db: Db, rows: CounterRow[]): Promise<void> {
  if (rows.length === 0) return;
  await sql`
    with sealed as (select coalesce(sealed_through, '-infinity'::date) as through from performance_sealed for update),
    item as (
      select * from ${counterItems(rows)}
    ),
    added as (
      insert into attribution_counters as c (platform_id, day, campaign_id, brand_id, partner_id, shard, views, clicks)
      select item.* from item where exists (select from sealed)
      order by 1, 2, 3, 4, 5, 6
      on conflict (platform_id, day, campaign_id, brand_id, partner_id, shard) do update set
        views = c.views + excluded.views,
        clicks = c.clicks + excluded.clicks
    )
    select record_performance(array_agg(item.platform_id), array_agg(item.day), array_agg(item.brand_id), array_agg(item.partner_id),
      array_agg(item.views), array_agg(item.clicks), null::bigint[], null::bigint[], null::bigint[], null::bigint[])
    from item, sealed where item.day <= sealed.through`.execute(db);
}

/**
 * Makes sure batch `batch` of a writer does not count, whatever became of it: taken back if it
 * was added, fenced off if not (so that it adds nothing should it still arrive), and nothing more
 * if this already happened (the writer is past it). The writer's last batch is then `batch + 1`.
 * The writer's row is locked by a statement of its own first: a batch arriving meanwhile has then
 * either committed, and the next statement sees its rows, or will find the fence.
 */
export async function takeBackCounterBatch(
  db: Db,
  writerId: string,
  batch: number,
  rows: CounterRow[],
): Promise<'taken back' | 'fenced off' | 'already settled'> {
  return db.transaction().execute(async (trx) => {
    const writer = await trx
      .selectFrom('attribution_writers')
      .select('last_batch')
      .where('writer_id', '=', writerId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    if (writer.last_batch === batch) {
      await sql`
        update attribution_counters as c set views = c.views - item.views, clicks = c.clicks - item.clicks
        from ${counterItems(rows)}
        where (c.platform_id, c.day, c.campaign_id, c.brand_id, c.partner_id, c.shard)
            = (item.platform_id, item.day, item.campaign_id, item.brand_id, item.partner_id, item.shard)`.execute(trx);
    }
    await trx
      .updateTable('attribution_writers')
      .set({ last_batch: batch + 1, written_at: new Date() })
      .where('writer_id', '=', writerId)
      .execute();
    return writer.last_batch === batch ? 'taken back' : writer.last_batch === batch - 1 ? 'fenced off' : 'already settled';
  });
}

/** A platform's orders and their money in one currency; amounts of different currencies are never added. */
export interface CurrencyFigures {
  currency: string;
  orders: number;
  newCustomers: number;
  revenueMinor: number;
  commissionMinor: number;
}

export interface PerformanceFigures {
  views: number;
  clicks: number;
  orders: number;
  newCustomers: number;
  money: CurrencyFigures[];
}

/** UTC days, inclusive; either end may be open. */
export interface DayRange {
  from?: string | undefined;
  to?: string | undefined;
}

/**
 * What a platform was credited with, from the raw counters, orders, events and ledger (not the
 * dashboard's rollups, so the two are checked against each other): views and clicks, the order
 * counts, and per currency the orders' totals less what cancels and refunds took (revenue) and
 * the sum of their ledger entries (commission less reversals), in minor units. A null platform
 * reads the orders credited to a brand pair with no platform ("unknown platform": matched by the
 * partner's discount code alone); it has no views or clicks, which always name their platform.
 */
export async function platformTotals(db: Db, platformId: string | null, range: DayRange = {}): Promise<PerformanceFigures> {
  const from = range.from ?? null;
  const to = range.to ?? null;
  const counted = await sql<{ views: number; clicks: number }>`
    select coalesce(sum(views), 0)::int8 as views, coalesce(sum(clicks), 0)::int8 as clicks
    from attribution_counters
    where platform_id = ${platformId}::uuid
      and (${from}::date is null or day >= ${from}::date) and (${to}::date is null or day <= ${to}::date)`.execute(db);
  const money = await sql<CurrencyFigures>`
    select o.currency, count(*)::int8 as orders, count(*) filter (where o.new_customer)::int8 as "newCustomers",
           coalesce(sum(o.total_cents - coalesce(taken.amount, 0)), 0)::int8 as "revenueMinor",
           coalesce(sum(coalesce(booked.amount, 0)), 0)::int8 as "commissionMinor"
    from attributed_orders o
    left join lateral (select sum(e.amount_cents) as amount from order_events e
                       where e.store_domain = o.store_domain and e.order_id = o.order_id) taken on true
    left join lateral (select sum(l.amount_minor) as amount from commission_ledger l
                       where l.store_domain = o.store_domain and l.order_id = o.order_id) booked on true
    where o.platform_id is not distinct from ${platformId}::uuid and o.brand_id is not null and o.partner_id is not null
      and (${from}::date is null or o.placed_at >= ${from}::date::timestamp at time zone 'UTC')
      and (${to}::date is null or o.placed_at < (${to}::date + 1)::timestamp at time zone 'UTC')
    group by o.currency
    order by o.currency`.execute(db);
  // Every column is int8, which src/db/database.ts parses as a number on both engines.
  return {
    ...counted.rows[0]!,
    orders: money.rows.reduce((sum, row) => sum + row.orders, 0),
    newCustomers: money.rows.reduce((sum, row) => sum + row.newCustomers, 0),
    money: money.rows,
  };
}
