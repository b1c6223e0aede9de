import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext } from 'playwright-core';
import { startBrowserApp, stopBrowserApp } from '../../test/support/browser-app.js';
import type { TestContext } from '../../test/support/harness.js';
import { DASHBOARD_PASSWORD, runningCollab } from '../../test/support/dashboard-client.js';
import { holdCommerceCharge, receiveOrder, recordCommerceCharge } from './service.js';
import { fitsAndPasses } from '../../test/support/readable.js';

const money = (minor: number, currency: string) => new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(minor / 100);

/**
 * Partner Store's statement of this month in Chromium (issue 26): one dollar commission its
 * commerce platform charged, one it held because the store's capped amount is used up, one owed
 * directly, and a euro commission held because the plan is in dollars. The brand reads each
 * currency's split, why what is held is held, how each entry is settled, and the same on paper.
 */
describe('a statement split into charged, held and owed, read in Chromium', () => {
  let context: TestContext;
  let browser: Browser;
  let baseUrl: string;
  let world: Awaited<ReturnType<typeof runningCollab>>;
  let session: BrowserContext;

  beforeAll(async () => {
    ({ context, browser, baseUrl } = await startBrowserApp('postgres'));
    world = await runningCollab(context);
    expect((await context.app.inject({ method: 'GET', url: `/r/${world.token}` })).statusCode).toBe(302);
    const order = (orderId: string, totalCents: number, currency: string) =>
      receiveOrder(
        { db: context.db, ...context.config.orders },
        {
          storeDomain: world.partnerDomain,
          orderId,
          customerId: `shopper-${orderId}`,
          totalCents,
          currency,
          placedAt: new Date(),
          referralToken: world.token,
        },
      );
    await order('1001', 10_000, 'USD');
    await order('1002', 6_000, 'USD');
    await order('1003', 4_000, 'USD');
    await order('1004', 8_000, 'EUR');
    const store = world.partnerDomain;
    await recordCommerceCharge(context.db, {
      storeDomain: store,
      orderId: '1001',
      chargeId: 'gid://shopify/AppUsageRecord/77',
      amountMinor: 500,
      currency: 'USD',
    });
    await holdCommerceCharge(context.db, { storeDomain: store, orderId: '1002', reason: 'over_cap' });
    await holdCommerceCharge(context.db, { storeDomain: store, orderId: '1004', reason: 'other_currency' });
    session = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  });

  afterAll(async () => {
    await session?.close();
    await stopBrowserApp({ context, browser });
  });

  it('shows each currency charged, held with its reason and still owed, and how each entry is settled', async () => {
    const page = await session.newPage();
    await page.goto(`${baseUrl}/dashboard`);
    const form = page.getByRole('form', { name: 'Sign in' });
    await form.getByLabel('Email').fill(world.partnerEmail);
    await form.getByLabel('Password').fill(DASHBOARD_PASSWORD);
    await form.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Dashboard sections' }).getByRole('link', { name: 'Statements' }).click();

    const totals = page.getByRole('table', { name: 'Totals per currency' });
    await totals.getByRole('row', { name: /USD/ }).waitFor();
    const cell = (figure: string, currency: string) => totals.locator(`[data-${figure}="${currency}"]`);
    await expect.poll(() => cell('net', 'USD').textContent()).toBe(money(1_000, 'USD'));
    await expect(cell('charged', 'USD').textContent()).resolves.toBe(money(500, 'USD'));
    await expect(cell('held', 'USD').textContent()).resolves.toBe(money(300, 'USD'));
    await expect(cell('owed', 'USD').textContent()).resolves.toBe(money(200, 'USD'));
    await expect(cell('held', 'EUR').textContent()).resolves.toBe(money(400, 'EUR'));
    await expect(cell('owed', 'EUR').textContent()).resolves.toBe(money(0, 'EUR'));

    const held = page.getByRole('list', { name: 'Held, and why' });
    await expect(held.locator('[data-held-reasons="USD"]').textContent()).resolves.toContain(
      "your store's capped amount at its platform is used up",
    );
    await expect(held.locator('[data-held-reasons="EUR"]').textContent()).resolves.toContain(
      "the order is in another currency than your platform's plan",
    );

    const settled = (orderId: string) =>
      page
        .getByRole('table', { name: 'Entries' })
        .getByRole('row', { name: new RegExp(`^${orderId}`) })
        .locator('td[data-label="Settled"]');
    await expect(settled('1001').textContent()).resolves.toBe('Charged by your platform (gid://shopify/AppUsageRecord/77)');
    await expect(settled('1002').textContent()).resolves.toMatch(/^Held: your store's capped amount/);
    await expect(settled('1003').textContent()).resolves.toBe('Owed directly');
    await expect(settled('1004').textContent()).resolves.toMatch(/^Held: the order is in another currency/);
    await fitsAndPasses(page, 'statement with holds');

    // On paper (or as a PDF) the split and its reasons stay; the dashboard's controls go.
    await page.emulateMedia({ media: 'print' });
    await expect(page.getByRole('button', { name: 'Print or save as PDF' }).isVisible()).resolves.toBe(false);
    await expect(cell('held', 'USD').isVisible()).resolves.toBe(true);
    await expect(held.isVisible()).resolves.toBe(true);
    await fitsAndPasses(page, 'printed statement with holds');
    await page.screenshot({
      path: new URL('../../test-artifacts/dashboard/statement-held-print.png', import.meta.url).pathname,
      fullPage: true,
    });
  });
});
