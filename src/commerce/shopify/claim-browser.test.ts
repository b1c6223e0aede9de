import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../../test/support/browser.js';
import { DASHBOARD_PASSWORD } from '../../../test/support/dashboard-client.js';
import { followSignUpLink } from '../../../test/support/dashboard-browser.js';
import { uniqueId } from '../../../test/support/factories.js';
import { startTestApp, stopTestApp, type TestContext } from '../../../test/support/harness.js';
import { allViolations, fitsAndPasses } from '../../../test/support/readable.js';
import { BROWSER_WALK_TOPICS, shopifyEnv, standInForPort } from '../../../test/support/shopify.js';
import { signInOnPage } from '../../../test/support/shopify-admin.js';
import { BROWSER_USER_AGENT } from '../../../test/shopify-standin/example-app.js';
import type { ShopifyStandIn } from '../../../test/shopify-standin/stand-in.js';

/**
 * A person signs up at the dashboard for a Shopify store, in Chromium (issue 45): the dashboard
 * sends them to the app in the store's Shopify admin; there the store's staff, signed in at
 * Shopify, install the app (a managed installation) and confirm the claim in the app home, whose
 * Confirm carries Shopify's session token; the dashboard, left open, notices by itself and shows
 * the account acting for the brand. At 390 and 1280 px, no axe finding.
 */
describe('a sign-up for a Shopify store is confirmed by its staff inside the Shopify admin, in Chromium', () => {
  let context: TestContext;
  let browser: Browser;
  let standIn: ShopifyStandIn;
  let service: string;

  beforeAll(async () => {
    let port: number;
    ({ port, service, standIn } = await standInForPort(BROWSER_WALK_TOPICS));
    context = await startTestApp('postgres', { BASE_URL: service, STORE_MIN_ORDERS: '1', SANDBOX_IMPORT_MS: '0', ...shopifyEnv(standIn) });
    await context.app.listen({ port, host: '127.0.0.1' });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    if (context) await stopTestApp(context);
  });

  it('sign up, sent to Shopify, confirmed in the app home, the dashboard acts for the brand (each screen at 390 and 1280 px)', async () => {
    const shop = standIn.createShop({
      name: uniqueId('claimed')
        .toLowerCase()
        .replace(/[^a-z0-9-]/g, '-'),
      title: 'Fern & Field',
      products: 6,
      orders: 20,
    }).domain;
    const email = `${uniqueId('owner')}@fern.example`;
    const browserContext = await browser.newContext({ userAgent: BROWSER_USER_AGENT, viewport: { width: 1280, height: 900 } });
    await standIn.routeBrowser(browserContext, (url) => url.pathname.startsWith('/commerce/shopify/'));
    const dashboard = await browserContext.newPage();
    const problems: string[] = [];
    const watch = (page: Page) => page.on('pageerror', (error) => problems.push(error.message));
    watch(dashboard);

    await dashboard.goto(`${service}/dashboard`);
    await dashboard.getByRole('button', { name: 'Sign up' }).click();
    await dashboard.getByLabel('Brand name').fill('Fern & Field');
    await dashboard.getByLabel('Store domain').fill(shop);
    await dashboard.getByLabel('Categories').fill('home, garden');
    await dashboard.getByLabel('Email').fill(email);
    await dashboard.getByRole('button', { name: 'Create account' }).click();
    await dashboard.getByRole('heading', { name: 'Check your mail' }).waitFor();
    await followSignUpLink(dashboard, service, email);
    await dashboard.getByLabel('Password').fill(DASHBOARD_PASSWORD);
    await dashboard.getByRole('button', { name: 'Create my account' }).click();

    await dashboard.getByRole('heading', { name: 'Confirm your store', level: 1 }).waitFor();
    await dashboard.getByText('Open the app in the Shopify admin').waitFor();
    await fitsAndPasses(dashboard, 'the claim, waiting for the store', allViolations);
    const toShopify = dashboard.getByRole('link', { name: 'Confirm at your store' });
    const target = new URL((await toShopify.getAttribute('href'))!);
    expect(target.hostname).toBe('admin.shopify.com');

    // The person opens it in a tab of its own (as from the link's menu); the dashboard stays open in the first.
    const admin = await browserContext.newPage();
    await admin.goto(target.toString());
    watch(admin);
    await admin.waitForLoadState();
    await signInOnPage(admin, standIn.staffMember(shop).email);
    const install = admin.getByRole('button', { name: 'Install', exact: true });
    await admin.waitForURL((url) => url.hostname === 'admin.shopify.com');
    if (admin.url().includes('/oauth/install')) await install.click();
    const app = admin.frameLocator('#app-iframe');
    const confirm = app.getByRole('button', { name: `Confirm ${email}` });
    await confirm.waitFor({ timeout: 30_000 });
    await app.getByText(`${email} asks to act for Fern & Field`).waitFor();
    await fitsAndPasses(admin, 'the claim in the app home', allViolations);
    await confirm.click();
    await app.getByText('Confirmed: their dashboard account acts for your brand').waitFor();
    await expect(app.getByRole('button', { name: `Confirm ${email}` }).count()).resolves.toBe(0);

    // The dashboard, left open, looks again by itself.
    await dashboard.bringToFront();
    await dashboard.getByRole('heading', { name: 'Partnerships', level: 1 }).waitFor({ timeout: 30_000 });
    await fitsAndPasses(dashboard, 'the dashboard acting for the brand', allViolations);
    const confirmed = await context.db.selectFrom('shopify_ownership_confirmations').select('staff_id').where('shop', '=', shop).execute();
    expect(confirmed).toEqual([{ staff_id: String(standIn.staffMember(shop).id) }]);
    expect(problems).toEqual([]);
    await browserContext.close();
  });
});
