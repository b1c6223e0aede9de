import { stringify } from 'csv-stringify/sync';
import { checkNewCampaign, createCampaign, listCampaignDetails } from '../campaigns/service.js';
import { companyIdsByDomain } from '../companies/service.js';
import { badRequest } from '../http/errors.js';
import { checkCampaignOffer, offersInCampaigns, saveCampaignOffer, type OfferInput, type OffersContext } from '../offers/service.js';
import { partnerStatusFor } from '../partnerships/status.js';
import { listRecommendations } from '../recommendations/service.js';
import { DEFAULT_PAGE_SIZE, pageWindow } from '../http/paging.js';
import { inTransaction, type ServiceContext } from '../service-context.js';
import * as dal from './dal.js';
import type { PerformanceFigures as Figures } from '../attribution/dal.js';

/**
 * What the dashboard's handlers work with: the service context and the commerce platform that
 * keeps the store's discount code. The dashboard owns no table but the performance rollups; its
 * writes are calls to the owning domains' services.
 */
export type DashboardContext = ServiceContext & OffersContext;

// --- brand search and recommendations ---

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
export async function recommendationsWithIds(ctx: Pick<DashboardContext, 'db'>, companyId: string) {
  const { data } = await listRecommendations(ctx.db, companyId);
  const ids = await companyIdsByDomain(
    ctx,
    data.flatMap((item) => (item.domain ? [item.domain] : [])),
  );
  return { data: data.map((item) => ({ ...item, companyId: item.domain ? (ids.get(item.domain) ?? null) : null })) };
}

// --- collabs (campaigns) ---

/** The collabs page: the brand's campaigns with the offer each side shows in them. */
export async function listCollabs(ctx: Pick<DashboardContext, 'db'>, companyId: string, now = new Date()) {
  const rows = await listCampaignDetails(ctx, companyId, now);
  const offers = await offersInCampaigns(ctx, companyId, rows);
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    status: row.effective_status,
    scheduled: row.status === 'scheduled' && row.effective_status === 'draft',
    startDate: row.start_date?.toISOString() ?? null,
    endDate: row.end_date?.toISOString() ?? null,
    mine: row.owner_id === companyId,
    partner: { companyId: row.owner_id === companyId ? row.partner_id : row.owner_id, businessName: row.partner_name },
    offers: offers.get(row.id)!,
  }));
}

/**
 * A new collab: a draft campaign with the partner, and the creator's offer in it when one is
 * given, written together. The campaign and the offer are checked before anything is looked up.
 */
export async function createCollab(
  ctx: DashboardContext,
  companyId: string,
  input: { partnerId: string; name: string; startDate?: string | undefined; endDate?: string | undefined; offer?: OfferInput | undefined },
  now = new Date(),
): Promise<{ id: string }> {
  const campaign = checkNewCampaign(input, now);
  const offer = input.offer ? await checkCampaignOffer(ctx, companyId, input.offer) : null;
  return inTransaction(ctx, async (tx) => {
    const created = await createCampaign(tx, companyId, campaign, now);
    if (offer) await saveCampaignOffer(tx, created.id, companyId, offer, now);
    return created;
  });
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
  const byPlatform = rows.flatMap((row) =>
    row.platform_id === null ? [] : [{ platformId: row.platform_id, name: row.platform_name, ...figuresOf(row) }],
  );
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
export async function performance(
  ctx: Pick<DashboardContext, 'db'>,
  companyId: string,
  query: PerformanceRange & { pageIndex?: number; pageSize?: number },
) {
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

/**
 * The performance page as CSV: every day, every platform, every partner (not one page) and the
 * totals. Its cost grows with the partners and the rollup rows in the range. A text starting like a
 * formula (`=`, `+`, `-`, `@`, a tab, a carriage return or their full-width forms) gets a leading
 * `'`, so a spreadsheet never runs a brand name (csv-stringify's `escape_formulas`).
 */
export async function performanceCsv(ctx: Pick<DashboardContext, 'db'>, companyId: string, range: PerformanceRange): Promise<string> {
  const days = daysOf(range);
  const [report, partners] = await Promise.all([
    summary(ctx, companyId, range, days),
    dal.performanceAllPartners(ctx.db, companyId, range.from, range.to),
  ]);
  const row = (group: string, id: string, name: string | null, figures: Figures) => [group, id, name, ...FIGURES.map((f) => figures[f])];
  const rows = [
    ...report.byDay.map((day) => row('day', day.date, null, day)),
    ...report.byPlatform.map((platform) => row('platform', platform.platformId, platform.name, platform)),
    ...partners.map((partner) => row('partner', partner.other_id, partner.other_name, figuresOf(partner))),
    row('total', '', null, report.totals),
  ];
  return stringify(rows, {
    header: true,
    columns: ['group', 'id', 'name', ...FIGURES],
    record_delimiter: 'windows',
    escape_formulas: true,
  });
}
