import { sql } from 'kysely';
import type { Db } from '../db/database.js';
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
 * partner, each as the partner set it for that campaign or else its own offer, best first: the partner's match score for the brand, then the offer's click-through
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
