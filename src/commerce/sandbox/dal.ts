import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { AppInstallation } from '../adapter.js';
import type { GeneratedStore } from './generator.js';

/** SQL of the sandbox commerce platform: its stores, catalog, orders and discount codes. */

export interface SandboxStoreRow {
  domain: string;
  businessName: string;
  tagline: string | null;
  logoImageUrl: string | null;
  category: string | null;
  country: string | null;
  appStatus: AppInstallation;
  planApprovedAt: Date | null;
  welcomeDiscountPercent: number | null;
  importFailuresLeft: number;
  /** Since when the service receives the store's orders; null when it never subscribed. */
  ordersWebhookSince: Date | null;
}

/**
 * Creates the store with its catalog, orders and discount code (the one its brand's offer names,
 * if any) unless it exists; concurrent callers create it once. A store `connectedSince` a date has
 * the app installed, its plan approved and its orders going to the service from then.
 */
export async function insertStoreIfAbsent(
  db: Db,
  domain: string,
  store: GeneratedStore,
  logoImageUrl: string,
  imageUrl: (productId: string) => string,
  brand: { discountCode: { code: string; percent: number } | null; connectedSince: Date | null },
  /** How many of its first imports fail (a slow store's). */
  importFailures: number,
): Promise<void> {
  const { discountCode, connectedSince } = brand;
  await db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('sandbox_stores')
      .values({
        domain,
        business_name: store.businessName,
        tagline: store.tagline,
        logo_image_url: logoImageUrl,
        category: store.category,
        country: store.country,
        welcome_discount_percent: store.welcomeDiscountPercent,
        import_failures_left: importFailures,
        ...(connectedSince
          ? { app_status: 'installed' as const, plan_approved_at: connectedSince, orders_webhook_since: connectedSince }
          : {}),
      })
      .onConflict((oc) => oc.column('domain').doNothing())
      .returning('domain')
      .executeTakeFirst();
    if (!inserted) return;
    await trx
      .insertInto('sandbox_products')
      .values(
        store.products.map((product) => ({
          store_domain: domain,
          id: product.id,
          title: product.title,
          image_url: product.hasImage ? imageUrl(product.id) : null,
          price_cents: product.priceCents,
          status: product.active ? ('active' as const) : ('draft' as const),
        })),
      )
      .execute();
    if (store.orders.length > 0) {
      await trx
        .insertInto('sandbox_orders')
        .values(
          store.orders.map((order) => ({
            store_domain: domain,
            id: order.id,
            product_id: order.productId,
            quantity: order.quantity,
            total_cents: order.totalCents,
            placed_at: order.placedAt,
            customer_email: order.customerEmail,
          })),
        )
        .execute();
    }
    if (discountCode) {
      await trx
        .insertInto('sandbox_discount_codes')
        .values({ store_domain: domain, code: discountCode.code, percent: discountCode.percent, once_per_customer: true })
        .execute();
    }
  });
}

/**
 * The brand in the network whose store this is (a company record), with the discount code its
 * offer names: what a sandbox store made up for a known brand is made to match.
 */
export async function networkBrandOfDomain(db: Db, domain: string) {
  return db
    .selectFrom('companies as c')
    .leftJoin('offers as o', 'o.company_id', 'c.id')
    .select(['c.business_name', 'c.categories', 'c.country', 'o.discount_code', 'o.discount_percent', 'o.live'])
    .where('c.domain', '=', domain)
    .executeTakeFirst();
}

export async function findStore(db: Db, domain: string): Promise<SandboxStoreRow | undefined> {
  const row = await db.selectFrom('sandbox_stores').selectAll().where('domain', '=', domain).executeTakeFirst();
  if (!row) return undefined;
  return {
    domain: row.domain,
    businessName: row.business_name,
    tagline: row.tagline,
    logoImageUrl: row.logo_image_url,
    category: row.category,
    country: row.country,
    appStatus: row.app_status,
    planApprovedAt: row.plan_approved_at,
    welcomeDiscountPercent: row.welcome_discount_percent,
    importFailuresLeft: row.import_failures_left,
    ordersWebhookSince: row.orders_webhook_since,
  };
}

export async function listStores(db: Db) {
  return db
    .selectFrom('sandbox_stores')
    .select(['domain', 'business_name', 'app_status', 'plan_approved_at'])
    .orderBy('created_at', 'desc')
    .limit(100)
    .execute();
}

export async function setAppStatus(db: Db, domain: string, status: AppInstallation): Promise<void> {
  await db
    .updateTable('sandbox_stores')
    // Uninstalling cancels the app's plan, as commerce platforms do; reinstalling asks again.
    .set(status === 'installed' ? { app_status: status } : { app_status: status, plan_approved_at: null })
    .where('domain', '=', domain)
    .execute();
}

/** The owner approves the plan (again, if it already was: the first approval's date stays); false when the app is not installed. */
export async function approvePlan(db: Db, domain: string, now: Date): Promise<boolean> {
  const row = await db
    .updateTable('sandbox_stores')
    .set({ plan_approved_at: sql<Date>`coalesce(plan_approved_at, ${now})` })
    .where('domain', '=', domain)
    .where('app_status', '=', 'installed')
    .returning('domain')
    .executeTakeFirst();
  return row !== undefined;
}

/** Takes one pending simulated failure; true when this call must fail. */
export async function takeImportFailure(db: Db, domain: string): Promise<boolean> {
  const row = await db
    .updateTable('sandbox_stores')
    .set((eb) => ({ import_failures_left: eb('import_failures_left', '-', 1) }))
    .where('domain', '=', domain)
    .where('import_failures_left', '>', 0)
    .returning('domain')
    .executeTakeFirst();
  return row !== undefined;
}

export async function listProducts(db: Db, domain: string) {
  return db
    .selectFrom('sandbox_products')
    .select(['id', 'title', 'image_url', 'price_cents', 'status'])
    .where('store_domain', '=', domain)
    .orderBy(sql`length(id)`)
    .orderBy('id')
    .execute();
}

export async function bestSellers(db: Db, domain: string, limit: number) {
  const result = await sql<{ id: string; title: string; image_url: string | null; price_cents: number; units: number }>`
    select p.id, p.title, p.image_url, p.price_cents, coalesce(sum(o.quantity), 0)::int as units
    from sandbox_products p
    left join sandbox_orders o on o.store_domain = p.store_domain and o.product_id = p.id
    where p.store_domain = ${domain} and p.status = 'active'
    group by p.id, p.title, p.image_url, p.price_cents
    order by units desc, p.id
    limit ${limit}`.execute(db);
  return result.rows;
}

export async function countOrders(db: Db, domain: string): Promise<number> {
  const row = await db
    .selectFrom('sandbox_orders')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('store_domain', '=', domain)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function recentOrders(db: Db, domain: string, limit: number) {
  return db
    .selectFrom('sandbox_orders as o')
    .innerJoin('sandbox_products as p', (join) => join.onRef('p.store_domain', '=', 'o.store_domain').onRef('p.id', '=', 'o.product_id'))
    .select([
      'o.id',
      'p.title',
      'o.quantity',
      'o.total_cents',
      'o.placed_at',
      'o.discount_code',
      'o.webhook_status',
      'o.refunded_cents',
      'o.cancelled_at',
    ])
    .where('o.store_domain', '=', domain)
    .orderBy('o.placed_at', 'desc')
    .limit(limit)
    .execute();
}

export async function insertDiscountCode(db: Db, domain: string, code: string, percent: number, oncePerCustomer: boolean): Promise<void> {
  await db
    .insertInto('sandbox_discount_codes')
    .values({ store_domain: domain, code, percent, once_per_customer: oncePerCustomer })
    .onConflict((oc) => oc.columns(['store_domain', 'code']).doNothing())
    .execute();
}

export async function listDiscountCodes(db: Db, domain: string) {
  return db
    .selectFrom('sandbox_discount_codes')
    .select(['code', 'percent', 'once_per_customer', 'created_at'])
    .where('store_domain', '=', domain)
    .orderBy('created_at')
    .execute();
}

/**
 * Makes `code` the store's code from the service: the code it replaces goes, so the store keeps
 * one; asking again with the same code only sets its percent.
 */
export async function saveDiscountCode(
  db: Db,
  domain: string,
  code: { code: string; percent: number; oncePerCustomer: boolean },
  replaces: string | null,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (replaces !== null && replaces !== code.code) {
      await trx.deleteFrom('sandbox_discount_codes').where('store_domain', '=', domain).where('code', '=', replaces).execute();
    }
    await trx
      .insertInto('sandbox_discount_codes')
      .values({ store_domain: domain, code: code.code, percent: code.percent, once_per_customer: code.oncePerCustomer })
      .onConflict((oc) =>
        oc.columns(['store_domain', 'code']).doUpdateSet({ percent: code.percent, once_per_customer: code.oncePerCustomer }),
      )
      .execute();
  });
}

export async function deleteDiscountCode(db: Db, domain: string, code: string): Promise<void> {
  await db.deleteFrom('sandbox_discount_codes').where('store_domain', '=', domain).where('code', '=', code).execute();
}

/** A code of the store as a shopper types it (codes are case-insensitive at checkout). */
export async function findDiscountCode(db: Db, domain: string, typed: string) {
  return db
    .selectFrom('sandbox_discount_codes')
    .select(['code', 'percent', 'once_per_customer'])
    .where('store_domain', '=', domain)
    .where(sql<string>`upper(code)`, '=', typed.toUpperCase())
    .executeTakeFirst();
}

/**
 * The service subscribes to the store's orders. On a commerce platform that takes the app's
 * install (Shopify's order webhooks need the app's grant), so the store has the app installed
 * from then on, as its admin shows.
 */
export async function subscribeToOrders(db: Db, domain: string, now: Date): Promise<void> {
  await db
    .updateTable('sandbox_stores')
    .set({ orders_webhook_since: sql`coalesce(orders_webhook_since, ${now})`, app_status: 'installed' })
    .where('domain', '=', domain)
    .execute();
}

export interface StorefrontOrder {
  id: string;
  productId: string;
  quantity: number;
  totalCents: number;
  placedAt: Date;
  customerEmail: string;
  discountCode: string | null;
  referralToken: string | null;
}

/**
 * Records a storefront order; a code usable once per customer is refused (false) when this
 * customer already ordered with it. One statement, so two quick checkouts cannot both use it.
 */
export async function insertStorefrontOrder(db: Db, domain: string, order: StorefrontOrder, oncePerCustomer: boolean): Promise<boolean> {
  const result = await sql<{ id: string }>`
    insert into sandbox_orders
      (store_domain, id, product_id, quantity, total_cents, placed_at, customer_email, discount_code, referral_token)
    select ${domain}::text, ${order.id}::text, ${order.productId}::text, ${order.quantity}::int, ${order.totalCents}::int,
           ${order.placedAt}::timestamptz, ${order.customerEmail}::text, ${order.discountCode}::text, ${order.referralToken}::text
    where not (${oncePerCustomer}::boolean and exists (
      select 1 from sandbox_orders
      where store_domain = ${domain} and customer_email = ${order.customerEmail}
        and upper(discount_code) = upper(${order.discountCode}::text)
    ))
    returning id`.execute(db);
  return result.rows.length > 0;
}

export async function setOrderWebhookStatus(db: Db, domain: string, orderId: string, status: number | null): Promise<void> {
  await db
    .updateTable('sandbox_orders')
    .set({ webhook_status: status })
    .where('store_domain', '=', domain)
    .where('id', '=', orderId)
    .execute();
}

// --- the store owner's sign-in and ownership confirmations ---

export async function findOwner(db: Db, domain: string) {
  return db.selectFrom('sandbox_store_owners').select(['email', 'password_hash']).where('domain', '=', domain).executeTakeFirst();
}

/** The business name of the brand in the network whose store this is, if any (a company record). */
export async function brandNameOfDomain(db: Db, domain: string): Promise<string | undefined> {
  const row = await db.selectFrom('companies').select(['business_name', 'id']).where('domain', '=', domain).executeTakeFirst();
  return row ? (row.business_name ?? row.id) : undefined;
}

/**
 * Sets up the owner sign-in of a store that has none and whose brand is not in the network, in
 * one statement; false when someone set one up first or the store's brand is known.
 */
export async function insertOwnerOfUnknownStore(db: Db, domain: string, email: string, passwordHash: string): Promise<boolean> {
  const result = await sql<{ domain: string }>`
    insert into sandbox_store_owners (domain, email, password_hash)
    select ${domain}::text, ${email}::text, ${passwordHash}::text
    where not exists (select 1 from companies where domain = ${domain})
    on conflict (domain) do nothing
    returning domain`.execute(db);
  return result.rows.length > 0;
}

/** An owner sign-in for a store that has none, whatever its brand (the demo brand's, at start); false when one exists. */
export async function insertOwnerIfNone(db: Db, domain: string, email: string, passwordHash: string): Promise<boolean> {
  const inserted = await db
    .insertInto('sandbox_store_owners')
    .values({ domain, email, password_hash: passwordHash })
    .onConflict((oc) => oc.column('domain').doNothing())
    .returning('domain')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Support's owner sign-in for a store, replacing any earlier one and ending its sessions. */
export async function replaceOwner(db: Db, domain: string, email: string, passwordHash: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('sandbox_store_owners')
      .values({ domain, email, password_hash: passwordHash })
      .onConflict((oc) => oc.column('domain').doUpdateSet({ email, password_hash: passwordHash }))
      .execute();
    await trx.deleteFrom('sandbox_owner_sessions').where('domain', '=', domain).execute();
  });
}

export async function insertOwnerSession(db: Db, session: { tokenHash: string; domain: string; expiresAt: Date }): Promise<void> {
  await db
    .insertInto('sandbox_owner_sessions')
    .values({ token_hash: session.tokenHash, domain: session.domain, expires_at: session.expiresAt })
    .execute();
}

export async function ownerSessionValid(db: Db, tokenHash: string, domain: string, now: Date): Promise<boolean> {
  const row = await db
    .selectFrom('sandbox_owner_sessions')
    .select('token_hash')
    .where('token_hash', '=', tokenHash)
    .where('domain', '=', domain)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertOwnershipRequest(
  db: Db,
  domain: string,
  request: { id: string; requestedBy: string; returnTo: string },
): Promise<void> {
  await db
    .insertInto('sandbox_ownership_requests')
    .values({ id: request.id, domain, requested_by: request.requestedBy, return_to: request.returnTo })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

export async function findOwnershipRequest(db: Db, domain: string, id: string) {
  return db
    .selectFrom('sandbox_ownership_requests')
    .select(['id', 'requested_by', 'return_to', 'status'])
    .where('domain', '=', domain)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Records the owner's answer once; false when the request was already answered or is unknown. */
export async function answerOwnershipRequest(
  db: Db,
  domain: string,
  id: string,
  answer: 'confirmed' | 'declined',
  now: Date,
): Promise<boolean> {
  const row = await db
    .updateTable('sandbox_ownership_requests')
    .set({ status: answer, decided_at: now })
    .where('domain', '=', domain)
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** The store's orders with a known customer, placed before `before`, oldest first. */
export async function ordersBefore(db: Db, domain: string, before: Date) {
  return db
    .selectFrom('sandbox_orders')
    .select(['id', 'customer_email', 'total_cents', 'placed_at'])
    .where('store_domain', '=', domain)
    .where('placed_at', '<', before)
    .where('customer_email', 'is not', null)
    .orderBy('placed_at')
    .orderBy('id')
    .execute();
}

/**
 * Takes money back from an order: a refund of `amountCents` (at most what is left) or, with
 * `cancel`, all that is left, the order marked cancelled. One statement; returns what it took,
 * or undefined when the order does not exist or was cancelled already.
 */
export async function takeFromOrder(
  db: Db,
  domain: string,
  orderId: string,
  change: { cancel: true; now: Date } | { cancel: false; amountCents: number },
): Promise<number | undefined> {
  const amount = change.cancel ? sql`total_cents - refunded_cents` : sql`least(${change.amountCents}::int, total_cents - refunded_cents)`;
  const result = await sql<{ taken: number }>`
    update sandbox_orders o set
      refunded_cents = o.refunded_cents + taken.amount,
      cancelled_at = ${change.cancel ? change.now : null}::timestamptz
    from (
      select id, ${amount} as amount
      from sandbox_orders where store_domain = ${domain} and id = ${orderId} and cancelled_at is null
      for update
    ) taken
    where o.store_domain = ${domain} and o.id = taken.id
    returning taken.amount as taken`.execute(db);
  return result.rows[0]?.taken;
}
