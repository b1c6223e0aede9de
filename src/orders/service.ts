import crypto from 'node:crypto';
import type { Db } from '../db/database.js';
import { referralLinkOf, type LinkKey } from '../attribution/service.js';
import { domainsOfStore } from '../companies/service.js';
import type { ChargeHoldReason, CustomerBasis } from '../db/schema.js';
import { badRequest, conflict } from '../http/errors.js';
import { isIsoCurrency } from '../shared/currency.js';
import { storeDomain } from '../shared/domain.js';
import * as dal from './dal.js';
import type { Touch } from './dal.js';

/** What order intake needs: the database and the terms (Config.orders). */
export interface OrdersContext {
  db: Db;
  commissionBasisPoints: number;
  attributionWindowDays: number;
}

/** An order as the commerce platform delivers it (webhook or sandbox). */
export interface IncomingOrder {
  storeDomain: string;
  orderId: string;
  customerId: string;
  /** What the customer paid, in the currency's minor units (ISO 4217: JPY has none, KWD three). */
  totalCents: number;
  /**
   * The merchandise the customer bought, after discounts, without tax, shipping and duties, in
   * minor units: the commission's base. Omitted when the total is all merchandise.
   */
  merchandiseCents?: number | undefined;
  currency: string;
  placedAt: Date;
  /** The referral token the shopper arrived with, when the store kept it. */
  referralToken?: string | undefined;
  discountCode?: string | undefined;
  /** The commerce platform's own count of the customer's orders, this one included, when it tells it. */
  customerOrderCount?: number | undefined;
}

export type MatchedBy = 'referral_link' | 'discount_code';

export interface OrderOutcome {
  orderId: string;
  duplicate: boolean;
  platformId: string | null;
  matchedBy: MatchedBy | null;
  touch: Touch | null;
  /** The order named a showing of the partner's offer, but none within the attribution window. */
  outsideWindow: boolean;
  newCustomer: boolean;
  customerBasis: CustomerBasis;
  commissionCents: number;
  /** The order's ISO 4217 currency, upper case. */
  currency: string;
  /** Cancels and refunds that came before the order, applied now, in the order they occurred. */
  eventsApplied: OrderEventOutcome[];
}

/** Customer ids are kept only as hashes. */
function customerRefOf(customerId: string): string {
  return crypto.createHash('sha256').update(customerId).digest('hex');
}

/** The service's share of an order's base, rounded to the currency's minor unit. */
export function commissionFor(baseMinor: number, basisPoints: number): number {
  return Math.round((baseMinor * basisPoints) / 10_000);
}

/** The currency as ISO 4217 writes it; anything else is refused before a thing is booked. */
export function isoCurrency(code: string, field = 'currency'): string {
  const upper = code.toUpperCase();
  if (!isIsoCurrency(upper))
    throw badRequest(`${field} ${code} is not an ISO 4217 currency code (for example USD, EUR, JPY)`, 'invalid_currency');
  return upper;
}

const DAY_MS = 86_400_000;

/** The UTC days a showing may fall on to win an order placed at `placedAt`: that day and the `windowDays` before it. */
export function attributionWindow(placedAt: Date, windowDays: number): dal.WindowDays {
  const day = (time: number) => new Date(time).toISOString().slice(0, 10);
  return { from: day(placedAt.getTime() - windowDays * DAY_MS), to: day(placedAt.getTime()) };
}

/**
 * The brand whose store this is, as the store's orders are credited (dal.findStoreOwner): the
 * company of the store's own domain, else of a host linked to it.
 */
export async function storeOwnerOf(ctx: Pick<OrdersContext, 'db'>, storeDomain: string): Promise<string | undefined> {
  return (await dal.findStoreOwner(ctx.db, await domainsOfStore(ctx, storeDomain)))?.companyId;
}

type Attribution = { showing: dal.CreditedShowing | undefined; outsideWindow: boolean };

/**
 * Which showing an order is credited to (docs/attribution.md). The order names the partner's
 * offer by the referral link it came through (when the link leads to this store, by its own domain
 * or a host linked to it) or by the partner's discount code. Within the window (the order's UTC day and ATTRIBUTION_WINDOW_DAYS
 * before it), the last click wins: on that referral link, else, for the code, on the partner's
 * offer as any brand pair showed it (clicks on every platform together); then, where the store
 * allows view-through, the last view the same way. An order that names no showing, or none within
 * the window, is still recorded, so its customer is known. Credit goes only as far as the
 * evidence: the shopper's own click (the referral link) names the platform; a discount code alone
 * names the brand pair, so its credit carries no platform, and no platform's counts choose it.
 */
async function attributionFor(ctx: OrdersContext, order: IncomingOrder): Promise<Attribution> {
  const days = attributionWindow(order.placedAt, ctx.attributionWindowDays);
  const candidates: Array<{ partnerId: string; link?: LinkKey; matchedBy: MatchedBy }> = [];
  // The brand may know its store by a host linked to it (signed up as brand.example, orders from brand.myshopify.com).
  const domains = order.referralToken || order.discountCode ? await domainsOfStore(ctx, order.storeDomain) : [];
  if (order.referralToken) {
    const link = await referralLinkOf(ctx.db, order.referralToken);
    if (link?.partnerDomain && domains.includes(link.partnerDomain)) {
      candidates.push({ partnerId: link.partnerId, link, matchedBy: 'referral_link' });
    }
  }
  if (order.discountCode) {
    const owner = await dal.findStoreOwner(ctx.db, domains);
    if (owner?.discountCode && owner.discountCode.toUpperCase() === order.discountCode.toUpperCase()) {
      candidates.push({ partnerId: owner.companyId, matchedBy: 'discount_code' });
    }
  }
  if (candidates.length === 0) return { showing: undefined, outsideWindow: false };
  const touches: Touch[] = (await dal.viewThroughAllowed(ctx.db, candidates[0]!.partnerId)) ? ['click', 'view'] : ['click'];
  for (const touch of touches) {
    for (const candidate of candidates) {
      const showing = await dal.lastShowing(ctx.db, candidate.partnerId, touch, days, candidate.link);
      if (!showing) continue;
      return { showing: { ...showing, matchedBy: candidate.matchedBy }, outsideWindow: false };
    }
  }
  return { showing: undefined, outsideWindow: true };
}

/**
 * New or returning, and why: the commerce platform's count of the customer's orders when it sends
 * one (1: this is the first), else the store's history as the service knows it (the customers of
 * the orders it received, and those of the store's past orders imported when it joined).
 */
function customerOf(order: IncomingOrder, unknownToStore: boolean): { newCustomer: boolean; basis: CustomerBasis } {
  if (order.customerOrderCount !== undefined) return { newCustomer: order.customerOrderCount <= 1, basis: 'platform_order_count' };
  return { newCustomer: unknownToStore, basis: 'store_history' };
}

/**
 * Takes in one order, once: a replay of an order id the store already delivered changes
 * nothing. An attributed order gets its commission entry in the ledger, in the same transaction:
 * the share of a new customer's first order's merchandise (after discounts, without tax, shipping
 * and duties), 0 for a returning customer's. Cancels and refunds that came before it are applied
 * then, in the order they occurred.
 */
export async function receiveOrder(ctx: OrdersContext, incoming: IncomingOrder, now = new Date()): Promise<OrderOutcome> {
  const domain = storeDomain(incoming.storeDomain);
  if (!domain) throw badRequest('storeDomain must be a store domain such as shop.example');
  const currency = isoCurrency(incoming.currency);
  const baseMinor = incoming.merchandiseCents ?? incoming.totalCents;
  if (baseMinor > incoming.totalCents) throw badRequest('merchandiseCents must not be more than totalCents');
  const order: IncomingOrder = { ...incoming, storeDomain: domain };
  const { showing, outsideWindow } = await attributionFor(ctx, order);
  const record: dal.OrderRecord = {
    storeDomain: order.storeDomain,
    orderId: order.orderId,
    customerRef: customerRefOf(order.customerId),
    totalCents: order.totalCents,
    merchandiseMinor: incoming.merchandiseCents ?? null,
    currency,
    placedAt: order.placedAt,
  };
  const outcome = await ctx.db.transaction().execute(async (trx) => {
    await dal.lockOrderKey(trx, record.storeDomain, record.orderId);
    if (!(await dal.insertOrder(trx, record, showing, outsideWindow))) return undefined;
    const customer = customerOf(order, await dal.rememberCustomer(trx, record));
    const commissionCents = customer.newCustomer && showing ? commissionFor(baseMinor, ctx.commissionBasisPoints) : 0;
    await dal.setCustomerOutcome(trx, record, customer, commissionCents);
    if (showing) {
      await dal.appendLedgerEntry(trx, {
        kind: 'commission',
        receiving_brand_id: showing.partnerId,
        showing_brand_id: showing.brandId,
        platform_id: showing.platformId,
        campaign_id: showing.campaignId,
        store_domain: record.storeDomain,
        order_id: record.orderId,
        amount_minor: commissionCents,
        currency: record.currency,
        rate_basis_points: customer.newCustomer ? ctx.commissionBasisPoints : 0,
        basis_minor: baseMinor,
        customer: customer.newCustomer ? 'new' : 'returning',
        customer_basis: customer.basis,
        touch: showing.touch,
        created_at: now,
      });
    }
    const stored = (await dal.lockOrder(trx, record.storeDomain, record.orderId))!;
    const eventsApplied: OrderEventOutcome[] = [];
    // An event that named another currency is not this order's: it stays kept, as it was refused for a received order.
    for (const ahead of await dal.eventsAhead(trx, record.storeDomain, record.orderId, record.currency)) {
      await dal.forgetEventAhead(trx, record.storeDomain, ahead.event_id);
      const event = {
        storeDomain: ahead.store_domain,
        eventId: ahead.event_id,
        orderId: ahead.order_id,
        kind: ahead.kind,
        amountCents: ahead.amount_minor ?? undefined,
        occurredAt: ahead.occurred_at,
      };
      eventsApplied.push(await applyOrderEvent(trx, stored, event, now));
    }
    return { newCustomer: customer.newCustomer, customerBasis: customer.basis, commissionCents, eventsApplied };
  });
  if (!outcome) {
    const stored = await dal.findOrder(ctx.db, record.storeDomain, record.orderId);
    return {
      orderId: record.orderId,
      duplicate: true,
      platformId: stored?.platform_id ?? null,
      matchedBy: stored?.matched_by ?? null,
      touch: stored?.touch ?? null,
      outsideWindow: stored?.outside_window ?? false,
      newCustomer: stored?.new_customer ?? false,
      customerBasis: stored?.customer_basis ?? 'store_history',
      commissionCents: Number(stored?.commission_cents ?? 0),
      currency: stored?.currency ?? record.currency,
      eventsApplied: [],
    };
  }
  return {
    orderId: record.orderId,
    duplicate: false,
    platformId: showing?.platformId ?? null,
    matchedBy: showing?.matchedBy ?? null,
    touch: showing?.touch ?? null,
    outsideWindow,
    currency: record.currency,
    ...outcome,
  };
}

/** A cancel or refund as the commerce platform sends it (webhook or sandbox). */
export interface IncomingOrderEvent {
  storeDomain: string;
  /** The platform's id of the event (a refund's id, or the order's cancellation): a replay of it counts once. */
  eventId: string;
  orderId: string;
  kind: 'refund' | 'cancel';
  /** A refund's amount in minor units; a cancel takes what is left of the order. */
  amountCents?: number | undefined;
  /** The order's currency, when the platform says it: checked against the order's. */
  currency?: string | undefined;
  occurredAt: Date;
}

export interface OrderEventOutcome {
  orderId: string;
  eventId: string;
  duplicate: boolean;
  /** `applied` to its order; `waiting_for_order`: the order has not arrived, the event is kept and applied when it does. */
  status: 'applied' | 'waiting_for_order';
  /** What the event took off the order, in minor units (a refund beyond what is left takes what is left). */
  takenCents: number;
  /** The commission reversed by this event, a positive number of minor units (0 when there was none to reverse). */
  reversedCents: number;
  /** The order's currency; null while an event that named none waits for its order. */
  currency: string | null;
}

type StoredOrder = NonNullable<Awaited<ReturnType<typeof dal.lockOrder>>>;

/**
 * Applies a new event to its order (locked by the caller): records what it took (a cancel what is
 * left, a refund its amount) and reverses the commission for that share by a ledger entry of the
 * opposite sign. Shares are rounded on the running total (what all the order's events took so
 * far), so events that add up to the whole order reverse exactly the whole commission and base.
 */
async function applyOrderEvent(
  trx: Db,
  order: StoredOrder,
  incoming: Omit<IncomingOrderEvent, 'currency'> & { storeDomain: string },
  now: Date,
): Promise<OrderEventOutcome> {
  const takenBefore = await dal.takenFromOrder(trx, order.store_domain, order.order_id);
  const left = order.total_cents - takenBefore;
  const takenCents = incoming.kind === 'cancel' ? left : Math.min(left, incoming.amountCents!);
  await dal.insertOrderEvent(trx, { ...incoming, storeDomain: order.store_domain, amountCents: takenCents });
  const entries = await dal.orderLedger(trx, order.store_domain, order.order_id);
  const commission = entries.find((entry) => entry.kind === 'commission');
  const share = (amount: number, taken: number) => (order.total_cents === 0 ? amount : Math.round((amount * taken) / order.total_cents));
  const between = (amount: number) => share(amount, takenBefore + takenCents) - share(amount, takenBefore);
  const reversedCents = commission === undefined ? 0 : between(commission.amount_minor);
  if (commission && reversedCents > 0) {
    const {
      id: _id,
      commerce_charge_id: _charge,
      created_at: _at,
      event_id: _event,
      reason: _reason,
      posted_by: _by,
      ...terms
    } = commission;
    await dal.appendLedgerEntry(trx, {
      ...terms,
      kind: 'reversal',
      event_id: incoming.eventId,
      amount_minor: -reversedCents,
      basis_minor: between(commission.basis_minor),
      created_at: now,
    });
  }
  return {
    orderId: order.order_id,
    eventId: incoming.eventId,
    duplicate: false,
    status: 'applied',
    takenCents,
    reversedCents,
    currency: order.currency,
  };
}

/**
 * Takes in a cancel or refund, once per event id (the one entry point the commerce adapters
 * call). For a received order it is applied at once (applyOrderEvent). One that comes before its
 * order is kept and applied when the order arrives, so the ledger ends the same whatever order
 * the platform's deliveries come in.
 */
export async function recordOrderEvent(ctx: Pick<OrdersContext, 'db'>, incoming: IncomingOrderEvent, now = new Date()) {
  const domain = storeDomain(incoming.storeDomain);
  if (!domain) throw badRequest('storeDomain must be a store domain such as shop.example');
  if (incoming.kind === 'refund' && incoming.amountCents === undefined) throw badRequest('a refund needs amountCents');
  const currency = incoming.currency === undefined ? undefined : isoCurrency(incoming.currency);
  return ctx.db.transaction().execute(async (trx): Promise<OrderEventOutcome> => {
    await dal.lockOrderKey(trx, domain, incoming.orderId);
    const order = await dal.lockOrder(trx, domain, incoming.orderId);
    const known = await dal.findOrderEvent(trx, domain, incoming.eventId);
    const waiting = known ? undefined : await dal.findEventAhead(trx, domain, incoming.eventId);
    const knownFor = known?.order_id ?? waiting?.order_id;
    if (knownFor !== undefined && knownFor !== incoming.orderId) {
      throw conflict(`event ${incoming.eventId} was received for order ${knownFor}`);
    }
    if (order && currency !== undefined && currency !== order.currency) {
      throw badRequest(`the order is in ${order.currency}, not ${currency}`);
    }
    if (!order) {
      if (!waiting) {
        await dal.keepEventAhead(trx, {
          storeDomain: domain,
          eventId: incoming.eventId,
          orderId: incoming.orderId,
          kind: incoming.kind,
          amountMinor: incoming.kind === 'refund' ? incoming.amountCents! : null,
          currency: currency ?? null,
          occurredAt: incoming.occurredAt,
        });
      }
      const base = { orderId: incoming.orderId, eventId: incoming.eventId, takenCents: 0, reversedCents: 0 };
      return { ...base, duplicate: waiting !== undefined, status: 'waiting_for_order', currency: waiting?.currency ?? currency ?? null };
    }
    if (known) {
      const reversal = (await dal.orderLedger(trx, domain, order.order_id)).find((entry) => entry.event_id === incoming.eventId);
      return {
        orderId: order.order_id,
        eventId: incoming.eventId,
        duplicate: true,
        status: 'applied',
        takenCents: known.amount_cents,
        reversedCents: -(reversal?.amount_minor ?? 0),
        currency: order.currency,
      };
    }
    return applyOrderEvent(trx, order, { ...incoming, storeDomain: domain }, now);
  });
}

/**
 * The commerce platform charged an order's commission (a Shopify usage record): its id goes on the
 * ledger's commission entry, once, and what it charged, in the charge's currency (which may not be
 * the entry's), beside it; a replay finds them there and changes nothing.
 */
export async function recordCommerceCharge(
  db: Db,
  charge: { storeDomain: string; orderId: string; chargeId: string; amountMinor: number; currency: string },
  now = new Date(),
): Promise<boolean> {
  const currency = isoCurrency(charge.currency);
  const filled = await dal.setCommerceCharge(db, charge.storeDomain, charge.orderId, charge.chargeId);
  await dal.noteCommerceCharge(db, { ...charge, currency, now });
  // A hold is settled, never deleted: support still sees that the charge waited, and why.
  await dal.settleCommerceChargeHold(db, charge.storeDomain, charge.orderId, now);
  return filled;
}

/** A store's held commissions still to charge (the commerce platform refused them before), oldest first. */
export async function heldCommerceCharges(db: Db, storeDomain: string) {
  const held = await dal.heldCommerceCharges(db, storeDomain);
  return held.map((row) => ({ ...row, amountMinor: Number(row.amountMinor) }));
}

/**
 * The commerce platform was asked to charge an order's commission and did not (its adapter says
 * why): the statement shows the commission as held, with the reason, until a charge fills it.
 */
export function holdCommerceCharge(db: Db, hold: { storeDomain: string; orderId: string; reason: ChargeHoldReason }, now = new Date()) {
  return dal.holdCommerceCharge(db, { ...hold, now });
}

/** Whether the brand's store counts orders after a view of its offer (view-through). */
export async function attributionSettings(ctx: Pick<OrdersContext, 'db'>, companyId: string) {
  return { viewThrough: await dal.viewThroughAllowed(ctx.db, companyId) };
}

export async function saveAttributionSettings(ctx: Pick<OrdersContext, 'db'>, companyId: string, settings: { viewThrough: boolean }) {
  await dal.setViewThrough(ctx.db, companyId, settings.viewThrough, new Date());
  return attributionSettings(ctx, companyId);
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

/** What the service holds about one shopper of a store: their orders, by the hash of their customer id. */
export async function customerData(db: Db, domain: string, customerId: string) {
  const orders = await dal.ordersOfCustomer(db, domain, customerRefOf(customerId));
  return orders.map((order) => ({
    orderId: order.order_id,
    placedAt: order.placed_at.toISOString(),
    totalCents: Number(order.total_cents),
    currency: order.currency,
    referredBy: order.matched_by,
    newCustomer: order.new_customer,
  }));
}

/** Forgets one shopper of a store; their orders stay as money history with no customer. Returns the orders unlinked. */
export function redactCustomer(db: Db, domain: string, customerId: string): Promise<number> {
  return dal.redactCustomers(db, domain, customerRefOf(customerId));
}

/** Forgets every shopper of a store (the store asked for its data to be erased). */
export function redactStoreCustomers(db: Db, domain: string): Promise<number> {
  return dal.redactCustomers(db, domain, null);
}
