import { stringify } from 'csv-stringify/sync';
import type { Db } from '../db/database.js';
import { getCompany } from '../companies/service.js';
import { badRequest } from '../http/errors.js';
import * as dal from './dal.js';

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
  kind: 'commission' | 'reversal';
  storeDomain: string;
  orderId: string;
  /** The cancel or refund event a reversal answers; null for a commission. */
  eventId: string | null;
  showingBrandId: string;
  showingBrandName: string | null;
  platformId: string;
  platformName: string | null;
  amountMinor: number;
  currency: string;
  rateBasisPoints: number;
  /** What the rate was applied to: the order's total, or what a cancel or refund took off it. */
  basisMinor: number;
  customer: 'new' | 'returning';
  customerBasis: 'store_history' | 'platform_order_count';
  touch: 'click' | 'view';
  commerceChargeId: string | null;
}

/** A month's totals in one currency: what is owed (commission), what came back (reversals, negative) and the net. */
export interface StatementCurrency {
  currency: string;
  commissionMinor: number;
  reversalsMinor: number;
  netMinor: number;
  entries: number;
}

export interface Statement {
  companyId: string;
  businessName: string | null;
  month: string;
  currencies: StatementCurrency[];
  entries: StatementEntry[];
}

/**
 * A brand's monthly statement: the ledger entries it owes by (it received the orders), created in
 * the UTC month, with their totals per currency. Currencies are never added together.
 */
export async function monthlyStatement(ctx: { db: Db }, companyId: string, month: string): Promise<Statement> {
  const { start, end } = monthRange(month);
  const company = await getCompany(ctx, companyId);
  const rows = await dal.ledgerEntriesOf(ctx.db, companyId, start, end);
  const entries = rows.map(
    (row): StatementEntry => ({
      id: row.id,
      createdAt: row.created_at.toISOString(),
      kind: row.kind,
      storeDomain: row.store_domain,
      orderId: row.order_id,
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
    }),
  );
  const byCurrency = new Map<string, StatementCurrency>();
  for (const entry of entries) {
    const total = byCurrency.get(entry.currency) ?? {
      currency: entry.currency,
      commissionMinor: 0,
      reversalsMinor: 0,
      netMinor: 0,
      entries: 0,
    };
    if (entry.kind === 'commission') total.commissionMinor += entry.amountMinor;
    else total.reversalsMinor += entry.amountMinor;
    total.netMinor += entry.amountMinor;
    total.entries += 1;
    byCurrency.set(entry.currency, total);
  }
  const currencies = [...byCurrency.values()].sort((a, b) => a.currency.localeCompare(b.currency));
  return { companyId, businessName: company.businessName, month, currencies, entries };
}

const ENTRY_COLUMNS = [
  'createdAt',
  'kind',
  'storeDomain',
  'orderId',
  'eventId',
  'showingBrandId',
  'showingBrandName',
  'platformId',
  'platformName',
  'customer',
  'customerBasis',
  'touch',
  'rateBasisPoints',
  'basisMinor',
  'amountMinor',
  'currency',
] as const;

/**
 * The statement as CSV: one `entry` line per ledger entry, then `commission`, `reversals` and
 * `net` lines per currency. A text starting like a formula gets a leading `'` (escape_formulas).
 */
export function statementCsv(statement: Statement): string {
  const blank = Object.fromEntries(ENTRY_COLUMNS.map((column) => [column, '']));
  const rows = [
    ...statement.entries.map((entry) => ({ line: 'entry', ...entry, eventId: entry.eventId ?? '' })),
    ...statement.currencies.flatMap((total) =>
      (
        [
          ['commission', total.commissionMinor],
          ['reversals', total.reversalsMinor],
          ['net', total.netMinor],
        ] as const
      ).map(([line, amountMinor]) => ({ ...blank, line, amountMinor, currency: total.currency })),
    ),
  ];
  return stringify(rows, { header: true, columns: ['line', ...ENTRY_COLUMNS], record_delimiter: 'windows', escape_formulas: true });
}
