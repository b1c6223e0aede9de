/**
 * The dashboard's data requests on PostgreSQL for a brand with 10,000 partnerships, 10,000
 * campaigns and 1,000,000 views (plus 20,000 attributed orders), each timed against
 * GET /v1/partners on the same data in the same run (target: at most 3×). app.inject loops,
 * the cases taking turns in rounds; medians and p95. Writes docs/performance-dashboard.md.
 *
 *   npm run bench:dashboard   (ITERATIONS=200 timed requests per case after 20 warm-up requests)
 */
import os from 'node:os';
import { sql, type Kysely } from 'kysely';
import { buildApp } from '../src/app.js';
import type { Database } from '../src/db/schema.js';
import { issueBrandKey } from '../src/auth/service.js';
import { createBrandUser } from '../src/accounts/users.js';
import { drainScoringQueue } from '../src/recommendations/scorer.js';
import { createTestDatabase } from '../test/support/databases.js';
import { testConfig } from '../test/support/harness.js';
import { csrfOf, mergeCookies } from '../test/support/oauth-flow.js';
import { bookCommissions, markdownReport, median, percentile } from './support.js';

const ITERATIONS = Number(process.env.ITERATIONS ?? 200);
const WARMUP = 20;
const ROUNDS = 10;
const ROWS = 10_000;
const COUNTER_ROWS_PER_SIDE = 100_000;
const VIEWS_PER_ROW = 5;
const ORDERS = 20_000;
const ME = 'bench-brand';
const PLATFORMS = ['5e1f0a4c-0000-4000-8000-00000000b001', '5e1f0a4c-0000-4000-8000-00000000b002', '5e1f0a4c-0000-4000-8000-00000000b003'];
const PASSWORD = 'bench password long enough';
const EMAIL = 'bench@bench-brand.example';

async function seed(db: Kysely<Database>): Promise<void> {
  await sql`
    insert into companies (id, domain, business_name, business_size, country, categories, product_count)
    values (${ME}, 'bench-brand.example', 'Bench Brand', 'Medium', 'Germany', ${['Coffee', 'Tea']}::text[], 150)`.execute(db);
  await sql`
    insert into companies (id, domain, business_name, business_size, country, categories, product_count)
    select 'p' || i, 'partner-' || i || '.example', 'Partner ' || i, (array['Small', 'Medium', 'Large'])[1 + i % 3], 'Germany',
           array[(array['Coffee', 'Tea', 'Snacks', 'Home'])[1 + i % 4]], 10 + i % 500
    from generate_series(0, ${ROWS - 1}) as i`.execute(db);
  for (const [index, id] of PLATFORMS.entries()) {
    await sql`insert into platforms (id, name, offer_types)
              values (${id}::uuid, ${`Bench platform ${index + 1}`}, ${['post-purchase']}::text[])`.execute(db);
  }
  await sql`
    insert into partnerships (requester_id, recipient_id, status, created_at, updated_at)
    select case when i % 2 = 0 then ${ME} else 'p' || i end, case when i % 2 = 0 then 'p' || i else ${ME} end,
           case when i < 7000 then 'active' when i < 8500 then 'pending' when i < 9300 then 'declined' else 'removed' end,
           now() - make_interval(mins => i), now()
    from generate_series(0, ${ROWS - 1}) as i`.execute(db);
  await sql`
    insert into campaigns (id, owner_id, partner_id, name, status, start_date, created_at, updated_at)
    select 'c' || i, case when i % 2 = 0 then ${ME} else 'p' || i end, case when i % 2 = 0 then 'p' || i else ${ME} end,
           'Campaign ' || i, (array['draft', 'active', 'active', 'closed'])[1 + i % 4], now() - make_interval(days => i % 60),
           now() - make_interval(mins => i), now()
    from generate_series(0, ${ROWS - 1}) as i`.execute(db);
  // 1,000,000 views: the brand's showings of partners' offers and partners' showings of its offer,
  // over a year, spread over four counter shards as several instances write them.
  for (const side of ['brand', 'partner'] as const) {
    await sql`
      insert into attribution_counters (platform_id, day, campaign_id, brand_id, partner_id, shard, views, clicks)
      select (${PLATFORMS}::uuid[])[1 + i % 3], current_date - (i % 365), 'c' || (i % ${ROWS}),
             ${side === 'brand' ? sql`${ME}` : sql`'p' || (i % ${ROWS})`}, ${side === 'brand' ? sql`'p' || (i % ${ROWS})` : sql`${ME}`},
             i % 4, ${VIEWS_PER_ROW}, i % 3
      from generate_series(0, ${COUNTER_ROWS_PER_SIDE - 1}) as i`.execute(db);
  }
  await sql`
    insert into attributed_orders (store_domain, order_id, customer_ref, total_cents, currency, placed_at, platform_id, campaign_id,
                                   brand_id, partner_id, matched_by, new_customer, commission_cents)
    select 'partner-' || (i % ${ROWS}) || '.example', 'o' || i, 'customer-' || i, 1000 + i % 9000, 'USD',
           now() - make_interval(days => i % 365),
           (${PLATFORMS}::uuid[])[1 + i % 3], 'c' || (i % ${ROWS}),
           case when i % 2 = 0 then ${ME} else 'p' || (i % ${ROWS}) end, case when i % 2 = 0 then 'p' || (i % ${ROWS}) else ${ME} end,
           'referral_link', i % 3 = 0, case when i % 3 = 0 then (1000 + i % 9000) / 20 else 0 end
    from generate_series(0, ${ORDERS - 1}) as i`.execute(db);
  await bookCommissions(db, '%');
}

async function main(): Promise<void> {
  const database = await createTestDatabase('postgres');
  const { out, save } = markdownReport();
  try {
    let started = Date.now();
    await seed(database.db);
    const seedMs = Date.now() - started;
    started = Date.now();
    await sql`select rebuild_performance()`.execute(database.db);
    const rollupMs = Date.now() - started;
    const rollupRows = await sql<{
      days: number;
      partnerDays: number;
      partners: number;
      sealed: string;
      moneyDays: number;
      moneyPairs: number;
    }>`
      select (select count(*) from performance_days where company_id = ${ME})::int8 as days,
             (select count(*) from performance_money_days where company_id = ${ME})::int8 as "moneyDays",
             (select count(*) from performance_pair_money_days where brand_id = ${ME} or partner_id = ${ME})::int8 as "moneyPairs",
             (select to_char(sealed_through, 'YYYY-MM-DD') from performance_sealed) as sealed,
             (select count(*) from performance_pair_days where brand_id = ${ME} or partner_id = ${ME})::int8 as "partnerDays",
             (select count(*) from performance_partners where company_id = ${ME})::int8 as partners`.execute(database.db);
    await sql`delete from scoring_queue where company_id <> ${ME}`.execute(database.db);
    await drainScoringQueue(database.db);
    await sql`vacuum analyze`.execute(database.db);

    const config = testConfig({ DATABASE_URL: database.url!, RATE_LIMIT_PER_MINUTE: '1000000', RUN_BACKGROUND_JOBS: 'false' });
    const app = await buildApp({ config, database });
    await app.ready();
    const { key } = await issueBrandKey({ db: database.db, bus: app.runtime.bus, serviceEnv: config.serviceEnv }, ME);
    await createBrandUser({ db: database.db }, ME, { email: EMAIL, password: PASSWORD });
    let cookies = mergeCookies('', await app.inject({ method: 'GET', url: '/dashboard/api/session' }));
    const signIn = await app.inject({
      method: 'POST',
      url: '/dashboard/api/sign-in',
      headers: { cookie: cookies, 'x-csrf-token': csrfOf(cookies), 'content-type': 'application/json' },
      payload: JSON.stringify({ email: EMAIL, password: PASSWORD }),
    });
    if (signIn.statusCode !== 200) throw new Error(`sign-in failed: ${signIn.body}`);
    cookies = mergeCookies(cookies, signIn);

    const today = new Date().toISOString().slice(0, 10);
    const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
    const cases: Array<[string, string, 'key' | 'session']> = [
      ['GET /v1/partners (baseline)', '/v1/partners', 'key'],
      ['session', '/dashboard/api/session', 'session'],
      ['partners, active (100)', '/dashboard/api/partners?status=active', 'session'],
      ['partners, requests received', '/dashboard/api/partners?status=inviteReceived', 'session'],
      ['brand search "partner 12" (111 matches)', '/dashboard/api/brands?q=partner%2012', 'session'],
      ['brand search "coffee" (2,500 matches)', '/dashboard/api/brands?q=coffee', 'session'],
      ['brand search "pa" (2 characters)', '/dashboard/api/brands?q=pa', 'session'],
      ['recommendations', '/dashboard/api/recommendations', 'session'],
      ['campaigns (100, with offers)', '/dashboard/api/campaigns', 'session'],
      ['own offer', '/dashboard/api/offer', 'session'],
      ['API keys', '/dashboard/api/keys', 'session'],
      ['authorized apps', '/dashboard/api/apps', 'session'],
      ['performance, last 30 days', `/dashboard/api/performance?from=${daysAgo(29)}&to=${today}`, 'session'],
      ['performance, last 365 days', `/dashboard/api/performance?from=${daysAgo(364)}&to=${today}`, 'session'],
      [
        'performance, last 365 days, partner page 100 of 200',
        `/dashboard/api/performance?from=${daysAgo(364)}&to=${today}&pageIndex=100`,
        'session',
      ],
      ['performance CSV, last 30 days (10,000 partners)', `/dashboard/api/performance.csv?from=${daysAgo(29)}&to=${today}`, 'session'],
      ['performance CSV, last 365 days (10,000 partners)', `/dashboard/api/performance.csv?from=${daysAgo(364)}&to=${today}`, 'session'],
      ...(['shown', 'received'] as const).flatMap(
        (side): Array<[string, string, 'session']> => [
          [`performance, ${side} side, last 30 days`, `/dashboard/api/performance/${side}?from=${daysAgo(29)}&to=${today}`, 'session'],
          [`performance, ${side} side, last 365 days`, `/dashboard/api/performance/${side}?from=${daysAgo(364)}&to=${today}`, 'session'],
          [
            `performance CSV, ${side} side, last 365 days (10,000 partners)`,
            `/dashboard/api/performance/${side}.csv?from=${daysAgo(364)}&to=${today}`,
            'session',
          ],
        ],
      ),
      ['statement, this month', `/dashboard/api/statement?month=${today.slice(0, 7)}`, 'session'],
    ];
    const request = (url: string, auth: 'key' | 'session') =>
      app.inject({ method: 'GET', url, headers: auth === 'key' ? { 'x-api-key': key } : { cookie: cookies } });

    for (const [, url, auth] of cases) {
      const check = await request(url, auth);
      if (check.statusCode !== 200) throw new Error(`${url} answered ${check.statusCode}: ${check.body}`);
      for (let i = 0; i < WARMUP; i++) await request(url, auth);
    }
    const samples = new Map<string, number[]>(cases.map(([name]) => [name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, url, auth] of cases) {
        for (let i = 0; i < ITERATIONS / ROUNDS; i++) {
          const t = process.hrtime.bigint();
          await request(url, auth);
          samples.get(name)!.push(Number(process.hrtime.bigint() - t) / 1e6);
        }
      }
    }
    const views = await sql<{ n: string }>`select sum(views)::text as n from attribution_counters`.execute(database.db);

    out('# Brand dashboard: performance on PostgreSQL');
    out();
    out('Generated by `npm run bench:dashboard` (bench/dashboard.ts). Do not edit by hand; rerun the bench.');
    out();
    out(
      `Data: one brand with ${ROWS.toLocaleString('en')} partnerships (7,000 active, 1,500 requests, 800 declined, 700 removed) and ` +
        `${ROWS.toLocaleString('en')} campaigns with ${ROWS.toLocaleString('en')} partner brands; ` +
        `${Number(views.rows[0]!.n).toLocaleString('en')} views in ` +
        `${(2 * COUNTER_ROWS_PER_SIDE).toLocaleString('en')} daily counter rows over 365 days and 3 platforms ` +
        '(both sides: offers the brand showed, and its own offer shown by partners); ' +
        `${ORDERS.toLocaleString('en')} attributed orders. Bulk inserted in ${seedMs} ms ` +
        '(counters spread over 4 counter shards, as several instances write them), ' +
        `rollups rebuilt from them (below), then VACUUM ANALYZE.`,
    );
    out();
    out(
      `Timing: app.inject (no network), ${WARMUP} warm-up then ${ITERATIONS} sequential requests per case, ` +
        `the cases taking turns in ${ROUNDS} rounds. ` +
        'The baseline is GET /v1/partners (API key, default page of 50) on the same data in the same run. ' +
        `Node ${process.version}, ${os.cpus().length} CPUs, ` +
        `load average ${os
          .loadavg()
          .map((load) => load.toFixed(1))
          .join(' / ')}.`,
    );
    out();
    out('| dashboard data request | median ms | p95 ms | median vs GET /v1/partners | within 3× |');
    out('|---|---:|---:|---:|---|');
    const baseline = median(samples.get(cases[0]![0])!);
    let failures = 0;
    for (const [name] of cases) {
      const values = samples.get(name)!;
      const ratio = median(values) / baseline;
      const ok = ratio <= 3;
      if (!ok) failures++;
      const cells = [name, median(values).toFixed(2), percentile(values, 95).toFixed(2), `${ratio.toFixed(2)}×`, ok ? 'yes' : '**no**'];
      out(`| ${cells.join(' | ')} |`);
    }
    out();
    out(
      failures === 0
        ? 'Every dashboard data request is within 3× of GET /v1/partners.'
        : `${failures} request(s) exceed 3× of GET /v1/partners.`,
    );
    out('The CSV export is a download of every partner (not one page), so its cost grows with the partners and the rows of the range.');
    out();
    out(
      `Rollups (migration 0009) for this brand: ${rollupRows.rows[0]!.days.toLocaleString('en')} rows per day × platform, ` +
        `${rollupRows.rows[0]!.partnerDays.toLocaleString('en')} per showing brand × partner × day, ` +
        `${rollupRows.rows[0]!.partners.toLocaleString('en')} partners; ` +
        `rebuilt from all raw counters and orders (every brand's) in ${rollupMs} ms, ` +
        `views and clicks sealed through ${rollupRows.rows[0]!.sealed}: ` +
        'every range also reads the counters of the days after that (the live week). ' +
        `Order money per currency (migration 0019, both roles): ${rollupRows.rows[0]!.moneyDays.toLocaleString('en')} rows ` +
        `per role × day × platform × currency, ${rollupRows.rows[0]!.moneyPairs.toLocaleString('en')} per showing brand × partner × ` +
        'day × currency, kept by triggers on the orders, their events and the ledger.',
    );
    out();

    save('docs/performance-dashboard.md');
    await app.close();
  } finally {
    await database.close();
  }
}

await main();
