import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { effectiveCampaignStatusSql, type CampaignStatus } from '../campaigns/status.js';
import type { PartnershipStatus, StoredCampaignStatus } from '../db/schema.js';

// --- brands and partnerships ---

export interface BrandRow {
  id: string;
  business_name: string | null;
  domain: string | null;
  logo_image_url: string | null;
  categories: string[];
  status: PartnershipStatus | null;
  requester_id: string | null;
}

/** Brands whose name, domain or a category contains the text, with the open or last partnership with the caller. */
export async function searchBrands(db: Db, companyId: string, text: string, limit: number): Promise<BrandRow[]> {
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const result = await sql<BrandRow>`
    select c.id, c.business_name, c.domain, c.logo_image_url, c.categories, p.status, p.requester_id
    from companies c
    left join lateral (
      select status, requester_id from partnerships
      where (requester_id = ${companyId} and recipient_id = c.id) or (requester_id = c.id and recipient_id = ${companyId})
      order by created_at desc, id desc limit 1
    ) p on true
    where c.id <> ${companyId}
      and (c.business_name ilike ${pattern} or c.domain ilike ${pattern}
           or exists (select 1 from unnest(c.categories) category where category ilike ${pattern}))
    order by c.business_name nulls last, c.id
    limit ${limit}`.execute(db);
  return result.rows;
}

/** Company ids by domain: recommendations name brands by domain, and a request needs the id. */
export async function companyIdsByDomain(db: Db, domains: string[]): Promise<Map<string, string>> {
  if (domains.length === 0) return new Map();
  const rows = await db.selectFrom('companies').select(['id', 'domain']).where('domain', 'in', domains).execute();
  return new Map(rows.map((row) => [row.domain!, row.id]));
}

export async function companyExists(db: Db, companyId: string): Promise<boolean> {
  return (await db.selectFrom('companies').select('id').where('id', '=', companyId).executeTakeFirst()) !== undefined;
}

/** Inserts a request; false when the pair already has an open (requested or active) partnership. */
export async function insertRequest(db: Db, requesterId: string, recipientId: string, message: string | null): Promise<boolean> {
  const result = await sql<{ id: string }>`
    insert into partnerships (requester_id, recipient_id, status, message)
    values (${requesterId}, ${recipientId}, 'pending', ${message})
    on conflict do nothing
    returning id`.execute(db);
  return result.rows.length > 0;
}

/**
 * Moves the pair's open partnership from one status to another when the caller is on the given
 * side; returns its id, or undefined when there is no such partnership.
 */
export async function moveOpenPartnership(
  db: Db,
  pair: { callerId: string; otherId: string; callerSide: 'requester' | 'recipient' | 'either' },
  from: PartnershipStatus,
  to: PartnershipStatus,
  now: Date,
): Promise<string | undefined> {
  const asRequester = sql`(requester_id = ${pair.callerId} and recipient_id = ${pair.otherId})`;
  const asRecipient = sql`(requester_id = ${pair.otherId} and recipient_id = ${pair.callerId})`;
  const side = pair.callerSide === 'requester' ? asRequester : pair.callerSide === 'recipient' ? asRecipient : sql`(${asRequester} or ${asRecipient})`;
  const result = await sql<{ id: string }>`
    update partnerships set status = ${to}, updated_at = ${now}
    where ${side} and status = ${from}
    returning id`.execute(db);
  return result.rows[0]?.id;
}

/** The latest partnership of the caller with each of the brands, whatever its status. */
export async function latestPartnershipStatuses(db: Db, companyId: string, others: string[]) {
  if (others.length === 0) return [];
  const result = await sql<{ other_id: string; status: PartnershipStatus; requester_id: string }>`
    select distinct on (other_id) other_id, status, requester_id
    from (
      select recipient_id as other_id, status, requester_id, created_at, id from partnerships
      where requester_id = ${companyId} and recipient_id = any(${others}::text[])
      union all
      select requester_id, status, requester_id, created_at, id from partnerships
      where recipient_id = ${companyId} and requester_id = any(${others}::text[])
    ) as pairs
    order by other_id, created_at desc, id desc`.execute(db);
  return result.rows;
}

/** Campaigns of an ended partnership end with it: only active partnerships have running campaigns (DESIGN 4). */
export async function closeCampaignsOfPartnership(db: Db, partnershipId: string, now: Date): Promise<void> {
  await db
    .updateTable('campaigns')
    .set({ status: 'closed', updated_at: now })
    .where('partnership_id', '=', partnershipId)
    .where('status', '<>', 'closed')
    .execute();
}

export async function activePartnershipId(db: Db, a: string, b: string): Promise<string | undefined> {
  const result = await sql<{ id: string }>`
    select id from partnerships
    where ((requester_id = ${a} and recipient_id = ${b}) or (requester_id = ${b} and recipient_id = ${a})) and status = 'active'
    limit 1`.execute(db);
  return result.rows[0]?.id;
}

// --- campaigns and offers ---

export interface CampaignDetailRow {
  id: string;
  name: string | null;
  status: StoredCampaignStatus;
  effective_status: CampaignStatus;
  start_date: Date | null;
  end_date: Date | null;
  owner_id: string;
  partner_id: string;
  partner_name: string | null;
  created_at: Date;
}

export async function listCampaignDetails(db: Db, companyId: string, now: Date, limit: number): Promise<CampaignDetailRow[]> {
  const result = await sql<CampaignDetailRow>`
    select c.id, c.name, c.status, ${effectiveCampaignStatusSql('c', now)} as effective_status, c.start_date, c.end_date,
           c.owner_id, c.partner_id, other.business_name as partner_name, c.created_at
    from (
      (select id, created_at from campaigns where owner_id = ${companyId} order by created_at desc, id desc limit ${limit})
      union all
      (select id, created_at from campaigns where partner_id = ${companyId} order by created_at desc, id desc limit ${limit})
      order by created_at desc, id desc limit ${limit}
    ) as keys
    join campaigns c on c.id = keys.id
    join companies other on other.id = case when c.owner_id = ${companyId} then c.partner_id else c.owner_id end
    order by keys.created_at desc, keys.id desc`.execute(db);
  return result.rows;
}

export async function findCampaign(db: Db, campaignId: string) {
  return db
    .selectFrom('campaigns')
    .select(['id', 'owner_id', 'partner_id', 'partnership_id', 'status', 'start_date', 'end_date'])
    .where('id', '=', campaignId)
    .executeTakeFirst();
}

export async function insertCampaign(
  db: Db,
  campaign: { id: string; partnershipId: string; ownerId: string; partnerId: string; name: string; startDate: Date | null; endDate: Date | null; now: Date },
): Promise<void> {
  await db
    .insertInto('campaigns')
    .values({
      id: campaign.id,
      partnership_id: campaign.partnershipId,
      owner_id: campaign.ownerId,
      partner_id: campaign.partnerId,
      name: campaign.name,
      status: 'draft',
      start_date: campaign.startDate,
      end_date: campaign.endDate,
      created_at: campaign.now,
      updated_at: campaign.now,
    })
    .execute();
}

/** Changes a campaign's stored status only from the expected one, so two clicks cannot both win. */
export async function setCampaignStatus(
  db: Db,
  campaignId: string,
  from: StoredCampaignStatus[],
  change: { status: StoredCampaignStatus; startDate?: Date | null },
  now: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('campaigns')
    .set({ status: change.status, updated_at: now, ...(change.startDate === undefined ? {} : { start_date: change.startDate }) })
    .where('id', '=', campaignId)
    .where('status', 'in', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export interface OfferRow {
  company_id: string;
  title: string;
  subtitle: string | null;
  image_url: string;
  discount_percent: number | null;
  discount_code: string | null;
  live: boolean;
}

export async function findOffers(db: Db, companyIds: string[]): Promise<OfferRow[]> {
  if (companyIds.length === 0) return [];
  return db
    .selectFrom('offers')
    .select(['company_id', 'title', 'subtitle', 'image_url', 'discount_percent', 'discount_code', 'live'])
    .where('company_id', 'in', companyIds)
    .execute();
}

export interface CampaignOfferContent {
  title: string;
  subtitle: string | null;
  imageUrl: string;
  includeDiscount: boolean;
}

export interface CampaignOfferRow {
  campaign_id: string;
  company_id: string;
  title: string;
  subtitle: string | null;
  image_url: string;
  include_discount: boolean;
}

export async function findCampaignOffers(db: Db, campaignIds: string[]): Promise<CampaignOfferRow[]> {
  if (campaignIds.length === 0) return [];
  return db
    .selectFrom('campaign_offers')
    .select(['campaign_id', 'company_id', 'title', 'subtitle', 'image_url', 'include_discount'])
    .where('campaign_id', 'in', campaignIds)
    .execute();
}

export async function upsertCampaignOffer(db: Db, campaignId: string, companyId: string, offer: CampaignOfferContent, now: Date): Promise<void> {
  const values = { title: offer.title, subtitle: offer.subtitle, image_url: offer.imageUrl, include_discount: offer.includeDiscount, updated_at: now };
  await db
    .insertInto('campaign_offers')
    .values({ campaign_id: campaignId, company_id: companyId, ...values })
    .onConflict((oc) => oc.columns(['campaign_id', 'company_id']).doUpdateSet(values))
    .execute();
}

export async function deleteCampaignOffer(db: Db, campaignId: string, companyId: string): Promise<void> {
  await db.deleteFrom('campaign_offers').where('campaign_id', '=', campaignId).where('company_id', '=', companyId).execute();
}

export async function upsertOffer(
  db: Db,
  offer: { companyId: string; title: string; subtitle: string | null; imageUrl: string; discountPercent: number | null; discountCode: string | null; now: Date },
): Promise<void> {
  await db
    .insertInto('offers')
    .values({
      company_id: offer.companyId,
      title: offer.title,
      subtitle: offer.subtitle,
      image_url: offer.imageUrl,
      discount_percent: offer.discountPercent,
      discount_code: offer.discountCode,
      live: true,
      created_at: offer.now,
      updated_at: offer.now,
    })
    .onConflict((oc) =>
      oc.column('company_id').doUpdateSet({
        title: offer.title,
        subtitle: offer.subtitle,
        image_url: offer.imageUrl,
        discount_percent: offer.discountPercent,
        discount_code: offer.discountCode,
        updated_at: offer.now,
      }),
    )
    .execute();
}

// --- integrations ---

export async function listAuthorizedApps(db: Db, companyId: string) {
  return db
    .selectFrom('oauth_grants as g')
    .innerJoin('oauth_clients as c', 'c.client_id', 'g.client_id')
    .leftJoin('platforms as p', 'p.id', 'g.platform_id')
    .select(['g.id', 'c.name as client_name', 'g.client_id', 'g.scope', 'g.created_at', 'p.name as platform_name'])
    .where('g.company_id', '=', companyId)
    .where('g.revoked_at', 'is', null)
    .orderBy('g.created_at', 'desc')
    .orderBy('g.id')
    .execute();
}

export async function grantBelongsTo(db: Db, grantId: string, companyId: string): Promise<boolean> {
  const row = await db.selectFrom('oauth_grants').select('id').where('id', '=', grantId).where('company_id', '=', companyId).where('revoked_at', 'is', null).executeTakeFirst();
  return row !== undefined;
}

export async function brandKeyBelongsTo(db: Db, keyId: string, companyId: string): Promise<boolean> {
  const row = await db.selectFrom('brand_api_keys').select('id').where('id', '=', keyId).where('company_id', '=', companyId).executeTakeFirst();
  return row !== undefined;
}

// --- performance ---

export interface PerformanceRow {
  day: string;
  platform_id: string;
  platform_name: string | null;
  other_id: string;
  other_name: string | null;
  views: number;
  clicks: number;
  orders: number;
  new_customers: number;
  revenue_cents: number;
  commission_cents: number;
}

/**
 * The brand's counters and orders per day, platform and other brand, from both sides: offers of
 * partners it showed, and its own offer shown by partners. Days are UTC, from and to inclusive.
 */
export async function performanceRows(db: Db, companyId: string, from: string, to: string): Promise<PerformanceRow[]> {
  const result = await sql<PerformanceRow>`
    with counters as (
      select day, platform_id, partner_id as other_id, views, clicks, orders from attribution_counters
      where brand_id = ${companyId} and day between ${from}::date and ${to}::date
      union all
      select day, platform_id, brand_id as other_id, views, clicks, orders from attribution_counters
      where partner_id = ${companyId} and brand_id <> ${companyId} and day between ${from}::date and ${to}::date
    ),
    sales as (
      select (placed_at at time zone 'UTC')::date as day, platform_id, partner_id as other_id,
             count(*) filter (where new_customer) as new_customers, sum(total_cents) as revenue_cents, sum(commission_cents) as commission_cents
      from attributed_orders
      where brand_id = ${companyId} and platform_id is not null
        and placed_at >= ${from}::date and placed_at < ${to}::date + 1
      group by 1, 2, 3
      union all
      select (placed_at at time zone 'UTC')::date, platform_id, brand_id,
             count(*) filter (where new_customer), sum(total_cents), sum(commission_cents)
      from attributed_orders
      where partner_id = ${companyId} and brand_id <> ${companyId} and platform_id is not null
        and placed_at >= ${from}::date and placed_at < ${to}::date + 1
      group by 1, 2, 3
    ),
    keyed as (
      select day, platform_id, other_id, sum(views) as views, sum(clicks) as clicks, sum(orders) as orders,
             0::bigint as new_customers, 0::bigint as revenue_cents, 0::bigint as commission_cents
      from counters group by 1, 2, 3
      union all
      select day, platform_id, other_id, 0, 0, 0, new_customers, revenue_cents, commission_cents from sales
    )
    select to_char(k.day, 'YYYY-MM-DD') as day, k.platform_id::text as platform_id, p.name as platform_name,
           k.other_id, other.business_name as other_name,
           sum(k.views)::int8 as views, sum(k.clicks)::int8 as clicks, sum(k.orders)::int8 as orders,
           sum(k.new_customers)::int8 as new_customers, sum(k.revenue_cents)::int8 as revenue_cents,
           sum(k.commission_cents)::int8 as commission_cents
    from keyed k
    left join platforms p on p.id = k.platform_id
    left join companies other on other.id = k.other_id
    group by k.day, k.platform_id, p.name, k.other_id, other.business_name
    order by 1, 2, 4`.execute(db);
  return result.rows.map((row) => ({
    ...row,
    views: Number(row.views),
    clicks: Number(row.clicks),
    orders: Number(row.orders),
    new_customers: Number(row.new_customers),
    revenue_cents: Number(row.revenue_cents),
    commission_cents: Number(row.commission_cents),
  }));
}
