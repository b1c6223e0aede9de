import fs from 'node:fs';
import type net from 'node:net';
import { axeViolations } from '../../../test/support/axe.js';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, FrameLocator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../../test/support/browser.js';
import { collabReferral, DASHBOARD_PASSWORD, DashboardClient } from '../../../test/support/dashboard-client.js';
import { createPlatform, uniqueId } from '../../../test/support/factories.js';
import { startTestApp, stopTestApp, type TestContext } from '../../../test/support/harness.js';
import {
  BROWSER_WALK_TOPICS,
  confirmClaimInAdmin,
  dollars,
  deliveriesWorkedOff,
  orderOverTheCap,
  shopifyEnv,
  standInForPort,
} from '../../../test/support/shopify.js';
import { BROWSER_USER_AGENT } from '../../../test/shopify-standin/example-app.js';
import type { ShopifyStandIn } from '../../../test/shopify-standin/stand-in.js';
import { SHOPIFY_APP_STORE_LISTING } from '../../config-schema.js';
import { findPluginPlatform } from '../../embed/dal.js';
import { demoHost } from '../../embed/demo-host.js';

const ARTIFACTS = 'test-artifacts/shopify';

/**
 * A Shopify store walks through the plugin in Chromium: install (Shopify's grant page), plan
 * approval (Shopify's charge page), setting up, consent and live, with every page of the service
 * and of the stand-in checked at 390 and 1280 px with axe. Then a partner shows its offer, a
 * shopper's order at the store comes back as Shopify's signed orders webhook, and the commission
 * becomes a usage record on the store's subscription, which its dashboard statement shows.
 */
describe('a Shopify store through the plugin, in Chromium', () => {
  let context: TestContext;
  let host: FastifyInstance;
  let browser: Browser;
  let service: string;
  let demo: string;
  let platformId: string;
  let platformName: string;
  let standIn: ShopifyStandIn;
  let shop: string;
  /** The referral token of the partner's campaign that shows the store's offer (the second case makes it). */
  let referral: string;

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    let port: number;
    ({ port, service, standIn } = await standInForPort(BROWSER_WALK_TOPICS));
    context = await startTestApp('postgres', {
      BASE_URL: service,
      SETUP_POLL_MS: '50',
      STORE_MIN_ORDERS: '1',
      // The plugin looks again by itself this often while the merchant is at Shopify (and it waits for the install).
      PLUGIN_RECHECK_MS: '1000',
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
    platformName = (await context.db.selectFrom('platforms').select('name').where('id', '=', platformId).executeTakeFirstOrThrow()).name;
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await host?.close();
    if (context) await stopTestApp(context);
  });

  /** No horizontal scroll at 390 and 1280 px (inside the plugin's frame, for a plugin screen), and no serious axe finding. */
  async function expectReadable(page: Page, what: string, frame?: FrameLocator) {
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      const overflow = frame
        ? await frame.locator('html').evaluate((html) => html.scrollWidth - html.clientWidth)
        : await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${what} at ${width} px`).toBeLessThanOrEqual(0);
    }
    const serious = (await axeViolations(page)).filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
    expect(
      serious.map((violation) => violation.id),
      `axe on ${what}`,
    ).toEqual([]);
  }

  it(`install from the App Store listing → Shopify’s grant page → plan, by itself → Shopify’s charge page → setting up → \
consent → live`, async () => {
    shop = standIn.createShop({ name: 'maple-and-moss', products: 30, orders: 400, title: 'Maple & Moss' }).domain;
    const browserContext: BrowserContext = await browser.newContext({
      userAgent: BROWSER_USER_AGENT,
      viewport: { width: 1280, height: 900 },
    });
    // Only the service's Shopify paths redirect to Shopify: the plugin's own pages keep the browser's fetch.
    await standIn.routeBrowser(browserContext, (url) => url.pathname.startsWith('/commerce/shopify/'));
    const page = await browserContext.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${demo}/?domain=${shop}`, { waitUntil: 'domcontentloaded' });
    const frame = page.frameLocator('iframe[title="Brand partnerships"]');

    await frame.locator('[data-screen="install"]').waitFor({ timeout: 60_000 });
    await expectReadable(page, 'install', frame);
    // The install is Shopify's: the app's App Store listing, in a new tab, naming no store. The stand-in has no App Store,
    // so the listing is a page whose Install does what Shopify's does: it opens the app in the merchant's store.
    const launch = standIn.appLaunchUrl(shop, `${service}/commerce/shopify/app`);
    await browserContext.route(SHOPIFY_APP_STORE_LISTING, (route) =>
      route.fulfill({
        contentType: 'text/html; charset=utf-8',
        body: `<!doctype html><html lang="en"><title>Shopify App Store</title><main><h1>Brand Partner Collaborations</h1>
          <a href="${launch.replaceAll('&', '&amp;')}">Install</a></main></html>`,
      }),
    );
    const installLink = frame.getByRole('link', { name: /^Install the app/ });
    await expect(installLink.getAttribute('href')).resolves.toBe(SHOPIFY_APP_STORE_LISTING);
    const [listing] = await Promise.all([page.context().waitForEvent('page'), installLink.click()]);
    await listing.getByRole('link', { name: 'Install', exact: true }).click();
    // Shopify's grant page, then the app home in the store the merchant installed into.
    await listing.getByRole('button', { name: 'Install app' }).waitFor();
    expect(new URL(listing.url()).hostname).toMatch(/\.myshopify\.com$/);
    await expectReadable(listing, "Shopify's Install app page");
    await listing.screenshot({ path: `${ARTIFACTS}/shopify-install-app.png` });
    await listing.getByRole('button', { name: 'Install app' }).click();
    // Shopify's callback stores the token, then sends the merchant into the app in their admin.
    await expect.poll(async () => (await context.runtime.commerce.forStore(shop).status(shop)).installation).toBe('installed');

    // No click, no focus and the listing's tab still in front: the plugin looks again by itself and moves on to the plan.
    await frame.locator('[data-screen="plan"]').waitFor({ timeout: 60_000 });
    await listing.close();
    await page.bringToFront();
    await expectReadable(page, 'plan', frame);
    // The install carried no proof that this page is the merchant's, so the plan link has the store's staff confirm
    // it on the way: Shopify signs them in (no grant page, the app holds its scopes), the service asks them.
    const [tab] = await Promise.all([page.context().waitForEvent('page'), frame.getByRole('link', { name: /^Approve plan/ }).click()]);
    await tab.getByRole('heading', { name: 'Confirm what you asked for' }).waitFor();
    expect(new URL(tab.url()).origin).toBe(service);
    await expect(tab.locator('main').textContent()).resolves.toContain(`${platformName} asks to turn on cross-promotion for this store`);
    await expectReadable(tab, "the service's confirmation page");
    await tab.screenshot({ path: `${ARTIFACTS}/service-confirm.png` });
    await tab.getByRole('button', { name: 'Confirm', exact: true }).click();
    await tab.getByRole('button', { name: 'Approve' }).waitFor();
    expect(new URL(tab.url()).hostname).toMatch(/\.myshopify\.com$/);
    await expectReadable(tab, "Shopify's Approve page");
    await tab.screenshot({ path: `${ARTIFACTS}/shopify-approve.png` });
    await tab.getByRole('button', { name: 'Approve' }).click();
    await tab.getByRole('heading', { name: /The plan is approved/ }).waitFor();
    expect(new URL(tab.url()).origin).toBe(service);
    await tab.close();
    await page.bringToFront();
    expect(standIn.shop(shop).subscriptions.at(-1)!.status).toBe('ACTIVE');

    await frame.locator('[data-screen="setting_up"], [data-screen="consent"]').first().waitFor({ timeout: 60_000 });
    await frame.locator('[data-screen="consent"]').waitFor({ timeout: 60_000 });
    await expectReadable(page, 'consent', frame);
    await page.screenshot({ path: `${ARTIFACTS}/consent.png` });
    expect(await frame.locator('.products li').count()).toBe(3);
    await frame.getByLabel('20%').check();
    await frame.getByRole('button', { name: 'Turn on cross-promotions' }).click();
    await frame.locator('[data-screen="live"]').waitFor({ timeout: 60_000 });
    await expectReadable(page, 'live', frame);
    await page.screenshot({ path: `${ARTIFACTS}/live.png` });

    const discounts = [...standIn.shop(shop).discounts.values()];
    expect(discounts.map((discount) => ({ percentage: discount.percentage, once: discount.appliesOncePerCustomer }))).toEqual([
      { percentage: 0.2, once: true },
    ]);
    expect(problems).toEqual([]);
    await browserContext.close();
  });

  it('a referred order at the live store becomes a usage record on its subscription, shown on its statement', async () => {
    // The store's merchant takes a dashboard account (the claim is confirmed in the app home) and accepts a partner.
    const merchant = await new DashboardClient(context.app).start();
    const merchantEmail = `${uniqueId('m')}@maple.example`;
    const signUp = await merchant.signUp({
      email: merchantEmail,
      password: DASHBOARD_PASSWORD,
      brand: { businessName: 'Maple & Moss', domain: shop, categories: [] },
    });
    expect(signUp.statusCode, signUp.body).toBe(201);
    await confirmClaimInAdmin(context.app, standIn, shop, merchantEmail);
    const storeId: string = (await merchant.post('/dashboard/api/claim/check')).json().companyId;
    expect(storeId).toBeTruthy();
    const shower = new DashboardClient(context.app);
    const showerId = await shower.signUpBrand('Shower Co', `${uniqueId('shower')}.example`, `${uniqueId('s')}@shower.example`);
    const { token } = await collabReferral(context.app, {
      owner: shower,
      ownerId: showerId,
      partner: merchant,
      partnerId: storeId,
      platformId,
      name: 'Maple',
    });
    expect((await context.app.inject({ method: 'GET', url: `/r/${token}` })).statusCode).toBe(302);
    referral = token;

    // The shopper lands at the store with the referral and orders: Shopify sends orders/create, signed, to the service.
    const order = await standIn.placeOrder(shop, { landingSite: `/?ref=${token}` });
    const commission = Math.round(order.totalCents * 0.05);
    const commissionEntry = () =>
      context.db
        .selectFrom('commission_ledger')
        .select(['amount_minor', 'currency', 'commerce_charge_id'])
        .where('store_domain', '=', shop)
        .where('order_id', '=', String(order.id))
        .where('kind', '=', 'commission')
        .executeTakeFirst();
    await expect.poll(async () => (await commissionEntry())?.commerce_charge_id ?? null, { timeout: 60_000 }).not.toBeNull();
    const delivered = standIn.webhookDeliveries({ shop, topic: 'orders/create' }).at(-1)!;
    expect(delivered.status).toBe(200);

    // At Shopify: one usage record of the commission on the store's active subscription, keyed by the order.
    const active = standIn.shop(shop).subscriptions.filter((subscription) => subscription.status === 'ACTIVE');
    expect(active).toHaveLength(1);
    const records = active[0]!.lineItems.flatMap((item) => item.usageRecords);
    expect(records.map((record) => ({ cents: record.priceCents, currency: record.currency, key: record.idempotencyKey }))).toEqual([
      { cents: commission, currency: 'USD', key: `commission:${shop}:${order.id}` },
    ]);
    expect(await commissionEntry()).toEqual({
      amount_minor: commission,
      currency: 'USD',
      commerce_charge_id: `gid://shopify/AppUsageRecord/${records[0]!.id}`,
    });
    const statement = await merchant.get(`/dashboard/api/statement?month=${new Date().toISOString().slice(0, 7)}`);
    expect(statement.json().entries).toEqual([
      expect.objectContaining({
        orderId: String(order.id),
        amountMinor: commission,
        commerceChargeId: `gid://shopify/AppUsageRecord/${records[0]!.id}`,
      }),
    ]);

    // What the merchant sees: the commission on this month's statement.
    const browserContext = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    const page = await browserContext.newPage();
    await page.goto(`${service}/dashboard`);
    const form = page.getByRole('form', { name: 'Sign in' });
    await form.getByLabel('Email').fill(merchantEmail);
    await form.getByLabel('Password').fill(DASHBOARD_PASSWORD);
    await form.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Dashboard sections' }).getByRole('link', { name: 'Statements' }).click();
    const entries = page.getByRole('table', { name: 'Entries' }).locator('tbody tr');
    await entries.filter({ hasText: String(order.id) }).waitFor();
    await expect(entries.locator('td[data-label="Amount"]').allTextContents()).resolves.toEqual([dollars(commission)]);
    await expect(page.getByRole('table', { name: 'Totals per currency' }).locator('[data-net="USD"]').textContent()).resolves.toBe(
      dollars(commission),
    );
    await expectReadable(page, 'the statement');
    await page.screenshot({ path: `${ARTIFACTS}/statement.png`, fullPage: true });
    await browserContext.close();
  });

  it(`a commission over the capped amount: the plugin shows the merchant, once they confirm at their store, what is held \
and Shopify's page to approve a higher cap, until it is approved`, async () => {
    // 5% of this order is more than what is left of the plan's capped amount of 500 USD: held, and a higher cap asked for.
    const { heldMinor } = await orderOverTheCap(context, standIn, shop, referral);

    const browserContext = await browser.newContext({
      userAgent: BROWSER_USER_AGENT,
      viewport: { width: 1280, height: 900 },
      locale: 'en-US',
    });
    await standIn.routeBrowser(browserContext, (url) => url.pathname.startsWith('/commerce/shopify/'));
    const page = await browserContext.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${demo}/?domain=${shop}`, { waitUntil: 'domcontentloaded' });
    const frame = page.frameLocator('iframe[title="Brand partnerships"]');
    await frame.locator('[data-screen="live"]').waitFor({ timeout: 60_000 });
    // A page that holds no store token shows nothing of the money: the merchant confirms at their store first.
    const raise = frame.getByRole('region', { name: 'Approve a higher capped amount at Shopify' });
    const billing = frame.getByRole('region', { name: 'Your billing' });
    await billing.waitFor();
    expect(await raise.count()).toBe(0);
    await expect(frame.locator('body').textContent()).resolves.not.toContain(dollars(heldMinor));
    await expectReadable(page, 'live, billing behind the confirmation', frame);
    // Installed already, Shopify signs the staff in without its grant page; the service asks them and they confirm.
    const [tab] = await Promise.all([
      page.context().waitForEvent('page'),
      billing.getByRole('link', { name: /^Confirm at your store/ }).click(),
    ]);
    await tab.getByRole('heading', { name: 'Confirm what you asked for' }).waitFor();
    expect(new URL(tab.url()).origin).toBe(service);
    await tab.getByRole('button', { name: 'Confirm', exact: true }).click();
    await tab.getByRole('heading', { name: /The app is installed/ }).waitFor();
    await tab.close();
    await page.bringToFront();
    await frame.locator('body').evaluate(() => window.dispatchEvent(new Event('focus')));
    await raise.waitFor();
    expect(await billing.count()).toBe(0);
    await expect(raise.textContent()).resolves.toContain(`Commissions of ${dollars(heldMinor)} are held, not charged`);
    await expect(raise.textContent()).resolves.toContain(`a capped amount of ${dollars(100_000)} every 30 days`);
    const approve = raise.getByRole('link', { name: /^Approve the higher cap at Shopify/ });
    await expect(approve.getAttribute('href')).resolves.toMatch(new RegExp(`^https://${shop.replaceAll('.', '\\.')}/admin/charges/`));
    await expect(approve.getAttribute('target')).resolves.toBe('_blank');
    await expectReadable(page, 'live, with a higher cap to approve', frame);
    await page.screenshot({ path: `${ARTIFACTS}/live-cap-raise.png`, fullPage: true });

    // The merchant approves at Shopify and comes back to the tab: the held commission is charged and the message goes.
    await standIn.approveCappedAmount(shop);
    await deliveriesWorkedOff(context.db, shop);
    await frame.locator('body').evaluate(() => window.dispatchEvent(new Event('focus')));
    await expect.poll(() => raise.count(), { timeout: 30_000 }).toBe(0);
    await frame.locator('[data-screen="live"]').waitFor();
    expect(problems).toEqual([]);
    await browserContext.close();
  });
});
