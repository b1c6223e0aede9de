import { useEffect, useRef, useState } from 'preact/hooks';
import { get, post, type AttributionSettings, type CurrencyFigures, type SidePerformance, type SideTotals } from './api.ts';
import { formatDay } from './dates.ts';
import { currencyAmount } from './money.ts';
import { ErrorText, Field, formValue, useAction } from './ui.tsx';

const isoDay = (date: Date) => date.toISOString().slice(0, 10);

/** The longest range the service reports on (MAX_RANGE_DAYS in src/dashboard/service.ts). */
const MAX_RANGE_DAYS = 366;
const DAY_MS = 86_400_000;

type Range = { from: string; to: string };

/** What is wrong with the dates typed, in words that say what to do; null when the service can report on them. */
function rangeProblem({ from, to }: Range): string | null {
  if (!from || !to) return 'Enter both dates: From and To.';
  const days = (Date.parse(to) - Date.parse(from)) / DAY_MS + 1;
  if (days < 1) return 'To is before From: choose a To date on or after the From date.';
  if (days > MAX_RANGE_DAYS) {
    const earliest = isoDay(new Date(Date.parse(to) - (MAX_RANGE_DAYS - 1) * DAY_MS));
    return (
      `The range is ${days} days; reports cover at most ${MAX_RANGE_DAYS}. ` +
      `Choose a From date on or after ${earliest}, or an earlier To date.`
    );
  }
  return null;
}

/** One line per currency; currencies are never added together. */
function MoneyLines({ money, field }: { money: CurrencyFigures[]; field: 'revenueMinor' | 'commissionMinor' }) {
  if (money.length === 0) return <>—</>;
  return (
    <>
      {money.map((line) => (
        <span class="money-line" data-currency={line.currency}>
          {currencyAmount(line[field], line.currency)}
        </span>
      ))}
    </>
  );
}

type Side = SidePerformance['side'];
type Column = { label: string; total: string; cell: (figures: SideTotals) => preact.ComponentChildren };

const count = (field: 'views' | 'clicks' | 'orders' | 'newCustomers') => (figures: SideTotals) => String(figures[field]);

/**
 * What each role shows: the side where the brand showed partners' offers counts the orders it sent;
 * the other, what it received and owes.
 */
const SIDES: Record<Side, { title: string; about: string; columns: Column[] }> = {
  shown: {
    title: "Partners' offers on your pages",
    about: 'What you showed on your own order pages and on platforms: views, clicks and the orders you sent to partners.',
    columns: [
      { label: 'Views', total: 'views', cell: count('views') },
      { label: 'Clicks', total: 'clicks', cell: count('clicks') },
      { label: 'Orders sent', total: 'orders', cell: count('orders') },
    ],
  },
  received: {
    title: "Your offer on partners' pages",
    about:
      "Views of your offer on partners' pages, clicks, the orders you received, new customers, revenue (less refunds) " +
      'and the commission you owe, per currency.',
    columns: [
      { label: 'Views', total: 'views', cell: count('views') },
      { label: 'Clicks', total: 'clicks', cell: count('clicks') },
      { label: 'Orders received', total: 'orders', cell: count('orders') },
      { label: 'New customers', total: 'newCustomers', cell: count('newCustomers') },
      { label: 'Revenue', total: 'revenue', cell: (figures) => <MoneyLines money={figures.money} field="revenueMinor" /> },
      { label: 'Commission owed', total: 'commission', cell: (figures) => <MoneyLines money={figures.money} field="commissionMinor" /> },
    ],
  },
};

/** The smallest of 1, 2 or 5 times a power of ten that is at least `value`: round axis steps. */
function niceCeiling(value: number): number {
  if (value <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return ([1, 2, 5, 10].find((step) => step * power >= value) ?? 10) * power;
}

/** The chart's margins in CSS pixels; its width is the width it is shown at, so text keeps its size on a phone. */
const CHART = { height: 220, left: 44, right: 8, top: 10, bottom: 34 };
/** Before the first measurement (and where nothing can be measured): a desktop column's width. */
const DEFAULT_CHART_WIDTH = 720;
/** Room a date label takes, with space on either side: how many fit decides how many days are labelled. */
const LABEL_SPACING = 110;
/** Room (in pixels) a middle-anchored date label needs before the end-anchored last one. */
const LABEL_GAP = 100;

/** The width an element is laid out at, following it as the window changes. */
function useLaidOutWidth(fallback: number) {
  const element = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(fallback);
  useEffect(() => {
    const target = element.current;
    if (!target) return;
    const observer = new ResizeObserver(([entry]) => {
      const measured = Math.floor(entry?.contentRect.width ?? 0);
      if (measured > 0) setWidth(measured);
    });
    observer.observe(target);
    return () => observer.disconnect();
  }, []);
  return { element, width };
}

/** Views and clicks per day for every day of the range (the server fills empty days with zeros). */
function Chart({ title, days }: { title: string; days: SidePerformance['byDay'] }) {
  const { element, width } = useLaidOutWidth(DEFAULT_CHART_WIDTH);
  const plotWidth = width - CHART.left - CHART.right;
  const plotHeight = CHART.height - CHART.top - CHART.bottom;
  const top = niceCeiling(Math.max(...days.map((d) => Math.max(d.views, d.clicks)), 0));
  // Views and clicks are counts: the axis shows its middle only when that is a whole number.
  const ticks = Number.isInteger(top / 2) ? [0, top / 2, top] : [0, top];
  const band = plotWidth / Math.max(1, days.length);
  const y = (value: number) => CHART.top + plotHeight - (value / top) * plotHeight;
  const labelEvery = Math.max(1, Math.ceil(days.length / Math.max(2, Math.floor(plotWidth / LABEL_SPACING))));
  const busiest = days.reduce<SidePerformance['byDay'][number] | undefined>(
    (best, d) => (d.views > (best?.views ?? 0) ? d : best),
    undefined,
  );
  const first = days[0] ? formatDay(days[0].date) : '';
  const last = days.length > 0 ? formatDay(days[days.length - 1]!.date) : '';
  const description =
    `${title}: views and clicks per day from ${first} to ${last}, ${days.length} days. ` +
    (busiest ? `Most views: ${busiest.views} on ${formatDay(busiest.date)}.` : 'No views in this range.');
  return (
    <figure ref={element}>
      <svg viewBox={`0 0 ${width} ${CHART.height}`} width={width} height={CHART.height} role="img" aria-label={description} class="chart">
        {ticks.map((tick) => (
          <g>
            <line x1={CHART.left} x2={width - CHART.right} y1={y(tick)} y2={y(tick)} class="grid" />
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
                {formatDay(d.date)}
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

/** A table of figures; on a narrow screen each row stacks its cells, each labelled with its column. */
function Table({ title, columns, rows }: { title: string; columns: Column[]; rows: Array<SideTotals & { key: string; name: string }> }) {
  return (
    <table class="figures">
      <caption>{title}</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          {columns.map((column) => (
            <th scope="col">{column.label}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 && (
          <tr>
            <td colSpan={columns.length + 1}>No activity.</td>
          </tr>
        )}
        {rows.map((row) => (
          <tr data-row={row.key}>
            <th scope="row">{row.name}</th>
            {columns.map((column) => (
              <td data-label={column.label}>{column.cell(row)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Pager({ page, onPage, busy }: { page: SidePerformance['byPartner']; onPage: (pageIndex: number) => void; busy: boolean }) {
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

/** Whether the brand's store counts orders after a view of its offer: off by default; clicks always count. */
function ViewThrough() {
  const [settings, setSettings] = useState<AttributionSettings | null>(null);
  const [changed, setChanged] = useState<string | null>(null);
  const [error, run] = useAction();
  // The switch stays usable (a disabled box would drop the focus); only the latest choice's answer is shown.
  const latest = useRef(0);
  useEffect(() => {
    void run(async () => setSettings(await get<AttributionSettings>('attribution-settings')));
  }, []);
  if (!settings) return <ErrorText error={error} />;
  const choose = (viewThrough: boolean) => {
    const choice = ++latest.current;
    const before = settings;
    setChanged(null);
    // The box shows the person's choice at once, and goes back if the service refuses it.
    setSettings({ ...settings, viewThrough });
    void run(async () => {
      try {
        const saved = await post<AttributionSettings>('attribution-settings', { viewThrough });
        if (choice !== latest.current) return;
        setSettings(saved);
        setChanged(
          saved.viewThrough
            ? "Views count too: from now, an order also counts when the shopper only saw your offer on a partner's page."
            : 'Clicks only: from now, an order counts only when the shopper clicked your offer.',
        );
      } catch (refused) {
        if (choice === latest.current) setSettings(before);
        throw refused;
      }
    });
  };
  return (
    <>
      <label class="checkbox">
        <input type="checkbox" checked={settings.viewThrough} onChange={(event) => choose(event.currentTarget.checked)} />
        Also count orders from shoppers who saw your offer on a partner's page but did not click it (called view-through); orders after a
        click always count
      </label>
      {/* Said beside the switch without taking the focus from it: a live region the screen reader announces. */}
      <p role="status" class={changed ? 'notice' : 'status-empty'}>
        {changed}
      </p>
      <ErrorText error={error} />
    </>
  );
}

/** One of the brand's two roles over the range: totals, chart, per-platform and per-partner tables, CSV. */
function SideReport({
  side,
  range,
  typed,
  onExportRefused,
}: {
  side: Side;
  range: Range;
  /** The dates in the form now: what Export CSV exports, whether or not Show was pressed. */
  typed: Range;
  onExportRefused: (problem: string) => void;
}) {
  const { title, about, columns } = SIDES[side];
  const [pageIndex, setPageIndex] = useState(1);
  const [report, setReport] = useState<SidePerformance | null>(null);
  const [error, run, busy] = useAction();
  // A new range mounts a new report (see PerformancePage), starting at the first page.
  useEffect(() => {
    void run(async () =>
      setReport(await get<SidePerformance>(`performance/${side}?from=${range.from}&to=${range.to}&pageIndex=${pageIndex}`)),
    );
  }, [pageIndex]);
  const headingId = `side-${side}`;
  return (
    <section aria-labelledby={headingId} class="side">
      <h2 id={headingId}>{title}</h2>
      <p class="muted">{about}</p>
      {side === 'received' && <ViewThrough />}
      <p>
        <a
          class="button secondary"
          href={`/dashboard/api/performance/${side}.csv?from=${typed.from}&to=${typed.to}`}
          download
          onClick={(event) => {
            const problem = rangeProblem(typed);
            if (!problem) return;
            event.preventDefault();
            onExportRefused(problem);
          }}
        >
          Export CSV<span class="visually-hidden">: {title}</span>
        </a>
      </p>
      <ErrorText error={error} />
      {report && (
        <>
          <dl class="totals">
            {columns.map((column) => (
              <div>
                <dt>{column.label}</dt>
                <dd data-total={column.total}>{column.cell(report.totals)}</dd>
              </div>
            ))}
          </dl>
          <Chart title={title} days={report.byDay} />
          <Table
            title={`${title}, per platform`}
            columns={columns}
            rows={report.byPlatform.map((row) => ({
              ...row,
              key: row.platformId ?? 'unknown',
              name: row.name ?? row.platformId ?? 'unknown platform',
            }))}
          />
          <Table
            title={`${title}, per partner`}
            columns={columns}
            rows={report.byPartner.data.map((row) => ({ ...row, key: row.companyId, name: row.name ?? row.companyId }))}
          />
          <Pager page={report.byPartner} onPage={setPageIndex} busy={busy} />
        </>
      )}
    </section>
  );
}

export function PerformancePage() {
  const today = new Date();
  const [range, setRange] = useState({ from: isoDay(new Date(today.getTime() - 29 * DAY_MS)), to: isoDay(today), shown: 0 });
  const [typed, setTyped] = useState<Range>({ from: range.from, to: range.to });
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <>
      <form
        class="inline"
        aria-label="Date range"
        onInput={(event) => {
          const form = event.currentTarget;
          setTyped({ from: formValue(form, 'from'), to: formValue(form, 'to') });
          setProblem(null);
        }}
        onSubmit={(event) => {
          event.preventDefault();
          // Refused here, before any request: the service would refuse it too, in words about its parameters.
          const refused = rangeProblem(typed);
          setProblem(refused);
          // Every submit counts: Show reloads the figures even for the same dates.
          if (!refused) setRange({ ...typed, shown: range.shown + 1 });
        }}
      >
        <Field label="From">
          <input name="from" type="date" required value={typed.from} />
        </Field>
        <Field label="To">
          <input name="to" type="date" required value={typed.to} />
        </Field>
        <button type="submit">Show</button>
      </form>
      <ErrorText error={problem} />
      <p>
        An order counts for the partner's page where the shopper last clicked the offer, if the order comes within the attribution window
        (the days after a click in which an order still counts); what each brand owes is on its{' '}
        <a href="#/statements">monthly statements</a>.
      </p>
      <SideReport key={`shown-${range.shown}`} side="shown" range={range} typed={typed} onExportRefused={setProblem} />
      <SideReport key={`received-${range.shown}`} side="received" range={range} typed={typed} onExportRefused={setProblem} />
    </>
  );
}
