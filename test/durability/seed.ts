import { sql } from 'kysely';
import type { Db } from '../../src/db/database.js';
import type { StoredCampaignStatus } from '../../src/db/schema.js';
import type { ServiceContext } from '../../src/service-context.js';
import { createBrand, uniqueId } from '../support/factories.js';
import { waitUntil } from '../support/service-process.js';

export interface PartnerOfferOptions {
  title?: string;
  /** null stores no subtitle. */
  subtitle?: string | null;
  live?: boolean;
  discountCode?: string | null;
  campaignStatus?: StoredCampaignStatus;
  startDate?: Date | null;
  endDate?: Date | null;
  partnershipStatus?: 'pending' | 'active' | 'declined' | 'removed';
  /** The partner owns the campaign and the brand is its partner. */
  partnerOwnsCampaign?: boolean;
}

export interface SeededPartner {
  partnerId: string;
  domain: string;
  campaignId: string;
  partnershipId: string;
  title: string;
  discountCode: string | null;
}

/** A partner of `brandId` with its offer, a partnership and a campaign between the two. */
export async function seedPartnerOffer(
  support: ServiceContext,
  brandId: string,
  options: PartnerOfferOptions = {},
): Promise<SeededPartner> {
  const { companyId: partnerId } = await createBrand(support);
  const domain = `${partnerId}.example`;
  const title = options.title ?? `Offer of ${partnerId}`;
  const discountCode = options.discountCode === undefined ? `CODE-${partnerId.toUpperCase()}` : options.discountCode;
  await support.db
    .insertInto('offers')
    .values({
      company_id: partnerId,
      title,
      subtitle: options.subtitle === undefined ? `Subtitle of ${partnerId}` : options.subtitle,
      image_url: `https://img.example/${partnerId}.png`,
      discount_percent: 15,
      discount_code: discountCode,
      live: options.live ?? true,
    })
    .execute();
  const campaign = await addCampaign(support.db, brandId, partnerId, options);
  return { partnerId, domain, title, discountCode, ...campaign };
}

/** Another partnership and campaign between the same two brands. */
export async function addCampaign(
  db: Db,
  brandId: string,
  partnerId: string,
  options: PartnerOfferOptions = {},
): Promise<{ campaignId: string; partnershipId: string }> {
  const [requester, recipient] = options.partnerOwnsCampaign ? [partnerId, brandId] : [brandId, partnerId];
  const status = options.partnershipStatus ?? 'active';
  // Only one open partnership may exist per pair; a second campaign reuses it.
  const existing = await db
    .selectFrom('partnerships')
    .select('id')
    .where(
      sql<boolean>`least(requester_id, recipient_id) = least(${brandId}, ${partnerId})
                   and greatest(requester_id, recipient_id) = greatest(${brandId}, ${partnerId})`,
    )
    .where('status', '=', status)
    .executeTakeFirst();
  const partnershipId =
    existing?.id ??
    (
      await db
        .insertInto('partnerships')
        .values({ requester_id: requester, recipient_id: recipient, status })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  const campaignId = uniqueId('campaign');
  await db
    .insertInto('campaigns')
    .values({
      id: campaignId,
      partnership_id: partnershipId,
      owner_id: requester,
      partner_id: recipient,
      name: `Campaign ${campaignId}`,
      status: options.campaignStatus ?? 'active',
      start_date: options.startDate === undefined ? new Date(Date.now() - 86_400_000) : options.startDate,
      end_date: options.endDate ?? null,
    })
    .execute();
  return { campaignId, partnershipId };
}

/**
 * Sets the brand's match scores of its partners (null: not scored). The app's scoring loop
 * re-scores every brand these inserts queued, about once a second; the scores are written once
 * none of them is queued any more, so the loop does not overwrite them afterwards. A batch claims
 * its brands and writes their scores in one transaction, so a brand still being scored is still
 * queued for everyone else (and on PGlite nothing else runs meanwhile).
 */
export async function pinMatchRates(db: Db, brandId: string, rates: Array<{ partnerId: string; matchRate: number | null }>): Promise<void> {
  const companies = [brandId, ...rates.map((rate) => rate.partnerId)];
  await waitUntil(
    async () => (await db.selectFrom('scoring_queue').select('company_id').where('company_id', 'in', companies).execute()).length === 0,
    60_000,
    100,
  );
  await db
    .deleteFrom('recommendation_scores')
    .where('company_id', '=', brandId)
    .where(
      'candidate_id',
      'in',
      rates.map((rate) => rate.partnerId),
    )
    .execute();
  const scored = rates.filter((rate) => rate.matchRate !== null);
  if (scored.length === 0) return;
  await db
    .insertInto('recommendation_scores')
    .values(scored.map((rate) => ({ company_id: brandId, candidate_id: rate.partnerId, match_rate: rate.matchRate! })))
    .execute();
}

/** Views recorded across all platforms; a test compares it before and after a refused request. */
export async function totalViews(db: Db): Promise<number> {
  const row = await db
    .selectFrom('attribution_counters')
    .select(sql<number>`coalesce(sum(views), 0)::int8`.as('views'))
    .executeTakeFirstOrThrow();
  return Number(row.views);
}
