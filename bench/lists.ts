/**
 * The three brand lists on PostgreSQL with a brand that has 10,000 partnerships and 10,000
 * campaigns (plus other brands' rows around them): page 1 against the last page of
 * /v1/partners and /v1/campaigns at pageSize 100, and the recommendations, timed with app.inject
 * loops (medians) beside GET /healthz as the framework-only baseline in the same run. Then
 * EXPLAIN (ANALYZE, BUFFERS) of the exact statements each request ran. Writes
 * docs/performance-lists.md.
 *
 *   npm run bench:lists   (ITERATIONS=300 timed requests per case after 50 warm-up requests)
 */
import os from 'node:os';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import type { Database } from '../src/db/schema.js';
import { issueBrandKey } from '../src/auth/service.js';
import { listCampaigns } from '../src/campaigns/service.js';
import { listPartners } from '../src/partnerships/service.js';
import { listRecommendations } from '../src/recommendations/service.js';
import { drainScoringQueue } from '../src/recommendations/scorer.js';
import { createTestDatabase } from '../test/support/databases.js';
import { testConfig } from '../test/support/harness.js';
import { markdownReport, median, percentile } from './support.js';

const ITERATIONS = Number(process.env.ITERATIONS ?? 300);
const WARMUP = 50;
const ROUNDS = 10;
const ROWS = 10_000;
const OTHER_ROWS = 30_000;
const ME = 'bench-brand';

const CATEGORIES = ['Coffee', 'Tea', 'Snacks', 'Beauty', 'Pets', 'Outdoor', 'Home', 'Fitness', 'Kids', 'Fashion'];
const COUNTRIES = ['Germany', 'France', 'United States', 'United Kingdom', 'Netherlands'];
const SIZES = ['Micro', 'Small', 'Medium', 'Large', 'Enterprise'];
const PLATFORMS = ['Shopify', 'WooCommerce', 'BigCommerce'];

/** Partners p0..p9999 with varied profiles, a brand graph around them, and the bench brand's own rows. */
async function seed(db: Kysely<Database>): Promise<void> {
  await sql`
    insert into companies
      (id, domain, business_name, logo_image_url, description, business_size, country, categories, product_count, commerce_platform)
    values
      (${ME}, 'bench-brand.example', 'Bench Brand', null, null, 'Medium', 'Germany', ${['Coffee', 'Tea']}::text[], 150, 'Shopify')`.execute(
    db,
  );
  await sql`
    insert into companies (id, domain, business_name, logo_image_url, description, business_size, country, categories, product_count,
                           commerce_platform, created_at)
    select 'p' || i, 'partner-' || i || '.example', 'Partner ' || i,
           case when i % 3 = 0 then null else 'https://cdn.example/' || i || '.png' end,
           case when i % 2 = 0 then 'Partner brand number ' || i end,
           (${SIZES}::text[])[1 + i % 5], (${COUNTRIES}::text[])[1 + i % 5],
           array[(${CATEGORIES}::text[])[1 + i % 10], (${CATEGORIES}::text[])[1 + (i / 10) % 10]],
           case when i % 7 = 0 then null else 10 + (i * 37) % 5000 end,
           (${PLATFORMS}::text[])[1 + i % 3],
           now() - make_interval(secs => i)
    from generate_series(0, ${ROWS - 1}) as i`.execute(db);

  // The bench brand: 7,000 active, 1,000 sent, 500 received, 800 declined, 700 removed, each with its own partner.
  await sql`
    insert into partnerships (requester_id, recipient_id, status, created_at, updated_at)
    select case when i % 2 = 0 then ${ME} else 'p' || i end,
           case when i % 2 = 0 then 'p' || i else ${ME} end,
           case when i < 7000 then 'active' when i < 8500 then 'pending' when i < 9300 then 'declined' else 'removed' end,
           now() - make_interval(mins => i), now()
    from generate_series(0, ${ROWS - 1}) as i`.execute(db);
  // Other brands' partnerships share the same indexes.
  await sql`
    insert into partnerships (requester_id, recipient_id, status, created_at, updated_at)
    select 'p' || (i % ${ROWS}), 'p' || ((i % ${ROWS} + 1 + i / ${ROWS}) % ${ROWS}), 'active', now() - make_interval(mins => i), now()
    from generate_series(0, ${OTHER_ROWS - 1}) as i`.execute(db);

  // The bench brand's campaigns, as owner and as partner, in every stored status and date shape.
  await sql`
    insert into campaigns (id, owner_id, partner_id, name, status, start_date, end_date, created_at, updated_at)
    select 'c' || i,
           case when i % 2 = 0 then ${ME} else 'p' || i end,
           case when i % 2 = 0 then 'p' || i else ${ME} end,
           case when i % 5 = 0 then null else 'Campaign ' || i end,
           (array['draft', 'scheduled', 'active', 'active', 'closed'])[1 + i % 5],
           case when i % 4 = 0 then null else now() - make_interval(days => i % 60 - 20) end,
           case when i % 3 = 0 then null else now() + make_interval(days => i % 90 - 30) end,
           now() - make_interval(mins => i), now()
    from generate_series(0, ${ROWS - 1}) as i`.execute(db);
  await sql`
    insert into campaigns (id, owner_id, partner_id, name, status, created_at, updated_at)
    select 'o' || i, 'p' || (i % ${ROWS}), 'p' || ((i % ${ROWS} + 1 + i / ${ROWS}) % ${ROWS}), 'Other ' || i, 'active',
           now() - make_interval(mins => i), now()
    from generate_series(0, ${OTHER_ROWS - 1}) as i`.execute(db);
}

async function main(): Promise<void> {
  const database = await createTestDatabase('postgres');
  const { out, save } = markdownReport();
  try {
    let started = Date.now();
    await seed(database.db);
    const seedMs = Date.now() - started;

    // Score the bench brand only: one queued brand against every other brand, in both directions.
    await sql`delete from scoring_queue where company_id <> ${ME}`.execute(database.db);
    started = Date.now();
    const scored = await drainScoringQueue(database.db);
    const scoringMs = Date.now() - started;
    const scoreRows = await sql<{ n: number }>`select count(*)::int as n from recommendation_scores`.execute(database.db);
    await sql`vacuum analyze`.execute(database.db);

    // The default per-brand rate limit would cut the timing loops short.
    const config = testConfig({ DATABASE_URL: database.url!, RATE_LIMIT_PER_MINUTE: '1000000' });
    const app = await buildApp({ config, database });
    await app.ready();
    const { key } = await issueBrandKey({ db: database.db, bus: app.runtime.bus, serviceEnv: config.serviceEnv }, ME);
    const headers = { 'x-api-key': key };

    const request = (url: string, withKey: boolean) => app.inject({ method: 'GET', url, headers: withKey ? headers : {} });
    const cases: Array<[string, string, boolean]> = [
      ['GET /healthz (baseline: framework only)', '/healthz', false],
      ['partners, active, page 1', '/v1/partners?pageSize=100', true],
      ['partners, active, last page (70)', '/v1/partners?pageSize=100&pageIndex=70', true],
      ['partners, active, middle page (35)', '/v1/partners?pageSize=100&pageIndex=35', true],
      ['partners, declined + removed, page 1', '/v1/partners?status=declined&pageSize=100', true],
      ['partners, declined + removed, last page (15)', '/v1/partners?status=declined&pageSize=100&pageIndex=15', true],
      ['campaigns, all, page 1', '/v1/campaigns?pageSize=100', true],
      ['campaigns, all, last page (100)', '/v1/campaigns?pageSize=100&pageIndex=100', true],
      ['campaigns, all, middle page (50)', '/v1/campaigns?pageSize=100&pageIndex=50', true],
      ['campaigns, status=active, page 1', '/v1/campaigns?status=active&pageSize=100', true],
      ['campaigns, status=active, last page', '', true],
      ['recommendations', '/v1/discover/partner/recommendations', true],
    ];
    const activeCampaigns = (await app.inject({ method: 'GET', url: '/v1/campaigns?status=active&pageSize=1', headers })).json()
      .totalRows as number;
    const lastActivePage = Math.ceil(activeCampaigns / 100);
    cases[10] = [
      `campaigns, status=active, last page (${lastActivePage})`,
      `/v1/campaigns?status=active&pageSize=100&pageIndex=${lastActivePage}`,
      true,
    ];

    out('# Brand lists: performance on PostgreSQL');
    out();
    out('Generated by `npm run bench:lists` (bench/lists.ts). Do not edit by hand; rerun the bench.');
    out();
    out(
      `Data: one brand with ${ROWS.toLocaleString('en')} partnerships ` +
        '(7,000 active, 1,000 sent, 500 received, 800 declined, 700 removed, each with its own partner) ' +
        `and ${ROWS.toLocaleString('en')} campaigns (owner and partner, every stored status), ` +
        `among ${OTHER_ROWS.toLocaleString('en')} partnerships and ` +
        `${OTHER_ROWS.toLocaleString('en')} campaigns of other brands; ${(ROWS + 1).toLocaleString('en')} companies. ` +
        `Bulk inserted in ${seedMs} ms, then VACUUM ANALYZE.`,
    );
    out();
    out(
      `Scoring the brand (${scored} queued brand against ${ROWS.toLocaleString('en')} others, both directions): ${scoringMs} ms, ` +
        `${scoreRows.rows[0]!.n.toLocaleString('en')} score rows written in one upsert.`,
    );
    out();
    out('How page 1 and the last page are kept the same cost:');
    out();
    out(
      "- `totalRows` is counted with index-only scans of the brand's ranges (one per side and stored status): " +
        'it costs the same on every page.',
    );
    out(
      '- A page is read from whichever end of the list is nearer (`pageWindow` in src/http/paging.ts), ' +
        'so the last page walks as few index entries as page 1; the middle page is the worst case (half the list).',
    );
    out(
      '- Each side of the list (requester/recipient, owner/partner) is one index range read in list order with its own LIMIT, ' +
        'so PostgreSQL merges the ranges (Merge Append) and stops at the page instead of sorting every matching row; ' +
        "only the page's 100 rows are then read from the table.",
    );
    out(
      '- The campaign indexes (migration 0006) include status, start_date and end_date, ' +
        'so the effective-status filter is evaluated inside the index-only scan (no heap fetches).',
    );
    out();
    out(
      `Timing: app.inject (no network), ${WARMUP} warm-up then ${ITERATIONS} sequential requests per case, ` +
        `the cases taking turns in ${ROUNDS} rounds; API key auth served from memory after the first request. ` +
        `Node ${process.version}, ${os.cpus().length} CPUs, load average ${os
          .loadavg()
          .map((load) => load.toFixed(1))
          .join(
            ' / ',
          )} at the start of the timings (other work shares this machine, so absolute times are inflated; compare rows of the same run).`,
    );
    out();
    out('| case | items | totalRows | median ms | p95 ms | median vs baseline |');
    out('|---|---|---|---|---|---|');
    // Cases take turns in rounds, so a change in the machine's load falls on all of them alike.
    const samples = new Map<string, number[]>(cases.map(([name]) => [name, []]));
    const shapes = new Map<string, { items?: number; totalRows?: number }>();
    for (const [name, url, withKey] of cases) {
      const check = await request(url, withKey);
      if (check.statusCode !== 200) throw new Error(`${url} answered ${check.statusCode}: ${check.body}`);
      const body = check.json() as { data?: unknown[]; totalRows?: number };
      shapes.set(name, { items: body.data?.length, totalRows: body.totalRows });
      for (let i = 0; i < WARMUP; i++) await request(url, withKey);
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, url, withKey] of cases) {
        for (let i = 0; i < ITERATIONS / ROUNDS; i++) {
          const t = process.hrtime.bigint();
          await request(url, withKey);
          samples.get(name)!.push(Number(process.hrtime.bigint() - t) / 1e6);
        }
      }
    }
    const results = new Map<string, { median: number; p95: number }>();
    const baseline = median(samples.get(cases[0]![0])!);
    for (const [name] of cases) {
      const result = { median: median(samples.get(name)!), p95: percentile(samples.get(name)!, 95) };
      results.set(name, result);
      const shape = shapes.get(name)!;
      out(
        `| ${[
          name,
          shape.items ?? '-',
          shape.totalRows ?? '-',
          result.median.toFixed(2),
          result.p95.toFixed(2),
          `${(result.median / baseline).toFixed(1)}×`,
        ].join(' | ')} |`,
      );
    }
    const ratio = (last: string, first: string) => (results.get(last)!.median / results.get(first)!.median).toFixed(2);
    out();
    out('Last page against page 1 (median):');
    out();
    out(`- partners, active: ${ratio('partners, active, last page (70)', 'partners, active, page 1')}`);
    out(`- partners, declined + removed: ${ratio('partners, declined + removed, last page (15)', 'partners, declined + removed, page 1')}`);
    out(`- campaigns, all: ${ratio('campaigns, all, last page (100)', 'campaigns, all, page 1')}`);
    out(`- campaigns, status=active: ${ratio(cases[10]![0], 'campaigns, status=active, page 1')}`);
    await app.close();

    // The exact statements of each request, captured from a logging Kysely on the same database, then explained.
    const pool = new pg.Pool({ connectionString: database.url!, max: 2 });
    const captured: Array<{ sql: string; parameters: readonly unknown[] }> = [];
    const logged = new Kysely<Database>({
      dialect: new PostgresDialect({ pool }),
      log: (event) => {
        if (event.level === 'query') captured.push({ sql: event.query.sql, parameters: event.query.parameters });
      },
    });
    const explain = async (title: string, run: () => Promise<unknown>) => {
      captured.length = 0;
      await run();
      out();
      out(`## ${title}`);
      for (const statement of captured) {
        // Best of three runs: one sample on a shared machine can catch a scheduling stall.
        let plan: pg.QueryResult | undefined;
        let best = Infinity;
        for (let run = 0; run < 3; run++) {
          const candidate = await pool.query(
            `explain (analyze, buffers, costs off, timing off, summary on) ${statement.sql}`,
            statement.parameters as unknown[],
          );
          const executionMs = Number(
            /Execution Time: ([\d.]+)/.exec(candidate.rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n'))?.[1] ??
              Infinity,
          );
          if (executionMs < best) [best, plan] = [executionMs, candidate];
        }
        out();
        out('```');
        out(statement.sql.replace(/\s+/g, ' ').trim());
        out('');
        for (const row of plan!.rows as Array<{ 'QUERY PLAN': string }>) out(row['QUERY PLAN']);
        out('```');
      }
    };
    const now = new Date();
    out();
    out("# EXPLAIN (ANALYZE, BUFFERS) of each request's statements");
    out();
    out('The statements each request runs, captured from the service functions, explained with their parameters (best of three runs).');
    await explain('partners, active, page 1', () => listPartners(logged, ME, { status: 'active', pageIndex: 1, pageSize: 100 }));
    await explain('partners, active, last page (70)', () => listPartners(logged, ME, { status: 'active', pageIndex: 70, pageSize: 100 }));
    await explain('partners, active, middle page (35): the worst case, half the list walked', () =>
      listPartners(logged, ME, { status: 'active', pageIndex: 35, pageSize: 100 }),
    );
    await explain('partners, declined + removed, last page (15)', () =>
      listPartners(logged, ME, { status: 'declined', pageIndex: 15, pageSize: 100 }),
    );
    await explain('campaigns, all, page 1', () => listCampaigns(logged, ME, { pageIndex: 1, pageSize: 100 }, now));
    await explain('campaigns, all, last page (100)', () => listCampaigns(logged, ME, { pageIndex: 100, pageSize: 100 }, now));
    await explain(`campaigns, status=active, last page (${lastActivePage})`, () =>
      listCampaigns(logged, ME, { status: 'active', pageIndex: lastActivePage, pageSize: 100 }, now),
    );
    await explain('recommendations', () => listRecommendations(logged, ME));
    await logged.destroy();
  } finally {
    await database.close();
  }
  const target = save('docs/performance-lists.md');
  process.stdout.write(`\nwrote ${target}\n`);
}

main().catch((error) => {
  process.stderr.write(`${String(error?.stack ?? error)}\n`);
  process.exit(1);
});
