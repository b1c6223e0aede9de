import crypto from 'node:crypto';
import type { Db } from '../db/database.js';
import { badRequest, conflict, forbidden, notFound } from '../http/errors.js';
import { DEFAULT_PAGE_SIZE, pageWindow } from '../http/paging.js';
import type { DataContext } from '../service-context.js';
import * as dal from './dal.js';
import type { Campaign } from './schemas.js';
import { effectiveCampaignStatus, type CampaignStatus } from './status.js';

export async function listCampaigns(
  db: Db,
  companyId: string,
  query: { status?: CampaignStatus; pageIndex?: number; pageSize?: number },
  now: Date,
): Promise<{ data: Campaign[]; totalRows: number }> {
  const { pageIndex = 1, pageSize = DEFAULT_PAGE_SIZE } = query;
  const totalRows = await dal.countCampaigns(db, companyId, query.status, now);
  const window = pageWindow(pageIndex, pageSize, totalRows);
  if (window.empty) return { data: [], totalRows };
  const rows = await dal.listCampaignPage(db, companyId, query.status, now, window);
  return { data: rows.map((row) => toCampaign(row, now)), totalRows };
}

/** The filter and the reported status are computed with the same `now`, so a page never contradicts its filter. */
function toCampaign(row: dal.CampaignRow, now: Date): Campaign {
  const campaign: Campaign = {
    id: row.id,
    status: effectiveCampaignStatus(row, now),
    startDate: row.start_date ? row.start_date.toISOString() : null,
    endDate: row.end_date ? row.end_date.toISOString() : null,
  };
  if (row.name !== null) campaign.name = row.name;
  return campaign;
}

/** The brand's campaigns as owner and as partner, newest first, with the other brand's name: the dashboard's list (at most 100). */
export async function listCampaignDetails(ctx: Pick<DataContext, 'db'>, companyId: string, now: Date): Promise<dal.CampaignDetailRow[]> {
  return dal.listCampaignDetails(ctx.db, companyId, now, 100);
}

/** A campaign as checked before it is created: what it may be refused for before anything is looked up. */
export interface NewCampaign {
  partnerId: string;
  name: string;
  startDate: Date | null;
  endDate: Date | null;
}

export function checkNewCampaign(
  input: { partnerId: string; name: string; startDate?: string | undefined; endDate?: string | undefined },
  now: Date,
): NewCampaign {
  const name = input.name.trim();
  if (name === '') throw badRequest('name must not be empty');
  const startDate = input.startDate ? new Date(input.startDate) : null;
  const endDate = input.endDate ? new Date(input.endDate) : null;
  if (startDate && endDate && endDate <= startDate) throw badRequest('endDate must be after startDate');
  if (endDate && endDate <= now) throw badRequest('endDate must be in the future');
  return { partnerId: input.partnerId, name, startDate, endDate };
}

/** A draft campaign of an active partnership (DESIGN 4), owned by the brand that creates it. */
export async function createCampaign(
  ctx: DataContext,
  companyId: string,
  campaign: NewCampaign,
  now = new Date(),
): Promise<{ id: string }> {
  const partnershipId = await dal.activePartnershipId(ctx.db, companyId, campaign.partnerId);
  if (!partnershipId) throw notFound(`no active partnership with brand ${campaign.partnerId}`);
  const id = crypto.randomUUID();
  await dal.insertCampaign(ctx.db, { id, partnershipId, ownerId: companyId, ...campaign, now });
  await ctx.bus.publish('campaigns');
  return { id };
}

/** Another brand's campaign is not found, so campaign ids reveal nothing. */
export async function visibleCampaign(ctx: Pick<DataContext, 'db'>, companyId: string, campaignId: string) {
  const campaign = await dal.findCampaign(ctx.db, campaignId);
  if (!campaign || (campaign.owner_id !== companyId && campaign.partner_id !== companyId)) throw notFound(`no campaign ${campaignId}`);
  return campaign;
}

export type CampaignAction = 'start' | 'schedule' | 'close';

/** Campaign transitions of DESIGN 4: the owner starts or schedules a draft, either brand closes; closed is final. */
export async function changeCampaign(
  ctx: DataContext,
  companyId: string,
  campaignId: string,
  action: CampaignAction,
  input: { startDate?: string | undefined },
  now = new Date(),
): Promise<void> {
  const campaign = await visibleCampaign(ctx, companyId, campaignId);
  const status = effectiveCampaignStatus(campaign, now);
  if (action === 'close') {
    if (status === 'closed') throw conflict('the campaign is already closed');
    if (!(await dal.setCampaignStatus(ctx.db, campaignId, ['draft', 'scheduled', 'active'], { status: 'closed' }, now)))
      throw conflict('the campaign changed meanwhile');
  } else {
    if (campaign.owner_id !== companyId) throw forbidden('only the brand that created the campaign can start or schedule it');
    if (status !== 'draft') throw conflict(`the campaign is ${status}; only a draft can be started or scheduled`);
    if (!campaign.partnership_id || !(await dal.activePartnershipId(ctx.db, campaign.owner_id, campaign.partner_id))) {
      throw conflict('the partnership is no longer active');
    }
    if (action === 'start') {
      if (!(await dal.setCampaignStatus(ctx.db, campaignId, ['draft', 'scheduled'], { status: 'active', startDate: now }, now)))
        throw conflict('the campaign changed meanwhile');
    } else {
      const startDate = input.startDate ? new Date(input.startDate) : undefined;
      if (!startDate || startDate <= now) throw badRequest('startDate must be a date-time in the future');
      if (campaign.end_date && campaign.end_date <= startDate) throw badRequest("startDate must be before the campaign's endDate");
      if (!(await dal.setCampaignStatus(ctx.db, campaignId, ['draft', 'scheduled'], { status: 'scheduled', startDate }, now)))
        throw conflict('the campaign changed meanwhile');
    }
  }
  await ctx.bus.publish('campaigns');
  await ctx.bus.publish('offers');
}

/** Campaigns of an ended partnership end with it: only active partnerships have running campaigns (DESIGN 4). */
export async function closeCampaignsOfPartnership(ctx: DataContext, partnershipId: string, now: Date): Promise<void> {
  await dal.closeCampaignsOfPartnership(ctx.db, partnershipId, now);
  await ctx.bus.publish('campaigns');
}
