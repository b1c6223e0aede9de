import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../../test/support/browser.js';
import { startTestApp, stopTestApp, type TestContext } from '../../../test/support/harness.js';
import { allViolations, fitsAndPasses, seriousViolations } from '../../../test/support/readable.js';
import {
  BROWSER_WALK_TOPICS,
  dollars,
  deliveriesWorkedOff,
  orderOverTheCap,
  shopifyEnv,
  standInForPort,
  storeInACampaign,
} from '../../../test/support/shopify.js';
import { BROWSER_USER_AGENT } from '../../../test/shopify-standin/example-app.js';
import type { ShopifyStandIn } from '../../../test/shopify-standin/stand-in.js';

/**
 * A merchant who starts at Shopify, in Chromium (issue 25, section 3): Shopify opens the App URL,
 * the service sends the store through Shopify's OAuth at once, and its home walks the merchant
 * from the plan (approved on Shopify's charge page) through setup and consent to live, with no
 * plugin anywhere. A second store has its access token end in the middle of its setup: the token
 * is renewed and the store stays connected to live. Every page of the home is held to no axe
 * finding at 390 and 1280 px; Shopify's pages (the stand-in's) to none serious.
 */
describe('a merchant who starts at Shopify goes live from the app home, in Chromium', () => {
  let context: TestContext;
  let browser: Browser;
  let service: string;
  let standIn: ShopifyStandIn;
  /** The store the first case takes live from the home. */
  let liveShop: string;

  beforeAll(async () => {
    let port: number;
    // Large catalogs are read with a bulk operation; at this pace one takes a few seconds, long enough to be mid-setup.
    ({ port, service, standIn } = await standInForPort(BROWSER_WALK_TOPICS, { bulkObjectsPerSecond: 250 }));
    context = await startTestApp('postgres', {
      BASE_URL: service,
      SETUP_POLL_MS: '50',
      STORE_MIN_ORDERS: '1',
      ...shopifyEnv(standIn),
    });
    await context.app.listen({ port, host: '127.0.0.1' });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    if (context) await stopTestApp(context);
  });

  async function merchantBrowser(): Promise<{ browserContext: BrowserContext; page: Page; problems: string[] }> {
    const browserContext = await browser.newContext({ userAgent: BROWSER_USER_AGENT, viewport: { width: 1280, height: 900 } });
    // The service's Shopify paths may redirect to Shopify, which the stand-in answers at its real https addresses.
    await standIn.routeBrowser(browserContext, (url) => url.pathname.startsWith('/commerce/shopify/'));
    const page = await browserContext.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    return { browserContext, page, problems };
  }

  /** Shopify opens the app (Install in the App Store, or Apps in the admin): its signed launch, then its grant page when new. */
  async function launchAndInstall(page: Page, shop: string) {
    await page.goto(standIn.appLaunchUrl(shop, `${service}/commerce/shopify/app`));
    const grant = page.getByRole('button', { name: 'Install app' });
    await grant.waitFor();
    expect(new URL(page.url()).hostname).toBe(shop);
    await fitsAndPasses(page, "Shopify's grant page", seriousViolations);
    await grant.click();
    await page.getByRole('heading', { name: 'Step 1 of 3: approve the plan' }).waitFor();
    expect(new URL(page.url()).origin).toBe(service);
    await fitsAndPasses(page, 'the home at the plan', allViolations);
  }

  /** The plan approved on Shopify's charge page, back at the home, which says so. */
  async function approvePlan(page: Page) {
    await page.getByRole('button', { name: 'Approve the plan at Shopify' }).click();
    const approve = page.getByRole('button', { name: 'Approve', exact: true });
    await approve.waitFor();
    await fitsAndPasses(page, "Shopify's charge page", seriousViolations);
    await approve.click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('The plan is approved at Shopify.');
  }

  /** The home looked at again (its "Check the progress again" link) until the store is at consent. */
  async function untilConsent(page: Page) {
    const consent = page.getByRole('heading', { name: 'Step 3 of 3: turn on cross-promotion' });
    await expect
      .poll(
        async () => {
          if (await consent.isVisible()) return true;
          await page.getByRole('link', { name: 'Check the progress again' }).click();
          return consent.isVisible();
        },
        { timeout: 60_000 },
      )
      .toBe(true);
  }

  async function turnOn(page: Page, percent: string) {
    await page.getByLabel(`${percent}% off`).check();
    await page.getByRole('button', { name: 'Turn on cross-promotion' }).click();
    await page.getByRole('heading', { name: 'You are live' }).waitFor();
    await expect(page.getByRole('status').textContent()).resolves.toContain('Cross-promotion is on');
    await fitsAndPasses(page, 'the home, live', allViolations);
  }

  it('launch → Shopify OAuth → home → plan approved at Shopify → setup → consent → live, without the plugin', async () => {
    const shop = standIn.createShop({ name: 'fern-and-flint', products: 12, orders: 60, title: 'Fern & Flint' }).domain;
    const { browserContext, page, problems } = await merchantBrowser();
    await launchAndInstall(page, shop);
    expect((await context.runtime.commerce.forStore(shop).status(shop)).installation).toBe('installed');

    await approvePlan(page);
    expect(standIn.shop(shop).subscriptions.at(-1)!.status).toBe('ACTIVE');
    const setupOrConsent = page.getByRole('heading', { name: /Step (2|3) of 3/ });
    await setupOrConsent.waitFor();
    if (await page.getByRole('heading', { name: 'Step 2 of 3: setting up your store' }).isVisible()) {
      await expect(page.getByRole('list', { name: 'Setup progress' }).textContent()).resolves.toContain('Importing your store');
      await fitsAndPasses(page, 'the home, setting up', allViolations);
    }
    await untilConsent(page);
    await fitsAndPasses(page, 'the home at consent', allViolations);
    await turnOn(page, '15');
    expect([...standIn.shop(shop).discounts.values()].map((discount) => [discount.percentage, discount.appliesOncePerCustomer])).toEqual([
      [0.15, true],
    ]);

    // Opened again from Shopify's admin in the same browser: straight to the home, live.
    await page.goto(standIn.appLaunchUrl(shop, `${service}/commerce/shopify/app`));
    await page.getByRole('heading', { name: 'You are live' }).waitFor();
    expect(problems).toEqual([]);
    await browserContext.close();
    liveShop = shop;
  });

  it(`a commission over the capped amount: the home shows what is held and Shopify's page to approve a higher cap, \
until it is approved`, async () => {
    const { token } = await storeInACampaign(context, standIn, liveShop);
    const { heldMinor } = await orderOverTheCap(context, standIn, liveShop, token);
    const { browserContext, page, problems } = await merchantBrowser();
    // A new browser: Shopify's launch goes through its OAuth (no page, the app is installed) to the home.
    await page.goto(standIn.appLaunchUrl(liveShop, `${service}/commerce/shopify/app`));
    await page.getByRole('heading', { name: 'You are live' }).waitFor();
    const raise = page.getByRole('region', { name: 'Approve a higher capped amount at Shopify' });
    await expect(raise.textContent()).resolves.toContain(`Commissions of ${dollars(heldMinor)} are held, not charged`);
    await expect(raise.textContent()).resolves.toContain(`a capped amount of ${dollars(100_000)} every 30 days`);
    const approve = raise.getByRole('link', { name: 'Approve the higher cap at Shopify' });
    await expect(approve.getAttribute('href')).resolves.toMatch(new RegExp(`^https://${liveShop.replaceAll('.', '\\.')}/admin/charges/`));
    await fitsAndPasses(page, 'the home, live, with a higher cap to approve', allViolations);

    // Approved at Shopify: the held commission is charged and the home no longer asks.
    await standIn.approveCappedAmount(liveShop);
    await deliveriesWorkedOff(context.db, liveShop);
    expect(standIn.usageCharged(liveShop)).toBeGreaterThanOrEqual(heldMinor);
    await page.reload();
    await page.getByRole('heading', { name: 'You are live' }).waitFor();
    await expect(raise.count()).resolves.toBe(0);
    expect(problems).toEqual([]);
    await browserContext.close();
  });

  it('an access token that ends in the middle of setup is renewed: the store stays connected and goes live', async () => {
    // Over 1,000 products: the import is a bulk operation, which runs for a few seconds at the stand-in's pace.
    const shop = standIn.createShop({ name: 'larch-and-loom', products: 1200, orders: 40, title: 'Larch & Loom' }).domain;
    const { browserContext, page, problems } = await merchantBrowser();
    await launchAndInstall(page, shop);
    await approvePlan(page);

    await page.getByRole('heading', { name: 'Step 2 of 3: setting up your store' }).waitFor();
    await expect(page.getByRole('list', { name: 'Setup progress' }).textContent()).resolves.toContain('Importing your store: in progress');
    const refreshesBefore = standIn.tokenRequests(shop).filter((request) => request.grant === 'refresh_token').length;
    // Shopify ends the token early (as an hour passing would): the next Admin API call of the setup is a 401.
    standIn.expireAccessTokens(shop);

    await untilConsent(page);
    const refreshes = standIn.tokenRequests(shop).filter((request) => request.grant === 'refresh_token');
    expect(refreshes.length).toBeGreaterThan(refreshesBefore);
    expect(refreshes.map((request) => request.status)).not.toContain(400);
    const row = await context.db
      .selectFrom('shopify_shops')
      .select(['disconnected_at', 'disconnect_reason'])
      .where('shop', '=', shop)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ disconnected_at: null, disconnect_reason: null });
    await turnOn(page, '20');
    expect(problems).toEqual([]);
    await browserContext.close();
  });
});
