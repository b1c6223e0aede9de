import type { CommerceAdapter } from '../commerce/adapter.js';
import { storeUrl } from '../attribution/store-url.js';
import { checkNewCampaign, createCampaign, listCampaignDetails } from '../campaigns/service.js';
import { companyIdsByDomain } from '../companies/service.js';
import { badRequest } from '../http/errors.js';
import { checkCampaignOffer, offersInCampaigns, saveCampaignOffer, type OfferInput, type OffersContext } from '../offers/service.js';
import { partnerStatusFor } from '../partnerships/status.js';
import { explainedRecommendations, findingFirstMatches } from '../recommendations/service.js';
import { DEFAULT_PAGE_SIZE, pageWindow } from '../http/paging.js';
import { inTransaction, type ServiceContext } from '../service-context.js';
import * as dal from './dal.js';
import { UNKNOWN_PLATFORM } from '../orders/statements.js';
import { majorUnits } from '../shared/currency.js';
import { spreadsheetCsv } from '../shared/csv.js';
import type { CurrencyFigures, Figures, SidePerformance, SideTotals } from './schemas.js';

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

/**
 * The recommendations of GET /v1/discover/partner/recommendations, each with the company id a
 * request needs and its match rate's terms, and whether matches are still being found (the brand
 * is not scored yet).
 */
export async function recommendationsWithIds(ctx: Pick<DashboardContext, 'db'>, companyId: string) {
  // Asked first: once it says the scores exist, the list read after it is ranked.
  const scoring = await findingFirstMatches(ctx.db, companyId);
  const data = await explainedRecommendations(ctx.db, companyId);
  const ids = await companyIdsByDomain(
    ctx,
    data.flatMap((item) => (item.domain ? [item.domain] : [])),
  );
  return { scoring, data: data.map((item) => ({ ...item, companyId: item.domain ? (ids.get(item.domain) ?? null) : null })) };
}

// --- the brand's offer: where partners' links lead ---

/** How many referral links "Your offer" lists, newest first. */
export const REFERRAL_LINKS_SHOWN = 50;

/**
 * The referral links partners' pages use for the brand's offer, each with the platform, the
 * campaign and the partner that shows it, and where it leads (the redirect `/r/{token}` answers).
 * A link exists once a platform has shown the offer.
 */
export async function referralLinks(
  ctx: Pick<DashboardContext, 'db'>,
  companyId: string,
  links: { referralUrl: (token: string) => string; sandboxBase: string | null },
) {
  const rows = await dal.referralLinksToBrand(ctx.db, companyId, REFERRAL_LINKS_SHOWN);
  return rows.map((row) => ({
    url: links.referralUrl(row.token),
    leadsTo: storeUrl(row.domain, row.discount_code, row.token, links.sandboxBase ? { base: links.sandboxBase } : null) ?? null,
    platform: row.platform_name,
    campaign: row.campaign_name,
    shownBy: row.shower_name,
    createdAt: row.created_at.toISOString(),
  }));
}

// --- collabs (campaigns) ---

type CollabRow = Awaited<ReturnType<typeof listCampaignDetails>>[number];

const STATUS_ORDER = { active: 0, draft: 1, closed: 2 } as const;

/** When a closed campaign ended: its end date once passed, else when it was closed. */
const endedAt = (row: CollabRow, now: Date) => (row.end_date && row.end_date <= now ? row.end_date : row.updated_at).getTime();

/**
 * The campaigns page's order: running first, then drafts, then closed ones. Running ones by start,
 * the latest first; drafts by the start date they have, the soonest first, then undated ones,
 * the newest first; closed ones by when they ended, the latest first.
 */
function collabOrder(now: Date) {
  const time = (date: Date | null) => date?.getTime() ?? null;
  return (a: CollabRow, b: CollabRow): number => {
    const status = STATUS_ORDER[a.effective_status] - STATUS_ORDER[b.effective_status];
    if (status !== 0) return status;
    if (a.effective_status === 'active') return (time(b.start_date) ?? 0) - (time(a.start_date) ?? 0);
    if (a.effective_status === 'closed') return endedAt(b, now) - endedAt(a, now);
    const [startA, startB] = [time(a.start_date), time(b.start_date)];
    if (startA !== null && startB !== null && startA !== startB) return startA - startB;
    if ((startA === null) !== (startB === null)) return startA === null ? 1 : -1;
    return b.created_at.getTime() - a.created_at.getTime();
  };
}

/**
 * Why this brand cannot start a draft (the checks `changeCampaign` makes), or null when it can:
 * only the brand that created it starts it, and only while the two are partners.
 */
function startBlocked(row: CollabRow, companyId: string): 'partner_starts' | 'partnership_ended' | null {
  if (row.effective_status !== 'draft') return null;
  if (row.owner_id !== companyId) return 'partner_starts';
  return row.partnership_active ? null : 'partnership_ended';
}

/** The campaigns page: the brand's campaigns with the offer each side shows in them, in collabOrder. */
export async function listCollabs(ctx: Pick<DashboardContext, 'db'>, companyId: string, now = new Date()) {
  const rows = (await listCampaignDetails(ctx, companyId, now)).sort(collabOrder(now));
  const offers = await offersInCampaigns(ctx, companyId, rows);
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    status: row.effective_status,
    scheduled: row.status === 'scheduled' && row.effective_status === 'draft',
    startDate: row.start_date?.toISOString() ?? null,
    endDate: row.end_date?.toISOString() ?? null,
    mine: row.owner_id === companyId,
    startBlocked: startBlocked(row, companyId),
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

const COUNTS = ['views', 'clicks', 'orders', 'newCustomers'] as const;

/** Views and clicks of a row, with the orders, new customers and money of its money lines (every platform's, the unknown one too). */
function figuresOf(row: Pick<dal.PerformanceFigureRow, 'views' | 'clicks'> | undefined, money: CurrencyFigures[]): Figures {
  return {
    views: row?.views ?? 0,
    clicks: row?.clicks ?? 0,
    orders: money.reduce((sum, line) => sum + line.orders, 0),
    newCustomers: money.reduce((sum, line) => sum + line.newCustomers, 0),
    money,
  };
}

/** Money lines added up per currency (the same currency only), sorted by currency. */
function moneyTotals(lines: CurrencyFigures[]): CurrencyFigures[] {
  const byCurrency = new Map<string, CurrencyFigures>();
  for (const line of lines) {
    const total = byCurrency.get(line.currency) ?? {
      currency: line.currency,
      orders: 0,
      newCustomers: 0,
      revenueMinor: 0,
      commissionMinor: 0,
    };
    total.orders += line.orders;
    total.newCustomers += line.newCustomers;
    total.revenueMinor += line.revenueMinor;
    total.commissionMinor += line.commissionMinor;
    byCurrency.set(line.currency, total);
  }
  return [...byCurrency.values()].sort((a, b) => a.currency.localeCompare(b.currency));
}

function sumOf(rows: Figures[]): Figures {
  const total: Figures = { views: 0, clicks: 0, orders: 0, newCustomers: 0, money: [] };
  for (const row of rows) for (const figure of COUNTS) total[figure] += row[figure];
  total.money = moneyTotals(rows.flatMap((row) => row.money));
  return total;
}

/** Both roles' money rows: each order is the brand's in one role only, so together they hold each order once. */
async function bothSidesMoney(ctx: Pick<DashboardContext, 'db'>, companyId: string, range: PerformanceRange) {
  const sides = await Promise.all(
    (['shown', 'received'] as const).map((side) => dal.sideMoneyByDayAndPlatform(ctx.db, companyId, side, range.from, range.to)),
  );
  return sides.flat();
}

async function bothSidesPartnerMoney(ctx: Pick<DashboardContext, 'db'>, companyId: string, range: PerformanceRange, others?: string[]) {
  const sides = await Promise.all(
    (['shown', 'received'] as const).map((side) => dal.sidePartnerMoney(ctx.db, companyId, side, range.from, range.to, others)),
  );
  const byPartner = moneyByPartner(sides.flat());
  return new Map([...byPartner].map(([id, lines]) => [id, moneyTotals(lines)]));
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

/**
 * The platforms of a range's money and views: each platform with views, clicks or orders, by id,
 * and last the orders credited to no platform ("unknown platform") when there are any.
 */
function platformsOf<Counted extends { platform_id: string | null; platform_name: string | null }>(
  counted: Counted[],
  money: Array<dal.MoneyRow & { grouping: dal.MoneyGrouping; platform_id: string | null }>,
) {
  const viewed = counted.filter((row) => row.platform_id !== null);
  const ordered = money.filter((row) => row.grouping === 'platform');
  const ids = [...new Set([...viewed.map((row) => row.platform_id!), ...ordered.flatMap((row) => row.platform_id ?? [])])].sort();
  const known = ids.map((platformId) => {
    const row = viewed.find((candidate) => candidate.platform_id === platformId);
    return { platformId: platformId as string | null, name: row?.platform_name ?? null, row };
  });
  const unknown = ordered.some((row) => row.platform_id === null) ? [{ platformId: null, name: UNKNOWN_PLATFORM, row: undefined }] : [];
  return {
    platforms: [...known, ...unknown],
    moneyOf: (platformId: string | null) => ordered.filter((row) => row.platform_id === platformId).map(currencyFiguresOf),
  };
}

/** Totals, every day of the range (days without activity as zeros) and each platform's figures, money per currency. */
async function summary(ctx: Pick<DashboardContext, 'db'>, companyId: string, range: PerformanceRange, days: string[]) {
  const [rows, money] = await Promise.all([
    dal.performanceByDayAndPlatform(ctx.db, companyId, range.from, range.to),
    bothSidesMoney(ctx, companyId, range),
  ]);
  const moneyOf = (belongs: (row: (typeof money)[number]) => boolean) => moneyTotals(money.filter(belongs).map(currencyFiguresOf));
  const byDate = new Map(rows.flatMap((row) => (row.day === null ? [] : [[row.day, row] as const])));
  const { platforms } = platformsOf(rows, money);
  const byPlatform = platforms.map(({ platformId, name, row }) => ({
    platformId,
    name,
    ...figuresOf(
      row,
      moneyOf((line) => line.grouping === 'platform' && line.platform_id === platformId),
    ),
  }));
  const totals = sumOf(byPlatform);
  return {
    from: range.from,
    to: range.to,
    totals: { ...totals, money: moneyOf((line) => line.grouping === 'total') },
    byDay: days.map((date) => ({
      date,
      ...figuresOf(
        byDate.get(date),
        moneyOf((line) => line.grouping === 'day' && line.day === date),
      ),
    })),
    byPlatform,
  };
}

/**
 * The performance page: the summary, and one page of the brands the company has run campaigns with
 * (by name) with their figures over the range; only that page's partners are summed. Money is per
 * currency (`money`): amounts of different currencies are never added together.
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
    const money =
      rows.length === 0
        ? new Map<string, CurrencyFigures[]>()
        : await bothSidesPartnerMoney(
            ctx,
            companyId,
            query,
            rows.map((row) => row.other_id),
          );
    const data = rows.map((row) => ({ companyId: row.other_id, name: row.other_name, ...figuresOf(row, money.get(row.other_id) ?? []) }));
    return { pageIndex, pageSize, totalRows, data };
  };
  const [report, byPartner] = await Promise.all([summary(ctx, companyId, query, days), partnerPage()]);
  return { ...report, byPartner };
}

/**
 * The performance page as CSV: every day, every platform, every partner (not one page) and the
 * totals. Money has one line per currency, in minor units and in major units (`revenue`,
 * `commission`, as ISO 4217 counts the currency's decimals): the first line of a group carries its
 * counts, each further currency a line of its own with the counts left empty. A text line starting
 * like a formula gets a leading `'` (spreadsheetCsv).
 */
export async function performanceCsv(ctx: Pick<DashboardContext, 'db'>, companyId: string, range: PerformanceRange): Promise<string> {
  const days = daysOf(range);
  const [report, partners, partnerMoney] = await Promise.all([
    summary(ctx, companyId, range, days),
    dal.performanceAllPartners(ctx.db, companyId, range.from, range.to),
    bothSidesPartnerMoney(ctx, companyId, range),
  ]);
  const rows = [
    ...report.byDay.flatMap((day) => moneyCsvLines('day', day.date, null, day)),
    ...report.byPlatform.flatMap((platform) => moneyCsvLines('platform', platform.platformId ?? '', platform.name, platform)),
    ...partners.flatMap((partner) =>
      moneyCsvLines('partner', partner.other_id, partner.other_name, figuresOf(partner, partnerMoney.get(partner.other_id) ?? [])),
    ),
    ...moneyCsvLines('total', '', null, report.totals),
  ];
  return spreadsheetCsv(rows, MONEY_CSV_COLUMNS);
}

const MONEY_CSV_COLUMNS = [
  'group',
  'id',
  'name',
  'views',
  'clicks',
  'orders',
  'newCustomers',
  'currency',
  'revenueMinor',
  'revenue',
  'commissionMinor',
  'commission',
];

/** A group's CSV lines: its counts and its first currency, then a line per further currency with the counts left empty. */
function moneyCsvLines(group: string, id: string, name: string | null, figures: Omit<Figures, 'orders'> & { orders: number }) {
  const counts = [figures.views, figures.clicks, figures.orders, figures.newCustomers];
  if (figures.money.length === 0) return [[group, id, name, ...counts, '', '', '', '', '']];
  return figures.money.map((money, index) => [
    group,
    id,
    name,
    ...(index === 0 ? counts : counts.map(() => '')),
    money.currency,
    money.revenueMinor,
    majorUnits(money.revenueMinor, money.currency),
    money.commissionMinor,
    majorUnits(money.commissionMinor, money.currency),
  ]);
}

// --- performance per role ---

function currencyFiguresOf(row: dal.MoneyRow): CurrencyFigures {
  return {
    currency: row.currency,
    orders: row.orders,
    newCustomers: row.new_customers,
    revenueMinor: row.revenue_minor,
    commissionMinor: row.commission_minor,
  };
}

/** Views and clicks with the orders and money of each currency; the order counts are added up, the money never is. */
function sideFigures(counted: dal.ViewsClicksRow | undefined, money: CurrencyFigures[]): SideTotals {
  return {
    views: counted?.views ?? 0,
    clicks: counted?.clicks ?? 0,
    orders: money.reduce((sum, row) => sum + row.orders, 0),
    newCustomers: money.reduce((sum, row) => sum + row.newCustomers, 0),
    money,
  };
}

/** Each other brand's money rows, by currency, grouped once. */
function moneyByPartner(rows: Array<dal.MoneyRow & { other_id: string }>): Map<string, CurrencyFigures[]> {
  const byPartner = new Map<string, CurrencyFigures[]>();
  for (const row of rows) byPartner.set(row.other_id, [...(byPartner.get(row.other_id) ?? []), currencyFiguresOf(row)]);
  return byPartner;
}

/** One role's totals, days and platforms over a range: views and clicks, and money per currency from the money rollups. */
async function sideSummary(ctx: Pick<DashboardContext, 'db'>, companyId: string, side: dal.Side, range: PerformanceRange) {
  const [counted, money] = await Promise.all([
    dal.sideViewsByDayAndPlatform(ctx.db, companyId, side, range.from, range.to),
    dal.sideMoneyByDayAndPlatform(ctx.db, companyId, side, range.from, range.to),
  ]);
  const byDate = new Map(counted.flatMap((row) => (row.day === null ? [] : [[row.day, row] as const])));
  const { platforms, moneyOf } = platformsOf(counted, money);
  const ordersOn = (date: string) =>
    money.filter((row) => row.grouping === 'day' && row.day === date).reduce((sum, row) => sum + row.orders, 0);
  const totalCounts = counted
    .filter((row) => row.platform_id !== null)
    .reduce((sum, row) => ({ views: sum.views + row.views, clicks: sum.clicks + row.clicks }), { views: 0, clicks: 0 });
  return {
    totals: sideFigures(totalCounts, money.filter((row) => row.grouping === 'total').map(currencyFiguresOf)),
    byDay: daysOf(range).map((date) => ({
      date,
      views: byDate.get(date)?.views ?? 0,
      clicks: byDate.get(date)?.clicks ?? 0,
      orders: ordersOn(date),
    })),
    byPlatform: platforms.map(({ platformId, name, row }) => ({ platformId, name, ...sideFigures(row, moneyOf(platformId)) })),
  };
}

/**
 * One of the brand's roles over a range (`shown`: partners' offers on its pages; `received`: its
 * offer on partners' pages): views and clicks from the role's rollups and the live counters,
 * orders with their revenue and ledger commission per currency from the money rollups, per day,
 * platform and partner (one page of them, whose money is read for those partners only).
 */
export async function sidePerformance(
  ctx: Pick<DashboardContext, 'db'>,
  companyId: string,
  side: dal.Side,
  query: PerformanceRange & { pageIndex?: number; pageSize?: number },
): Promise<SidePerformance> {
  const { pageIndex = 1, pageSize = DEFAULT_PAGE_SIZE } = query;
  const partnerPage = async () => {
    const totalRows = await dal.countPerformancePartners(ctx.db, companyId);
    const window = pageWindow(pageIndex, pageSize, totalRows);
    const partners = window.empty ? [] : await dal.sidePartnerPage(ctx.db, companyId, side, query.from, query.to, window);
    const money =
      partners.length === 0
        ? new Map<string, CurrencyFigures[]>()
        : moneyByPartner(
            await dal.sidePartnerMoney(
              ctx.db,
              companyId,
              side,
              query.from,
              query.to,
              partners.map((row) => row.other_id),
            ),
          );
    return {
      pageIndex,
      pageSize,
      totalRows,
      data: partners.map((row) => ({
        companyId: row.other_id,
        name: row.other_name,
        ...sideFigures(row, money.get(row.other_id) ?? []),
      })),
    };
  };
  const [summary, byPartner] = await Promise.all([sideSummary(ctx, companyId, side, query), partnerPage()]);
  return { side, from: query.from, to: query.to, ...summary, byPartner };
}

/**
 * One role as CSV: every day, platform and partner (not one page) and the totals. Money has one
 * line per currency: the first line of a platform, partner or the totals carries its counts and
 * its first currency, each further currency a line of its own with the counts left empty.
 */
export async function sidePerformanceCsv(ctx: Pick<DashboardContext, 'db'>, companyId: string, side: dal.Side, range: PerformanceRange) {
  const [summary, partners, partnerMoney] = await Promise.all([
    sideSummary(ctx, companyId, side, range),
    dal.sideAllPartners(ctx.db, companyId, side, range.from, range.to),
    dal.sidePartnerMoney(ctx.db, companyId, side, range.from, range.to).then(moneyByPartner),
  ]);
  const rows = [
    ...summary.byDay.map((day) => ['day', day.date, null, day.views, day.clicks, day.orders, '', '', '', '', '', '']),
    ...summary.byPlatform.flatMap((platform) => moneyCsvLines('platform', platform.platformId ?? '', platform.name, platform)),
    ...partners.flatMap((partner) =>
      moneyCsvLines('partner', partner.other_id, partner.other_name, sideFigures(partner, partnerMoney.get(partner.other_id) ?? [])),
    ),
    ...moneyCsvLines('total', '', null, summary.totals),
  ];
  return spreadsheetCsv(rows, MONEY_CSV_COLUMNS);
}

/**
 * What the brand's store must approve at its commerce platform (Shopify: a higher capped amount)
 * before the commissions held over the cap are charged; null when nothing waits.
 */
export async function billingApproval(
  ctx: { adapter: Pick<CommerceAdapter, 'pendingBillingApproval' | 'platformNameOf'> | null },
  domain: string | null,
) {
  if (!domain || !ctx.adapter) return { approval: null };
  const waiting = await ctx.adapter.pendingBillingApproval(domain);
  if (!waiting) return { approval: null };
  return {
    approval: { ...waiting, platformName: ctx.adapter.platformNameOf(domain), requestedAt: waiting.requestedAt.toISOString() },
  };
}
