import type net from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, FrameLocator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../../test/support/browser.js';
import { createPlatform } from '../../../test/support/factories.js';
import { startTestApp, stopTestApp, type TestContext } from '../../../test/support/harness.js';
import { fitsAndPasses, seriousViolations } from '../../../test/support/readable.js';
import { adminBrowser, signInOnPage } from '../../../test/support/shopify-admin.js';
import { BROWSER_WALK_TOPICS, shopifyEnv, standInForPort } from '../../../test/support/shopify.js';
import type { ShopifyStandIn } from '../../../test/shopify-standin/stand-in.js';
import { findPluginPlatform } from '../../embed/dal.js';
import { demoHost } from '../../embed/demo-host.js';

/**
 * The plugin on a platform's page, for a Shopify store, installed through the stand-in's real App
 * Store listing (issue 45 §4): the plugin's install link (SHOPIFY_APP_LISTING_URL, the listing
 * `https://apps.shopify.com/{handle}`) opens the listing in a new tab; the merchant signs in to
 * Shopify, installs (a managed installation) and the app opens in the admin, where its first load
 * exchanges a session token for the store's token. The plugin's own page, untouched, moves on to the
 * plan by itself; then the plan approved (the service's confirmation, Shopify's charge page), setup,
 * consent, live. (browser.test.ts walks the same
 * plugin with a listing faked by a route to a signed OAuth launch.)
 */
describe('a Shopify store through the plugin, installed from the App Store listing, in Chromium', () => {
  let context: TestContext;
  let host: FastifyInstance;
  let browser: Browser;
  let service: string;
  let demo: string;
  let platformId: string;
  let standIn: ShopifyStandIn;
  /** The merchant's browser, the platform's page with the plugin, and the store: the second case goes on where the first ends. */
  let merchant: { browserContext: BrowserContext; page: Page; frame: FrameLocator; problems: string[]; shop: string };

  beforeAll(async () => {
    let port: number;
    ({ port, service, standIn } = await standInForPort(BROWSER_WALK_TOPICS));
    context = await startTestApp('postgres', {
      BASE_URL: service,
      SETUP_POLL_MS: '50',
      STORE_MIN_ORDERS: '1',
      PLUGIN_RECHECK_MS: '1000',
      SHOPIFY_APP_LISTING_URL: standIn.listingUrl(),
      ...shopifyEnv(standIn),
    });
    await context.app.listen({ port, host: '127.0.0.1' });
    host = demoHost({
      serviceUrl: service,
      platformId: async () => platformId,
      pluginPageUrl: async (id) => (await findPluginPlatform(context.db, id))?.pluginPageUrl,
    });
    await host.listen({ port: 0, host: '127.0.0.1' });
    demo = `http://127.0.0.1:${(host.server.address() as net.AddressInfo).port}`;
    ({ platformId } = await createPlatform(context.support, { approvedOrigins: [demo] }));
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await merchant?.browserContext.close();
    await browser?.close();
    await host?.close();
    if (context) await stopTestApp(context);
  });

  /** The plugin's screen, readable at 390 and 1280 px with no serious axe finding. */
  async function screen(page: Page, frame: FrameLocator, name: string) {
    await frame.locator(`[data-screen="${name}"]`).waitFor({ timeout: 60_000 });
    await fitsAndPasses(page, `the plugin at ${name}`, seriousViolations);
  }

  it(`the plugin's install link → the App Store listing in a new tab → Shopify's sign-in → managed install → the app in the \
admin (token exchange) → the plugin at plan, by itself`, async () => {
    const shop = standIn.createShop({ name: 'alder-and-ash', products: 30, orders: 400, title: 'Alder & Ash' }).domain;
    const {
      context: browserContext,
      page,
      problems,
    } = await adminBrowser(browser, standIn, {
      mayRedirect: (url) => url.pathname.startsWith('/commerce/shopify/'),
    });
    await page.goto(`${demo}/?domain=${shop}`, { waitUntil: 'domcontentloaded' });
    const frame = page.frameLocator('iframe[title="Brand partnerships"]');
    await screen(page, frame, 'install');

    const installLink = frame.getByRole('link', { name: /^Install the app/ });
    await expect(installLink.getAttribute('href')).resolves.toBe(standIn.listingUrl());
    const [listing] = await Promise.all([browserContext.waitForEvent('page'), installLink.click()]);
    await listing.waitForURL(standIn.listingUrl());
    await listing.getByRole('button', { name: 'Install', exact: true }).click();
    await listing.waitForURL((url) => url.hostname === 'accounts.shopify.com');
    await signInOnPage(listing, standIn.staffMember(shop).email);
    await listing.waitForURL(standIn.listingUrl());
    await listing.getByRole('button', { name: 'Install', exact: true }).click();
    await listing.waitForURL((url) => url.pathname.endsWith('/oauth/install'));
    await listing.getByRole('button', { name: 'Install', exact: true }).click();
    // The app in the admin: its first load exchanges the session token for the store's.
    await listing.frameLocator('#app-iframe').getByRole('heading', { name: 'Step 1 of 3: approve the plan' }).waitFor();
    expect(new URL(listing.url()).hostname).toBe('admin.shopify.com');
    expect(standIn.tokenRequests(shop).filter((request) => request.grant === 'token_exchange')).toHaveLength(1);
    expect((await context.runtime.commerce.forStore(shop).status(shop)).installation).toBe('installed');

    // No click on the plugin's page, the admin's tab in front: the plugin looks again by itself and moves on to the plan.
    await frame.locator('[data-screen="plan"]').waitFor({ timeout: 60_000 });
    await listing.close();
    await page.bringToFront();
    await fitsAndPasses(page, 'the plugin at plan', seriousViolations);
    expect(problems).toEqual([]);
    merchant = { browserContext, page, frame, problems, shop };
  });

  it(`then, from the plugin's plan: the service's confirmation → Shopify's charge page → setting up → consent → live`, async () => {
    const { browserContext, page, frame, problems, shop } = merchant;
    // The managed install carried no proof that this page is the merchant's: the plan link has the store's staff confirm it.
    const [tab] = await Promise.all([browserContext.waitForEvent('page'), frame.getByRole('link', { name: /^Approve plan/ }).click()]);
    await tab.getByRole('heading', { name: 'Confirm what you asked for' }).waitFor();
    expect(new URL(tab.url()).origin).toBe(service);
    await fitsAndPasses(tab, "the service's confirmation page", seriousViolations);
    await tab.getByRole('button', { name: 'Confirm', exact: true }).click();
    await tab.getByRole('button', { name: 'Approve', exact: true }).waitFor();
    expect(new URL(tab.url()).hostname).toMatch(/\.myshopify\.com$|^admin\.shopify\.com$/);
    await fitsAndPasses(tab, "Shopify's charge page", seriousViolations);
    await tab.getByRole('button', { name: 'Approve', exact: true }).click();
    await expect.poll(() => standIn.shop(shop).subscriptions.at(-1)?.status, { timeout: 30_000 }).toBe('ACTIVE');
    await tab.close();
    await page.bringToFront();

    await frame.locator('[data-screen="consent"]').waitFor({ timeout: 60_000 });
    await fitsAndPasses(page, 'the plugin at consent', seriousViolations);
    await frame.getByLabel('20%').check();
    await frame.getByRole('button', { name: 'Turn on cross-promotions' }).click();
    await screen(page, frame, 'live');
    expect([...standIn.shop(shop).discounts.values()].map((discount) => discount.percentage)).toEqual([0.2]);
    expect(problems).toEqual([]);
  });
});
