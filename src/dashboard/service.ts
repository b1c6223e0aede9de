import crypto from 'node:crypto';
import type { Db } from '../db/database.js';
import type { InvalidationBus } from '../cache/invalidation.js';
import type { ServiceEnv } from '../config.js';
import { ApiError, badRequest, forbidden, notFound } from '../http/errors.js';
import { hashSecret, randomToken } from '../auth/keys.js';
import { createBrandUser, normalizeEmail } from '../accounts/users.js';
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../accounts/passwords.js';
import { createCompany } from '../support/service.js';
import { partnerStatusFor } from '../partnerships/status.js';
import { listRecommendations } from '../recommendations/service.js';
import { effectiveCampaignStatus } from '../campaigns/status.js';
import { discountCodeFor } from '../plugin/onboarding.js';
import { DEFAULT_PAGE_SIZE, pageWindow } from '../http/paging.js';
import * as dal from './dal.js';

export interface DashboardContext {
  db: Db;
  bus: InvalidationBus;
  serviceEnv: ServiceEnv;
}

export const INVITATION_LIFETIME_MS = 7 * 86_400_000;
export const RESET_LIFETIME_MS = 30 * 60_000;

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const conflict = (message: string) => new ApiError(409, 'conflict', message);

// --- sign up, invitations, password reset ---

/** Signs up a new brand (its first staff account) or joins one with an invitation code from a member. */
export async function signUp(
  ctx: DashboardContext,
  input: { email: string; password: string; brand?: { businessName: string; domain: string; categories?: string[] }; invitationCode?: string },
  now = new Date(),
): Promise<{ userId: string; companyId: string }> {
  if ((input.brand === undefined) === (input.invitationCode === undefined)) {
    throw badRequest('send either brand (to create a brand) or invitationCode (to join one)');
  }
  if (input.password.length < MIN_PASSWORD_LENGTH || input.password.length > MAX_PASSWORD_LENGTH) {
    throw badRequest(`password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters long`);
  }
  const email = normalizeEmail(input.email);
  // Checked before a brand is created, so a refused account never leaves a brand without staff.
  if (!EMAIL_PATTERN.test(email)) throw badRequest('email must be an email address');
  if (await dal.findUserIdByEmail(ctx.db, email)) throw new ApiError(409, 'email_taken', `a user with email ${email} already exists`);
  if (input.invitationCode !== undefined) {
    const companyId = await dal.takeInvitation(ctx.db, hashSecret(input.invitationCode), now);
    if (!companyId) throw badRequest('invitationCode is unknown, used or expired', 'invalid_invitation');
    const user = await createBrandUser({ db: ctx.db }, companyId, { email, password: input.password });
    return { userId: user.userId, companyId };
  }
  const brand = input.brand!;
  const company = await createCompany(
    { db: ctx.db, bus: ctx.bus, serviceEnv: ctx.serviceEnv },
    { companyId: crypto.randomUUID(), businessName: brand.businessName, domain: brand.domain, categories: brand.categories ?? [] },
  );
  const user = await createBrandUser({ db: ctx.db }, company.companyId, { email, password: input.password });
  return { userId: user.userId, companyId: company.companyId };
}

export async function createInvitation(ctx: DashboardContext, user: { userId: string; companyId: string }, now = new Date()) {
  const code = randomToken(24);
  const expiresAt = new Date(now.getTime() + INVITATION_LIFETIME_MS);
  await dal.insertInvitation(ctx.db, { codeHash: hashSecret(code), companyId: user.companyId, createdBy: user.userId, expiresAt });
  return { code, expiresAt: expiresAt.toISOString() };
}

/**
 * Starts a reset. There is no mail service yet: outside prod the token is handed back for the
 * tester to use; in prod nothing leaves the service until a mail adapter exists. The answer is
 * the same whether the email is known, so it reveals no accounts.
 */
export async function requestPasswordReset(ctx: DashboardContext, emailInput: string, now = new Date()): Promise<{ resetToken?: string }> {
  const userId = await dal.findUserIdByEmail(ctx.db, normalizeEmail(emailInput));
  if (!userId) return {};
  const token = randomToken(43);
  await dal.insertPasswordReset(ctx.db, { tokenHash: hashSecret(token), userId, expiresAt: new Date(now.getTime() + RESET_LIFETIME_MS) });
  return ctx.serviceEnv === 'prod' ? {} : { resetToken: token };
}

export async function completePasswordReset(ctx: DashboardContext, token: string, password: string, now = new Date()): Promise<void> {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    throw badRequest(`password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters long`);
  }
  const done = await dal.resetPassword(ctx.db, hashSecret(token), await hashPassword(password), now);
  if (!done) throw badRequest('token is unknown, used or expired', 'invalid_token');
}

// --- partnerships (DESIGN 4) ---

export async function searchBrands(ctx: DashboardContext, companyId: string, text: string) {
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

// --- campaigns (collabs) and offers ---

function toOffer(row: dal.OfferRow | undefined) {
  return row ? { title: row.title, subtitle: row.subtitle, imageUrl: row.image_url, discountPercent: row.discount_percent, live: row.live } : null;
}

export async function listCampaigns(ctx: DashboardContext, companyId: string, now = new Date()) {
  const rows = await dal.listCampaignDetails(ctx.db, companyId, now, 100);
  const offers = new Map((await dal.findOffers(ctx.db, [...new Set([companyId, ...rows.flatMap((row) => [row.owner_id, row.partner_id])])])).map((row) => [row.company_id, row]));
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
      offers: { mine: toOffer(offers.get(companyId)), partner: toOffer(offers.get(partnerId)) },
    };
  });
}

export async function createCampaign(
  ctx: DashboardContext,
  companyId: string,
  input: { partnerId: string; name: string; startDate?: string | undefined; endDate?: string | undefined },
  now = new Date(),
): Promise<{ id: string }> {
  const name = input.name.trim();
  if (name === '') throw badRequest('name must not be empty');
  const startDate = input.startDate ? new Date(input.startDate) : null;
  const endDate = input.endDate ? new Date(input.endDate) : null;
  if (startDate && endDate && endDate <= startDate) throw badRequest('endDate must be after startDate');
  if (endDate && endDate <= now) throw badRequest('endDate must be in the future');
  const partnershipId = await dal.activePartnershipId(ctx.db, companyId, input.partnerId);
  if (!partnershipId) throw notFound(`no active partnership with brand ${input.partnerId}`);
  const id = crypto.randomUUID();
  await dal.insertCampaign(ctx.db, { id, partnershipId, ownerId: companyId, partnerId: input.partnerId, name, startDate, endDate, now });
  await ctx.bus.publish('campaigns');
  return { id };
}

export type CampaignAction = 'start' | 'schedule' | 'close';

/**
 * Campaign transitions of DESIGN 4: the owner starts or schedules a draft, either brand closes;
 * closed is final. Another brand's campaign is not found, so ids reveal nothing.
 */
export async function changeCampaign(
  ctx: DashboardContext,
  companyId: string,
  campaignId: string,
  action: CampaignAction,
  input: { startDate?: string | undefined },
  now = new Date(),
): Promise<void> {
  const campaign = await dal.findCampaign(ctx.db, campaignId);
  if (!campaign || (campaign.owner_id !== companyId && campaign.partner_id !== companyId)) throw notFound(`no campaign ${campaignId}`);
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

export async function saveOffer(
  ctx: DashboardContext,
  company: { companyId: string; domain: string | null },
  input: { title: string; subtitle?: string | null | undefined; imageUrl: string; discountPercent?: number | null | undefined },
  now = new Date(),
) {
  const title = input.title.trim();
  if (title === '') throw badRequest('title must not be empty');
  let imageUrl: URL;
  try {
    imageUrl = new URL(input.imageUrl);
  } catch {
    throw badRequest('imageUrl must be an absolute http or https URL');
  }
  if (imageUrl.protocol !== 'https:' && imageUrl.protocol !== 'http:') throw badRequest('imageUrl must be an absolute http or https URL');
  const discountPercent = input.discountPercent ?? null;
  // The store's one discount code follows its percent (DESIGN 4), as the plugin's consent names it.
  const discountCode = discountPercent !== null && company.domain ? discountCodeFor(company.domain, discountPercent) : null;
  await dal.upsertOffer(ctx.db, {
    companyId: company.companyId,
    title,
    subtitle: input.subtitle?.trim() ? input.subtitle.trim() : null,
    imageUrl: imageUrl.toString(),
    discountPercent,
    discountCode,
    now,
  });
  await ctx.bus.publish('offers');
  return getOffer(ctx, company.companyId);
}

// --- performance ---

export interface Figures {
  views: number;
  clicks: number;
  orders: number;
  newCustomers: number;
  revenueCents: number;
  commissionCents: number;
}

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

export interface PerformanceRange {
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
async function summary(ctx: DashboardContext, companyId: string, range: PerformanceRange, days: string[]) {
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
 * The performance page: the summary, and one page of the brands the company has figures with
 * (by name) with their figures over the range; only that page's partners are summed.
 */
export async function performance(ctx: DashboardContext, companyId: string, query: PerformanceRange & { pageIndex?: number; pageSize?: number }) {
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
export async function performanceCsv(ctx: DashboardContext, companyId: string, range: PerformanceRange): Promise<string> {
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
