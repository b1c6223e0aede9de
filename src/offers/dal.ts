import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { countWritten, jsonRows } from '../db/bulk.js';
import { effectiveCampaignStatusSql } from '../campaigns/status.js';

export const MAX_OFFERS = 6;
/** Click-through is measured over this many recent days. */
const PERFORMANCE_DAYS = 30;

export interface PartnerOfferRow {
  campaignId: string;
  partnerId: string;
  title: string;
  subtitle: string | null;
  imageUrl: string;
}

/**
 * The live offers of the brand's partners in its active campaigns (as owner or partner), one per
 * partner, each as the partner set it for that campaign or else its own offer, best first: the
 * partner's match score for the brand, then the offer's click-through
 * over the last days (smoothed so a handful of views does not outrank an established offer),
 * then the partner id so the order is stable. A partner without a store domain is left out:
 * its referral link would have nowhere to go.
 */
export async function findPartnerOffers(db: Db, brandId: string, now: Date): Promise<PartnerOfferRow[]> {
  const since = new Date(now.getTime() - PERFORMANCE_DAYS * 86_400_000).toISOString().slice(0, 10);
  const result = await sql<{
    campaign_id: string;
    partner_id: string;
    title: string;
    subtitle: string | null;
    image_url: string;
  }>`
    with candidates as (
      select distinct on (side.partner_id)
        c.id as campaign_id, side.partner_id,
        case when co.campaign_id is null then o.title else co.title end as title,
        case when co.campaign_id is null then o.subtitle else co.subtitle end as subtitle,
        case when co.campaign_id is null then o.image_url else co.image_url end as image_url
      from campaigns c
      cross join lateral (select case when c.owner_id = ${brandId} then c.partner_id else c.owner_id end as partner_id) side
      join partnerships p on p.id = c.partnership_id and p.status = 'active'
      join offers o on o.company_id = side.partner_id and o.live
      join companies partner on partner.id = side.partner_id and partner.domain is not null
      left join campaign_offers co on co.campaign_id = c.id and co.company_id = side.partner_id
      where (c.owner_id = ${brandId} or c.partner_id = ${brandId})
        and ${effectiveCampaignStatusSql('c', now)} = 'active'
      order by side.partner_id, c.id
    )
    select candidates.*
    from candidates
    left join recommendation_scores rs on rs.company_id = ${brandId} and rs.candidate_id = candidates.partner_id
    cross join lateral (
      select (coalesce(sum(ac.clicks), 0) + 1)::float8 / (coalesce(sum(ac.views), 0) + 100) as click_through
      from attribution_counters ac
      where ac.partner_id = candidates.partner_id and ac.day >= ${since}::date
    ) performance
    order by rs.match_rate desc nulls last, performance.click_through desc, candidates.partner_id
    limit ${MAX_OFFERS}`.execute(db);
  return result.rows.map((row) => ({
    campaignId: row.campaign_id,
    partnerId: row.partner_id,
    title: row.title,
    subtitle: row.subtitle,
    imageUrl: row.image_url,
  }));
}

/**
 * The next moment one of the brand's campaigns starts or ends on its own (DESIGN 4), when the
 * set of offers changes without anyone writing to the database; null when none is scheduled.
 */
export async function nextCampaignBoundary(db: Db, brandId: string, now: Date): Promise<Date | null> {
  const result = await sql<{ next: Date | null }>`
    select min(boundary.at) as next
    from campaigns c
    cross join lateral (values
      (case when c.status = 'scheduled' and c.start_date > ${now}::timestamptz then c.start_date end),
      (case when c.end_date > ${now}::timestamptz then c.end_date end)
    ) as boundary(at)
    where (c.owner_id = ${brandId} or c.partner_id = ${brandId}) and c.status in ('scheduled', 'active')`.execute(db);
  return result.rows[0]?.next ?? null;
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

export async function upsertOffer(
  db: Db,
  offer: {
    companyId: string;
    title: string;
    subtitle: string | null;
    imageUrl: string;
    discountPercent: number | null;
    discountCode: string | null;
    now: Date;
  },
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

export async function upsertCampaignOffer(
  db: Db,
  campaignId: string,
  companyId: string,
  offer: CampaignOfferContent,
  now: Date,
): Promise<void> {
  const values = {
    title: offer.title,
    subtitle: offer.subtitle,
    image_url: offer.imageUrl,
    include_discount: offer.includeDiscount,
    updated_at: now,
  };
  await db
    .insertInto('campaign_offers')
    .values({ campaign_id: campaignId, company_id: companyId, ...values })
    .onConflict((oc) => oc.columns(['campaign_id', 'company_id']).doUpdateSet(values))
    .execute();
}

export async function deleteCampaignOffer(db: Db, campaignId: string, companyId: string): Promise<void> {
  await db.deleteFrom('campaign_offers').where('campaign_id', '=', campaignId).where('company_id', '=', companyId).execute();
}

/** An offer as the bulk upsert takes it (the fixture loader). */
export interface OfferUpsertRow {
  company_id: string;
  title: string;
  subtitle: string | null;
  image_url: string;
  discount_percent: number | null;
  /** The store's one code for that percent (DESIGN 4); null without a discount. */
  discount_code: string | null;
}

/** Content only: whether an offer is live belongs to the merchant (the plugin), not to a fixture reload. */
export function upsertOffers(db: Db, rows: OfferUpsertRow[]): Promise<number> {
  if (rows.length === 0) return Promise.resolve(0);
  return countWritten(
    db,
    sql`
      insert into offers as o (company_id, title, subtitle, image_url, discount_percent, discount_code)
      select company_id, title, subtitle, image_url, discount_percent, discount_code
      from jsonb_to_recordset(${jsonRows(rows)})
        as r(company_id text, title text, subtitle text, image_url text, discount_percent integer, discount_code text)
      on conflict (company_id) do update set
        title = excluded.title, subtitle = excluded.subtitle, image_url = excluded.image_url,
        discount_percent = excluded.discount_percent, discount_code = excluded.discount_code, updated_at = now()
      where (o.title, o.subtitle, o.image_url, o.discount_percent, o.discount_code)
        is distinct from (excluded.title, excluded.subtitle, excluded.image_url, excluded.discount_percent, excluded.discount_code)
      returning 1`,
  );
}

/** Saves the offer built from a store's best sellers; a new one stays hidden until the merchant consents. */
export async function upsertDraftOffer(
  db: Db,
  companyId: string,
  offer: { title: string; subtitle: string; imageUrl: string },
  now: Date,
): Promise<void> {
  const proposal = JSON.stringify(offer);
  await db
    .insertInto('offers')
    .values({
      company_id: companyId,
      title: offer.title,
      subtitle: offer.subtitle,
      image_url: offer.imageUrl,
      live: false,
      setup_proposal: proposal,
      created_at: now,
      updated_at: now,
    })
    // An offer someone wrote (the brand's staff, or an earlier setup) stays as it is: only the proposal is recorded.
    .onConflict((oc) => oc.column('company_id').doUpdateSet({ setup_proposal: proposal }))
    .execute();
}

export interface SetupProposal {
  title: string;
  subtitle: string;
  imageUrl: string;
}

export async function findSetupProposal(db: Db, companyId: string): Promise<SetupProposal | null> {
  const row = await db.selectFrom('offers').select('setup_proposal').where('company_id', '=', companyId).executeTakeFirst();
  return (row?.setup_proposal as SetupProposal | null | undefined) ?? null;
}

/** The merchant's consent: the offer shows, with the title and the store's one discount code. */
export async function turnOnConsentedOffer(
  db: Db,
  companyId: string,
  consent: { percent: number; code: string; title: string },
  now: Date,
): Promise<void> {
  await db
    .updateTable('offers')
    .set({
      live: true,
      left_with_store: null,
      title: consent.title,
      discount_percent: consent.percent,
      discount_code: consent.code,
      updated_at: now,
    })
    .where('company_id', '=', companyId)
    .execute();
}

export async function setOfferLive(db: Db, companyId: string, live: boolean, now: Date): Promise<void> {
  await db.updateTable('offers').set({ live, left_with_store: null, updated_at: now }).where('company_id', '=', companyId).execute();
}

/** Hides the live offers of `companyIds`, each marked with the store whose leaving hid it; one statement. Returns how many. */
export async function hideOffersOfLeavingStore(db: Db, companyIds: string[], storeDomain: string, now: Date): Promise<number> {
  const hidden = await db
    .updateTable('offers')
    .set({ live: false, left_with_store: storeDomain, updated_at: now })
    .where('company_id', 'in', companyIds)
    .where('live', '=', true)
    .returning('company_id')
    .execute();
  return hidden.length;
}

/** Shows the offers the store's leaving hid, and drops their mark; one statement. Returns how many. */
export async function showOffersOfReturningStore(db: Db, storeDomain: string, now: Date): Promise<number> {
  const shown = await db
    .updateTable('offers')
    .set({ live: true, left_with_store: null, updated_at: now })
    .where('left_with_store', '=', storeDomain)
    .returning('company_id')
    .execute();
  return shown.length;
}
