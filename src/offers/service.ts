import crypto from 'node:crypto';
import type { CommerceAdapter } from '../commerce/adapter.js';
import { noCommercePlatform } from '../commerce/registry.js';
import { effectiveCampaignStatus } from '../campaigns/status.js';
import { visibleCampaign } from '../campaigns/service.js';
import { storeDomainOf } from '../companies/service.js';
import { badRequest, conflict } from '../http/errors.js';
import type { DataContext } from '../service-context.js';
import * as dal from './dal.js';

/**
 * The brands' offers (`offers`) and the offer each shows in one campaign (`campaign_offers`): the
 * dashboard and the plugin write them only through here (the fixture loader through the dal's
 * bulk upsert), and each write tells the offers endpoint's caches.
 */

/** What the brand's own offer is saved with: the commerce platform keeps the store's discount code; null on a host with none. */
export interface OffersContext extends DataContext {
  adapter: Pick<CommerceAdapter, 'saveDiscountCode' | 'removeDiscountCode'> | null;
}

export interface OfferInput {
  title: string;
  subtitle?: string | null | undefined;
  imageUrl: string;
  discountPercent?: number | null | undefined;
}

/** Title, subtitle and image as stored, checked the same for the brand's offer and a campaign's. */
function offerContent(input: OfferInput): { title: string; subtitle: string | null; imageUrl: string } {
  const title = input.title.trim();
  if (title === '') throw badRequest('title must not be empty');
  let imageUrl: URL;
  try {
    imageUrl = new URL(input.imageUrl);
  } catch {
    throw badRequest('imageUrl must be an absolute http or https URL');
  }
  if (imageUrl.protocol !== 'https:' && imageUrl.protocol !== 'http:') throw badRequest('imageUrl must be an absolute http or https URL');
  return { title, subtitle: input.subtitle?.trim() ? input.subtitle.trim() : null, imageUrl: imageUrl.toString() };
}

/** The store's one discount code from the service (DESIGN 4), named after its domain and percent. */
export function discountCodeFor(domain: string, percent: number): string {
  const suffix = crypto.createHash('sha256').update(domain).digest('hex').slice(0, 6).toUpperCase();
  return `PARTNER${percent}-${suffix}`;
}

function toOffer(row: dal.OfferRow | undefined) {
  return row
    ? {
        title: row.title,
        subtitle: row.subtitle,
        imageUrl: row.image_url,
        discountPercent: row.discount_percent,
        live: row.live,
        custom: false,
      }
    : null;
}

/** A side's offer in one campaign: its own for this campaign when it set one, else the brand's offer. */
function campaignSideOffer(own: dal.OfferRow | undefined, custom: dal.CampaignOfferRow | undefined) {
  if (!custom) return toOffer(own);
  return {
    title: custom.title,
    subtitle: custom.subtitle,
    imageUrl: custom.image_url,
    discountPercent: custom.include_discount ? (own?.discount_percent ?? null) : null,
    live: own?.live ?? true,
    custom: true,
  };
}

/** Each campaign's offers as the brand and its partner show them there, by campaign id. */
export async function offersInCampaigns(
  ctx: Pick<DataContext, 'db'>,
  companyId: string,
  campaigns: Array<{ id: string; owner_id: string; partner_id: string }>,
) {
  const [ownOffers, customOffers] = await Promise.all([
    dal.findOffers(ctx.db, [...new Set([companyId, ...campaigns.flatMap((row) => [row.owner_id, row.partner_id])])]),
    dal.findCampaignOffers(
      ctx.db,
      campaigns.map((row) => row.id),
    ),
  ]);
  const own = new Map(ownOffers.map((row) => [row.company_id, row]));
  const custom = new Map(customOffers.map((row) => [`${row.campaign_id} ${row.company_id}`, row]));
  return new Map(
    campaigns.map((row) => {
      const partnerId = row.owner_id === companyId ? row.partner_id : row.owner_id;
      return [
        row.id,
        {
          mine: campaignSideOffer(own.get(companyId), custom.get(`${row.id} ${companyId}`)),
          partner: campaignSideOffer(own.get(partnerId), custom.get(`${row.id} ${partnerId}`)),
        },
      ] as const;
    }),
  );
}

/**
 * The offer a brand shows in one campaign. Its discount is the store's one code (DESIGN 4), so
 * a campaign offer either includes the brand's discount or leaves it out; it cannot name another.
 */
export async function checkCampaignOffer(
  ctx: Pick<DataContext, 'db'>,
  companyId: string,
  input: OfferInput,
): Promise<dal.CampaignOfferContent> {
  const content = offerContent(input);
  const storePercent = (await dal.findOffers(ctx.db, [companyId]))[0]?.discount_percent ?? null;
  const percent = input.discountPercent ?? null;
  if (percent !== null && percent !== storePercent) {
    throw badRequest(
      storePercent === null
        ? 'discountPercent must be null: your brand offers no discount (set one under Your offer)'
        : `discountPercent must be ${storePercent} or null: a store has one discount code, and yours gives ${storePercent}%`,
    );
  }
  return { ...content, includeDiscount: percent !== null };
}

/** Saves the brand's offer for one campaign (checked by checkCampaignOffer); the offers endpoint shows it at once. */
export async function saveCampaignOffer(
  ctx: DataContext,
  campaignId: string,
  companyId: string,
  offer: dal.CampaignOfferContent,
  now: Date,
): Promise<void> {
  await dal.upsertCampaignOffer(ctx.db, campaignId, companyId, offer, now);
  await ctx.bus.publish('campaigns');
  await ctx.bus.publish('offers');
}

/**
 * Either brand sets the offer it shows in a campaign, or (null) goes back to its own offer; the
 * offers endpoint uses it at once. A closed campaign is history and keeps what it showed.
 */
export async function setCampaignOffer(
  ctx: DataContext,
  companyId: string,
  campaignId: string,
  input: OfferInput | null,
  now = new Date(),
): Promise<void> {
  const campaign = await visibleCampaign(ctx, companyId, campaignId);
  const offer = input ? await checkCampaignOffer(ctx, companyId, input) : null;
  if (effectiveCampaignStatus(campaign, now) === 'closed') throw conflict('the campaign is closed');
  if (offer) return saveCampaignOffer(ctx, campaignId, companyId, offer, now);
  await dal.deleteCampaignOffer(ctx.db, campaignId, companyId);
  await ctx.bus.publish('campaigns');
  await ctx.bus.publish('offers');
}

export async function getOffer(ctx: Pick<DataContext, 'db'>, companyId: string) {
  return toOffer((await dal.findOffers(ctx.db, [companyId]))[0]);
}

/**
 * The brand's own offer. Its discount is the store's one code (DESIGN 4), kept in the store
 * through the commerce platform: a new percent renames the existing code and changes its
 * percent, no discount removes it, so the store never holds a code the offer does not name.
 */
export async function saveOffer(
  ctx: OffersContext,
  company: { companyId: string; domain: string | null },
  input: OfferInput,
  now = new Date(),
) {
  const content = offerContent(input);
  const discountPercent = input.discountPercent ?? null;
  if (discountPercent !== null && !company.domain) throw conflict('your brand has no store domain to create a discount code in');
  const previousCode = (await dal.findOffers(ctx.db, [company.companyId]))[0]?.discount_code ?? null;
  const discountCode = discountPercent !== null ? discountCodeFor(company.domain!, discountPercent) : null;
  // A brand known by its own domain (brand.example) keeps its code in the store linked to it (brand.myshopify.com).
  const store = company.domain && (discountCode !== null || previousCode !== null) ? await storeDomainOf(ctx, company.domain) : null;
  if (discountCode !== null) {
    if (!ctx.adapter) throw noCommercePlatform('the discount code cannot be created in your store: save the offer without a discount');
    await ctx.adapter.saveDiscountCode(store!, { code: discountCode, percent: discountPercent!, oncePerCustomer: true }, previousCode);
  } else if (previousCode !== null && store && ctx.adapter) {
    await ctx.adapter.removeDiscountCode(store, previousCode);
  }
  await dal.upsertOffer(ctx.db, { companyId: company.companyId, ...content, discountPercent, discountCode, now });
  await ctx.bus.publish('offers');
  return getOffer(ctx, company.companyId);
}

/**
 * What store setup proposed for the brand's offer, when it differs from the offer as it is: the
 * dashboard shows it, and the brand's staff choose whether to use it.
 */
export async function setupProposalFor(ctx: Pick<DataContext, 'db'>, companyId: string): Promise<dal.SetupProposal | null> {
  const [proposal, offer] = await Promise.all([dal.findSetupProposal(ctx.db, companyId), getOffer(ctx, companyId)]);
  if (!proposal) return null;
  // The title setup writes is a placeholder the merchant's consent replaces: the proposal is its subtitle and image.
  const same = offer && offer.subtitle === proposal.subtitle && offer.imageUrl === proposal.imageUrl;
  return same ? null : proposal;
}

/**
 * The offer built from a store's best sellers at setup: a new one stays hidden until the merchant
 * consents. It fills only an offer nobody wrote yet; an existing one (the brand's staff's) is left
 * as it is and the build is kept as a proposal (setupProposalFor).
 */
export async function saveDraftOffer(
  ctx: DataContext,
  companyId: string,
  offer: { title: string; subtitle: string; imageUrl: string },
  now = new Date(),
): Promise<void> {
  await dal.upsertDraftOffer(ctx.db, companyId, offer, now);
  await ctx.bus.publish('offers');
}

/**
 * The merchant consented (the plugin): the offer shows, with its new title and the store's one
 * discount code. Whether it shows is the merchant's word from now on, not a store's that left.
 */
export async function turnOnConsentedOffer(
  ctx: DataContext,
  companyId: string,
  consent: { percent: number; code: string; title: string },
  now: Date,
): Promise<void> {
  await dal.turnOnConsentedOffer(ctx.db, companyId, consent, now);
  await ctx.bus.publish('offers');
}

/**
 * Shows or hides a brand's offer (the merchant closing or reopening, the store back with its plan
 * approved). The merchant's choice: an offer hidden because its store left no longer waits for the
 * store's return (showOffersOfReturningStore), which must not undo it.
 */
export async function setOfferLive(ctx: DataContext, companyId: string, live: boolean, now: Date): Promise<void> {
  await dal.setOfferLive(ctx.db, companyId, live, now);
  await ctx.bus.publish('offers');
}

/**
 * The store left the network: the live offers of its brands (`companyIds`) are hidden, each marked
 * with the store, so that its return shows them again. An offer already hidden (turned off, a
 * draft) is not marked: the return must turn on nothing someone else chose to keep off.
 */
export async function hideOffersOfLeavingStore(ctx: DataContext, companyIds: string[], storeDomain: string, now: Date): Promise<void> {
  if (companyIds.length === 0) return;
  if ((await dal.hideOffersOfLeavingStore(ctx.db, companyIds, storeDomain, now)) > 0) await ctx.bus.publish('offers');
}

/** The store is back (installed again, its plan approved): the offers its leaving hid show again, and no other. */
export async function showOffersOfReturningStore(ctx: DataContext, storeDomain: string, now: Date): Promise<void> {
  if ((await dal.showOffersOfReturningStore(ctx.db, storeDomain, now)) > 0) await ctx.bus.publish('offers');
}
