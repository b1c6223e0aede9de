import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../../test/support/browser.js';
import { startTestApp, stopTestApp, type TestContext } from '../../../test/support/harness.js';
import { allViolations, fitsAndPasses } from '../../../test/support/readable.js';
import { approvePlanByKeyboard, appFrame, press } from '../../../test/support/shopify-admin-keyboard.js';
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
import { STAFF_PASSWORD } from '../../../test/shopify-standin/staff.js';

/**
 * A merchant who installs from Shopify's App Store, in Chromium, inside the stand-in's admin
 * (issue 45): the listing's Install (after Shopify's sign-in), the admin's install page (a managed
 * installation: Shopify installs with the configuration's scopes), then the app home in the admin's
 * frame, where the first load's session token is exchanged for the store's token; the plan approved
 * on Shopify's charge page in the admin's top window and back into the admin; setup; a discount
 * chosen; live. Keyboard only, at 390 and 1280 px, no axe finding on the home, no console error and
 * no Content-Security-Policy violation. A second store has its access token end in the middle of
 * its setup: the token is renewed and the store stays connected to live.
 */
describe('a merchant who installs from the App Store goes live inside the Shopify admin, in Chromium', () => {
  let context: TestContext;
  let browser: Browser;
  let standIn: ShopifyStandIn;
  /** The store the first case takes live from the home. */
  let liveShop: string;

  beforeAll(async () => {
    let port: number;
    let service: string;
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

  /** A browser whose page errors, console errors and Content-Security-Policy violations (Chromium logs them as errors) are kept. */
  async function merchantBrowser(): Promise<{ browserContext: BrowserContext; page: Page; problems: string[] }> {
    const browserContext = await browser.newContext({ userAgent: BROWSER_USER_AGENT, viewport: { width: 1280, height: 900 } });
    // Shopify's sites (the listing, sign-in, admin, CDN) and stores are the stand-in's; the service's paths may redirect to them.
    await standIn.routeBrowser(browserContext, (url) => url.pathname.startsWith('/commerce/shopify/'));
    const page = await browserContext.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    return { browserContext, page, problems };
  }

  /** Shopify's sign-in page, typed. */
  async function signIn(page: Page, shop: string) {
    const email = page.getByLabel('Email');
    await email.waitFor();
    await email.focus();
    await page.keyboard.type(standIn.staffMember(shop).email);
    await page.getByLabel('Password').focus();
    await page.keyboard.type(STAFF_PASSWORD);
    await page.keyboard.press('Enter');
  }

  const app = appFrame;

  /** The listing's Install, Shopify's sign-in, the admin's install page: the app opens in the admin at the plan. */
  async function installFromListing(page: Page, shop: string) {
    await page.goto(standIn.listingUrl());
    await press(page.getByRole('button', { name: 'Install' }));
    await signIn(page, shop);
    await press(page.getByRole('button', { name: 'Install' }));
    await page.waitForURL((url) => url.pathname.endsWith('/oauth/install'));
    await press(page.getByRole('button', { name: 'Install' }));
    await app(page).getByRole('heading', { name: 'Step 1 of 3: approve the plan' }).waitFor();
    expect(new URL(page.url()).hostname).toBe('admin.shopify.com');
    await fitsAndPasses(page, 'the home at the plan, in the admin', allViolations);
  }

  const approvePlan = approvePlanByKeyboard;

  /** The home looks at the setup again by itself until the store is at consent. */
  async function untilConsent(page: Page) {
    await app(page).getByRole('heading', { name: 'Step 3 of 3: turn on cross-promotion' }).waitFor({ timeout: 60_000 });
  }

  async function turnOn(page: Page, percent: string) {
    const choice = app(page).getByLabel(`${percent}% off`);
    await choice.focus();
    await page.keyboard.press('Space');
    await expect(choice.isChecked()).resolves.toBe(true);
    await press(app(page).getByRole('button', { name: 'Turn on cross-promotion' }));
    await app(page).getByRole('heading', { name: 'You are live' }).waitFor();
    await expect(app(page).getByRole('status').textContent()).resolves.toContain('Cross-promotion is on');
    await fitsAndPasses(page, 'the home, live, in the admin', allViolations);
  }

  it('listing → sign-in → install → the app home in the admin → plan approved → setup → a discount → live, keyboard only', async () => {
    const shop = standIn.createShop({ name: 'fern-and-flint', products: 12, orders: 60, title: 'Fern & Flint' }).domain;
    const { browserContext, page, problems } = await merchantBrowser();
    await installFromListing(page, shop);
    expect((await context.runtime.commerce.forStore(shop).status(shop)).installation).toBe('installed');
    expect(standIn.tokenRequests(shop).filter((request) => request.grant === 'token_exchange')).toHaveLength(1);

    await approvePlan(page);
    expect(standIn.shop(shop).subscriptions.at(-1)!.status).toBe('ACTIVE');
    const settingUp = app(page).getByRole('heading', { name: 'Step 2 of 3: setting up your store' });
    if (await settingUp.isVisible()) {
      await expect(app(page).getByRole('list', { name: 'Setup progress' }).textContent()).resolves.toContain('Importing your store');
      await fitsAndPasses(page, 'the home, setting up', allViolations);
    }
    await untilConsent(page);
    await fitsAndPasses(page, 'the home at consent', allViolations);
    await turnOn(page, '15');
    expect([...standIn.shop(shop).discounts.values()].map((discount) => [discount.percentage, discount.appliesOncePerCustomer])).toEqual([
      [0.15, true],
    ]);

    // Opened again from the admin: the home, live, with no second token exchange.
    await page.goto(standIn.adminAppUrl(shop));
    await app(page).getByRole('heading', { name: 'You are live' }).waitFor();
    expect(standIn.tokenRequests(shop).filter((request) => request.grant === 'token_exchange')).toHaveLength(1);
    expect(problems).toEqual([]);
    await browserContext.close();
    liveShop = shop;
  });

  it(`a commission over the capped amount: the home shows what is held and Shopify's page to approve a higher cap, \
until it is approved`, async () => {
    const { token } = await storeInACampaign(context, standIn, liveShop);
    const { heldMinor } = await orderOverTheCap(context, standIn, liveShop, token);
    const { browserContext, page, problems } = await merchantBrowser();
    // A new browser: Shopify's sign-in, then the app in the admin.
    await page.goto(standIn.adminAppUrl(liveShop));
    await signIn(page, liveShop);
    await app(page).getByRole('heading', { name: 'You are live' }).waitFor();
    const raise = app(page).getByRole('region', { name: 'Approve a higher capped amount at Shopify' });
    await expect(raise.textContent()).resolves.toContain(`Commissions of ${dollars(heldMinor)} are held, not charged`);
    await expect(raise.textContent()).resolves.toContain(`a capped amount of ${dollars(100_000)} every 30 days`);
    const approve = raise.getByRole('link', { name: 'Approve the higher cap at Shopify' });
    await expect(approve.getAttribute('href')).resolves.toMatch(new RegExp(`^https://${liveShop.replaceAll('.', '\\.')}/admin/charges/`));
    // Shopify's page opens in the admin's top window, not in the frame.
    await expect(approve.getAttribute('target')).resolves.toBe('_top');
    await fitsAndPasses(page, 'the home, live, with a higher cap to approve', allViolations);

    // Approved at Shopify: the held commission is charged and the home no longer asks.
    await standIn.approveCappedAmount(liveShop);
    await deliveriesWorkedOff(context.db, liveShop);
    expect(standIn.usageCharged(liveShop)).toBeGreaterThanOrEqual(heldMinor);
    await page.reload();
    await app(page).getByRole('heading', { name: 'You are live' }).waitFor();
    await expect(raise.count()).resolves.toBe(0);
    expect(problems).toEqual([]);
    await browserContext.close();
  });

  it('an access token that ends in the middle of setup is renewed: the store stays connected and goes live', async () => {
    // Over 1,000 products: the import is a bulk operation, which runs for a few seconds at the stand-in's pace.
    const shop = standIn.createShop({ name: 'larch-and-loom', products: 1200, orders: 40, title: 'Larch & Loom' }).domain;
    const { browserContext, page, problems } = await merchantBrowser();
    await installFromListing(page, shop);
    await approvePlan(page);

    await app(page).getByRole('heading', { name: 'Step 2 of 3: setting up your store' }).waitFor();
    await expect(app(page).getByRole('list', { name: 'Setup progress' }).textContent()).resolves.toContain(
      'Importing your store: In progress',
    );
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
