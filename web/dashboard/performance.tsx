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

/** The smallest of 1, 2 or 5 times a power of ten that is at least `value`: round axis steps. */
function niceCeiling(value: number): number {
  if (value <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return ([1, 2, 5, 10].find((step) => step * power >= value) ?? 10) * power;
}

const CHART = { width: 720, height: 220, left: 52, right: 8, top: 10, bottom: 34 };
const X_LABELS = 6;
/** Room (in chart units) a middle-anchored date label needs before the end-anchored last one. */
const LABEL_GAP = 100;

/** Views and clicks per day for every day of the range (the server fills empty days with zeros). */
function Chart({ days }: { days: Performance['byDay'] }) {
  const plotWidth = CHART.width - CHART.left - CHART.right;
  const plotHeight = CHART.height - CHART.top - CHART.bottom;
  const top = niceCeiling(Math.max(...days.map((d) => Math.max(d.views, d.clicks)), 0));
  const ticks = [0, top / 2, top];
  const band = plotWidth / Math.max(1, days.length);
  const y = (value: number) => CHART.top + plotHeight - (value / top) * plotHeight;
  const labelEvery = Math.max(1, Math.ceil(days.length / X_LABELS));
  const busiest = days.reduce<Performance['byDay'][number] | undefined>((best, d) => (d.views > (best?.views ?? 0) ? d : best), undefined);
  const first = days[0]?.date ?? '';
  const last = days[days.length - 1]?.date ?? '';
  const description =
    `Views and clicks per day from ${first} to ${last}, ${days.length} days. ` +
    (busiest ? `Most views: ${busiest.views} on ${busiest.date}.` : 'No views in this range.');
  return (
    <figure>
      <svg viewBox={`0 0 ${CHART.width} ${CHART.height}`} width="100%" role="img" aria-label={description} class="chart">
        {ticks.map((tick) => (
          <g>
            <line x1={CHART.left} x2={CHART.width - CHART.right} y1={y(tick)} y2={y(tick)} class="grid" />
            <text x={CHART.left - 6} y={y(tick) + 4} text-anchor="end" class="axis-label">
              {tick}
            </text>
          </g>
        ))}
        {days.map((d, i) => (
          <g>
            {d.views > 0 && (
              <rect x={CHART.left + i * band + band * 0.1} y={y(d.views)} width={band * 0.4} height={y(0) - y(d.views)} class="bar-views" />
            )}
            {d.clicks > 0 && (
              <rect
                x={CHART.left + i * band + band * 0.5}
                y={y(d.clicks)}
                width={band * 0.4}
                height={y(0) - y(d.clicks)}
                class="bar-clicks"
              />
            )}
          </g>
        ))}
        {days.map((d, i) => {
          const lastIndex = days.length - 1;
          // Regular ticks, and the range's last day; a tick whose label would touch the last one gives way.
          if (i !== lastIndex && (i % labelEvery !== 0 || (lastIndex - i) * band < LABEL_GAP)) return null;
          const x = CHART.left + (i + 0.5) * band;
          const anchor = i === 0 ? 'start' : i === lastIndex ? 'end' : 'middle';
          return (
            <g>
              <line x1={x} x2={x} y1={y(0)} y2={y(0) + 4} class="grid" />
              <text
                x={x}
                y={CHART.height - CHART.bottom + 18}
                text-anchor={days.length === 1 ? 'middle' : anchor}
                class="axis-label"
                data-day={d.date}
              >
                {d.date}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption>
        <span class="legend legend-views" aria-hidden="true" /> Views and <span class="legend legend-clicks" aria-hidden="true" /> clicks
        per day, {first} to {last}
      </figcaption>
    </figure>
  );
}

function Table({ title, rows }: { title: string; rows: Array<Figures & { key: string; name: string }> }) {
  return (
    <table>
      <caption>{title}</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          {COLUMNS.map(([, label]) => (
            <th scope="col">{label}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 && (
          <tr>
            <td colSpan={COLUMNS.length + 1}>No activity.</td>
          </tr>
        )}
        {rows.map((row) => (
          <tr data-row={row.key}>
            <th scope="row">{row.name}</th>
            {COLUMNS.map(([field, , format]) => (
              <td>{format(row[field])}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Pager({ page, onPage, busy }: { page: Performance['byPartner']; onPage: (pageIndex: number) => void; busy: boolean }) {
  const pages = Math.max(1, Math.ceil(page.totalRows / page.pageSize));
  if (pages === 1) return null;
  return (
    <nav class="actions" aria-label="Partner pages">
      <button type="button" class="secondary" disabled={busy || page.pageIndex <= 1} onClick={() => onPage(page.pageIndex - 1)}>
        Previous partners
      </button>
      <span aria-live="polite">
        Page {page.pageIndex} of {pages} ({page.totalRows} partners)
      </span>
      <button type="button" class="secondary" disabled={busy || page.pageIndex >= pages} onClick={() => onPage(page.pageIndex + 1)}>
        Next partners
      </button>
    </nav>
  );
}

export function PerformancePage() {
  const today = new Date();
  const [range, setRange] = useState({ from: isoDay(new Date(today.getTime() - 29 * 86_400_000)), to: isoDay(today) });
  const [pageIndex, setPageIndex] = useState(1);
  const [report, setReport] = useState<Performance | null>(null);
  const [error, run, busy] = useAction();
  useEffect(() => {
    void run(async () => setReport(await get<Performance>(`performance?from=${range.from}&to=${range.to}&pageIndex=${pageIndex}`)));
    // A new range object on every submit: Show reloads the figures even for the same dates.
  }, [range, pageIndex]);

  return (
    <>
      <form
        class="inline"
        aria-label="Date range"
        onSubmit={(event) => {
          event.preventDefault();
          const form = event.currentTarget;
          setRange({ from: formValue(form, 'from'), to: formValue(form, 'to') });
          setPageIndex(1);
        }}
      >
        <Field label="From">
          <input name="from" type="date" required value={range.from} />
        </Field>
        <Field label="To">
          <input name="to" type="date" required value={range.to} />
        </Field>
        <button type="submit" disabled={busy}>
          Show
        </button>
        <a class="button secondary" href={`/dashboard/api/performance.csv?from=${range.from}&to=${range.to}`} download>
          Export CSV
        </a>
      </form>
      <ErrorText error={error} />
      {report && (
        <>
          <dl class="totals">
            {COLUMNS.map(([field, label, format]) => (
              <div>
                <dt>{label}</dt>
                <dd data-total={field}>{format(report.totals[field])}</dd>
              </div>
            ))}
          </dl>
          <Chart days={report.byDay} />
          <Table
            title="Per platform"
            rows={report.byPlatform.map((row) => ({ ...row, key: row.platformId, name: row.name ?? row.platformId }))}
          />
          <Table
            title="Per partner"
            rows={report.byPartner.data.map((row) => ({ ...row, key: row.companyId, name: row.name ?? row.companyId }))}
          />
          <Pager page={report.byPartner} onPage={setPageIndex} busy={busy} />
        </>
      )}
    </>
  );
}
