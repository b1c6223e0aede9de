import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { launchBrowser } from '../../../test/support/browser.js';
import { ADMIN_TOKEN, startTestApp, stopTestApp, type TestContext } from '../../../test/support/harness.js';
import { allViolations, fitsAndPasses } from '../../../test/support/readable.js';
import { adminBrowser } from '../../../test/support/shopify-admin.js';
import { approvePlanByKeyboard, appFrame, press } from '../../../test/support/shopify-admin-keyboard.js';
import { BROWSER_WALK_TOPICS, deliveriesWorkedOff, shopifyEnv, standInForPort } from '../../../test/support/shopify.js';
import type { ShopifyStandIn } from '../../../test/shopify-standin/stand-in.js';
import { STAFF_PASSWORD } from '../../../test/shopify-standin/staff.js';

/**
 * The same store uninstalls the app and installs it again, in Chromium, inside the stand-in's admin
 * (issue 45 §4, as Shopify's reviewer tries it): taken live from the app home, the app is
 * uninstalled from the admin's apps page (Shopify revokes the token and sends app/uninstalled),
 * which the service records as an uninstall (not an error, not in support's attention list); then
 * installed again from the listing, opened in the admin (a second token exchange), the plan
 * approved again on Shopify's charge page, and the store is live again with the offer the merchant
 * left. Keyboard only, axe on every home screen it passes, no page error or console error.
 */
describe('a store that uninstalls the app from the Shopify admin and installs it again, in Chromium', () => {
  let context: TestContext;
  let browser: Browser;
  let standIn: ShopifyStandIn;

  beforeAll(async () => {
    let port: number;
    let service: string;
    ({ port, service, standIn } = await standInForPort(BROWSER_WALK_TOPICS));
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

  const app = appFrame;

  /** The listing's Install, Shopify's sign-in when not signed in yet, the admin's Install: the app opens in the admin at the plan. */
  async function installFromListing(page: Page, shop: string) {
    await page.goto(standIn.listingUrl());
    await press(page.getByRole('button', { name: 'Install', exact: true }));
    await page.waitForURL((url) => url.hostname !== 'apps.shopify.com');
    if (page.url().startsWith('https://accounts.shopify.com/')) {
      const email = page.getByLabel('Email');
      await email.focus();
      await page.keyboard.type(standIn.staffMember(shop).email);
      await page.getByLabel('Password').focus();
      await page.keyboard.type(STAFF_PASSWORD);
      await page.keyboard.press('Enter');
      await page.waitForURL(standIn.listingUrl());
      await press(page.getByRole('button', { name: 'Install', exact: true }));
    }
    await page.waitForURL((url) => url.pathname.endsWith('/oauth/install'));
    await press(page.getByRole('button', { name: 'Install', exact: true }));
    await app(page).getByRole('heading', { name: 'Step 1 of 3: approve the plan' }).waitFor();
    expect(new URL(page.url()).hostname).toBe('admin.shopify.com');
    await fitsAndPasses(page, 'the home at the plan, in the admin', allViolations);
  }

  const approvePlan = approvePlanByKeyboard;

  /** The admin's apps page (Settings › Apps), its Uninstall pressed from the keyboard (as uninstallFromAdmin clicks it). */
  async function uninstallFromAdmin(page: Page, shop: string) {
    await page.goto(`https://admin.shopify.com/store/${shop.split('.')[0]}/settings/apps`);
    await press(page.getByRole('button', { name: `Uninstall ${standIn.app.title}` }));
    await page.getByText(`${standIn.app.title} was uninstalled.`).waitFor();
  }

  const exchanges = (shop: string) => standIn.tokenRequests(shop).filter((request) => request.grant === 'token_exchange').length;
  const shopRow = (shop: string) =>
    context.db
      .selectFrom('shopify_shops')
      .select(['uninstalled_at', 'disconnected_at', 'disconnect_reason', 'access_token_encrypted'])
      .where('shop', '=', shop)
      .executeTakeFirstOrThrow();
  const offerOf = (shop: string) =>
    context.db
      .selectFrom('offers')
      .innerJoin('companies', 'companies.id', 'offers.company_id')
      .select(['offers.title', 'offers.live', 'offers.left_with_store'])
      .where('companies.domain', '=', shop)
      .execute();
  /** Support's list of stores that lost the app's access. */
  const attention = async () => {
    const answer = await context.app.inject({
      method: 'GET',
      url: '/admin/shopify/attention',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(answer.statusCode, answer.body).toBe(200);
    return (answer.json().disconnectedStores as Array<{ shop: string }>).map((entry) => entry.shop);
  };

  it(`live from the home → uninstalled from the admin's apps page (recorded as an uninstall) → installed again from the \
listing → plan approved again → live again with the same offer, keyboard only`, async () => {
    const shop = standIn.createShop({ name: 'heath-and-hollow', products: 12, orders: 60, title: 'Heath & Hollow' }).domain;
    const { context: browserContext, page, problems } = await adminBrowser(browser, standIn);
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });

    await installFromListing(page, shop);
    expect(exchanges(shop)).toBe(1);
    await approvePlan(page);
    await app(page).getByRole('heading', { name: 'Step 3 of 3: turn on cross-promotion' }).waitFor({ timeout: 60_000 });
    await fitsAndPasses(page, 'the home at consent', allViolations);
    const choice = app(page).getByLabel('15% off');
    await choice.focus();
    await page.keyboard.press('Space');
    await press(app(page).getByRole('button', { name: 'Turn on cross-promotion' }));
    const live = app(page).getByRole('heading', { name: 'You are live' });
    await live.waitFor();
    await fitsAndPasses(page, 'the home, live, in the admin', allViolations);
    const offerTitle = '15% off your first order at Heath & Hollow';
    await expect(app(page).locator('main').textContent()).resolves.toContain(`Partners show ${offerTitle} to their shoppers`);
    const discountCode = await app(page).locator('main code').textContent();
    expect(discountCode).toMatch(/^PARTNER15-/);
    expect(await offerOf(shop)).toEqual([{ title: offerTitle, live: true, left_with_store: null }]);
    await deliveriesWorkedOff(context.db, shop);

    // Uninstalled from the admin: Shopify revokes the token and sends app/uninstalled.
    const errors = vi.spyOn(context.app.log, 'error');
    await uninstallFromAdmin(page, shop);
    await expect.poll(async () => (await shopRow(shop)).uninstalled_at, { timeout: 30_000 }).toBeInstanceOf(Date);
    await deliveriesWorkedOff(context.db, shop);
    expect(await shopRow(shop)).toMatchObject({ access_token_encrypted: null, disconnected_at: null, disconnect_reason: 'uninstalled' });
    expect(errors.mock.calls.filter(([fields]) => JSON.stringify(fields ?? null).includes(shop))).toEqual([]);
    errors.mockRestore();
    expect(await attention()).not.toContain(shop);
    expect(await offerOf(shop)).toEqual([{ title: offerTitle, live: false, left_with_store: shop }]);

    // Installed again from the listing (still signed in to Shopify): a new token by a second exchange, the plan asked again.
    await installFromListing(page, shop);
    expect(exchanges(shop)).toBe(2);
    expect(await shopRow(shop)).toMatchObject({ uninstalled_at: null, disconnected_at: null, disconnect_reason: null });
    await approvePlan(page);
    expect(standIn.shop(shop).subscriptions.at(-1)!.status).toBe('ACTIVE');

    // No consent asked again: the offer the merchant left, live again, the same discount at Shopify.
    await live.waitFor({ timeout: 60_000 });
    await fitsAndPasses(page, 'the home, live again, in the admin', allViolations);
    await expect(app(page).locator('main').textContent()).resolves.toContain(`Partners show ${offerTitle} to their shoppers`);
    await expect(app(page).locator('main code').textContent()).resolves.toBe(discountCode);
    expect(await offerOf(shop)).toEqual([{ title: offerTitle, live: true, left_with_store: null }]);
    expect([...standIn.shop(shop).discounts.values()].map((discount) => discount.percentage)).toEqual([0.15]);
    expect(problems).toEqual([]);
    await browserContext.close();
  });
});
