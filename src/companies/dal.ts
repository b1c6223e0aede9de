import crypto from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import { countWritten, jsonRows } from '../db/bulk.js';
import type { CompaniesTable } from '../db/schema.js';
import type { StoreProfile } from './store-profile.js';

export interface CompanyInput {
  id: string;
  domain: string | null;
  businessName: string | null;
  logoImageUrl: string | null;
  description: string | null;
  businessSize: string | null;
  country: string | null;
  categories: string[];
  productCount: number | null;
  commercePlatform: string | null;
}

export interface CompanyRow extends CompanyInput {
  createdAt: string;
  updatedAt: string;
}

/** The `companies` columns of a prepared company, id aside. */
export const companyColumns = (company: CompanyInput) => ({
  domain: company.domain,
  business_name: company.businessName,
  logo_image_url: company.logoImageUrl,
  description: company.description,
  business_size: company.businessSize,
  country: company.country,
  categories: company.categories,
  product_count: company.productCount,
  commerce_platform: company.commercePlatform,
});

const toCompany = (row: Selectable<CompaniesTable>): CompanyRow => ({
  id: row.id,
  domain: row.domain,
  businessName: row.business_name,
  logoImageUrl: row.logo_image_url,
  description: row.description,
  businessSize: row.business_size,
  country: row.country,
  categories: row.categories,
  productCount: row.product_count,
  commercePlatform: row.commerce_platform,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

/** Inserts a new company; undefined when its id or domain is taken. */
export async function insertCompany(db: Db, company: CompanyInput): Promise<CompanyRow | undefined> {
  const row = await db
    .insertInto('companies')
    .values({ id: company.id, ...companyColumns(company) })
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
  return row && toCompany(row);
}

export async function updateCompany(db: Db, company: CompanyInput): Promise<CompanyRow | undefined> {
  const row = await db
    .updateTable('companies')
    .set({ ...companyColumns(company), updated_at: sql`now()` })
    .where('id', '=', company.id)
    .returningAll()
    .executeTakeFirst();
  return row && toCompany(row);
}

export async function findCompany(db: Db, companyId: string): Promise<CompanyRow | undefined> {
  const row = await db.selectFrom('companies').selectAll().where('id', '=', companyId).executeTakeFirst();
  return row && toCompany(row);
}

export async function findCompanyIdByDomain(db: Db, domain: string): Promise<string | undefined> {
  const row = await db.selectFrom('companies').select('id').where('domain', '=', domain).executeTakeFirst();
  return row?.id;
}

export async function companyExists(db: Db, companyId: string): Promise<boolean> {
  return (await db.selectFrom('companies').select('id').where('id', '=', companyId).executeTakeFirst()) !== undefined;
}

/** Company ids by domain: recommendations name brands by domain, and a request needs the id. */
export async function companyIdsByDomain(db: Db, domains: string[]): Promise<Map<string, string>> {
  if (domains.length === 0) return new Map();
  const rows = await db.selectFrom('companies').select(['id', 'domain']).where('domain', 'in', domains).execute();
  return new Map(rows.map((row) => [row.domain!, row.id]));
}

/** A company as the bulk upsert takes it (the fixture loader). */
export interface CompanyUpsertRow {
  id: string;
  domain: string;
  business_name: string;
  logo_image_url: string | null;
  description: string | null;
  business_size: string | null;
  country: string | null;
  categories: string[];
  product_count: number | null;
  commerce_platform: string | null;
}

/** Companies already holding one of these domains, to report a clash instead of a unique violation. */
export async function findCompaniesByDomain(db: Db, domains: string[]): Promise<Array<{ id: string; domain: string }>> {
  if (domains.length === 0) return [];
  const rows = await db.selectFrom('companies').select(['id', 'domain']).where('domain', 'in', domains).execute();
  return rows.map((row) => ({ id: row.id, domain: row.domain ?? '' }));
}

export async function findExistingCompanies(db: Db, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('companies').select('id').where('id', 'in', ids).execute();
  return new Set(rows.map((row) => row.id));
}

export function upsertCompanies(db: Db, rows: CompanyUpsertRow[]): Promise<number> {
  if (rows.length === 0) return Promise.resolve(0);
  return countWritten(
    db,
    sql`
      insert into companies as c (id, domain, business_name, logo_image_url, description, business_size, country,
                                  categories, product_count, commerce_platform)
      select id, domain, business_name, logo_image_url, description, business_size, country,
             categories, product_count, commerce_platform
      from jsonb_to_recordset(${jsonRows(rows)})
        as r(id text, domain text, business_name text, logo_image_url text, description text, business_size text,
             country text, categories text[], product_count integer, commerce_platform text)
      on conflict (id) do update set
        domain = excluded.domain, business_name = excluded.business_name, logo_image_url = excluded.logo_image_url,
        description = excluded.description, business_size = excluded.business_size, country = excluded.country,
        categories = excluded.categories, product_count = excluded.product_count,
        commerce_platform = excluded.commerce_platform, updated_at = now()
      where (c.domain, c.business_name, c.logo_image_url, c.description, c.business_size, c.country,
             c.categories, c.product_count, c.commerce_platform)
        is distinct from (excluded.domain, excluded.business_name, excluded.logo_image_url, excluded.description,
             excluded.business_size, excluded.country, excluded.categories, excluded.product_count,
             excluded.commerce_platform)
      returning 1`,
  );
}

export async function countCompanies(db: Db): Promise<number> {
  const row = await db
    .selectFrom('companies')
    .select(({ fn }) => fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * What an import keeps of a company it reuses and what it takes from the platform: what the
 * company knew stays (its own words over the platform's), the platform's counts are current.
 * `excluded` names the imported values (ON CONFLICT's row, or the CTE of the same name).
 */
const IMPORTED_STORE_SET = sql`
      business_name = coalesce(companies.business_name, excluded.business_name),
      logo_image_url = coalesce(companies.logo_image_url, excluded.logo_image_url),
      description = coalesce(companies.description, excluded.description),
      country = coalesce(companies.country, excluded.country),
      categories = case when cardinality(companies.categories) = 0 then excluded.categories else companies.categories end,
      product_count = excluded.product_count,
      commerce_platform = excluded.commerce_platform,
      updated_at = now()`;

/**
 * Records a store imported from its commerce platform as a brand, reusing the company that already
 * has its domain, else the company of a domain the platform says the store answers on (a brand
 * that signed up as `brand.com` and installs on `brand.myshopify.com`: store_domains, its primary
 * first) when that company is no other store's brand. Writing the company queues it for scoring.
 * Returns the company id.
 */
export async function upsertImportedStore(db: Db, store: StoreProfile): Promise<string> {
  const linked = await sql<{ id: string }>`
    with excluded as (
      select ${store.businessName}::text as business_name, ${store.logoImageUrl}::text as logo_image_url,
             ${store.tagline}::text as description, ${store.country}::text as country,
             ${store.categories}::text[] as categories, ${store.productCount}::integer as product_count,
             ${store.platformName}::text as commerce_platform
    ), reused as (
      select c.id from store_domains sd
        join companies c on c.domain = sd.domain
       where sd.store_domain = ${store.domain}
         and not exists (select 1 from companies own where own.domain = ${store.domain})
         and not exists (select 1 from merchant_stores m where m.company_id = c.id and m.domain <> ${store.domain})
       order by sd.is_primary desc, sd.domain
       limit 1
    )
    update companies set ${IMPORTED_STORE_SET}
      from excluded
     where companies.id = (select id from reused)
    returning companies.id`.execute(db);
  if (linked.rows[0]) return linked.rows[0].id;
  const company = await sql<{ id: string }>`
    insert into companies (id, domain, business_name, logo_image_url, description, country, categories, product_count, commerce_platform)
    values (${`store_${crypto.randomBytes(8).toString('hex')}`}, ${store.domain}, ${store.businessName}, ${store.logoImageUrl},
            ${store.tagline}, ${store.country}, ${store.categories}::text[], ${store.productCount}, ${store.platformName})
    on conflict (domain) do update set ${IMPORTED_STORE_SET}
    returning id`.execute(db);
  return company.rows[0]!.id;
}

/** Inserts a company for a domain nobody has; undefined (nothing written) when a company has it. */
export async function insertCompanyForDomain(
  db: Db,
  company: { id: string; domain: string; businessName: string; categories: string[] },
): Promise<string | undefined> {
  const created = await sql<{ id: string }>`
    insert into companies (id, domain, business_name, categories)
    values (${company.id}, ${company.domain}, ${company.businessName}, ${company.categories}::text[])
    on conflict (domain) do nothing
    returning id`.execute(db);
  return created.rows[0]?.id;
}

/** The company holding the domain, locked until the transaction ends. */
export async function lockCompanyByDomain(db: Db, domain: string): Promise<string> {
  const existing = await sql<{ id: string }>`select id from companies where domain = ${domain} for update`.execute(db);
  return existing.rows[0]!.id;
}

/**
 * Makes `hosts` the store's linked domains, the first its primary: links it no longer has go, a
 * host linked to another store moves to this one (the platform says it points here now).
 */
export async function replaceStoreDomains(db: Db, storeDomain: string, hosts: string[], primary: string | null): Promise<void> {
  await db
    .deleteFrom('store_domains')
    .where('store_domain', '=', storeDomain)
    .$if(hosts.length > 0, (query) => query.where('domain', 'not in', hosts))
    .execute();
  if (hosts.length === 0) return;
  await db
    .insertInto('store_domains')
    .values(hosts.map((domain) => ({ domain, store_domain: storeDomain, is_primary: domain === primary })))
    .onConflict((oc) =>
      oc.column('domain').doUpdateSet((eb) => ({
        store_domain: eb.ref('excluded.store_domain'),
        is_primary: eb.ref('excluded.is_primary'),
        updated_at: sql`now()`,
      })),
    )
    .execute();
}

/**
 * In one indexed read: the store a domain names (the store a host is linked to, else the domain
 * itself) and the hosts linked to that store, its primary first.
 */
export async function storeAndLinkedDomains(
  db: Db,
  domain: string,
): Promise<{ store: string; linked: Array<{ domain: string; primary: boolean }> }> {
  const rows = await db
    .selectFrom('store_domains')
    .select(['store_domain', 'domain', 'is_primary'])
    .where('store_domain', '=', sql<string>`coalesce((select l.store_domain from store_domains l where l.domain = ${domain}), ${domain})`)
    .orderBy('is_primary', 'desc')
    .orderBy('domain')
    .execute();
  return {
    store: rows[0]?.store_domain ?? domain,
    linked: rows.map((row) => ({ domain: row.domain, primary: row.is_primary })),
  };
}

/** The store a host is linked to, if any. */
export async function findLinkedStore(db: Db, domain: string): Promise<string | undefined> {
  const row = await db.selectFrom('store_domains').select('store_domain').where('domain', '=', domain).executeTakeFirst();
  return row?.store_domain;
}

/** The hosts linked to a store, its primary first. */
export async function linkedDomainsOf(db: Db, storeDomain: string): Promise<Array<{ domain: string; primary: boolean }>> {
  const rows = await db
    .selectFrom('store_domains')
    .select(['domain', 'is_primary'])
    .where('store_domain', '=', storeDomain)
    .orderBy('is_primary', 'desc')
    .orderBy('domain')
    .execute();
  return rows.map((row) => ({ domain: row.domain, primary: row.is_primary }));
}
