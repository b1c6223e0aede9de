import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { ChargeHoldReason } from '../db/schema.js';

/** The months the closing job closed are stored as their first day; the service speaks YYYY-MM. */
const monthDay = (month: string) => `${month}-01`;

/** The last month the closing job closed (YYYY-MM); undefined before its first close. */
export async function lastClosedMonth(db: Db): Promise<string | undefined> {
  const row = await db
    .selectFrom('statement_closings')
    .select(sql<string | null>`to_char(max(month), 'YYYY-MM')`.as('month'))
    .executeTakeFirstOrThrow();
  return row.month ?? undefined;
}

/** The month of the ledger's first entry (YYYY-MM), where the closing job starts; undefined for an empty ledger. */
export async function firstLedgerMonth(db: Db): Promise<string | undefined> {
  const row = await db
    .selectFrom('commission_ledger')
    .select(sql<string | null>`to_char(min(created_at) at time zone 'UTC', 'YYYY-MM')`.as('month'))
    .executeTakeFirstOrThrow();
  return row.month ?? undefined;
}

export interface StatementLedgerRow {
  id: number;
  created_at: Date;
  kind: 'commission' | 'reversal' | 'adjustment';
  store_domain: string | null;
  order_id: string | null;
  order_placed_at: Date | null;
  event_id: string;
  showing_brand_id: string | null;
  showing_brand_name: string | null;
  platform_id: string | null;
  platform_name: string | null;
  amount_minor: number;
  currency: string;
  rate_basis_points: number;
  basis_minor: number;
  customer: 'new' | 'returning' | null;
  customer_basis: 'store_history' | 'platform_order_count' | null;
  touch: 'click' | 'view' | null;
  commerce_charge_id: string | null;
  /** A commission the commerce platform was asked to charge and did not: why (migration 0030). */
  held_reason: ChargeHoldReason | null;
  /** What the platform charged for a commission, in the charge's currency (migration 0040). */
  charged_minor: number | null;
  charged_currency: string | null;
  reason: string | null;
  posted_by: string | null;
  /** The closed statement that holds the entry's order's commission, if any. */
  order_statement_id: number | null;
  order_statement_number: string | null;
  order_statement_month: string | null;
}

/** Ledger entries `where` selects, oldest first, with the names, the order's date and the statement of the order's commission. */
async function ledgerRows(db: Db, where: ReturnType<typeof sql>): Promise<StatementLedgerRow[]> {
  const result = await sql<StatementLedgerRow>`
    select l.id, l.created_at, l.kind, l.store_domain, l.order_id, o.placed_at as order_placed_at, l.event_id,
           l.showing_brand_id, showing.business_name as showing_brand_name, l.platform_id::text as platform_id, p.name as platform_name,
           l.amount_minor, l.currency, l.rate_basis_points, l.basis_minor, l.customer, l.customer_basis, l.touch,
           l.commerce_charge_id, h.reason as held_reason, cc.amount_minor as charged_minor, cc.currency as charged_currency,
           l.reason, l.posted_by,
           ordered.id as order_statement_id, ordered.number as order_statement_number, ordered.month as order_statement_month
    from commission_ledger l
    left join attributed_orders o on o.store_domain = l.store_domain and o.order_id = l.order_id
    left join companies showing on showing.id = l.showing_brand_id
    left join platforms p on p.id = l.platform_id
    left join commission_charge_holds h on l.kind = 'commission' and h.store_domain = l.store_domain and h.order_id = l.order_id
    left join commission_commerce_charges cc
      on l.kind = 'commission' and cc.store_domain = l.store_domain and cc.order_id = l.order_id and cc.charge_id = l.commerce_charge_id
    left join lateral (
      select s.id, s.number, to_char(s.month, 'YYYY-MM') as month
      from commission_ledger c
      join statement_entries se on se.ledger_id = c.id
      join statements s on s.id = se.statement_id
      where c.store_domain = l.store_domain and c.order_id = l.order_id and c.kind = 'commission'
      limit 1
    ) ordered on l.order_id is not null
    where ${where}
    order by l.created_at, l.id`.execute(db);
  return result.rows;
}

const unclaimed = sql`not exists (select 1 from statement_entries se where se.ledger_id = l.id)`;

/** A brand's entries no statement claimed yet, created before `end` and (unless `start` is null) from `start` on. */
export function unclaimedEntries(db: Db, companyId: string, start: Date | null, end: Date): Promise<StatementLedgerRow[]> {
  const from = start === null ? sql`true` : sql`l.created_at >= ${start}`;
  return ledgerRows(db, sql`l.receiving_brand_id = ${companyId} and l.created_at < ${end} and ${from} and ${unclaimed}`);
}

export function statementEntries(db: Db, statementId: number): Promise<StatementLedgerRow[]> {
  return ledgerRows(db, sql`l.id in (select ledger_id from statement_entries where statement_id = ${statementId})`);
}

export function ledgerRowsById(db: Db, ids: number[]): Promise<StatementLedgerRow[]> {
  return ledgerRows(db, sql`l.id = any(${ids}::int8[])`);
}

export async function closedStatement(db: Db, companyId: string, month: string) {
  return db
    .selectFrom('statements')
    .select(['id', 'number', 'closed_at', sql<string>`to_char(due_on, 'YYYY-MM-DD')`.as('due_on')])
    .where('company_id', '=', companyId)
    .where('month', '=', monthDay(month))
    .executeTakeFirst();
}

export async function statementTotals(db: Db, statementId: number) {
  return db.selectFrom('statement_totals').selectAll().where('statement_id', '=', statementId).orderBy('currency').execute();
}

/**
 * Closes a month for every brand, in one transaction: the month's closing row (one process wins
 * it; the others wait for its commit and find it taken), a numbered statement for each brand with
 * unclaimed entries created before `end`, the entries each claims, and its totals per currency.
 * An entry committed after the statements were made stays unclaimed for the next month's close.
 */
export async function closeMonth(db: Db, month: string, end: Date, now: Date, dueOn: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const taken = await trx
      .insertInto('statement_closings')
      .values({ month: monthDay(month), closed_at: now })
      .onConflict((oc) => oc.column('month').doNothing())
      .returning('month')
      .executeTakeFirst();
    if (!taken) return false;
    const open = sql`l.created_at < ${end} and ${unclaimed}`;
    const charged = sql`coalesce(sum(l.amount_minor) filter (where l.kind = 'commission' and l.commerce_charge_id is not null), 0)`;
    const isHeld = sql`l.kind = 'commission' and l.commerce_charge_id is null and h.reason is not null`;
    const held = sql`coalesce(sum(l.amount_minor) filter (where ${isHeld}), 0)`;
    await sql`
      insert into statements (number, company_id, month, closed_at, due_on)
      select ${`ST-${month.replace('-', '')}-`} || lpad((row_number() over (order by brands.company_id))::text, 6, '0'),
             brands.company_id, ${monthDay(month)}::date, ${now}, ${dueOn}::date
      from (select distinct l.receiving_brand_id as company_id from commission_ledger l where ${open}) brands
      order by brands.company_id`.execute(trx);
    await sql`
      insert into statement_entries (ledger_id, statement_id)
      select l.id, s.id from commission_ledger l
      join statements s on s.company_id = l.receiving_brand_id and s.month = ${monthDay(month)}::date
      where ${open}
      order by l.id`.execute(trx);
    await sql`
      insert into statement_totals
        (statement_id, currency, commission_minor, reversals_minor, adjustments_minor, net_minor, charged_minor, held_minor, held_reasons,
         owed_minor, entries)
      select s.id, l.currency,
             coalesce(sum(l.amount_minor) filter (where l.kind = 'commission'), 0),
             coalesce(sum(l.amount_minor) filter (where l.kind = 'reversal'), 0),
             coalesce(sum(l.amount_minor) filter (where l.kind = 'adjustment'), 0),
             sum(l.amount_minor), ${charged}, ${held},
             coalesce(array_agg(distinct h.reason order by h.reason) filter (where ${isHeld}), '{}'),
             sum(l.amount_minor) - ${charged} - ${held}, count(*)
      from statements s
      join statement_entries se on se.statement_id = s.id
      join commission_ledger l on l.id = se.ledger_id
      left join commission_charge_holds h on l.kind = 'commission' and h.store_domain = l.store_domain and h.order_id = l.order_id
      where s.month = ${monthDay(month)}::date
      group by s.id, l.currency`.execute(trx);
    return true;
  });
}

export async function appendAdjustment(
  db: Db,
  adjustment: { companyId: string; amountMinor: number; currency: string; reason: string; postedBy: string; now: Date },
): Promise<number> {
  const row = await db
    .insertInto('commission_ledger')
    .values({
      kind: 'adjustment',
      receiving_brand_id: adjustment.companyId,
      showing_brand_id: null,
      platform_id: null,
      campaign_id: null,
      store_domain: null,
      order_id: null,
      amount_minor: adjustment.amountMinor,
      currency: adjustment.currency,
      rate_basis_points: 0,
      basis_minor: 0,
      customer: null,
      customer_basis: null,
      touch: null,
      reason: adjustment.reason,
      posted_by: adjustment.postedBy,
      created_at: adjustment.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
