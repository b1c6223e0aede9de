import type { Db } from '../db/database.js';
import type { LinkKey } from '../attribution/service.js';
import type { Attribution } from '../attribution/service.js';
import { findPartnerOffers, nextCampaignBoundary } from './dal.js';

/** Bounds staleness from changes that send no invalidation: match scores and click-through. */
export const OFFER_SET_MAX_AGE_MS = 60_000;

interface OfferCard {
  imageUrl: string;
  referralUrl: string;
  title: string;
  subtitle?: string;
}

/** What one brand shows on one platform, ready to send: the body and the view each card counts as. */
export interface OfferSet {
  /** The response body, serialized once per set rather than once per request. */
  body: string;
  views: LinkKey[];
  expiresAt: number;
}

export async function loadOfferSet(db: Db, attribution: Attribution, brandId: string, platformId: string, now: Date): Promise<OfferSet> {
  const [rows, boundary] = await Promise.all([findPartnerOffers(db, brandId, now), nextCampaignBoundary(db, brandId, now)]);
  const views = rows.map((row) => ({ platformId, campaignId: row.campaignId, brandId, partnerId: row.partnerId }));
  const tokens = await attribution.referralTokens(views);
  const offers = rows.map((row, index) => {
    const card: OfferCard = { imageUrl: row.imageUrl, referralUrl: attribution.referralUrl(tokens[index]!), title: row.title };
    if (row.subtitle !== null && row.subtitle !== '') card.subtitle = row.subtitle;
    return card;
  });
  const maxAgeEnd = now.getTime() + OFFER_SET_MAX_AGE_MS;
  return {
    body: JSON.stringify({ offers }),
    views,
    expiresAt: boundary ? Math.min(boundary.getTime(), maxAgeEnd) : maxAgeEnd,
  };
}
