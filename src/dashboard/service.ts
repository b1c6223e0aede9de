import crypto from 'node:crypto';
import type { Db } from '../db/database.js';
import type { InvalidationBus } from '../cache/invalidation.js';
import type { ServiceEnv } from '../config.js';
import type { CommerceAdapter } from '../commerce/adapter.js';
import { noCommercePlatform } from '../commerce/registry.js';
import { ApiError, badRequest, forbidden, notFound } from '../http/errors.js';
import { partnerStatusFor, type PartnerStatus } from '../partnerships/status.js';
import { listPartners } from '../partnerships/service.js';
import { listRecommendations } from '../recommendations/service.js';
import { effectiveCampaignStatus } from '../campaigns/status.js';
import { discountCodeFor } from '../plugin/onboarding.js';
import { DEFAULT_PAGE_SIZE, pageWindow } from '../http/paging.js';
import * as dal from './dal.js';
import type { PerformanceFigures as Figures } from '../attribution/dal.js';

export interface DashboardContext {
  db: Db;
  bus: InvalidationBus;
  serviceEnv: ServiceEnv;
  /** The commerce platform that keeps the store's discount code; null on a host with none. */
  adapter: Pick<CommerceAdapter, 'saveDiscountCode' | 'removeDiscountCode'> | null;
}

const conflict = (message: string) => new ApiError(409, 'conflict', message);

// --- partnerships (DESIGN 4) ---

export async function searchBrands(ctx: Pick<DashboardContext, 'db'>, companyId: string, text: string) {
  const rows = await dal.searchBrands(ctx.db, companyId, text.trim(), 25);
  return rows.map((row) => ({
    companyId: row.id,
    businessName: row.business_name,
    domain: row.domain,
    logoImageUrl: row.logo_image_url,
    categories: row.categories,
    status: row.status === null ? null : partnerStatusFor(row.status, row.requester_id === companyId),
  }));
}

/** The recommendations of GET /v1/discover/partner/recommendations, each with the company id a request needs. */
export async function recommendationsWithIds(ctx: DashboardContext, companyId: string) {
  const { data } = await listRecommendations(ctx.db, companyId);
  const ids = await dal.companyIdsByDomain(ctx.db, data.flatMap((item) => (item.domain ? [item.domain] : [])));
  return { data: data.map((item) => ({ ...item, companyId: item.domain ? (ids.get(item.domain) ?? null) : null })) };
}

export type PartnershipAction = 'accept' | 'decline' | 'withdraw' | 'remove';

/** Every change of a partnership changes the lists and what the offers endpoint returns. */
async function partnershipsChanged(ctx: DashboardContext): Promise<void> {
  await ctx.bus.publish('partnerships');
  await ctx.bus.publish('campaigns');
  await ctx.bus.publish('offers');
}

export async function sendRequest(ctx: DashboardContext, companyId: string, otherId: string, message: string | null): Promise<void> {
  if (otherId === companyId) throw badRequest('companyId must be another brand than yours');
  if (!(await dal.companyExists(ctx.db, otherId))) throw notFound(`no brand ${otherId}`);
  if (!(await dal.insertRequest(ctx.db, companyId, otherId, message))) {
    throw conflict('there is already an open connection request or an active partnership with this brand');
  }
  await partnershipsChanged(ctx);
}

const TRANSITIONS: Record<PartnershipAction, { side: 'requester' | 'recipient' | 'either'; from: 'pending' | 'active'; to: 'active' | 'declined' | 'removed'; missing: string }> = {
  accept: { side: 'recipient', from: 'pending', to: 'active', missing: 'no connection request from this brand to accept' },
  decline: { side: 'recipient', from: 'pending', to: 'declined', missing: 'no connection request from this brand to decline' },
  withdraw: { side: 'requester', from: 'pending', to: 'removed', missing: 'no connection request to this brand to withdraw' },
  remove: { side: 'either', from: 'active', to: 'removed', missing: 'no active partnership with this brand' },
};

export async function changePartnership(ctx: DashboardContext, companyId: string, otherId: string, action: PartnershipAction, now = new Date()): Promise<void> {
  const transition = TRANSITIONS[action];
  await ctx.db.transaction().execute(async (trx) => {
    const id = await dal.moveOpenPartnership(trx, { callerId: companyId, otherId, callerSide: transition.side }, transition.from, transition.to, now);
    if (!id) throw notFound(transition.missing);
    if (transition.to === 'removed') await dal.closeCampaignsOfPartnership(trx, id, now);
  });
  await partnershipsChanged(ctx);
}

/**
 * What a declined or removed row leads to now: the pair's latest partnership, seen by the caller.
 * The pair may be partners again, or have a request open, and then a new request would be refused.
 */
export async function partnersWithCurrentState(
  ctx: DashboardContext,
  companyId: string,
  query: { status: PartnerStatus; pageIndex: number; pageSize: number },
) {
  const page = await listPartners(ctx.db, companyId, query);
  if (query.status !== 'declined' && query.status !== 'removed') return page;
  const latest = await dal.latestPartnershipStatuses(ctx.db, companyId, [...new Set(page.data.map((partner) => partner.companyId))]);
  const current: Record<string, PartnerStatus> = {};
  for (const row of latest) current[row.other_id] = partnerStatusFor(row.status, row.requester_id === companyId);
  return { ...page, current };
}

// --- campaigns (collabs) and offers ---

export interface OfferInput {
  title: string;
  subtitle?: string | null | undefined;
  imageUrl: string;
  discountPercent?: number | null | undefined;
}

/** Title, subtitle and image as stored, checked the same for the brand's offer and a campaign's. */
function offerContent(input: OfferInput): { title: string; subtitle: string | null; imageUrl: string } {
  const title = input.title.trim();
  if (title === '') throw badRequest('title must not be empty');
  let imageUrl: URL;
  try {
    imageUrl = new URL(input.imageUrl);
  } catch {
    throw badRequest('imageUrl must be an absolute http or https URL');
  }
  if (imageUrl.protocol !== 'https:' && imageUrl.protocol !== 'http:') throw badRequest('imageUrl must be an absolute http or https URL');
  return { title, subtitle: input.subtitle?.trim() ? input.subtitle.trim() : null, imageUrl: imageUrl.toString() };
}

function toOffer(row: dal.OfferRow | undefined) {
  return row ? { title: row.title, subtitle: row.subtitle, imageUrl: row.image_url, discountPercent: row.discount_percent, live: row.live, custom: false } : null;
}

/** A side's offer in one campaign: its own for this campaign when it set one, else the brand's offer. */
function campaignSideOffer(own: dal.OfferRow | undefined, custom: dal.CampaignOfferRow | undefined) {
  if (!custom) return toOffer(own);
  return {
    title: custom.title,
    subtitle: custom.subtitle,
    imageUrl: custom.image_url,
    discountPercent: custom.include_discount ? (own?.discount_percent ?? null) : null,
    live: own?.live ?? true,
    custom: true,
  };
}

export async function listCampaigns(ctx: DashboardContext, companyId: string, now = new Date()) {
  const rows = await dal.listCampaignDetails(ctx.db, companyId, now, 100);
  const [ownOffers, customOffers] = await Promise.all([
    dal.findOffers(ctx.db, [...new Set([companyId, ...rows.flatMap((row) => [row.owner_id, row.partner_id])])]),
    dal.findCampaignOffers(ctx.db, rows.map((row) => row.id)),
  ]);
  const own = new Map(ownOffers.map((row) => [row.company_id, row]));
  const custom = new Map(customOffers.map((row) => [`${row.campaign_id} ${row.company_id}`, row]));
  return rows.map((row) => {
    const partnerId = row.owner_id === companyId ? row.partner_id : row.owner_id;
    return {
      id: row.id,
      name: row.name,
      status: row.effective_status,
      scheduled: row.status === 'scheduled' && row.effective_status === 'draft',
      startDate: row.start_date?.toISOString() ?? null,
      endDate: row.end_date?.toISOString() ?? null,
      mine: row.owner_id === companyId,
      partner: { companyId: partnerId, businessName: row.partner_name },
      offers: {
        mine: campaignSideOffer(own.get(companyId), custom.get(`${row.id} ${companyId}`)),
        partner: campaignSideOffer(own.get(partnerId), custom.get(`${row.id} ${partnerId}`)),
      },
    };
  });
}

/**
 * The offer a brand shows in one campaign. Its discount is the store's one code (DESIGN 4), so
 * a campaign offer either includes the brand's discount or leaves it out; it cannot name another.
 */
async function checkedCampaignOffer(ctx: DashboardContext, companyId: string, input: OfferInput): Promise<dal.CampaignOfferContent> {
  const content = offerContent(input);
  const storePercent = (await dal.findOffers(ctx.db, [companyId]))[0]?.discount_percent ?? null;
  const percent = input.discountPercent ?? null;
  if (percent !== null && percent !== storePercent) {
    throw badRequest(
      storePercent === null
        ? 'discountPercent must be null: your brand offers no discount (set one under Your offer)'
        : `discountPercent must be ${storePercent} or null: a store has one discount code, and yours gives ${storePercent}%`,
    );
  }
  return { ...content, includeDiscount: percent !== null };
}

export async function createCampaign(
  ctx: DashboardContext,
  companyId: string,
  input: { partnerId: string; name: string; startDate?: string | undefined; endDate?: string | undefined; offer?: OfferInput | undefined },
  now = new Date(),
): Promise<{ id: string }> {
  const name = input.name.trim();
  if (name === '') throw badRequest('name must not be empty');
  const startDate = input.startDate ? new Date(input.startDate) : null;
  const endDate = input.endDate ? new Date(input.endDate) : null;
  if (startDate && endDate && endDate <= startDate) throw badRequest('endDate must be after startDate');
  if (endDate && endDate <= now) throw badRequest('endDate must be in the future');
  const offer = input.offer ? await checkedCampaignOffer(ctx, companyId, input.offer) : null;
  const partnershipId = await dal.activePartnershipId(ctx.db, companyId, input.partnerId);
  if (!partnershipId) throw notFound(`no active partnership with brand ${input.partnerId}`);
  const id = crypto.randomUUID();
  await ctx.db.transaction().execute(async (trx) => {
    await dal.insertCampaign(trx, { id, partnershipId, ownerId: companyId, partnerId: input.partnerId, name, startDate, endDate, now });
    if (offer) await dal.upsertCampaignOffer(trx, id, companyId, offer, now);
  });
  await ctx.bus.publish('campaigns');
  return { id };
}

/** Another brand's campaign is not found, so campaign ids reveal nothing. */
async function visibleCampaign(ctx: DashboardContext, companyId: string, campaignId: string) {
  const campaign = await dal.findCampaign(ctx.db, campaignId);
  if (!campaign || (campaign.owner_id !== companyId && campaign.partner_id !== companyId)) throw notFound(`no campaign ${campaignId}`);
  return campaign;
}

/**
 * Either brand sets the offer it shows in a campaign, or (null) goes back to its own offer; the
 * offers endpoint uses it at once. A closed campaign is history and keeps what it showed.
 */
export async function setCampaignOffer(ctx: DashboardContext, companyId: string, campaignId: string, input: OfferInput | null, now = new Date()): Promise<void> {
  const campaign = await visibleCampaign(ctx, companyId, campaignId);
  const offer = input ? await checkedCampaignOffer(ctx, companyId, input) : null;
  if (effectiveCampaignStatus(campaign, now) === 'closed') throw conflict('the campaign is closed');
  if (offer) await dal.upsertCampaignOffer(ctx.db, campaignId, companyId, offer, now);
  else await dal.deleteCampaignOffer(ctx.db, campaignId, companyId);
  await ctx.bus.publish('campaigns');
  await ctx.bus.publish('offers');
}

export type CampaignAction = 'start' | 'schedule' | 'close';

/** Campaign transitions of DESIGN 4: the owner starts or schedules a draft, either brand closes; closed is final. */
export async function changeCampaign(
  ctx: DashboardContext,
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
    if (!(await dal.setCampaignStatus(ctx.db, campaignId, ['draft', 'scheduled', 'active'], { status: 'closed' }, now))) throw conflict('the campaign changed meanwhile');
  } else {
    if (campaign.owner_id !== companyId) throw forbidden('only the brand that created the campaign can start or schedule it');
    if (status !== 'draft') throw conflict(`the campaign is ${status}; only a draft can be started or scheduled`);
    if (!campaign.partnership_id || !(await dal.activePartnershipId(ctx.db, campaign.owner_id, campaign.partner_id))) {
      throw conflict('the partnership is no longer active');
    }
    if (action === 'start') {
      if (!(await dal.setCampaignStatus(ctx.db, campaignId, ['draft', 'scheduled'], { status: 'active', startDate: now }, now))) throw conflict('the campaign changed meanwhile');
    } else {
      const startDate = input.startDate ? new Date(input.startDate) : undefined;
      if (!startDate || startDate <= now) throw badRequest('startDate must be a date-time in the future');
      if (campaign.end_date && campaign.end_date <= startDate) throw badRequest('startDate must be before the campaign\'s endDate');
      if (!(await dal.setCampaignStatus(ctx.db, campaignId, ['draft', 'scheduled'], { status: 'scheduled', startDate }, now))) throw conflict('the campaign changed meanwhile');
    }
  }
  await ctx.bus.publish('campaigns');
  await ctx.bus.publish('offers');
}

export async function getOffer(ctx: DashboardContext, companyId: string) {
  return toOffer((await dal.findOffers(ctx.db, [companyId]))[0]);
}

/**
 * The brand's own offer. Its discount is the store's one code (DESIGN 4), kept in the store
 * through the commerce platform: a new percent renames the existing code and changes its
 * percent, no discount removes it, so the store never holds a code the offer does not name.
 */
export async function saveOffer(ctx: DashboardContext, company: { companyId: string; domain: string | null }, input: OfferInput, now = new Date()) {
  const content = offerContent(input);
  const discountPercent = input.discountPercent ?? null;
  if (discountPercent !== null && !company.domain) throw conflict('your brand has no store domain to create a discount code in');
  const previousCode = (await dal.findOffers(ctx.db, [company.companyId]))[0]?.discount_code ?? null;
  const discountCode = discountPercent !== null ? discountCodeFor(company.domain!, discountPercent) : null;
  if (discountCode !== null) {
    if (!ctx.adapter) throw noCommercePlatform('the discount code cannot be created in your store: save the offer without a discount');
    await ctx.adapter.saveDiscountCode(company.domain!, { code: discountCode, percent: discountPercent!, oncePerCustomer: true }, previousCode);
  } else if (previousCode !== null && company.domain && ctx.adapter) {
    await ctx.adapter.removeDiscountCode(company.domain, previousCode);
  }
  await dal.upsertOffer(ctx.db, { companyId: company.companyId, ...content, discountPercent, discountCode, now });
  await ctx.bus.publish('offers');
  return getOffer(ctx, company.companyId);
}

// --- performance ---

const FIGURES: Array<keyof Figures> = ['views', 'clicks', 'orders', 'newCustomers', 'revenueCents', 'commissionCents'];

function figuresOf(row: dal.PerformanceFigureRow): Figures {
  return {
    views: row.views,
    clicks: row.clicks,
    orders: row.orders,
    newCustomers: row.new_customers,
    revenueCents: row.revenue_cents,
    commissionCents: row.commission_cents,
  };
}

function sumOf(rows: Figures[]): Figures {
  const total: Figures = { views: 0, clicks: 0, orders: 0, newCustomers: 0, revenueCents: 0, commissionCents: 0 };
  for (const row of rows) for (const figure of FIGURES) total[figure] += row[figure];
  return total;
}

export const MAX_RANGE_DAYS = 366;
const DAY_MS = 86_400_000;

interface PerformanceRange {
  from: string;
  to: string;
}

/** Every UTC day of the range, from and to inclusive; refuses a reversed or too long range. */
function daysOf(range: PerformanceRange): string[] {
  const from = Date.parse(range.from);
  const count = (Date.parse(range.to) - from) / DAY_MS + 1;
  if (!(count >= 1)) throw badRequest('to must not be before from');
  if (count > MAX_RANGE_DAYS) throw badRequest(`the range must be at most ${MAX_RANGE_DAYS} days`);
  return Array.from({ length: count }, (_, index) => new Date(from + index * DAY_MS).toISOString().slice(0, 10));
}

/** Totals, every day of the range (days without activity as zeros) and each platform's figures. */
async function summary(ctx: Pick<DashboardContext, 'db'>, companyId: string, range: PerformanceRange, days: string[]) {
  const rows = await dal.performanceByDayAndPlatform(ctx.db, companyId, range.from, range.to);
  const byDate = new Map(rows.flatMap((row) => (row.day === null ? [] : [[row.day, figuresOf(row)] as const])));
  const byPlatform = rows.flatMap((row) => (row.platform_id === null ? [] : [{ platformId: row.platform_id, name: row.platform_name, ...figuresOf(row) }]));
  return {
    from: range.from,
    to: range.to,
    totals: sumOf(byPlatform),
    byDay: days.map((date) => ({ date, ...(byDate.get(date) ?? sumOf([])) })),
    byPlatform,
  };
}

const partnerFigures = (row: dal.PerformancePartnerRow) => ({ companyId: row.other_id, name: row.other_name, ...figuresOf(row) });

/**
 * The performance page: the summary, and one page of the brands the company has run campaigns with
 * (by name) with their figures over the range; only that page's partners are summed.
 */
export async function performance(ctx: Pick<DashboardContext, 'db'>, companyId: string, query: PerformanceRange & { pageIndex?: number; pageSize?: number }) {
  const { pageIndex = 1, pageSize = DEFAULT_PAGE_SIZE } = query;
  const days = daysOf(query);
  const partnerPage = async () => {
    const totalRows = await dal.countPerformancePartners(ctx.db, companyId);
    const window = pageWindow(pageIndex, pageSize, totalRows);
    const rows = window.empty ? [] : await dal.performancePartnerPage(ctx.db, companyId, query.from, query.to, window);
    return { pageIndex, pageSize, totalRows, data: rows.map(partnerFigures) };
  };
  const [report, byPartner] = await Promise.all([summary(ctx, companyId, query, days), partnerPage()]);
  return { ...report, byPartner };
}

function csvField(value: string | null): string {
  const text = value ?? '';
  // A leading formula character is neutralized so a spreadsheet never runs a brand name.
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * The performance page as CSV: every day, every platform, every partner (not one page) and the
 * totals. Its cost grows with the partners and the rollup rows in the range.
 */
export async function performanceCsv(ctx: Pick<DashboardContext, 'db'>, companyId: string, range: PerformanceRange): Promise<string> {
  const days = daysOf(range);
  const [report, partners] = await Promise.all([summary(ctx, companyId, range, days), dal.performanceAllPartners(ctx.db, companyId, range.from, range.to)]);
  // Figures are integers and need no quoting; only the texts go through csvField.
  const line = (group: string, id: string, name: string | null, figures: Figures) =>
    `${[group, id, name].map(csvField).join(',')},${FIGURES.map((f) => figures[f]).join(',')}`;
  const lines = [['group', 'id', 'name', ...FIGURES].join(',')];
  for (const day of report.byDay) lines.push(line('day', day.date, null, day));
  for (const row of report.byPlatform) lines.push(line('platform', row.platformId, row.name, row));
  for (const row of partners) lines.push(line('partner', row.other_id, row.other_name, figuresOf(row)));
  lines.push(line('total', '', null, report.totals));
  return `${lines.join('\r\n')}\r\n`;
}
