import type { Db } from '../db/database.js';
import { closeCampaignsOfPartnership } from '../campaigns/service.js';
import { companyExists } from '../companies/service.js';
import { badRequest, conflict, notFound } from '../http/errors.js';
import { DEFAULT_PAGE_SIZE, pageWindow } from '../http/paging.js';
import { inTransaction, type DataContext } from '../service-context.js';
import {
  countPartnerships,
  insertRequest,
  latestPartnershipStatuses,
  listPartnershipPage,
  moveOpenPartnership,
  openRequestMessages,
  type PartnershipRow,
} from './dal.js';
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

/**
 * A page of partnerships as the dashboard shows it. For open requests, the message the sender
 * wrote, so the recipient reads it where it accepts or declines. For a declined or removed row,
 * what it leads to now: the pair's latest partnership, seen by the caller. The pair may be
 * partners again, or have a request open, and then a new request would be refused.
 */
export async function partnersWithCurrentState(
  ctx: Pick<DataContext, 'db'>,
  companyId: string,
  query: { status: PartnerStatus; pageIndex: number; pageSize: number },
): Promise<{ data: Partner[]; totalRows: number; current?: Record<string, PartnerStatus>; messages?: Record<string, string> }> {
  const page = await listPartners(ctx.db, companyId, query);
  const others = [...new Set(page.data.map((partner) => partner.companyId))];
  if (query.status === 'inviteReceived' || query.status === 'inviteSent') {
    const rows = await openRequestMessages(ctx.db, companyId, others);
    return { ...page, messages: Object.fromEntries(rows.map((row) => [row.other_id, row.message])) };
  }
  if (query.status !== 'declined' && query.status !== 'removed') return page;
  const latest = await latestPartnershipStatuses(ctx.db, companyId, others);
  const current: Record<string, PartnerStatus> = {};
  for (const row of latest) current[row.other_id] = partnerStatusFor(row.status, row.requester_id === companyId);
  return { ...page, current };
}

export type PartnershipAction = 'accept' | 'decline' | 'withdraw' | 'remove';

/** Every change of a partnership changes the lists and what the offers endpoint returns. */
async function partnershipsChanged(ctx: DataContext): Promise<void> {
  await ctx.bus.publish('partnerships');
  await ctx.bus.publish('campaigns');
  await ctx.bus.publish('offers');
}

/** A connection request (DESIGN 4): refused while the pair has an open request or an active partnership. */
export async function sendRequest(ctx: DataContext, companyId: string, otherId: string, message: string | null): Promise<void> {
  if (otherId === companyId) throw badRequest('companyId must be another brand than yours');
  if (!(await companyExists(ctx, otherId))) throw notFound(`no brand ${otherId}`);
  if (!(await insertRequest(ctx.db, companyId, otherId, message))) {
    throw conflict('there is already an open connection request or an active partnership with this brand');
  }
  await partnershipsChanged(ctx);
}

const TRANSITIONS: Record<
  PartnershipAction,
  { side: 'requester' | 'recipient' | 'either'; from: 'pending' | 'active'; to: 'active' | 'declined' | 'removed'; missing: string }
> = {
  accept: { side: 'recipient', from: 'pending', to: 'active', missing: 'no connection request from this brand to accept' },
  decline: { side: 'recipient', from: 'pending', to: 'declined', missing: 'no connection request from this brand to decline' },
  withdraw: { side: 'requester', from: 'pending', to: 'removed', missing: 'no connection request to this brand to withdraw' },
  remove: { side: 'either', from: 'active', to: 'removed', missing: 'no active partnership with this brand' },
};

/** Partnership transitions of DESIGN 4; a removed partnership's campaigns close with it, in the same transaction. */
export async function changePartnership(
  ctx: DataContext,
  companyId: string,
  otherId: string,
  action: PartnershipAction,
  now = new Date(),
): Promise<void> {
  const transition = TRANSITIONS[action];
  await inTransaction(ctx, async (tx) => {
    const id = await moveOpenPartnership(
      tx.db,
      { callerId: companyId, otherId, callerSide: transition.side },
      transition.from,
      transition.to,
      now,
    );
    if (!id) throw notFound(transition.missing);
    if (transition.to === 'removed') await closeCampaignsOfPartnership(tx, id, now);
    await partnershipsChanged(tx);
  });
}
