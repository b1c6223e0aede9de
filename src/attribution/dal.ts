import { sql } from 'kysely';
import type { Db } from '../db/database.js';

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
    .leftJoin('campaign_offers as co', (join) => join.onRef('co.campaign_id', '=', 'rl.campaign_id').onRef('co.company_id', '=', 'rl.partner_id'))
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

/**
 * Adds a batch of counter deltas in one statement. Rows go in key order so that two instances
 * writing overlapping batches lock them in the same order and cannot deadlock.
 */
export async function addCounters(db: Db, rows: CounterRow[]): Promise<void> {
  if (rows.length === 0) return;
  await sql`
    insert into attribution_counters as c (platform_id, day, campaign_id, brand_id, partner_id, shard, views, clicks)
    select item.platform_id::uuid, item.day::date, item.campaign_id, item.brand_id, item.partner_id, item.shard, item.views, item.clicks
    from unnest(${rows.map((row) => row.platformId)}::text[],
                ${rows.map((row) => row.day)}::text[],
                ${rows.map((row) => row.campaignId)}::text[],
                ${rows.map((row) => row.brandId)}::text[],
                ${rows.map((row) => row.partnerId)}::text[],
                ${rows.map((row) => row.shard)}::smallint[],
                ${rows.map((row) => row.views)}::bigint[],
                ${rows.map((row) => row.clicks)}::bigint[]) as item(platform_id, day, campaign_id, brand_id, partner_id, shard, views, clicks)
    order by 1, 2, 3, 4, 5, 6
    on conflict (platform_id, day, campaign_id, brand_id, partner_id, shard) do update set
      views = c.views + excluded.views,
      clicks = c.clicks + excluded.clicks`.execute(db);
}

/**
 * Credits one order to a link's counters for its day. Orders arrive one webhook at a time, far
 * below the rate of views, so they skip group commit and join the caller's transaction instead.
 */
export async function addOrderCount(db: Db, link: LinkKey, day: string): Promise<void> {
  await sql`
    insert into attribution_counters as c (platform_id, day, campaign_id, brand_id, partner_id, shard, orders)
    values (${link.platformId}::uuid, ${day}::date, ${link.campaignId}, ${link.brandId}, ${link.partnerId}, 0, 1)
    on conflict (platform_id, day, campaign_id, brand_id, partner_id, shard) do update set orders = c.orders + 1`.execute(db);
}

export interface PlatformTotals {
  views: number;
  clicks: number;
  orders: number;
}

export async function platformTotals(db: Db, platformId: string): Promise<PlatformTotals> {
  const row = await db
    .selectFrom('attribution_counters')
    .select([
      sql<number>`coalesce(sum(views), 0)::int8`.as('views'),
      sql<number>`coalesce(sum(clicks), 0)::int8`.as('clicks'),
      sql<number>`coalesce(sum(orders), 0)::int8`.as('orders'),
    ])
    .where('platform_id', '=', platformId)
    .executeTakeFirstOrThrow();
  return { views: Number(row.views), clicks: Number(row.clicks), orders: Number(row.orders) };
}
