import type { Db } from '../db/database.js';
import { getCompany } from '../companies/service.js';
import { badRequest } from '../http/errors.js';
import { majorUnits } from '../shared/currency.js';
import { spreadsheetCsv } from '../shared/csv.js';
import * as dal from './statements-dal.js';
import { isoCurrency } from './service.js';
import type { ChargeHoldReason } from '../db/schema.js';

const MONTH_PATTERN = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** The UTC instants a statement month runs over: from its first day, up to the next month's. */
export function monthRange(month: string): { start: Date; end: Date } {
  const match = MONTH_PATTERN.exec(month);
  if (!match) throw badRequest('month must be a calendar month, YYYY-MM');
  const [year, index] = [Number(match[1]), Number(match[2]) - 1];
  return { start: new Date(Date.UTC(year, index, 1)), end: new Date(Date.UTC(year, index + 1, 1)) };
}

export interface StatementEntry {
  id: number;
  createdAt: string;
  kind: 'commission' | 'reversal' | 'adjustment';
  /** The order's store and id; null for support's manual adjustment. */
  storeDomain: string | null;
  orderId: string | null;
  /** When the order was placed (the day its commission belongs to); null for an adjustment. */
  orderPlacedAt: string | null;
  /** The cancel or refund event a reversal answers; null otherwise. */
  eventId: string | null;
  showingBrandId: string | null;
  showingBrandName: string | null;
  /** Null when the order was matched by its discount code alone: the brand pair is credited, no platform ("unknown platform"). */
  platformId: string | null;
  platformName: string | null;
  amountMinor: number;
  currency: string;
  rateBasisPoints: number;
  /** What the rate was applied to: the order's merchandise after discounts, or the share of it a cancel or refund took. */
  basisMinor: number;
  customer: 'new' | 'returning' | null;
  customerBasis: 'store_history' | 'platform_order_count' | null;
  touch: 'click' | 'view' | null;
  /** The commerce platform's charge of a commission (a Shopify usage record id); null when it charged none. */
  commerceChargeId: string | null;
  /**
   * How the entry is settled: `charged` through the store's commerce platform (it carries the
   * charge), `held` (the platform was asked to charge the commission and did not: `heldReason`), or
   * `owed` to the service directly by the due date (a store not billed through a platform, a
   * reversal or an adjustment: negative is a credit to the brand).
   */
  settlement: Settlement;
  heldReason: ChargeHoldReason | null;
  /** What the platform charged for the commission, in its plan's currency (the order's converted amounts when it is not the entry's). */
  chargedAs: { amountMinor: number; currency: string } | null;
  /** Support's adjustment: why, and who posted it. */
  reason: string | null;
  postedBy: string | null;
  /** A late entry: its order's commission is on this earlier, closed statement. */
  adjusts: { number: string; month: string } | null;
}

export type Settlement = 'charged' | 'held' | 'owed';

/**
 * A statement's totals in one currency: commission, reversals (negative), support's adjustments,
 * the net, and the net split three ways: what the commerce platform charged, what is held (the
 * platform did not charge it: `heldReasons` say why) and what is still owed directly.
 */
export interface StatementCurrency {
  currency: string;
  commissionMinor: number;
  reversalsMinor: number;
  adjustmentsMinor: number;
  netMinor: number;
  chargedMinor: number;
  heldMinor: number;
  heldReasons: ChargeHoldReason[];
  owedMinor: number;
  entries: number;
}

export interface Statement {
  companyId: string;
  businessName: string | null;
  month: string;
  /** `open` until the closing job closes the month; then `closed`, numbered and never changed. */
  status: 'open' | 'closed';
  number: string | null;
  closedAt: string | null;
  dueOn: string | null;
  /** True when the commerce platform charged all of it (nothing held, nothing owed directly); null when it did not report it. */
  paid: boolean | null;
  currencies: StatementCurrency[];
  entries: StatementEntry[];
}

/** Days a closed statement leaves the brand to pay what the commerce platform did not charge. */
export const PAYMENT_TERM_DAYS = 14;

const monthOf = (date: Date) => date.toISOString().slice(0, 7);

function settlementOf(row: dal.StatementLedgerRow): Settlement {
  if (row.kind !== 'commission') return 'owed';
  if (row.commerce_charge_id !== null) return 'charged';
  return row.held_reason === null ? 'owed' : 'held';
}

function entryOf(row: dal.StatementLedgerRow, statementId: number | null): StatementEntry {
  const adjusts =
    row.order_statement_id !== null && row.order_statement_id !== statementId
      ? { number: row.order_statement_number!, month: row.order_statement_month! }
      : null;
  return {
    id: row.id,
    createdAt: row.created_at.toISOString(),
    kind: row.kind,
    storeDomain: row.store_domain,
    orderId: row.order_id,
    orderPlacedAt: row.order_placed_at?.toISOString() ?? null,
    eventId: row.event_id === '' ? null : row.event_id,
    showingBrandId: row.showing_brand_id,
    showingBrandName: row.showing_brand_name,
    platformId: row.platform_id,
    platformName: row.platform_name,
    amountMinor: row.amount_minor,
    currency: row.currency,
    rateBasisPoints: row.rate_basis_points,
    basisMinor: row.basis_minor,
    customer: row.customer,
    customerBasis: row.customer_basis,
    touch: row.touch,
    commerceChargeId: row.commerce_charge_id,
    settlement: settlementOf(row),
    heldReason: settlementOf(row) === 'held' ? row.held_reason : null,
    chargedAs:
      settlementOf(row) === 'charged' && row.charged_minor !== null && row.charged_currency !== null
        ? { amountMinor: Number(row.charged_minor), currency: row.charged_currency }
        : null,
    reason: row.reason,
    postedBy: row.posted_by,
    adjusts,
  };
}

/** Totals per currency, from the entries: what the closing job fixes, and what an open statement shows. */
export function totalsOf(entries: StatementEntry[]): StatementCurrency[] {
  const byCurrency = new Map<string, StatementCurrency>();
  for (const entry of entries) {
    const total = byCurrency.get(entry.currency) ?? {
      currency: entry.currency,
      commissionMinor: 0,
      reversalsMinor: 0,
      adjustmentsMinor: 0,
      netMinor: 0,
      chargedMinor: 0,
      heldMinor: 0,
      heldReasons: [],
      owedMinor: 0,
      entries: 0,
    };
    if (entry.kind === 'commission') total.commissionMinor += entry.amountMinor;
    else if (entry.kind === 'reversal') total.reversalsMinor += entry.amountMinor;
    else total.adjustmentsMinor += entry.amountMinor;
    if (entry.settlement === 'charged') total.chargedMinor += entry.amountMinor;
    if (entry.settlement === 'held') total.heldMinor += entry.amountMinor;
    total.netMinor += entry.amountMinor;
    total.owedMinor = total.netMinor - total.chargedMinor - total.heldMinor;
    total.entries += 1;
    byCurrency.set(entry.currency, total);
  }
  for (const total of byCurrency.values()) total.heldReasons = heldReasonsOf(entries, total.currency);
  return [...byCurrency.values()].sort((a, b) => a.currency.localeCompare(b.currency));
}

/** Why the entries of a currency are held, each reason once, in a fixed order. */
function heldReasonsOf(entries: StatementEntry[], currency: string): ChargeHoldReason[] {
  const reasons = new Set(entries.flatMap((entry) => (entry.currency === currency && entry.heldReason ? [entry.heldReason] : [])));
  return [...reasons].sort();
}

const paidOf = (currencies: StatementCurrency[]) =>
  currencies.some((total) => total.chargedMinor > 0) && currencies.every((total) => total.owedMinor <= 0 && total.heldMinor === 0)
    ? true
    : null;

/**
 * A brand's statement for a UTC month: the ledger entries it owes by (it received the orders), with
 * totals per currency (currencies are never added together). A closed month reads the numbered
 * statement the closing job fixed: its entries and its totals as they were at the close. An open
 * month reads the entries created in it that no statement claimed yet; the first open month also
 * takes the late ones (created for a closed month after it closed), which name the closed
 * statement of their order.
 */
export async function monthlyStatement(ctx: { db: Db }, companyId: string, month: string): Promise<Statement> {
  const { start, end } = monthRange(month);
  const company = await getCompany(ctx, companyId);
  const head = { companyId, businessName: company.businessName, month };
  const closedThrough = await dal.lastClosedMonth(ctx.db);
  if (closedThrough !== undefined && month <= closedThrough) {
    const closed = await dal.closedStatement(ctx.db, companyId, month);
    if (!closed) {
      return { ...head, status: 'closed', number: null, closedAt: null, dueOn: null, paid: null, currencies: [], entries: [] };
    }
    const [rows, totals] = await Promise.all([dal.statementEntries(ctx.db, closed.id), dal.statementTotals(ctx.db, closed.id)]);
    const entries = rows.map((row) => entryOf(row, closed.id));
    // The totals are those fixed at the close; each entry says how it is settled now (a later charge shows on it).
    const currencies = totals.map(
      (total): StatementCurrency => ({
        currency: total.currency,
        commissionMinor: total.commission_minor,
        reversalsMinor: total.reversals_minor,
        adjustmentsMinor: total.adjustments_minor,
        netMinor: total.net_minor,
        chargedMinor: total.charged_minor,
        heldMinor: total.held_minor,
        heldReasons: total.held_reasons,
        owedMinor: total.owed_minor,
        entries: total.entries,
      }),
    );
    return {
      ...head,
      status: 'closed',
      number: closed.number,
      closedAt: closed.closed_at.toISOString(),
      dueOn: closed.due_on,
      paid: paidOf(currencies),
      currencies,
      entries,
    };
  }
  const firstOpen = closedThrough === undefined ? undefined : monthRange(closedThrough).end;
  const takesLate = firstOpen !== undefined && firstOpen.getTime() === start.getTime();
  const rows = await dal.unclaimedEntries(ctx.db, companyId, takesLate ? null : start, end);
  const entries = rows.map((row) => entryOf(row, null));
  const currencies = totalsOf(entries);
  return { ...head, status: 'open', number: null, closedAt: null, dueOn: null, paid: paidOf(currencies), currencies, entries };
}

/**
 * The closing job's one pass: closes every month that ended, oldest first, each for every brand in
 * one transaction. Several processes may run it at once: the month's row in statement_closings is
 * taken by one, the others find it taken and change nothing. Returns the months it closed.
 */
export async function closeEndedMonths(db: Db, now = new Date()): Promise<string[]> {
  const closedThrough = await dal.lastClosedMonth(db);
  const first = closedThrough === undefined ? await dal.firstLedgerMonth(db) : monthOf(monthRange(closedThrough).end);
  const closed: string[] = [];
  for (let month = first; month !== undefined && monthRange(month).end <= now; month = monthOf(monthRange(month).end)) {
    const dueOn = new Date(now.getTime() + PAYMENT_TERM_DAYS * 86_400_000).toISOString().slice(0, 10);
    if (await dal.closeMonth(db, month, monthRange(month).end, now, dueOn)) closed.push(month);
  }
  return closed;
}

/** Support's manual adjustment: a ledger entry of its own (either sign), shown on the brand's next statement. */
export async function postAdjustment(
  ctx: { db: Db },
  companyId: string,
  input: { amountMinor: number; currency: string; reason: string; postedBy: string },
  now = new Date(),
): Promise<StatementEntry> {
  const currency = isoCurrency(input.currency);
  if (!Number.isSafeInteger(input.amountMinor) || input.amountMinor === 0)
    throw badRequest('amountMinor must be a whole number of minor units, not 0');
  const reason = input.reason.trim();
  const postedBy = input.postedBy.trim();
  if (!reason) throw badRequest('reason must say why the adjustment is made');
  if (!postedBy) throw badRequest('postedBy must name who posts the adjustment');
  await getCompany(ctx, companyId);
  const id = await dal.appendAdjustment(ctx.db, { companyId, amountMinor: input.amountMinor, currency, reason, postedBy, now });
  const [row] = await dal.ledgerRowsById(ctx.db, [id]);
  return entryOf(row!, null);
}

const ENTRY_COLUMNS = [
  'createdAt',
  'kind',
  'storeDomain',
  'orderId',
  'orderPlacedAt',
  'eventId',
  'adjustsStatement',
  'showingBrandId',
  'showingBrandName',
  'platformId',
  'platformName',
  'customer',
  'customerBasis',
  'touch',
  'reason',
  'postedBy',
  'rateBasisPoints',
  'basisMinor',
  'amountMinor',
  'amount',
  'currency',
  'settlement',
  'heldReason',
  'commerceChargeId',
] as const;

/** What a statement calls the platform of an entry credited to the brand pair only. */
export const UNKNOWN_PLATFORM = 'unknown platform';

/**
 * The statement as CSV: one `entry` line per ledger entry (how it is settled: charged, held and
 * why, or owed), then `commission`, `reversals`, `adjustments`, `net`, `charged`, `held` (its
 * reasons in `heldReason`) and `owed` lines per currency; amounts in minor units and, in
 * `amount`, in major units as ISO 4217 counts them. A text line starting like a formula gets a leading
 * `'` (spreadsheetCsv).
 */
export function statementCsv(statement: Statement): string {
  const blank = Object.fromEntries(ENTRY_COLUMNS.map((column) => [column, '']));
  const rows = [
    ...statement.entries.map((entry) => ({
      line: 'entry',
      ...entry,
      eventId: entry.eventId ?? '',
      heldReason: entry.heldReason ?? '',
      commerceChargeId: entry.commerceChargeId ?? '',
      adjustsStatement: entry.adjusts?.number ?? '',
      platformName: entry.kind === 'adjustment' ? '' : (entry.platformName ?? UNKNOWN_PLATFORM),
      amount: majorUnits(entry.amountMinor, entry.currency),
    })),
    ...statement.currencies.flatMap((total) =>
      (
        [
          ['commission', total.commissionMinor],
          ['reversals', total.reversalsMinor],
          ['adjustments', total.adjustmentsMinor],
          ['net', total.netMinor],
          ['charged', total.chargedMinor],
          ['held', total.heldMinor],
          ['owed', total.owedMinor],
        ] as const
      ).map(([line, amountMinor]) => ({
        ...blank,
        line,
        heldReason: line === 'held' ? total.heldReasons.join(' ') : '',
        amountMinor,
        amount: majorUnits(amountMinor, total.currency),
        currency: total.currency,
      })),
    ),
  ];
  return spreadsheetCsv(rows, ['line', ...ENTRY_COLUMNS]);
}
