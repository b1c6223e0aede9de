import crypto from 'node:crypto';
import { issueBrandKey, issuePlatformKey, saveCompany, savePlatform, type SupportContext } from '../../src/admin/service.js';

export function uniqueId(prefix: string): string {
  return `${prefix}-${crypto.randomBytes(4).toString('hex')}`;
}

export async function createPlatform(
  support: SupportContext,
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
  support: SupportContext,
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
