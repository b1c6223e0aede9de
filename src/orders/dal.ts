import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { ChargeHoldReason, CommissionLedgerTable, CustomerBasis } from '../db/schema.js';
import type { LinkKey } from '../attribution/service.js';

export interface OrderRecord {
  storeDomain: string;
  orderId: string;
  customerRef: string;
  totalCents: number;
  /** Null when the total is all merchandise. */
  merchandiseMinor: number | null;
  currency: string;
  placedAt: Date;
}

/**
 * The brand whose store this is: the company of the store's own domain, else of a host linked to
 * it (`domains` after the first: a brand that signed up as `brand.example` and installed
 * `brand.myshopify.com`), with its live offer's discount code.
 */
export async function findStoreOwner(db: Db, domains: string[]): Promise<{ companyId: string; discountCode: string | null } | undefined> {
  const row = await db
    .selectFrom('companies as c')
    .leftJoin('offers as o', (join) => join.onRef('o.company_id', '=', 'c.id').on('o.live', '=', true))
    .select(['c.id', 'o.discount_code'])
    .where('c.domain', 'in', domains)
    .orderBy(sql`c.domain = ${domains[0]}`, 'desc')
    .orderBy('c.domain')
    .limit(1)
    .executeTakeFirst();
  return row && { companyId: row.id, discountCode: row.discount_code };
}

/** The UTC days a showing must fall in to win an order: from `from` to `to`, inclusive. */
export interface WindowDays {
  from: string;
  to: string;
}

export type Touch = 'click' | 'view';

/**
 * A showing that qualifies for an order: the link, how the shopper met it, and the UTC day it
 * last did. `platformId` is null when the order names no link (the partner's discount code
 * alone): the brand pair is known, the platform is not.
 */
export interface QualifyingShowing extends Omit<LinkKey, 'platformId'> {
  platformId: string | null;
  touch: Touch;
  day: string;
}

/**
 * The showing of the partner's offer that wins an order by `touch` within the window. With `link`
 * (the referral link the shopper came through): that link's latest day with a click (or a view).
 * Without (the partner's code alone): the brand pair (showing brand and campaign) whose offer was
 * last clicked (or viewed), its clicks counted over every platform, so no platform's counts
 * decide the credit; pairs met on the same latest day go to the one met most that day.
 */
export async function lastShowing(
  db: Db,
  partnerId: string,
  touch: Touch,
  days: WindowDays,
  link?: LinkKey,
): Promise<QualifyingShowing | undefined> {
  const counted = touch === 'click' ? sql.ref('clicks') : sql.ref('views');
  const result = await sql<{ campaign_id: string; brand_id: string; partner_id: string; day: string }>`
    select campaign_id, brand_id, partner_id, to_char(day, 'YYYY-MM-DD') as day
    from attribution_counters
    where partner_id = ${partnerId} and ${counted} > 0 and day between ${days.from}::date and ${days.to}::date
      ${link ? sql`and platform_id = ${link.platformId}::uuid and campaign_id = ${link.campaignId} and brand_id = ${link.brandId}` : sql``}
    group by day, campaign_id, brand_id, partner_id
    order by day desc, sum(${counted}) desc, campaign_id, brand_id
    limit 1`.execute(db);
  const row = result.rows[0];
  return (
    row && {
      platformId: link?.platformId ?? null,
      campaignId: row.campaign_id,
      brandId: row.brand_id,
      partnerId: row.partner_id,
      touch,
      day: row.day,
    }
  );
}

/** The showing an order is credited to; no platform when only the partner's discount code named it. */
export type CreditedShowing = QualifyingShowing & { matchedBy: 'referral_link' | 'discount_code' };

/** Whether the store counts orders after a view of its offer; off unless the brand turned it on. */
export async function viewThroughAllowed(db: Db, companyId: string): Promise<boolean> {
  const row = await db
    .selectFrom('store_attribution_settings')
    .select('view_through')
    .where('company_id', '=', companyId)
    .executeTakeFirst();
  return row?.view_through ?? false;
}

export async function setViewThrough(db: Db, companyId: string, viewThrough: boolean, now: Date): Promise<void> {
  await db
    .insertInto('store_attribution_settings')
    .values({ company_id: companyId, view_through: viewThrough, updated_at: now })
    .onConflict((oc) => oc.column('company_id').doUpdateSet({ view_through: viewThrough, updated_at: now }))
    .execute();
}

/** Inserts the order unless the store already delivered it; true when it is new. */
export async function insertOrder(
  db: Db,
  order: OrderRecord,
  showing: CreditedShowing | undefined,
  outsideWindow: boolean,
): Promise<boolean> {
  const row = await db
    .insertInto('attributed_orders')
    .values({
      store_domain: order.storeDomain,
      order_id: order.orderId,
      customer_ref: order.customerRef,
      total_cents: order.totalCents,
      merchandise_minor: order.merchandiseMinor,
      currency: order.currency,
      placed_at: order.placedAt,
      platform_id: showing?.platformId ?? null,
      campaign_id: showing?.campaignId ?? null,
      brand_id: showing?.brandId ?? null,
      partner_id: showing?.partnerId ?? null,
      matched_by: showing?.matchedBy ?? null,
      touch: showing?.touch ?? null,
      touched_on: showing?.day ?? null,
      outside_window: outsideWindow,
      new_customer: false,
    })
    .onConflict((oc) => oc.columns(['store_domain', 'order_id']).doNothing())
    .returning('order_id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Records the customer at the store; true when the store had never seen them. */
export async function rememberCustomer(db: Db, order: OrderRecord): Promise<boolean> {
  const row = await db
    .insertInto('store_customers')
    .values({ store_domain: order.storeDomain, customer_ref: order.customerRef, first_order_id: order.orderId })
    .onConflict((oc) => oc.columns(['store_domain', 'customer_ref']).doNothing())
    .returning('first_order_id')
    .executeTakeFirst();
  return row !== undefined;
}

export async function setCustomerOutcome(
  db: Db,
  order: OrderRecord,
  customer: { newCustomer: boolean; basis: CustomerBasis },
  commissionCents: number,
): Promise<void> {
  await db
    .updateTable('attributed_orders')
    .set({ new_customer: customer.newCustomer, customer_basis: customer.basis, commission_cents: commissionCents })
    .where('store_domain', '=', order.storeDomain)
    .where('order_id', '=', order.orderId)
    .execute();
}

export async function findOrder(db: Db, storeDomain: string, orderId: string) {
  return db
    .selectFrom('attributed_orders')
    .selectAll()
    .where('store_domain', '=', storeDomain)
    .where('order_id', '=', orderId)
    .executeTakeFirst();
}

/**
 * Records the customers of a store's past orders in one statement, each with its first order;
 * customers the service already knew keep their record. Returns how many were new to it.
 */
export async function rememberPastCustomers(
  db: Db,
  storeDomain: string,
  orders: Array<{ customerRef: string; orderId: string }>,
): Promise<number> {
  if (orders.length === 0) return 0;
  const result = await sql<{ customer_ref: string }>`
    insert into store_customers (store_domain, customer_ref, first_order_id)
    select distinct on (item.customer_ref) ${storeDomain}::text, item.customer_ref, item.order_id
    from unnest(${orders.map((order) => order.customerRef)}::text[], ${orders.map((order) => order.orderId)}::text[])
      with ordinality as item(customer_ref, order_id, position)
    order by item.customer_ref, item.position
    on conflict (store_domain, customer_ref) do nothing
    returning customer_ref`.execute(db);
  return result.rows.length;
}

// --- shoppers' data, for the commerce platforms' privacy requests (Shopify's compliance webhooks) ---

/** A redacted shopper's orders keep their amounts (money history) but no longer say whose they were. */
export const REDACTED_CUSTOMER = 'redacted';

export async function ordersOfCustomer(db: Db, storeDomain: string, customerRef: string) {
  return db
    .selectFrom('attributed_orders')
    .select(['order_id', 'placed_at', 'total_cents', 'currency', 'matched_by', 'new_customer'])
    .where('store_domain', '=', storeDomain)
    .where('customer_ref', '=', customerRef)
    .orderBy('placed_at')
    .execute();
}

/** Forgets one shopper at the store (or every shopper, without customerRef): their record and the link from their orders. */
export async function redactCustomers(db: Db, storeDomain: string, customerRef: string | null): Promise<number> {
  return db.transaction().execute(async (trx) => {
    let customers = trx.deleteFrom('store_customers').where('store_domain', '=', storeDomain);
    let orders = trx
      .updateTable('attributed_orders')
      .set({ customer_ref: REDACTED_CUSTOMER })
      .where('store_domain', '=', storeDomain)
      .where('customer_ref', '<>', REDACTED_CUSTOMER);
    if (customerRef !== null) {
      customers = customers.where('customer_ref', '=', customerRef);
      orders = orders.where('customer_ref', '=', customerRef);
    }
    await customers.execute();
    const updated = await orders.executeTakeFirst();
    return Number(updated.numUpdatedRows);
  });
}

/**
 * Holds the order's key (taken or not) until the transaction ends, so an order and an event that
 * came before it, delivered at the same moment, are taken in one after the other: the event is
 * either kept before the order looks for it, or finds the order.
 */
export async function lockOrderKey(db: Db, storeDomain: string, orderId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`${storeDomain} ${orderId}`}, 0))`.execute(db);
}

/** The events kept for an order that had not arrived, in the order they occurred; only those in its currency or naming none. */
export async function eventsAhead(db: Db, storeDomain: string, orderId: string, currency: string) {
  return db
    .selectFrom('order_events_ahead')
    .selectAll()
    .where('store_domain', '=', storeDomain)
    .where('order_id', '=', orderId)
    .where((eb) => eb.or([eb('currency', 'is', null), eb('currency', '=', currency)]))
    .orderBy('occurred_at')
    .orderBy('received_at')
    .orderBy('event_id')
    .execute();
}

export async function findEventAhead(db: Db, storeDomain: string, eventId: string) {
  return db
    .selectFrom('order_events_ahead')
    .selectAll()
    .where('store_domain', '=', storeDomain)
    .where('event_id', '=', eventId)
    .executeTakeFirst();
}

export async function keepEventAhead(
  db: Db,
  event: {
    storeDomain: string;
    eventId: string;
    orderId: string;
    kind: 'refund' | 'cancel';
    amountMinor: number | null;
    currency: string | null;
    occurredAt: Date;
  },
): Promise<void> {
  await db
    .insertInto('order_events_ahead')
    .values({
      store_domain: event.storeDomain,
      event_id: event.eventId,
      order_id: event.orderId,
      kind: event.kind,
      amount_minor: event.amountMinor,
      currency: event.currency,
      occurred_at: event.occurredAt,
    })
    .execute();
}

/** An event kept ahead of its order leaves once applied: from then on it is in order_events. */
export async function forgetEventAhead(db: Db, storeDomain: string, eventId: string): Promise<void> {
  await db.deleteFrom('order_events_ahead').where('store_domain', '=', storeDomain).where('event_id', '=', eventId).execute();
}

/** The order, locked until the transaction ends, so that its events are taken in one at a time. */
export async function lockOrder(db: Db, storeDomain: string, orderId: string) {
  return db
    .selectFrom('attributed_orders')
    .selectAll()
    .where('store_domain', '=', storeDomain)
    .where('order_id', '=', orderId)
    .forUpdate()
    .executeTakeFirst();
}

/** How much of the order its cancel and refund events took so far, in minor units. */
export async function takenFromOrder(db: Db, storeDomain: string, orderId: string): Promise<number> {
  const row = await db
    .selectFrom('order_events')
    .select(sql<number>`coalesce(sum(amount_cents), 0)::int8`.as('taken'))
    .where('store_domain', '=', storeDomain)
    .where('order_id', '=', orderId)
    .executeTakeFirstOrThrow();
  return Number(row.taken);
}

/** Records a cancel or refund event unless the store sent it before; true when it is new. */
export async function insertOrderEvent(
  db: Db,
  event: { storeDomain: string; eventId: string; orderId: string; kind: 'refund' | 'cancel'; amountCents: number; occurredAt: Date },
): Promise<boolean> {
  const row = await db
    .insertInto('order_events')
    .values({
      store_domain: event.storeDomain,
      event_id: event.eventId,
      order_id: event.orderId,
      kind: event.kind,
      amount_cents: event.amountCents,
      occurred_at: event.occurredAt,
    })
    .onConflict((oc) => oc.columns(['store_domain', 'event_id']).doNothing())
    .returning('event_id')
    .executeTakeFirst();
  return row !== undefined;
}

export async function findOrderEvent(db: Db, storeDomain: string, eventId: string) {
  return db
    .selectFrom('order_events')
    .selectAll()
    .where('store_domain', '=', storeDomain)
    .where('event_id', '=', eventId)
    .executeTakeFirst();
}

export type LedgerEntryInput = Omit<
  CommissionLedgerTable,
  'id' | 'commerce_charge_id' | 'created_at' | 'event_id' | 'reason' | 'posted_by'
> & {
  event_id?: string;
  reason?: string;
  posted_by?: string;
  created_at: Date;
};

export async function appendLedgerEntry(db: Db, entry: LedgerEntryInput): Promise<void> {
  await db.insertInto('commission_ledger').values(entry).execute();
}

/**
 * Notes the commerce platform's charge for an order's commission entry (the one update the
 * ledger's trigger allows: an empty commerce_charge_id filled once). False when the entry has
 * none to fill (no commission entry, or one already carrying a charge).
 */
export async function setCommerceCharge(db: Db, storeDomain: string, orderId: string, chargeId: string): Promise<boolean> {
  const result = await db
    .updateTable('commission_ledger')
    .set({ commerce_charge_id: chargeId })
    .where('store_domain', '=', storeDomain)
    .where('order_id', '=', orderId)
    .where('kind', '=', 'commission')
    .where('commerce_charge_id', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Notes that the commerce platform was asked to charge an order's commission and did not, and why
 * (the latest reason wins: a store that approves its plan may next hit its cap).
 */
export async function holdCommerceCharge(
  db: Db,
  hold: { storeDomain: string; orderId: string; reason: ChargeHoldReason; now: Date },
): Promise<void> {
  await db
    .insertInto('commission_charge_holds')
    .values({ store_domain: hold.storeDomain, order_id: hold.orderId, reason: hold.reason, held_at: hold.now })
    .onConflict((oc) => oc.columns(['store_domain', 'order_id']).doUpdateSet({ reason: hold.reason, held_at: hold.now, settled_at: null }))
    .execute();
}

/** What the platform charged for the order's commission, in the charge's currency; the first note of a charge stays. */
export async function noteCommerceCharge(
  db: Db,
  charge: { storeDomain: string; orderId: string; chargeId: string; amountMinor: number; currency: string; now: Date },
): Promise<void> {
  await db
    .insertInto('commission_commerce_charges')
    .values({
      store_domain: charge.storeDomain,
      order_id: charge.orderId,
      charge_id: charge.chargeId,
      amount_minor: charge.amountMinor,
      currency: charge.currency,
      charged_at: charge.now,
    })
    .onConflict((oc) => oc.columns(['store_domain', 'order_id']).doNothing())
    .execute();
}

/** The order's hold, if any, is over: its commission was charged. The row stays, with when. */
export async function settleCommerceChargeHold(db: Db, storeDomain: string, orderId: string, now: Date): Promise<void> {
  await db
    .updateTable('commission_charge_holds')
    .set({ settled_at: now })
    .where('store_domain', '=', storeDomain)
    .where('order_id', '=', orderId)
    .where('settled_at', 'is', null)
    .execute();
}

/** A store's held commissions not yet charged, oldest hold first, with what the ledger booked for each. */
export async function heldCommerceCharges(db: Db, storeDomain: string) {
  return db
    .selectFrom('commission_charge_holds as h')
    .innerJoin('commission_ledger as l', (join) =>
      join.onRef('l.store_domain', '=', 'h.store_domain').onRef('l.order_id', '=', 'h.order_id').on('l.kind', '=', 'commission'),
    )
    .select(['h.order_id as orderId', 'h.reason', 'l.amount_minor as amountMinor', 'l.currency'])
    .where('h.store_domain', '=', storeDomain)
    .where('h.settled_at', 'is', null)
    .where('l.commerce_charge_id', 'is', null)
    .orderBy('h.held_at')
    .orderBy('h.order_id')
    .execute();
}

/** Every ledger entry of one order, oldest first. */
export async function orderLedger(db: Db, storeDomain: string, orderId: string) {
  return db
    .selectFrom('commission_ledger')
    .selectAll()
    .where('store_domain', '=', storeDomain)
    .where('order_id', '=', orderId)
    .orderBy('id')
    .execute();
}

/** A brand's entries as the receiving brand (the one that owes) created in [start, end), oldest first, with both brands' names. */
export async function ledgerEntriesOf(db: Db, companyId: string, start: Date, end: Date) {
  return db
    .selectFrom('commission_ledger as l')
    .leftJoin('companies as showing', 'showing.id', 'l.showing_brand_id')
    .leftJoin('platforms as p', 'p.id', 'l.platform_id')
    .selectAll('l')
    .select(['showing.business_name as showing_brand_name', 'p.name as platform_name'])
    .where('l.receiving_brand_id', '=', companyId)
    .where('l.created_at', '>=', start)
    .where('l.created_at', '<', end)
    .orderBy('l.created_at')
    .orderBy('l.id')
    .execute();
}
