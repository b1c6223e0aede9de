import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startBrowserApp, stopBrowserApp } from '../../../test/support/browser-app.js';
import { STORE_OWNER_PASSWORD } from '../../../test/support/sandbox-owner.js';
import type { TestContext } from '../../../test/support/harness.js';
import { allViolations, fitsAndPasses } from '../../../test/support/readable.js';

/** What the refund field holds: major units, two decimals. */
const dollars = (cents: number) => (cents / 100).toFixed(2);
const money = (cents: number) => new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(cents / 100);

/**
 * The sandbox store admin as a store's owner meets it (issue 27): every page of it fits a phone's
 * 390 px and a desktop's 1280 px with no sideways scroll and passes axe, and Refund, untouched,
 * refunds what is left of the order.
 */
describe('the sandbox store admin in Chromium, at 390 and 1280 px', () => {
  let context: TestContext;
  let browser: Browser;
  let baseUrl: string;
  let session: BrowserContext;
  let page: Page;
  const domain = `corner-coffee-${crypto.randomBytes(3).toString('hex')}.example`;
  const store = () => `${baseUrl}/sandbox/stores/${domain}`;

  beforeAll(async () => {
    ({ context, browser, baseUrl } = await startBrowserApp('postgres', { SANDBOX_STOREFRONTS: 'true' }));
    session = await browser.newContext({ viewport: { width: 390, height: 900 } });
    page = await session.newPage();
  });

  afterAll(async () => {
    await session?.close();
    await stopBrowserApp({ context, browser });
  });

  it('fits and passes axe on the owner sign-in, the admin, the install and plan pages, the store list and the storefront', async () => {
    await page.goto(store());
    await page.getByRole('heading', { name: /^Set up the owner sign-in of / }).waitFor();
    await fitsAndPasses(page, 'owner sign-in', allViolations);
    await page.getByLabel('Email').fill(`owner@${domain}`);
    await page.getByLabel('Password').fill(STORE_OWNER_PASSWORD);
    await page.getByRole('button', { name: 'Create owner sign-in' }).click();
    await page.getByRole('heading', { name: /^Orders \(\d+ in all, latest first\)$/ }).waitFor();
    await fitsAndPasses(page, 'store admin', allViolations);

    // The app is installed before its plan can be approved, as the admin's own link says.
    for (const [path, button] of [
      ['install', 'Install app'],
      ['plan', 'Approve plan'],
    ] as const) {
      await page.goto(`${store()}/${path}`);
      await page.getByRole('button', { name: button }).waitFor();
      await fitsAndPasses(page, `${path} page`, allViolations);
      await page.getByRole('button', { name: button }).click();
      await page.getByText(/Go back to the tab where you started/).waitFor();
      await fitsAndPasses(page, `after ${path}`, allViolations);
    }
    await page.goto(`${baseUrl}/sandbox`);
    await page.getByRole('heading', { name: 'Recently opened' }).waitFor();
    await fitsAndPasses(page, 'store list', allViolations);
    await page.goto(`${baseUrl}/sandbox/shop/${domain}`);
    await page.getByRole('button', { name: 'Place order' }).first().waitFor();
    await fitsAndPasses(page, 'storefront', allViolations);
  });

  it('refunds the whole remaining amount when the owner only presses Refund, after a part refunded first', async () => {
    await page.setViewportSize({ width: 390, height: 900 });
    await page.goto(store());
    const first = await context.db
      .selectFrom('sandbox_orders')
      .select(['id', 'total_cents'])
      .where('store_domain', '=', domain)
      .orderBy('placed_at', 'desc')
      .executeTakeFirstOrThrow();
    const row = () => page.getByRole('row').filter({ hasText: first.id });
    const amount = () => row().getByLabel(`Refund amount for ${first.id}`);
    expect(await amount().inputValue()).toBe(dollars(first.total_cents));

    await amount().fill('1.00');
    await row().getByRole('button', { name: 'Refund' }).click();
    await row().getByText('Refunded $1.00').waitFor();
    // Offered again: what is left, not the order's total.
    expect(await amount().inputValue()).toBe(dollars(first.total_cents - 100));

    await row().getByRole('button', { name: 'Refund' }).click();
    await row()
      .getByText(`Refunded ${money(first.total_cents)}`)
      .waitFor();
    expect(await row().getByRole('button', { name: 'Refund' }).count()).toBe(0);
    const refunded = await context.db
      .selectFrom('sandbox_orders')
      .select('refunded_cents')
      .where('store_domain', '=', domain)
      .where('id', '=', first.id)
      .executeTakeFirstOrThrow();
    expect(refunded.refunded_cents).toBe(first.total_cents);
    await fitsAndPasses(page, 'store admin after refunds', allViolations);
  });
});
