import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { AppInstallation } from './adapter.js';
import type { GeneratedStore } from './sandbox-generator.js';

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
}

/** Creates the store with its catalog and orders unless it exists; concurrent callers create it once. */
export async function insertStoreIfAbsent(db: Db, domain: string, store: GeneratedStore, logoImageUrl: string, imageUrl: (productId: string) => string): Promise<void> {
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
        import_failures_left: store.importFailures,
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
          })),
        )
        .execute();
    }
  });
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

export async function approvePlan(db: Db, domain: string, now: Date): Promise<boolean> {
  const row = await db
    .updateTable('sandbox_stores')
    .set({ plan_approved_at: now })
    .where('domain', '=', domain)
    .where('app_status', '=', 'installed')
    .where('plan_approved_at', 'is', null)
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
    .select(['o.id', 'p.title', 'o.quantity', 'o.total_cents', 'o.placed_at'])
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
