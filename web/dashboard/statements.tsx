import { useEffect, useState } from 'preact/hooks';
import { get, type Statement } from './api.ts';
import { currencyAmount } from './performance.tsx';
import { ErrorText, Field, formValue, useAction } from './ui.tsx';

const thisMonth = () => new Date().toISOString().slice(0, 7);

const KINDS: Record<Statement['entries'][number]['kind'], string> = { commission: 'Commission', reversal: 'Reversal' };
const CUSTOMERS: Record<Statement['entries'][number]['customerBasis'], string> = {
  store_history: "store's history",
  platform_order_count: "platform's order count",
};

/**
 * The brand's monthly statement: what it owes for the orders partners sent it (commission less
 * reversals, per currency, never added across currencies), with every ledger entry behind it.
 */
export function StatementsPage() {
  const [month, setMonth] = useState({ value: thisMonth(), shown: 0 });
  const [statement, setStatement] = useState<Statement | null>(null);
  const [error, run, busy] = useAction();
  useEffect(() => {
    void run(async () => setStatement(await get<Statement>(`statement?month=${month.value}`)));
  }, [month]);
  return (
    <>
      <form
        class="inline"
        aria-label="Statement month"
        onSubmit={(event) => {
          event.preventDefault();
          setMonth({ value: formValue(event.currentTarget, 'month'), shown: month.shown + 1 });
        }}
      >
        <Field label="Month">
          <input name="month" type="month" required value={month.value} />
        </Field>
        <button type="submit" disabled={busy}>
          Show
        </button>
        <a class="button secondary" href={`/dashboard/api/statement.csv?month=${month.value}`} download>
          Export CSV
        </a>
      </form>
      <ErrorText error={error} />
      {statement && (
        <>
          <p class="muted">
            Commission on the orders partners sent you, per currency, for entries made in {statement.month} (UTC). A cancelled or refunded
            order is reversed by an entry of the opposite sign.
          </p>
          <table class="figures">
            <caption>Owed in {statement.month}</caption>
            <thead>
              <tr>
                <th scope="col">Currency</th>
                <th scope="col">Commission</th>
                <th scope="col">Reversals</th>
                <th scope="col">Net owed</th>
              </tr>
            </thead>
            <tbody>
              {statement.currencies.length === 0 && (
                <tr>
                  <td colSpan={4}>Nothing owed this month.</td>
                </tr>
              )}
              {statement.currencies.map((total) => (
                <tr data-row={total.currency}>
                  <th scope="row">{total.currency}</th>
                  <td data-label="Commission">{currencyAmount(total.commissionMinor, total.currency)}</td>
                  <td data-label="Reversals">{currencyAmount(total.reversalsMinor, total.currency)}</td>
                  <td data-label="Net owed" data-net={total.currency}>
                    {currencyAmount(total.netMinor, total.currency)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <table class="figures">
            <caption>Entries</caption>
            <thead>
              <tr>
                <th scope="col">Order</th>
                <th scope="col">Date</th>
                <th scope="col">Entry</th>
                <th scope="col">Shown by</th>
                <th scope="col">Customer</th>
                <th scope="col">Amount</th>
              </tr>
            </thead>
            <tbody>
              {statement.entries.length === 0 && (
                <tr>
                  <td colSpan={6}>No entries.</td>
                </tr>
              )}
              {statement.entries.map((entry) => (
                <tr data-row={entry.id}>
                  <th scope="row">{entry.orderId}</th>
                  <td data-label="Date">{entry.createdAt.slice(0, 10)}</td>
                  <td data-label="Entry">
                    {KINDS[entry.kind]} ({entry.touch === 'click' ? 'click' : 'view'}, {(entry.rateBasisPoints / 100).toFixed(2)}% of{' '}
                    {currencyAmount(entry.basisMinor, entry.currency)})
                  </td>
                  <td data-label="Shown by">
                    {entry.showingBrandName ?? entry.showingBrandId} on {entry.platformName ?? entry.platformId}
                  </td>
                  <td data-label="Customer">
                    {entry.customer} ({CUSTOMERS[entry.customerBasis]})
                  </td>
                  <td data-label="Amount">{currencyAmount(entry.amountMinor, entry.currency)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </>
  );
}
