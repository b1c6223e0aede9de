import crypto from 'node:crypto';
import type { Db } from '../db/database.js';
import { findReferralLink, type LinkKey } from '../attribution/dal.js';
import { badRequest } from '../http/errors.js';
import { storeDomain } from '../platforms/domain.js';
import * as dal from './dal.js';

export interface OrdersContext {
  db: Db;
  commissionBasisPoints: number;
}

/** An order as the commerce platform delivers it (webhook or sandbox). */
export interface IncomingOrder {
  storeDomain: string;
  orderId: string;
  customerId: string;
  totalCents: number;
  currency: string;
  placedAt: Date;
  /** The referral token the shopper arrived with, when the store kept it. */
  referralToken?: string | undefined;
  discountCode?: string | undefined;
}

export interface OrderOutcome {
  orderId: string;
  duplicate: boolean;
  platformId: string | null;
  matchedBy: 'referral_link' | 'discount_code' | null;
  newCustomer: boolean;
  commissionCents: number;
}

/** Customer ids are kept only as hashes. */
function customerRefOf(customerId: string): string {
  return crypto.createHash('sha256').update(customerId).digest('hex');
}

/** The service's share of an order, rounded to the cent. */
export function commissionFor(totalCents: number, basisPoints: number): number {
  return Math.round((totalCents * basisPoints) / 10_000);
}

/**
 * Which showing an order is credited to: the referral link it came through (when the link leads
 * to this store), else the partner's own discount code, credited to the showing whose link was
 * clicked last. An order that matches neither is still recorded, so its customer is known.
 */
async function attributionFor(
  db: Db,
  order: IncomingOrder,
): Promise<(LinkKey & { matchedBy: 'referral_link' | 'discount_code' }) | undefined> {
  if (order.referralToken) {
    const link = await findReferralLink(db, order.referralToken);
    if (link && link.partnerDomain === order.storeDomain) {
      const { platformId, campaignId, brandId, partnerId } = link;
      return { platformId, campaignId, brandId, partnerId, matchedBy: 'referral_link' };
    }
  }
  if (order.discountCode) {
    const owner = await dal.findStoreOwner(db, order.storeDomain);
    if (owner?.discountCode && owner.discountCode.toUpperCase() === order.discountCode.toUpperCase()) {
      const link = await dal.latestClickedLink(db, owner.companyId, order.placedAt);
      if (link) return { ...link, matchedBy: 'discount_code' };
    }
  }
  return undefined;
}

/**
 * Takes in one order, once: a replay of an order id the store already delivered changes
 * nothing. The first order of a customer the store has never seen carries the commission
 * when it is credited to a platform.
 */
export async function receiveOrder(ctx: OrdersContext, incoming: IncomingOrder): Promise<OrderOutcome> {
  const domain = storeDomain(incoming.storeDomain);
  if (!domain) throw badRequest('storeDomain must be a store domain such as shop.example');
  const order: IncomingOrder = { ...incoming, storeDomain: domain };
  const link = await attributionFor(ctx.db, order);
  const record: dal.OrderRecord = {
    storeDomain: order.storeDomain,
    orderId: order.orderId,
    customerRef: customerRefOf(order.customerId),
    totalCents: order.totalCents,
    currency: order.currency.toUpperCase(),
    placedAt: order.placedAt,
  };
  const outcome = await ctx.db.transaction().execute(async (trx) => {
    if (!(await dal.insertOrder(trx, record, link))) return undefined;
    const newCustomer = await dal.rememberCustomer(trx, record);
    const commissionCents = newCustomer && link ? commissionFor(record.totalCents, ctx.commissionBasisPoints) : 0;
    await dal.setCustomerOutcome(trx, record, newCustomer, commissionCents);
    return { newCustomer, commissionCents };
  });
  if (!outcome) {
    const stored = await dal.findOrder(ctx.db, record.storeDomain, record.orderId);
    return {
      orderId: record.orderId,
      duplicate: true,
      platformId: stored?.platform_id ?? null,
      matchedBy: stored?.matched_by ?? null,
      newCustomer: stored?.new_customer ?? false,
      commissionCents: Number(stored?.commission_cents ?? 0),
    };
  }
  return {
    orderId: record.orderId,
    duplicate: false,
    platformId: link?.platformId ?? null,
    matchedBy: link?.matchedBy ?? null,
    ...outcome,
  };
}

/**
 * Takes in the customers of a store's order history (oldest first), as the store joins: a
 * returning customer's later order is then not a new customer's first, and carries no commission.
 * The domain is the store's canonical one, as its claim holds it.
 */
export async function importCustomerHistory(
  db: Db,
  domain: string,
  orders: Array<{ orderId: string; customerId: string }>,
): Promise<number> {
  return dal.rememberPastCustomers(
    db,
    domain,
    orders.map((order) => ({ customerRef: customerRefOf(order.customerId), orderId: order.orderId })),
  );
}
