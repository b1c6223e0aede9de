import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { LinkKey } from '../attribution/dal.js';

export interface OrderRecord {
  storeDomain: string;
  orderId: string;
  customerRef: string;
  totalCents: number;
  currency: string;
  placedAt: Date;
}

/** The partner that owns a store, with the discount code of its live offer. */
export async function findStoreOwner(db: Db, storeDomain: string): Promise<{ companyId: string; discountCode: string | null } | undefined> {
  const row = await db
    .selectFrom('companies as c')
    .leftJoin('offers as o', (join) => join.onRef('o.company_id', '=', 'c.id').on('o.live', '=', true))
    .select(['c.id', 'o.discount_code'])
    .where('c.domain', '=', storeDomain)
    .executeTakeFirst();
  return row && { companyId: row.id, discountCode: row.discount_code };
}

/**
 * The link whose click most recently sent shoppers to the partner (by day, then most clicks):
 * an order that only carries the partner's discount code is credited to that showing.
 */
export async function latestClickedLink(db: Db, partnerId: string, notAfter: Date): Promise<LinkKey | undefined> {
  const result = await sql<{ platform_id: string; campaign_id: string; brand_id: string; partner_id: string }>`
    select platform_id, campaign_id, brand_id, partner_id
    from attribution_counters
    where partner_id = ${partnerId} and clicks > 0 and day <= ${notAfter.toISOString().slice(0, 10)}::date
    group by platform_id, day, campaign_id, brand_id, partner_id
    order by day desc, sum(clicks) desc, platform_id, campaign_id, brand_id
    limit 1`.execute(db);
  const row = result.rows[0];
  return row && { platformId: row.platform_id, campaignId: row.campaign_id, brandId: row.brand_id, partnerId: row.partner_id };
}

/** Inserts the order unless the store already delivered it; true when it is new. */
export async function insertOrder(
  db: Db,
  order: OrderRecord,
  link: (LinkKey & { matchedBy: 'referral_link' | 'discount_code' }) | undefined,
): Promise<boolean> {
  const row = await db
    .insertInto('attributed_orders')
    .values({
      store_domain: order.storeDomain,
      order_id: order.orderId,
      customer_ref: order.customerRef,
      total_cents: order.totalCents,
      currency: order.currency,
      placed_at: order.placedAt,
      platform_id: link?.platformId ?? null,
      campaign_id: link?.campaignId ?? null,
      brand_id: link?.brandId ?? null,
      partner_id: link?.partnerId ?? null,
      matched_by: link?.matchedBy ?? null,
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

export async function setCustomerOutcome(db: Db, order: OrderRecord, newCustomer: boolean, commissionCents: number): Promise<void> {
  await db
    .updateTable('attributed_orders')
    .set({ new_customer: newCustomer, commission_cents: commissionCents })
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
