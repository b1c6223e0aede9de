/**
 * Store setup on Shopify beside the sandbox (issue 17): a stand-in store with 10,000 products and
 * 50,000 orders under the stand-in's cost-based throttling (Standard plan: 100 points/s, a bucket
 * of 2,000), from plan approval to the consent stage (setup done: import with the catalog read in
 * full, best sellers from the orders' line items, fitting brands), with the Admin API calls and
 * points it took; then a sandbox store the same way (its simulated 3 s hand-over included).
 *
 * Shopify documents no speed for bulk operations: BULK_OBJECTS_PER_SECOND makes the stand-in's
 * take that long (unset, one is done by its second poll).
 *
 *   npm run bench:shopify-setup      (PRODUCTS=10000 ORDERS=50000 by default; PGlite in memory)
 */
import { setAbstractFetchFunc } from '@shopify/shopify-api/runtime';
import { startTestApp, stopTestApp, type TestContext } from '../test/support/harness.js';
import { answerPlan, install, newChallenge, shopifyEnv, standInFor } from '../test/support/shopify.js';
import type { ShopifyStandIn } from '../test/shopify-standin/stand-in.js';
import { markdownReport } from './support.js';

const PRODUCTS = Number(process.env.PRODUCTS ?? 10_000);
const ORDERS = Number(process.env.ORDERS ?? 50_000);
const BULK_OBJECTS_PER_SECOND = process.env.BULK_OBJECTS_PER_SECOND ? Number(process.env.BULK_OBJECTS_PER_SECOND) : undefined;
const BASE_URL = 'https://svc.test';

async function setupDone(context: TestContext, domain: string): Promise<void> {
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    const job = await context.db.selectFrom('setup_jobs').select(['status', 'last_error']).where('domain', '=', domain).executeTakeFirst();
    if (job?.status === 'done') return;
    if (Date.now() > deadline) throw new Error(`setup of ${domain} not done after 10 minutes (${job?.last_error ?? 'no error'})`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function main() {
  const report = markdownReport();
  let context: TestContext | undefined;
  const standIn: ShopifyStandIn = standInFor(BASE_URL, () => context!.app, { bulkObjectsPerSecond: BULK_OBJECTS_PER_SECOND });
  setAbstractFetchFunc(standIn.fetch);
  context = await startTestApp('pglite', { BASE_URL, SETUP_POLL_MS: '20', LOG_LEVEL: 'silent', ...shopifyEnv(standIn) });

  const generated = Date.now();
  const shop = standIn.createShop({ name: 'bench-large', products: PRODUCTS, orders: ORDERS, seed: 'bench-1', plan: 'standard' }).domain;
  const generateMs = Date.now() - generated;
  const challenge = newChallenge();
  await install(context.app, standIn, `/commerce/shopify/install?shop=${shop}&challenge=${challenge}`);
  const before = standIn.apiUsage(shop);
  const approvedAt = Date.now();
  await answerPlan(context.app, standIn, `/commerce/shopify/plan?shop=${shop}&challenge=${challenge}`);
  await setupDone(context, shop);
  const shopifyMs = Date.now() - approvedAt;
  const after = standIn.apiUsage(shop);
  const adapter = context.runtime.commerce.shopify!;
  const waited = adapter.admin.usageOf(shop).waitedMs;

  const sandbox = context.runtime.commerce.sandbox!;
  const sandboxDomain = 'bench-sandbox.example';
  await sandbox.install(sandboxDomain);
  const sandboxApprovedAt = Date.now();
  await sandbox.approvePlan(sandboxDomain);
  await setupDone(context, sandboxDomain);
  const sandboxMs = Date.now() - sandboxApprovedAt;

  report.out(`## Store setup, plan approval → consent (${new Date().toISOString().slice(0, 10)})`);
  report.out();
  const bulkSpeed = BULK_OBJECTS_PER_SECOND ? `writing ${BULK_OBJECTS_PER_SECOND} objects a second` : 'done by their second poll';
  const throttling = `${after.throttleStatus.restoreRate} points/s, bucket ${after.throttleStatus.maximumAvailable}`;
  report.out(
    `Stand-in store: ${PRODUCTS.toLocaleString('en')} products, ${ORDERS.toLocaleString('en')} orders ` +
      `(generated in ${generateMs} ms), Standard plan throttling (${throttling}), bulk operations ${bulkSpeed}.`,
  );
  report.out();
  report.out('| platform | plan approval → consent | Admin API calls | points spent | throttled answers | waited for the bucket |');
  report.out('| --- | ---: | ---: | ---: | ---: | ---: |');
  const calls = after.adminApiCalls - before.adminApiCalls;
  const points = after.pointsSpent - before.pointsSpent;
  const throttled = after.throttledCalls - before.throttledCalls;
  report.out(
    `| Shopify (stand-in) | ${(shopifyMs / 1000).toFixed(1)} s | ${calls} | ${points} | ${throttled} | ${(waited / 1000).toFixed(1)} s |`,
  );
  report.out(`| sandbox | ${(sandboxMs / 1000).toFixed(1)} s | – | – | – | – |`);
  report.out();
  const bulk = standIn.shop(shop).bulkOperations;
  report.out(
    `Bulk operations: ${bulk.length} (catalog, units sold), ${bulk.map((operation) => operation.objectCount).join(' and ')} objects.`,
  );
  await stopTestApp(context);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
