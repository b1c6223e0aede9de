import type { Db } from '../db/database.js';
import { DEFAULT_PAGE_SIZE, pageWindow } from '../http/paging.js';
import { countCampaigns, listCampaignPage, type CampaignRow } from './dal.js';
import type { Campaign } from './schemas.js';
import { effectiveCampaignStatus, type CampaignStatus } from './status.js';

export async function listCampaigns(
  db: Db,
  companyId: string,
  query: { status?: CampaignStatus; pageIndex?: number; pageSize?: number },
  now: Date,
): Promise<{ data: Campaign[]; totalRows: number }> {
  const { pageIndex = 1, pageSize = DEFAULT_PAGE_SIZE } = query;
  const totalRows = await countCampaigns(db, companyId, query.status, now);
  const window = pageWindow(pageIndex, pageSize, totalRows);
  if (window.empty) return { data: [], totalRows };
  const rows = await listCampaignPage(db, companyId, query.status, now, window);
  return { data: rows.map((row) => toCampaign(row, now)), totalRows };
}

/** The filter and the reported status are computed with the same `now`, so a page never contradicts its filter. */
function toCampaign(row: CampaignRow, now: Date): Campaign {
  const campaign: Campaign = {
    id: row.id,
    status: effectiveCampaignStatus(row, now),
    startDate: row.start_date ? row.start_date.toISOString() : null,
    endDate: row.end_date ? row.end_date.toISOString() : null,
  };
  if (row.name !== null) campaign.name = row.name;
  return campaign;
}
