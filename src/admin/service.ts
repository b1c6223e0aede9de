import { listBrandKeys, listPlatformKeys } from '../auth/service.js';
import { getCompany } from '../companies/service.js';
import { getPlatform } from '../platforms/service.js';
import type { ServiceContext } from '../service-context.js';

/**
 * What support reads that spans domains; everything else the admin API and the CLI do is a call
 * to the owning domain's service (platforms, companies, auth's credentials).
 */

export async function platformWithKeys(ctx: ServiceContext, platformId: string) {
  const platform = await getPlatform(ctx, platformId);
  return { ...platform, keys: await listPlatformKeys(ctx, platform.id) };
}

export async function companyWithKeys(ctx: ServiceContext, companyId: string) {
  const company = await getCompany(ctx, companyId);
  return { ...company, keys: await listBrandKeys(ctx, companyId) };
}
