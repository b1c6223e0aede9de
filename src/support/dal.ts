import { sql } from 'kysely';
import type { Db } from '../db/database.js';

export interface PlatformInput {
  id: string;
  name: string;
  active: boolean;
  offerTypes: string[];
  approvedOrigins: string[];
  pluginPageUrl: string | null;
}

export async function upsertPlatform(db: Db, platform: PlatformInput): Promise<void> {
  await db
    .insertInto('platforms')
    .values({
      id: platform.id,
      name: platform.name,
      active: platform.active,
      offer_types: platform.offerTypes,
      approved_origins: platform.approvedOrigins,
      plugin_page_url: platform.pluginPageUrl,
    })
    .onConflict((oc) =>
      oc.column('id').doUpdateSet({
        name: platform.name,
        active: platform.active,
        offer_types: platform.offerTypes,
        approved_origins: platform.approvedOrigins,
        plugin_page_url: platform.pluginPageUrl,
        updated_at: sql`now()`,
      }),
    )
    .execute();
}

export async function setPlatformActive(db: Db, platformId: string, active: boolean): Promise<boolean> {
  const result = await db
    .updateTable('platforms')
    .set({ active, updated_at: sql`now()` })
    .where('id', '=', platformId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
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

export async function revokeKey(db: Db, table: 'platform_keys' | 'brand_api_keys', keyId: string): Promise<boolean> {
  const result = await db
    .updateTable(table)
    .set({ revoked_at: sql`now()` })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
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

export async function upsertCompany(db: Db, company: CompanyInput): Promise<void> {
  const values = {
    domain: company.domain,
    business_name: company.businessName,
    logo_image_url: company.logoImageUrl,
    description: company.description,
    business_size: company.businessSize,
    country: company.country,
    categories: company.categories,
    product_count: company.productCount,
    commerce_platform: company.commercePlatform,
  };
  await db
    .insertInto('companies')
    .values({ id: company.id, ...values })
    .onConflict((oc) => oc.column('id').doUpdateSet({ ...values, updated_at: sql`now()` }))
    .execute();
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
