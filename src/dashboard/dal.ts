import { sql, type RawBuilder } from 'kysely';
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

export async function findCampaignOffers(db: Db, campaignIds: string[]) {
  if (campaignIds.length === 0) return [];
  return db
    .selectFrom('campaign_offers')
    .select(['campaign_id', 'company_id', 'title', 'subtitle', 'image_url', 'include_discount'])
    .where('campaign_id', 'in', campaignIds)
    .execute();
}

export type CampaignOfferRow = Awaited<ReturnType<typeof findCampaignOffers>>[number];

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

// --- performance (the rollups of migration 0009 for sealed days, the counters for the live week) ---

export interface PerformanceFigureRow {
  views: number;
  clicks: number;
  orders: number;
  new_customers: number;
  revenue_cents: number;
  commission_cents: number;
}

const FIGURE_COLUMNS: Array<keyof PerformanceFigureRow> = ['views', 'clicks', 'orders', 'new_customers', 'revenue_cents', 'commission_cents'];
/** Each figure of the rows `alias`, summed (`sum`) or as is (`value`), as a bigint that is 0 when there is none. */
const figures = (alias: string, shape: 'sum' | 'value') =>
  sql.raw(FIGURE_COLUMNS.map((figure) => `coalesce(${shape === 'sum' ? `sum(${alias}.${figure})` : `${alias}.${figure}`}, 0)::int8 as ${figure}`).join(', '));
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
export async function performancePartnerPage(db: Db, companyId: string, from: string, to: string, window: { fromEnd: boolean; offset: number; limit: number }) {
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
  const result = await sql<{ sealed: string | null }>`select to_char(seal_performance(performance_seal_day()), 'YYYY-MM-DD') as sealed`.execute(db);
  return result.rows[0]?.sealed ?? null;
}
