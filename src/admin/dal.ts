import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { CompaniesTable, PlatformsTable } from '../db/schema.js';
import type { Selectable } from 'kysely';

export interface PlatformInput {
  id: string;
  name: string;
  active: boolean;
  offerTypes: string[];
  approvedOrigins: string[];
  pluginPageUrl: string | null;
}

export interface PlatformRow extends PlatformInput {
  createdAt: string;
  updatedAt: string;
}

const toPlatform = (row: Selectable<PlatformsTable>): PlatformRow => ({
  id: row.id,
  name: row.name,
  active: row.active,
  offerTypes: row.offer_types,
  approvedOrigins: row.approved_origins,
  pluginPageUrl: row.plugin_page_url,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

const platformColumns = (platform: Omit<PlatformInput, 'id'>) => ({
  name: platform.name,
  active: platform.active,
  offer_types: platform.offerTypes,
  approved_origins: platform.approvedOrigins,
  plugin_page_url: platform.pluginPageUrl,
});

export async function upsertPlatform(db: Db, platform: PlatformInput): Promise<void> {
  await db
    .insertInto('platforms')
    .values({ id: platform.id, ...platformColumns(platform) })
    .onConflict((oc) => oc.column('id').doUpdateSet({ ...platformColumns(platform), updated_at: sql`now()` }))
    .execute();
}

/** Inserts a new platform; undefined when the id is taken. */
export async function insertPlatform(db: Db, platform: PlatformInput): Promise<PlatformRow | undefined> {
  const row = await db
    .insertInto('platforms')
    .values({ id: platform.id, ...platformColumns(platform) })
    .onConflict((oc) => oc.column('id').doNothing())
    .returningAll()
    .executeTakeFirst();
  return row && toPlatform(row);
}

export async function updatePlatform(db: Db, platform: PlatformInput): Promise<PlatformRow | undefined> {
  const row = await db
    .updateTable('platforms')
    .set({ ...platformColumns(platform), updated_at: sql`now()` })
    .where('id', '=', platform.id)
    .returningAll()
    .executeTakeFirst();
  return row && toPlatform(row);
}

export async function findPlatform(db: Db, platformId: string): Promise<PlatformRow | undefined> {
  const row = await db.selectFrom('platforms').selectAll().where('id', '=', platformId).executeTakeFirst();
  return row && toPlatform(row);
}

export async function listPlatforms(db: Db): Promise<PlatformRow[]> {
  const rows = await db.selectFrom('platforms').selectAll().orderBy('name').orderBy('id').execute();
  return rows.map(toPlatform);
}

export async function setPlatformActive(db: Db, platformId: string, active: boolean): Promise<PlatformRow | undefined> {
  const row = await db
    .updateTable('platforms')
    .set({ active, updated_at: sql`now()` })
    .where('id', '=', platformId)
    .returningAll()
    .executeTakeFirst();
  return row && toPlatform(row);
}

export async function listPlatformKeys(db: Db, platformId: string) {
  const rows = await db
    .selectFrom('platform_keys')
    .select(['id', 'key_last_four', 'environment', 'expires_at', 'revoked_at', 'created_at', 'last_used_at'])
    .where('platform_id', '=', platformId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    keyId: row.id,
    lastFour: row.key_last_four,
    environment: row.environment,
    expiresAt: row.expires_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
  }));
}

export async function insertPlatformKey(
  db: Db,
  key: { platformId: string; keyHash: string; lastFour: string; environment: 'test' | 'live'; expiresAt: Date | null },
): Promise<string> {
  const row = await db
    .insertInto('platform_keys')
    .values({
      platform_id: key.platformId,
      key_hash: key.keyHash,
      key_last_four: key.lastFour,
      environment: key.environment,
      expires_at: key.expiresAt,
    })
    .onConflict((oc) => oc.column('key_hash').doUpdateSet({ expires_at: key.expiresAt }))
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Revokes a key once; revoking it again keeps the first date. Undefined when there is no such key. */
export async function revokeKey(db: Db, table: 'platform_keys' | 'brand_api_keys', keyId: string): Promise<Date | undefined> {
  const row = await db
    .updateTable(table)
    .set({ revoked_at: sql`coalesce(revoked_at, now())` })
    .where('id', '=', keyId)
    .returning('revoked_at')
    .executeTakeFirst();
  return row?.revoked_at ?? undefined;
}

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

export async function upsertCompany(db: Db, company: CompanyInput): Promise<void> {
  await db
    .insertInto('companies')
    .values({ id: company.id, ...companyColumns(company) })
    .onConflict((oc) => oc.column('id').doUpdateSet({ ...companyColumns(company), updated_at: sql`now()` }))
    .execute();
}

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

export async function listBrandKeys(db: Db, companyId: string) {
  const rows = await db
    .selectFrom('brand_api_keys')
    .select(['id', 'name', 'key_last_four', 'environment', 'revoked_at', 'created_at', 'last_used_at'])
    .where('company_id', '=', companyId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    keyId: row.id,
    name: row.name,
    lastFour: row.key_last_four,
    environment: row.environment,
    revokedAt: row.revoked_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
  }));
}

export async function insertBrandKey(
  db: Db,
  key: { companyId: string; name: string; keyHash: string; lastFour: string; environment: 'test' | 'live' },
): Promise<string> {
  const row = await db
    .insertInto('brand_api_keys')
    .values({
      company_id: key.companyId,
      name: key.name,
      key_hash: key.keyHash,
      key_last_four: key.lastFour,
      environment: key.environment,
    })
    .onConflict((oc) => oc.column('key_hash').doUpdateSet({ name: key.name }))
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function listPlatformBrands(db: Db, platformId: string, domain: string | undefined) {
  let query = db
    .selectFrom('platform_brands')
    .select(['domain', 'business_name', 'status', 'end_date'])
    .where('platform_id', '=', platformId);
  if (domain !== undefined) query = query.where('domain', '=', domain);
  const rows = await query.orderBy('domain').execute();
  return rows.map((row) => ({
    domain: row.domain,
    businessName: row.business_name,
    status: row.status,
    endDate: row.end_date ? row.end_date.toISOString() : null,
  }));
}

export async function listPlatformCompanies(db: Db, platformId: string) {
  const rows = await db
    .selectFrom('platform_companies')
    .select(['company_id', 'first_seen_at', 'last_seen_at'])
    .where('platform_id', '=', platformId)
    .orderBy('first_seen_at')
    .orderBy('company_id')
    .execute();
  return rows.map((row) => ({
    companyId: row.company_id,
    firstSeenAt: row.first_seen_at.toISOString(),
    lastSeenAt: row.last_seen_at.toISOString(),
  }));
}

export async function platformExists(db: Db, platformId: string): Promise<boolean> {
  return (await db.selectFrom('platforms').select('id').where('id', '=', platformId).executeTakeFirst()) !== undefined;
}

export async function companyExists(db: Db, companyId: string): Promise<boolean> {
  return (await db.selectFrom('companies').select('id').where('id', '=', companyId).executeTakeFirst()) !== undefined;
}
