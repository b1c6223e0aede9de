import crypto from 'node:crypto';
import { issueBrandKey, issuePlatformKey } from '../../src/auth/service.js';
import { companyColumns, type CompanyInput } from '../../src/companies/dal.js';
import type { PlatformInput } from '../../src/platforms/dal.js';
import { createPlatform as createPlatformRecord, getPlatform, updatePlatform } from '../../src/platforms/service.js';
import type { ServiceContext } from '../../src/service-context.js';

/** Creates the platform as given, or replaces it, through the platforms service (its checks apply). */
export async function savePlatform(ctx: ServiceContext, { id, ...fields }: PlatformInput): Promise<void> {
  const exists = await getPlatform(ctx, id).then(
    () => true,
    () => false,
  );
  if (exists) await updatePlatform(ctx, id, fields);
  else await createPlatformRecord(ctx, { id, ...fields });
}

/** Writes a company record as given, without the companies service's checks: test data in any shape a test needs. */
export async function saveCompany(ctx: ServiceContext, company: CompanyInput): Promise<void> {
  await ctx.db
    .insertInto('companies')
    .values({ id: company.id, ...companyColumns(company) })
    .onConflict((oc) => oc.column('id').doUpdateSet({ ...companyColumns(company), updated_at: new Date() }))
    .execute();
  await ctx.bus.publish('offers');
}

export function uniqueId(prefix: string): string {
  return `${prefix}-${crypto.randomBytes(4).toString('hex')}`;
}

export async function createPlatform(
  support: ServiceContext,
  options: { active?: boolean; offerTypes?: string[]; approvedOrigins?: string[]; pluginPageUrl?: string | null } = {},
): Promise<{ platformId: string; key: string; keyId: string }> {
  const platformId = crypto.randomUUID();
  await savePlatform(support, {
    id: platformId,
    name: uniqueId('Platform'),
    active: true,
    offerTypes: options.offerTypes ?? ['post-purchase'],
    approvedOrigins: options.approvedOrigins ?? [],
    pluginPageUrl: options.pluginPageUrl ?? null,
  });
  const { key, keyId } = await issuePlatformKey(support, platformId);
  if (options.active === false) {
    await savePlatform(support, {
      id: platformId,
      name: 'Inactive platform',
      active: false,
      offerTypes: options.offerTypes ?? ['post-purchase'],
      approvedOrigins: [],
      pluginPageUrl: null,
    });
  }
  return { platformId, key, keyId };
}

export async function createBrand(
  support: ServiceContext,
  profile: Partial<{
    companyId: string;
    domain: string;
    businessName: string;
    categories: string[];
    country: string;
    businessSize: string;
    productCount: number;
    commercePlatform: string;
    logoImageUrl: string;
    description: string;
  }> = {},
): Promise<{ companyId: string; key: string; keyId: string }> {
  const companyId = profile.companyId ?? uniqueId('brand');
  await saveCompany(support, {
    id: companyId,
    domain: profile.domain ?? `${companyId}.example`,
    businessName: profile.businessName ?? `Brand ${companyId}`,
    logoImageUrl: profile.logoImageUrl ?? null,
    description: profile.description ?? null,
    businessSize: profile.businessSize ?? null,
    country: profile.country ?? null,
    categories: profile.categories ?? [],
    productCount: profile.productCount ?? null,
    commercePlatform: profile.commercePlatform ?? null,
  });
  const { key, keyId } = await issueBrandKey(support, companyId);
  return { companyId, key, keyId };
}
