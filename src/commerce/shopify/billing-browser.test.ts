import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShopifyStandIn } from '../../../test/shopify-standin/stand-in.js';
import { launchBrowser } from '../../../test/support/browser.js';
import { DASHBOARD_PASSWORD } from '../../../test/support/dashboard-client.js';
import { ADMIN_TOKEN, startTestApp, stopTestApp, type TestContext } from '../../../test/support/harness.js';
import { fitsAndPasses } from '../../../test/support/readable.js';
import { freePort } from '../../../test/support/service-process.js';
import { COMPLIANCE_TOPICS, deliveriesWorkedOff, shopifyEnv, standInFor } from '../../../test/support/shopify.js';
import { shopifyCollab } from '../../../test/support/shopify-collab.js';
import { BROWSER_USER_AGENT } from '../../../test/shopify-standin/example-app.js';

const TOPICS = [
  ...COMPLIANCE_TOPICS,
  'orders/create',
  'orders/paid',
  'app_subscriptions/update',
  'app_subscriptions/approaching_capped_amount',
];
const euros = (cents: number) => new Intl.NumberFormat('en-US', { style: 'currency', currency: 'EUR' }).format(cents / 100);

/**
 * An EUR store that Shopify bills in EUR, in Chromium (issue 25, section 4): its brand reads on
 * its statement a partner's first order charged in EUR with Shopify's usage record, a returning
 * customer's order owing nothing, and a commission over the cap held while Shopify waits for a
 * higher cap, with the action to approve it there; once approved, the held commission is charged
 * and the action goes. Support's attention list names the store while the raise waits.
 */
describe('an EUR Shopify store’s commissions, charged, returning and held, read in Chromium', () => {
  let context: TestContext;
  let browser: Browser;
  let service: string;
  let standIn: ShopifyStandIn;
  let session: BrowserContext;
  let collab: Awaited<ReturnType<typeof shopifyCollab>>;

  const settled = () => deliveriesWorkedOff(context.db, collab.shop);
  const attention = async () =>
    (
      await context.app.inject({ method: 'GET', url: '/admin/shopify/attention', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    ).json().capRaises as Array<{ shop: string; currency: string; cappedMinor: number }>;

  beforeAll(async () => {
    const port = await freePort();
    service = `http://127.0.0.1:${port}`;
    // Plain http is refused by Shopify as a webhook address: the topics are declared in the app's configuration.
    standIn = standInFor(service, () => context.app, {
      app: { webhooks: TOPICS.map((topic) => ({ topic, uri: `${service}/commerce/shopify/webhooks` })) },
    });
    context = await startTestApp('postgres', { BASE_URL: service, SETUP_POLL_MS: '50', ...shopifyEnv(standIn) });
    await context.app.listen({ port, host: '127.0.0.1' });
    browser = await launchBrowser();
    collab = await shopifyCollab(context, standIn, { currency: 'EUR', billingCurrency: 'EUR', countryCode: 'DE' });
    const click = await context.app.inject({ method: 'GET', url: `/r/${collab.token}`, headers: { 'user-agent': BROWSER_USER_AGENT } });
    expect(click.statusCode).toBe(302);
    session = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  });

  afterAll(async () => {
    await session?.close();
    await browser?.close();
    if (context) await stopTestApp(context);
  });

  const statementPage = async (): Promise<Page> => {
    const page = await session.newPage();
    await page.goto(`${service}/dashboard`);
    const form = page.getByRole('form', { name: 'Sign in' });
    await form.getByLabel('Email').fill(collab.partnerEmail);
    await form.getByLabel('Password').fill(DASHBOARD_PASSWORD);
    await form.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Dashboard sections' }).getByRole('link', { name: 'Statements' }).click();
    await page.getByRole('table', { name: 'Entries' }).waitFor();
    return page;
  };
  const entry = (page: Page, orderId: number) =>
    page.getByRole('table', { name: 'Entries' }).getByRole('row', { name: new RegExp(`^${orderId}`) });

  it('shows a first order charged in EUR, a returning customer owing nothing, a held one and the way to approve more', async () => {
    const product = standIn.shop(collab.shop).products.find((each) => each.status === 'ACTIVE')!;
    const landingSite = `/?ref=${collab.token}`;
    const first = await standIn.placeOrder(collab.shop, { lineItems: [{ productId: product.id, quantity: 2 }], landingSite });
    const again = await standIn.placeOrder(collab.shop, { customerId: first.customerId!, landingSite });
    // 5% of this is more than the plan's 500 EUR cap: held over the cap, and Shopify asked for a higher one.
    const large = await standIn.placeOrder(collab.shop, {
      lineItems: [{ productId: product.id, quantity: Math.ceil(1_100_000 / product.priceCents) }],
      landingSite,
    });
    await settled();
    const commission = Math.round(first.totalCents * 0.05);
    expect(standIn.usageCharged(collab.shop)).toBe(commission);
    expect(await attention()).toContainEqual({
      shop: collab.shop,
      currency: 'EUR',
      cappedMinor: 100_000,
      confirmationUrl: expect.any(String),
      requestedAt: expect.any(String),
    });

    const page = await statementPage();
    const settledCell = (orderId: number) => entry(page, orderId).locator('td[data-label="Settled"]');
    await expect
      .poll(() => settledCell(first.id).textContent())
      .toMatch(/^Charged by your platform \(gid:\/\/shopify\/AppUsageRecord\/\d+\)$/);
    await expect(entry(page, first.id).locator('td[data-label="Amount"]').textContent()).resolves.toBe(euros(commission));
    await expect(entry(page, again.id).locator('td[data-label="Customer"]').textContent()).resolves.toMatch(/^Returning customer/);
    await expect(entry(page, again.id).locator('td[data-label="Amount"]').textContent()).resolves.toBe(euros(0));
    await expect(settledCell(large.id).textContent()).resolves.toMatch(/^Held: your store's capped amount/);
    const approve = page.getByRole('link', { name: 'Approve the higher cap at Shopify' });
    await expect(approve.getAttribute('href')).resolves.toMatch(
      new RegExp(`^https://${collab.shop.replaceAll('.', '\\.')}/admin/charges/`),
    );
    await expect(page.getByRole('region', { name: /capped amount at Shopify/ }).textContent()).resolves.toContain(euros(100_000));
    await fitsAndPasses(page, 'statement with a cap to raise');

    // The merchant approves at Shopify: the held commission is charged and the action goes, for the brand and for support.
    await standIn.approveCappedAmount(collab.shop);
    await settled();
    await page.reload();
    await expect.poll(() => settledCell(large.id).textContent()).toMatch(/^Charged by your platform/);
    await expect(approve.count()).resolves.toBe(0);
    expect((await attention()).map((raise) => raise.shop)).not.toContain(collab.shop);
    await page.close();
  });
});
