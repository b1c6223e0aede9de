import type { Db } from '../../db/database.js';
import { heldCommerceCharges, holdCommerceCharge, recordCommerceCharge } from '../../orders/service.js';
import { minorUnitsToDecimal } from '../../shared/currency.js';
import { ShopifyUserError } from './admin-client.js';
import type { ShopifyCommerce } from './adapter.js';
import * as dal from './dal.js';
import * as documents from './documents.js';

/**
 * A commission as a usage record on the store's subscription (appUsageRecordCreate). The
 * idempotency key is made from the store and the order, noted in shopify_usage_records first and
 * sent to Shopify, which answers a repeated key with the first record and charges nothing: a
 * replayed webhook or a retried job never charges twice. A key whose record Shopify returned is
 * not sent again: a new subscription (after a reinstall) would take it as a new charge. The
 * record's id goes on the ledger's commission entry. This is the step the ledger (issue 16)
 * calls for each commission it books; see docs/shopify.md, "Orders and money".
 *
 * The usage record is in the plan's currency. The ledger books the commission in the order's (the
 * shop's) currency; when that is not the plan's, the charge is the order's commission in the
 * shopper's currency, from Shopify's own presentment money (noted at the order), if that is the
 * plan's. Otherwise nothing Shopify gave converts it: the commission is held, `other_currency`.
 */
export type ChargeOutcome = 'charged' | 'no_plan' | 'other_currency' | 'over_cap';

const usageKey = (shop: string, orderId: string) => `commission:${shop}:${orderId}`;

/** An order's commission as the ledger booked it, in the order's currency and its minor units. */
export interface CommissionCharge {
  shop: string;
  orderId: string;
  amountMinor: number;
  currency: string;
}

export async function chargeCommission(shopify: ShopifyCommerce, db: Db, charge: CommissionCharge): Promise<ChargeOutcome> {
  const outcome = await tryCharge(shopify, db, charge);
  // The statement shows a commission Shopify did not take as held, and why, rather than as owed directly.
  if (outcome !== 'charged') await holdCommerceCharge(db, { storeDomain: charge.shop, orderId: charge.orderId, reason: outcome });
  return outcome;
}

/**
 * Charges a store's held commissions again, once its plan or a raised capped amount is approved
 * (app_subscriptions/update). Each goes through chargeCommission with the order's own key, so a
 * retry that races a replayed order, or runs twice, charges an order at most once; one still
 * refused stays held with its latest reason. Oldest first, so a cap raised by too little goes to
 * the commissions that waited longest; a smaller one after a refused one may still fit.
 */
export async function retryHeldCharges(shopify: ShopifyCommerce, db: Db, shop: string): Promise<Record<ChargeOutcome, number>> {
  const counts: Record<ChargeOutcome, number> = { charged: 0, no_plan: 0, other_currency: 0, over_cap: 0 };
  for (const held of await heldCommerceCharges(db, shop)) {
    const outcome = await chargeCommission(shopify, db, {
      shop,
      orderId: held.orderId,
      amountMinor: held.amountMinor,
      currency: held.currency,
    });
    counts[outcome] += 1;
    if (outcome === 'no_plan') break;
  }
  return counts;
}

/** The commission in the plan's currency: as booked, or from the shopper's money; undefined when neither is in it. */
async function inPlanCurrency(db: Db, charge: CommissionCharge, planCurrency: string): Promise<number | undefined> {
  if (charge.currency.toUpperCase() === planCurrency) return charge.amountMinor;
  return dal.orderCommissionIn(db, charge.shop, charge.orderId, planCurrency);
}

const formatted = (minor: number, currency: string) => `${minorUnitsToDecimal(minor, currency)} ${currency}`;

/** What the merchant reads on Shopify's bill: the order, and the commission as booked when it was charged from the shopper's currency. */
export function usageDescription(charge: CommissionCharge, amountMinor: number, planCurrency: string): string {
  const booked = charge.currency.toUpperCase();
  const converted = booked === planCurrency ? '' : ` (${formatted(charge.amountMinor, booked)} in your store's currency)`;
  const order = `order ${charge.orderId}, a new customer's first order brought by a partner`;
  return `Commission ${formatted(amountMinor, planCurrency)} on ${order}${converted}`;
}

async function tryCharge(shopify: ShopifyCommerce, db: Db, charge: CommissionCharge): Promise<ChargeOutcome> {
  const shop = await dal.findShop(db, charge.shop);
  if (!shop?.usageLineItemId || !shop.usageCurrency || !shop.planApprovedAt) return 'no_plan';
  const planCurrency = shop.usageCurrency;
  const amountMinor = await inPlanCurrency(db, charge, planCurrency);
  // A shopper's amount so small that its share rounds to nothing cannot be a usage record (Shopify wants a positive price).
  if (amountMinor === undefined || amountMinor <= 0) return 'other_currency';
  const idempotencyKey = usageKey(charge.shop, charge.orderId);
  const noted = await dal.insertUsageRecord(db, {
    idempotencyKey,
    shop: charge.shop,
    orderId: charge.orderId,
    amountCents: amountMinor,
    currency: planCurrency,
  });
  const charged = { storeDomain: charge.shop, orderId: charge.orderId, amountMinor: noted.amountMinor, currency: noted.currency };
  // Charged before, maybe on a subscription since replaced (an uninstall and a new approval): Shopify's key is per
  // subscription line item, so only this row stops a second charge.
  if (noted.usageRecordId) {
    await recordCommerceCharge(db, { ...charged, chargeId: noted.usageRecordId });
    return 'charged';
  }
  const data = await shopify.request<{
    appUsageRecordCreate: { appUsageRecord: { id: string } | null; userErrors: Array<{ field: string[] | null; message: string }> };
  }>(charge.shop, documents.RECORD_USAGE, {
    lineItemId: shop.usageLineItemId,
    // The amount first noted for this key: a retry sends what the first attempt sent.
    price: { amount: minorUnitsToDecimal(noted.amountMinor, noted.currency), currencyCode: noted.currency },
    description: usageDescription(charge, noted.amountMinor, noted.currency),
    idempotencyKey,
  });
  const result = data.appUsageRecordCreate;
  if (result.userErrors.some((error) => /exceeds balance remaining/i.test(error.message))) return 'over_cap';
  if (!result.appUsageRecord) throw new ShopifyUserError('appUsageRecordCreate', result.userErrors);
  await dal.setUsageRecordId(db, idempotencyKey, result.appUsageRecord.id);
  // The ledger's commission entry carries the charge, so a statement line leads to Shopify's record.
  await recordCommerceCharge(db, { ...charged, chargeId: result.appUsageRecord.id });
  return 'charged';
}
