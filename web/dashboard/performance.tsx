import { useEffect, useState } from 'preact/hooks';
import { get, type Figures, type Performance } from './api.ts';
import { ErrorText, Field, formValue, money, useAction } from './ui.tsx';

const isoDay = (date: Date) => date.toISOString().slice(0, 10);

const COLUMNS: Array<[keyof Figures, string, (value: number) => string]> = [
  ['views', 'Views', String],
  ['clicks', 'Clicks', String],
  ['orders', 'Orders', String],
  ['newCustomers', 'New customers', String],
  ['revenueCents', 'Revenue', money],
  ['commissionCents', 'Commission', money],
];

function Chart({ days }: { days: Performance['byDay'] }) {
  const max = Math.max(1, ...days.map((d) => d.views));
  const width = Math.max(1, days.length) * 24;
  return (
    <figure>
      <svg viewBox={`0 0 ${width} 120`} width="100%" height="160" role="img" aria-label="Views (bars) and clicks (dark bars) per day">
        {days.map((d, i) => (
          <g>
            <rect x={i * 24 + 2} y={110 - (d.views / max) * 100} width={10} height={(d.views / max) * 100} class="bar-views" />
            <rect x={i * 24 + 12} y={110 - (d.clicks / max) * 100} width={10} height={(d.clicks / max) * 100} class="bar-clicks" />
          </g>
        ))}
      </svg>
      <figcaption>Views and clicks per day, {days.length === 0 ? 'no activity in this range' : `${days[0]!.date} to ${days[days.length - 1]!.date}`}</figcaption>
    </figure>
  );
}

function Table({ title, rows }: { title: string; rows: Array<Figures & { key: string; name: string }> }) {
  return (
    <table>
      <caption>{title}</caption>
      <thead><tr><th scope="col">Name</th>{COLUMNS.map(([, label]) => <th scope="col">{label}</th>)}</tr></thead>
      <tbody>
        {rows.length === 0 && <tr><td colSpan={COLUMNS.length + 1}>No activity.</td></tr>}
        {rows.map((row) => (
          <tr data-row={row.key}>
            <th scope="row">{row.name}</th>
            {COLUMNS.map(([field, , format]) => <td>{format(row[field])}</td>)}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function PerformancePage() {
  const today = new Date();
  const [range, setRange] = useState({ from: isoDay(new Date(today.getTime() - 29 * 86_400_000)), to: isoDay(today) });
  const [report, setReport] = useState<Performance | null>(null);
  const [error, run, busy] = useAction();
  useEffect(() => {
    void run(async () => setReport(await get<Performance>(`performance?from=${range.from}&to=${range.to}`)));
  }, [range.from, range.to]);

  return (
    <>
      <form
        class="inline"
        aria-label="Date range"
        onSubmit={(event) => {
          event.preventDefault();
          const form = event.currentTarget;
          setRange({ from: formValue(form, 'from'), to: formValue(form, 'to') });
        }}
      >
        <Field label="From"><input name="from" type="date" required value={range.from} /></Field>
        <Field label="To"><input name="to" type="date" required value={range.to} /></Field>
        <button type="submit" disabled={busy}>Show</button>
        <a class="button secondary" href={`/dashboard/api/performance.csv?from=${range.from}&to=${range.to}`} download>Export CSV</a>
      </form>
      <ErrorText error={error} />
      {report && (
        <>
          <dl class="totals">
            {COLUMNS.map(([field, label, format]) => (
              <div><dt>{label}</dt><dd data-total={field}>{format(report.totals[field])}</dd></div>
            ))}
          </dl>
          <Chart days={report.byDay} />
          <Table title="Per platform" rows={report.byPlatform.map((row) => ({ ...row, key: row.platformId, name: row.name ?? row.platformId }))} />
          <Table title="Per partner" rows={report.byPartner.map((row) => ({ ...row, key: row.companyId, name: row.name ?? row.companyId }))} />
        </>
      )}
    </>
  );
}
