import type { Db } from '../db/database.js';
import { DEFAULT_PAGE_SIZE, pageWindow } from '../http/paging.js';
import { countPartnerships, listPartnershipPage, type PartnershipRow } from './dal.js';
import type { Partner } from './schemas.js';
import { partnerStatusFor, selectionsFor, type PartnerStatus } from './status.js';

export async function listPartners(
  db: Db,
  companyId: string,
  query: { status?: PartnerStatus; pageIndex?: number; pageSize?: number },
): Promise<{ data: Partner[]; totalRows: number }> {
  const { status = 'active', pageIndex = 1, pageSize = DEFAULT_PAGE_SIZE } = query;
  const selections = selectionsFor(status);
  const totalRows = await countPartnerships(db, companyId, selections);
  const window = pageWindow(pageIndex, pageSize, totalRows);
  if (window.empty) return { data: [], totalRows };
  const rows = await listPartnershipPage(db, companyId, selections, window);
  return { data: rows.map((row) => toPartner(row, companyId)), totalRows };
}

/** Optional fields are left out rather than sent as null (SPEC 2.2). */
function toPartner(row: PartnershipRow, companyId: string): Partner {
  const partner: Partner = { companyId: row.partner_id, status: partnerStatusFor(row.status, row.requester_id === companyId) };
  if (row.business_name !== null) partner.businessName = row.business_name;
  if (row.domain !== null) partner.domain = row.domain;
  if (row.logo_image_url !== null) partner.logoImageUrl = row.logo_image_url;
  return partner;
}
