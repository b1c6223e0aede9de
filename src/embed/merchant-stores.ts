import type { StoreProfile } from '../commerce/adapter.js';
import { recordImportedStore } from '../companies/service.js';
import { hideOffersOfLeavingStore, turnOnConsentedOffer, saveDraftOffer, setOfferLive } from '../offers/service.js';
import { storeOwnerOf } from '../orders/service.js';
import { inTransaction, type DataContext } from '../service-context.js';
import * as dal from './dal.js';
import type { BestSellerPreview } from './embed-contract.js';

/**
 * A merchant's store as onboarding changes it: its onboarding record (merchant_stores) together
 * with its brand and offer, which their domains write (src/companies, src/offers), each in one
 * transaction whose invalidations go out once it commits.
 */

/** The imported store becomes a brand (reusing the company that has its domain), linked to the store's onboarding record. */
export async function importStore(ctx: DataContext, store: StoreProfile): Promise<string> {
  return inTransaction(ctx, async (tx) => {
    const companyId = await recordImportedStore(tx, store);
    await dal.linkMerchantStore(tx.db, store.domain, companyId, store.welcomeDiscountPercent);
    return companyId;
  });
}

/** The offer built from the best sellers, hidden until the merchant consents, and the best sellers the consent screen shows. */
export async function saveStoreDraftOffer(
  ctx: DataContext,
  domain: string,
  companyId: string,
  offer: { title: string; subtitle: string; imageUrl: string },
  bestSellers: BestSellerPreview[],
): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    await saveDraftOffer(tx, companyId, offer);
    await dal.saveBestSellers(tx.db, domain, bestSellers);
  });
}

/**
 * Records consent and turns the offer on, once: a second consent (double click, two tabs)
 * changes nothing. Returns whether this call recorded it.
 */
export async function consentToOffer(
  ctx: DataContext,
  domain: string,
  companyId: string,
  consent: { percent: number; code: string; title: string },
  now: Date,
): Promise<boolean> {
  return inTransaction(ctx, async (tx) => {
    if (!(await dal.recordConsent(tx.db, domain, consent, now))) return false;
    await turnOnConsentedOffer(tx, companyId, consent, now);
    return true;
  });
}

/**
 * Shows or hides the consented merchant's offer: the store back with its plan approved, the
 * merchant closing or reopening. `turnedOff` records the merchant's own choice.
 */
export async function showStoreOffer(
  ctx: DataContext,
  domain: string,
  live: boolean,
  turnedOff: boolean | undefined,
  now: Date,
): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const merchant = await dal.touchMerchantStore(tx.db, domain, turnedOff, now);
    if (merchant?.company_id && merchant.consented_at) await setOfferLive(tx, merchant.company_id, live, now);
  });
}

/**
 * The store left (its app uninstalled, its access ended): its orders stop reaching the service, so
 * every live offer of its brand is hidden, marked as hidden because the store left, for its return
 * to show again. Its brand is the merchant's company once the merchant consented in the plugin, and
 * the company its orders are credited to (its own domain's, else a linked domain's), which is how a
 * brand that joined through the dashboard is found.
 */
export async function storeLeft(ctx: DataContext, domain: string, now: Date): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const merchant = await dal.touchMerchantStore(tx.db, domain, undefined, now);
    const brands = new Set<string>();
    if (merchant?.company_id && merchant.consented_at) brands.add(merchant.company_id);
    const owner = await storeOwnerOf(tx, domain);
    if (owner) brands.add(owner);
    await hideOffersOfLeavingStore(tx, [...brands], domain, now);
  });
}
