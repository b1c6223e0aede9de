/**
 * Store setup on Shopify (issues 17 and 25): a stand-in store with 10,000 products and 50,000
 * orders, Standard plan throttling (100 points/s, a bucket of 2,000), Shopify-like latency on every
 * request (50 ms: the Admin API, OAuth, the charge page, bulk result downloads) and bulk operations
 * writing 500 objects a second, from plan approval to the consent stage (setup done: import with
 * the catalog read in full, best sellers from the orders' line items, fitting brands).
 *
 * Each case runs twice in the same process, as a baseline and its change: bulk queries one at a
 * time (SHOPIFY_BULK_CONCURRENCY=1: the catalog, then one unsplit units-sold scan) and at once
 * (5: the catalog beside four date ranges of units sold). Two cases: the app's default scopes (the
 * last 60 days of orders, as Shopify shows them without read_all_orders) and with read_all_orders
 * (all 50,000). Reported per run: wall clock, the process's CPU seconds (service and stand-in
 * share it), and the stand-in's simulated time: how long at least one call was kept waiting by
 * "Shopify" (latency, bulk operations running), i.e. the run if the service took no time.
 * The machine is shared: read the ratios and the simulated time, not the wall clock alone.
 *
 *   npm run bench:shopify-setup
 *   PRODUCTS=10000 ORDERS=50000 LATENCY_MS=50 BULK_OBJECTS_PER_SECOND=500 (defaults)
 *   CASES=recent,all  CONCURRENCY=1,5  (defaults; narrow them to run fewer)
 */
import { setAbstractFetchFunc } from '@shopify/shopify-api/runtime';
import { DEFAULT_SHOPIFY_SCOPES } from '../src/config.js';
import { startTestApp, stopTestApp, type TestContext } from '../test/support/harness.js';
import { answerPlan, install, newChallenge, shopifyEnv, standInFor } from '../test/support/shopify.js';
import type { BulkOperation } from '../test/shopify-standin/model.js';
import type { ShopifyStandIn } from '../test/shopify-standin/stand-in.js';
import { markdownReport } from './support.js';

const PRODUCTS = Number(process.env.PRODUCTS ?? 10_000);
const ORDERS = Number(process.env.ORDERS ?? 50_000);
const LATENCY_MS = Number(process.env.LATENCY_MS ?? 50);
const BULK_OBJECTS_PER_SECOND = Number(process.env.BULK_OBJECTS_PER_SECOND ?? 500);
const CASES = (process.env.CASES ?? 'recent,all').split(',') as Array<'recent' | 'all'>;
const CONCURRENCY = (process.env.CONCURRENCY ?? '1,5').split(',').map(Number);
const BASE_URL = 'https://svc.test';

async function setupDone(context: TestContext, domain: string): Promise<void> {
  const deadline = Date.now() + 15 * 60_000;
  for (;;) {
    const job = await context.db.selectFrom('setup_jobs').select(['status', 'last_error']).where('domain', '=', domain).executeTakeFirst();
    if (job?.status === 'done') return;
    if (Date.now() > deadline) throw new Error(`setup of ${domain} not done after 15 minutes (${job?.last_error ?? 'no error'})`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The most bulk operations running at one moment (from each one's creation to when it was ready). */
const mostAtOnce = (operations: BulkOperation[]) =>
  Math.max(
    0,
    ...operations.map(
      (at) =>
        operations.filter((other) => other.createdAt.getTime() <= at.createdAt.getTime() && at.createdAt.getTime() < other.readyAt).length,
    ),
  );

interface Run {
  orders: 'recent' | 'all';
  concurrency: number;
  wallMs: number;
  cpuMs: number;
  waitedMs: number;
  calls: number;
  points: number;
  throttled: number;
  bulk: BulkOperation[];
}

async function setUpOnce(orders: 'recent' | 'all', concurrency: number): Promise<Run> {
  let context: TestContext | undefined;
  const standIn: ShopifyStandIn = standInFor(BASE_URL, () => context!.app, {
    bulkObjectsPerSecond: BULK_OBJECTS_PER_SECOND,
    latencyMs: LATENCY_MS,
  });
  setAbstractFetchFunc(standIn.fetch);
  const scopes = orders === 'all' ? [...DEFAULT_SHOPIFY_SCOPES, 'read_all_orders'] : DEFAULT_SHOPIFY_SCOPES;
  context = await startTestApp('pglite', {
    BASE_URL,
    SETUP_POLL_MS: '20',
    LOG_LEVEL: 'silent',
    ...shopifyEnv(standIn),
    SHOPIFY_SCOPES: scopes.join(','),
    SHOPIFY_BULK_CONCURRENCY: String(concurrency),
  });
  try {
    const shop = standIn.createShop({ name: 'bench-large', products: PRODUCTS, orders: ORDERS, seed: 'bench-1', plan: 'standard' }).domain;
    const challenge = newChallenge();
    await install(context.app, standIn, `/commerce/shopify/install?shop=${shop}&challenge=${challenge}`);
    const before = standIn.apiUsage(shop);
    const cpuBefore = process.cpuUsage();
    const approvedAt = Date.now();
    await answerPlan(context.app, standIn, `/commerce/shopify/plan?shop=${shop}&challenge=${challenge}`);
    await setupDone(context, shop);
    const doneAt = Date.now();
    const cpu = process.cpuUsage(cpuBefore);
    const after = standIn.apiUsage(shop);
    return {
      orders,
      concurrency,
      wallMs: doneAt - approvedAt,
      cpuMs: (cpu.user + cpu.system) / 1000,
      waitedMs: standIn.waitedMs(approvedAt, doneAt),
      calls: after.adminApiCalls - before.adminApiCalls,
      points: after.pointsSpent - before.pointsSpent,
      throttled: after.throttledCalls - before.throttledCalls,
      bulk: standIn.shop(shop).bulkOperations,
    };
  } finally {
    await stopTestApp(context);
  }
}

async function main() {
  const report = markdownReport();
  const runs: Run[] = [];
  for (const orders of CASES) for (const concurrency of CONCURRENCY) runs.push(await setUpOnce(orders, concurrency));

  report.out(`## Store setup, plan approval → consent (${new Date().toISOString().slice(0, 10)})`);
  report.out();
  report.out(
    `Stand-in store: ${PRODUCTS.toLocaleString('en')} products, ${ORDERS.toLocaleString('en')} orders over two years, Standard plan ` +
      `throttling, ${LATENCY_MS} ms on every request, bulk operations writing ${BULK_OBJECTS_PER_SECOND} objects a second; ` +
      'polled once a second. PGlite in memory; service and stand-in in one process.',
  );
  report.out();
  report.out(
    '| orders the app sees | bulk queries | wall clock | CPU (process) | simulated (waiting on Shopify) | bulk operations (objects) | ' +
      'most at once | Admin API calls | points | throttled |',
  );
  report.out('| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |');
  for (const run of runs) {
    const objects = run.bulk.map((operation) => operation.objectCount.toLocaleString('en')).join(' + ');
    const seen = run.orders === 'all' ? 'all (read_all_orders)' : 'last 60 days';
    const how = run.concurrency === 1 ? 'one at a time' : `up to ${run.concurrency} at once`;
    report.out(
      `| ${seen} | ${how} | ` +
        `${(run.wallMs / 1000).toFixed(1)} s | ${(run.cpuMs / 1000).toFixed(1)} s | ${(run.waitedMs / 1000).toFixed(1)} s | ` +
        `${run.bulk.length} (${objects}) | ${mostAtOnce(run.bulk)} | ${run.calls} | ${run.points} | ${run.throttled} |`,
    );
  }
  report.out();
  for (const orders of CASES) {
    const baseline = runs.find((run) => run.orders === orders && run.concurrency === 1);
    const change = runs.find((run) => run.orders === orders && run.concurrency > 1);
    if (!baseline || !change) continue;
    const ratio = (key: 'wallMs' | 'waitedMs' | 'cpuMs') => (change[key] / baseline[key]).toFixed(2);
    report.out(
      `${orders === 'all' ? 'All orders' : 'Last 60 days'}: at once / one at a time = ${ratio('wallMs')} (wall clock), ` +
        `${ratio('waitedMs')} (simulated), ${ratio('cpuMs')} (CPU).`,
    );
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
