import { badRequest } from '../http/errors.js';
import { parseDomain } from '../shared/domain.js';

export interface SyncBrandInput {
  domain: string;
  businessName?: string;
  status?: 'active' | 'closed';
}

export interface SyncBrandRow {
  domain: string;
  businessName: string | null;
  status: 'active' | 'closed';
}

/**
 * Checks every item and folds the request into one row per normalized domain (the later item
 * wins), so the whole request can be written by one statement. Throws on the first bad item,
 * before anything is written.
 */
export function prepareSyncRows(brands: SyncBrandInput[]): SyncBrandRow[] {
  const rows = new Map<string, SyncBrandRow>();
  brands.forEach((brand, index) => {
    const { domain, problem } = parseDomain(brand.domain);
    if (problem !== null) throw badRequest(`brands[${index}].domain ${problem}`);
    const businessName = brand.businessName?.trim();
    rows.delete(domain);
    rows.set(domain, {
      domain,
      businessName: businessName ? businessName : null,
      status: brand.status ?? 'active',
    });
  });
  return [...rows.values()];
}
