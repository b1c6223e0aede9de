import { axeViolations } from '../support/axe.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { BROWSER_USER_AGENT, startExampleApp, type ExampleApp } from './example-app.js';
import { shopifyLibraryFor, USAGE_PLAN } from './shopify-library.js';
import { ShopifyStandIn } from './stand-in.js';

const SHOP = 'willow-lane.myshopify.com';

async function expectReadable(page: Page): Promise<void> {
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
  }
  expect(await axeViolations(page)).toEqual([]);
}

describe('Shopify stand-in: a Chromium walks its pages at their real https://{shop}.myshopify.com addresses', () => {
  const standIn = new ShopifyStandIn();
  let shopify: ReturnType<typeof shopifyLibraryFor>;
  let app: ExampleApp;
  let browser: Browser;
  let context: BrowserContext;

  beforeAll(async () => {
    standIn.createShop({ name: 'willow-lane', products: 4 });
    app = await startExampleApp((hostName) => {
      shopify = shopifyLibraryFor(standIn, { hostName, hostScheme: 'http', scopes: ['read_products', 'write_discounts'] });
      return shopify;
    });
    standIn.app.redirectUrls.push(app.callbackUrl);
    browser = await launchBrowser();
    // The library turns away bots, and headless Chromium says it is one.
    context = await browser.newContext({ userAgent: BROWSER_USER_AGENT });
    await standIn.routeBrowser(context);
  });
  afterAll(async () => {
    await browser?.close();
    await app.close();
  });

  it('follows the app’s redirect to the grant page, installs, and comes back through the library’s callback', async () => {
    const page = await context.newPage();
    await page.goto(`${app.baseUrl}/install?shop=${SHOP}`);
    expect(new URL(page.url()).origin).toBe(`https://${SHOP}`);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(`Install ${standIn.app.title}`);
    await expectReadable(page);

    await page.getByRole('button', { name: 'Install app' }).click();
    await page.waitForURL(`${app.callbackUrl}?**`);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(`Installed on ${SHOP}`);
    expect(app.sessions.at(-1)).toMatchObject({ shop: SHOP, isOnline: false, scope: 'read_products,write_discounts' });
    await page.close();
  });

  it('shows the charge confirmation page and returns to the app once the merchant approves', async () => {
    const session = app.sessions.at(-1)!;
    const confirmationUrl = await shopify.billing.request({
      session,
      plan: USAGE_PLAN,
      isTest: true,
      returnUrl: `${app.baseUrl}/billing/return`,
    });
    const page = await context.newPage();
    await page.goto(confirmationUrl);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Approve subscription');
    await expectReadable(page);

    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL(`${app.baseUrl}/billing/return?**`);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Plan approved');
    expect(standIn.shop(SHOP).subscriptions.at(-1)!.status).toBe('ACTIVE');
    expect(await shopify.billing.check({ session, plans: [USAGE_PLAN], isTest: true })).toBe(true);
    await page.close();
  });
});
