import { useEffect, useState } from 'preact/hooks';
import { type BillingApproval, get, type Statement } from './api.ts';
import { currencyAmount } from './money.ts';
import { formatDay } from './dates.ts';
import { ErrorText, Field, formValue, useAction } from './ui.tsx';

const thisMonth = () => new Date().toISOString().slice(0, 7);

/** The service's name as the printed statement gives it. */
const SERVICE_NAME = 'Partner collaboration service';

type Entry = Statement['entries'][number];

const KINDS: Record<Entry['kind'], string> = { commission: 'Commission', reversal: 'Reversal', adjustment: 'Adjustment' };
/** Who said whether the customer is new, in the words the Customer column uses. */
const CUSTOMER_BASES: Record<NonNullable<Entry['customerBasis']>, string> = {
  store_history: "by your store's orders we have seen",
  platform_order_count: "by your store platform's count of their orders",
};
const CUSTOMERS: Record<NonNullable<Entry['customer']>, string> = { new: 'New customer', returning: 'Returning customer' };
const TOUCHES: Record<NonNullable<Entry['touch']>, string> = { click: 'after a click', view: 'after a view only' };

type HeldReason = NonNullable<Entry['heldReason']>;

/** Why the commerce platform did not charge a commission, as the brand reads it. */
const HELD: Record<HeldReason, string> = {
  over_cap: "your store's capped amount at its platform is used up",
  no_plan: 'your store has not approved the usage plan',
  other_currency: "the order is in another currency than your platform's plan",
};

function Settled({ entry }: { entry: Entry }) {
  if (entry.settlement === 'charged') {
    // A commission booked in the store's currency may be charged in the plan's, from the shopper's own amount.
    const other = entry.chargedAs && entry.chargedAs.currency !== entry.currency ? entry.chargedAs : null;
    return (
      <>
        Charged by your platform{other && <> as {currencyAmount(other.amountMinor, other.currency)}</>} ({entry.commerceChargeId})
      </>
    );
  }
  if (entry.settlement === 'held') return <>Held: {entry.heldReason ? HELD[entry.heldReason] : 'not charged'}</>;
  return <>{entry.amountMinor < 0 ? 'Credited to you directly' : 'Owed directly'}</>;
}

/**
 * The higher capped amount the store's platform waits for its staff to approve: until they do,
 * commissions over the cap are held. Approval happens at the platform; the held ones are then charged.
 */
function CapRaise({ approval }: { approval: NonNullable<BillingApproval['approval']> }) {
  return (
    <section class="notice no-print" aria-labelledby="cap-raise-title">
      <h2 id="cap-raise-title">Your store's capped amount at {approval.platformName} is nearly or fully used</h2>
      <p>
        Commissions beyond it are held, not charged. {approval.platformName} asked your store to approve a higher capped amount of{' '}
        {currencyAmount(approval.cappedMinor, approval.currency)} every 30 days (asked {formatDay(approval.requestedAt)}). Once approved,
        the held commissions are charged and this notice goes away.
      </p>
      <a class="button" href={approval.confirmationUrl}>
        Approve the higher cap at {approval.platformName}
      </a>
    </section>
  );
}

/** "March 2026" for 2026-03, in the reader's language. */
const monthName = (month: string) =>
  new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${month}-01T00:00:00Z`));

/** An entry credited to the brand pair only (its order named the partner's discount code, no click) has no platform. */
const platformOf = (entry: Entry) => entry.platformName ?? entry.platformId ?? 'unknown platform';

function EntryWhat({ entry }: { entry: Entry }) {
  if (entry.kind === 'adjustment') {
    return (
      <>
        Adjustment: {entry.reason} (by {entry.postedBy})
      </>
    );
  }
  const rate = `${(entry.rateBasisPoints / 100).toFixed(2)}%`;
  const base = currencyAmount(entry.basisMinor, entry.currency);
  return (
    <>
      {KINDS[entry.kind]} ({entry.touch && `${TOUCHES[entry.touch]}, `}
      {rate} of {base} merchandise)
      {entry.adjusts && (
        <>
          {' '}
          — late, for an order on statement {entry.adjusts.number} ({monthName(entry.adjusts.month)})
        </>
      )}
    </>
  );
}

/**
 * The brand's monthly statement: what it owes for the orders partners sent it, per currency (never
 * added across currencies): commission, reversals, support's adjustments, the net, what its
 * commerce platform charged, what is held and why, and what is still owed, with every ledger entry
 * and how it is settled. Printed (or
 * saved as a PDF), it keeps the statement and drops the dashboard around it.
 */
export function StatementsPage() {
  const [month, setMonth] = useState({ value: thisMonth(), shown: 0 });
  // The month in the form now: what Export CSV exports, whether or not Show was pressed.
  const [typedMonth, setTypedMonth] = useState(month.value);
  const [statement, setStatement] = useState<Statement | null>(null);
  const [approval, setApproval] = useState<BillingApproval['approval']>(null);
  const [error, run, busy, setError] = useAction();
  useEffect(() => {
    void run(async () => setStatement(await get<Statement>(`statement?month=${month.value}`)));
  }, [month]);
  useEffect(() => {
    void run(async () => setApproval((await get<BillingApproval>('billing-approval')).approval));
  }, []);
  return (
    <>
      {approval && <CapRaise approval={approval} />}
      <form
        class="inline no-print"
        aria-label="Statement month"
        onInput={(event) => setTypedMonth(formValue(event.currentTarget, 'month'))}
        onSubmit={(event) => {
          event.preventDefault();
          setMonth({ value: formValue(event.currentTarget, 'month'), shown: month.shown + 1 });
        }}
      >
        <Field label="Month">
          <input name="month" type="month" required value={typedMonth} />
        </Field>
        <button type="submit" disabled={busy}>
          Show
        </button>
        <a
          class="button secondary"
          href={`/dashboard/api/statement.csv?month=${typedMonth}`}
          download
          onClick={(event) => {
            if (typedMonth) return;
            event.preventDefault();
            setError('Choose a month in the Month field, then Export CSV.');
          }}
        >
          Export CSV
        </a>
        <button type="button" class="secondary" onClick={() => window.print()}>
          Print or save as PDF
        </button>
      </form>
      <ErrorText error={error} />
      {statement && (
        <section class="statement" aria-label={`Statement for ${monthName(statement.month)}`}>
          <dl class="statement-head">
            <dt>From</dt>
            <dd>{SERVICE_NAME}</dd>
            <dt>To</dt>
            <dd>{statement.businessName ?? statement.companyId}</dd>
            <dt>Statement</dt>
            <dd data-statement-number>
              {statement.number ?? (statement.status === 'open' ? 'Open: numbered when the month closes' : 'None')}
            </dd>
            <dt>Period</dt>
            <dd>{monthName(statement.month)} (UTC)</dd>
            <dt>Status</dt>
            <dd data-statement-status>
              {statement.status === 'open'
                ? `Open until ${monthName(statement.month)} ends; it closes on the first day of the next month.`
                : `Closed${statement.closedAt ? ` on ${formatDay(statement.closedAt)}` : ''}; it never changes.`}
            </dd>
            {statement.dueOn && (
              <>
                <dt>Due</dt>
                <dd data-statement-due>{formatDay(statement.dueOn)}</dd>
              </>
            )}
            {(statement.dueOn || statement.paid) && (
              <>
                <dt>Paid</dt>
                <dd data-statement-paid>
                  {statement.paid
                    ? 'Yes: your commerce platform charged all of it'
                    : 'Not reported: pay what is still owed by the due date'}
                </dd>
              </>
            )}
          </dl>
          <table class="figures">
            <caption>Totals per currency</caption>
            <thead>
              <tr>
                <th scope="col">Currency</th>
                <th scope="col">Commission</th>
                <th scope="col">Reversals</th>
                <th scope="col">Adjustments</th>
                <th scope="col">Net</th>
                <th scope="col">Charged by your platform</th>
                <th scope="col">Held</th>
                <th scope="col">Still owed</th>
              </tr>
            </thead>
            <tbody>
              {statement.currencies.length === 0 && (
                <tr>
                  <td colSpan={8}>Nothing owed this month.</td>
                </tr>
              )}
              {statement.currencies.map((total) => (
                <tr data-row={total.currency}>
                  <th scope="row">{total.currency}</th>
                  <td data-label="Commission">{currencyAmount(total.commissionMinor, total.currency)}</td>
                  <td data-label="Reversals">{currencyAmount(total.reversalsMinor, total.currency)}</td>
                  <td data-label="Adjustments">{currencyAmount(total.adjustmentsMinor, total.currency)}</td>
                  <td data-label="Net" data-net={total.currency}>
                    {currencyAmount(total.netMinor, total.currency)}
                  </td>
                  <td data-label="Charged by your platform" data-charged={total.currency}>
                    {currencyAmount(total.chargedMinor, total.currency)}
                  </td>
                  <td data-label="Held" data-held={total.currency}>
                    {currencyAmount(total.heldMinor, total.currency)}
                  </td>
                  <td data-label="Still owed" data-owed={total.currency}>
                    {currencyAmount(total.owedMinor, total.currency)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {statement.currencies.some((total) => total.heldMinor !== 0) && (
            <ul class="held-reasons" aria-label="Held, and why">
              {statement.currencies
                .filter((total) => total.heldMinor !== 0)
                .map((total) => (
                  <li data-held-reasons={total.currency}>
                    {currencyAmount(total.heldMinor, total.currency)} held, not charged by your platform:{' '}
                    {total.heldReasons.map((reason) => HELD[reason]).join('; ') || 'the platform did not charge it'}. It is not due until
                    your platform charges it or support settles it.
                  </li>
                ))}
            </ul>
          )}
          <p class="muted">
            Charged is what your commerce platform billed your store for these commissions; still owed is the rest, which you pay directly
            by the due date (a negative amount is a credit to you). Commission is a share of the merchandise a new customer bought, after
            discounts, without tax, shipping and duties. A cancelled or refunded order is reversed by an entry of the opposite sign; one
            that comes after its month closed lands here and names the statement it corrects.
          </p>
          <table class="figures">
            <caption>Entries</caption>
            <thead>
              <tr>
                <th scope="col">Order</th>
                <th scope="col">Ordered</th>
                <th scope="col">Entry</th>
                <th scope="col">Shown by</th>
                <th scope="col">Customer</th>
                <th scope="col">Amount</th>
                <th scope="col">Settled</th>
              </tr>
            </thead>
            <tbody>
              {statement.entries.length === 0 && (
                <tr>
                  <td colSpan={7}>No entries.</td>
                </tr>
              )}
              {statement.entries.map((entry) => (
                <tr data-row={entry.id}>
                  <th scope="row">{entry.orderId ?? '—'}</th>
                  <td data-label="Ordered">{formatDay(entry.orderPlacedAt ?? entry.createdAt)}</td>
                  <td data-label="Entry">
                    <EntryWhat entry={entry} />
                  </td>
                  <td data-label="Shown by">
                    {entry.kind === 'adjustment' ? '—' : `${entry.showingBrandName ?? entry.showingBrandId} on ${platformOf(entry)}`}
                  </td>
                  <td data-label="Customer">
                    {entry.customer && entry.customerBasis ? `${CUSTOMERS[entry.customer]}, ${CUSTOMER_BASES[entry.customerBasis]}` : '—'}
                  </td>
                  <td data-label="Amount">{currencyAmount(entry.amountMinor, entry.currency)}</td>
                  <td data-label="Settled" data-settlement={entry.settlement}>
                    <Settled entry={entry} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <p class="muted">
            Shown by names the partner whose page showed your offer, and the platform it was on. Customer says whether the shopper was new
            to your store, which is what commission is owed for, and who said so: your store platform when it sends its count of the
            customer's orders, otherwise the orders of your store this service has seen.
          </p>
        </section>
      )}
    </>
  );
}
