import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserApp, stopBrowserApp } from '../../test/support/browser-app.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { TestContext } from '../../test/support/harness.js';
import { DASHBOARD_PASSWORD, runningCollab, STORE_OWNER_PASSWORD } from '../../test/support/dashboard-client.js';
import { fitsAndPasses } from '../../test/support/readable.js';

const SECRET = 'orders-webhook-secret-0123456789';
const SHOWN = "Partners' offers on your pages";
const RECEIVED = "Your offer on partners' pages";
const dollars = (cents: number) => new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(cents / 100);

/**
 * Two brands in Chromium (issue 16): a shopper follows Shower Co's showing of Partner Store's
 * offer to the sandbox storefront and orders; the store's owner refunds half of it in the sandbox
 * store admin. Each brand then reads both sides of its performance page and its statement.
 */
describe('one referred order and one refund, read by both brands in Chromium', () => {
  let context: TestContext;
  let browser: Browser;
  let baseUrl: string;
  let world: Awaited<ReturnType<typeof runningCollab>>;
  const sessions: BrowserContext[] = [];
  let order: { id: string; total_cents: number };
  let refundCents: number;

  const newPage = async () => {
    const session = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    sessions.push(session);
    return session.newPage();
  };

  const signIn = async (email: string) => {
    const page = await newPage();
    await page.goto(`${baseUrl}/dashboard`);
    const form = page.getByRole('form', { name: 'Sign in' });
    await form.getByLabel('Email').fill(email);
    await form.getByLabel('Password').fill(DASHBOARD_PASSWORD);
    await form.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Performance' }).click();
    await page.getByRole('heading', { name: 'Performance', level: 1 }).waitFor();
    return page;
  };
  const total = (page: Page, side: string, figure: string) =>
    page.getByRole('region', { name: side }).locator(`[data-total="${figure}"]`).textContent();

  beforeAll(async () => {
    ({ context, browser, baseUrl } = await startBrowserApp('postgres', { ORDERS_WEBHOOK_SECRET: SECRET, SANDBOX_STOREFRONTS: 'true' }));
    world = await runningCollab(context);
  });

  afterAll(async () => {
    for (const session of sessions) await session.close();
    await stopBrowserApp({ context, browser });
  });

  it("orders through the referral link at the partner's storefront", async () => {
    const shopper = await newPage();
    await shopper.goto(world.referralUrl);
    await shopper.getByLabel('Your email').fill('shopper@buyer.example');
    await shopper.getByRole('button', { name: 'Place order' }).click();
    await shopper.getByText(/order webhook, which answered HTTP 200/).waitFor();
    order = await context.db
      .selectFrom('sandbox_orders')
      .select(['id', 'total_cents'])
      .where('customer_email', '=', 'shopper@buyer.example')
      .executeTakeFirstOrThrow();
    // The shopper's order is for real goods, so the refund below has something to take half of.
    expect(order.total_cents).toBeGreaterThan(0);
  });

  it('refunds half of it in the sandbox store admin, which tells the service', async () => {
    const owner = await newPage();
    await owner.goto(`${baseUrl}/sandbox/stores/${world.partnerDomain}`);
    await owner.getByLabel('Email').fill('owner@store.example');
    await owner.getByLabel('Password').fill(STORE_OWNER_PASSWORD);
    await owner.getByRole('button', { name: 'Sign in' }).click();
    refundCents = Math.floor(order.total_cents / 2);
    const row = owner.getByRole('row').filter({ hasText: order.id });
    await row.getByLabel(`Refund amount for ${order.id}`).fill((refundCents / 100).toFixed(2));
    await row.getByRole('button', { name: 'Refund' }).click();
    await owner
      .getByRole('row')
      .filter({ hasText: order.id })
      .getByText(`Refunded ${dollars(refundCents)}`)
      .waitFor();
    const events = await context.db.selectFrom('order_events').selectAll().where('order_id', '=', order.id).execute();
    expect(events).toEqual([expect.objectContaining({ kind: 'refund', amount_cents: refundCents })]);
  });

  it(`shows the partner its offer on Shower Co's pages: the order it received, its revenue after the refund \
and the commission it owes`, async () => {
    const commission = Math.round(order.total_cents * 0.05);
    const owed = commission - Math.round((commission * refundCents) / order.total_cents);
    const page = await signIn(world.partnerEmail);
    await page
      .getByRole('region', { name: RECEIVED })
      .getByRole('table', { name: `${RECEIVED}, per partner` })
      .waitFor();
    await expect(total(page, RECEIVED, 'views')).resolves.toBe('1');
    await expect(total(page, RECEIVED, 'clicks')).resolves.toBe('1');
    await expect(total(page, RECEIVED, 'orders')).resolves.toBe('1');
    await expect(total(page, RECEIVED, 'newCustomers')).resolves.toBe('1');
    await expect(total(page, RECEIVED, 'revenue')).resolves.toBe(dollars(order.total_cents - refundCents));
    await expect(total(page, RECEIVED, 'commission')).resolves.toBe(dollars(owed));
    const byPartner = page.getByRole('table', { name: `${RECEIVED}, per partner` }).getByRole('row', { name: /Shower Co/ });
    await expect(byPartner.getByRole('cell').allTextContents()).resolves.toEqual([
      '1',
      '1',
      '1',
      '1',
      dollars(order.total_cents - refundCents),
      dollars(owed),
    ]);
    await expect(total(page, SHOWN, 'views')).resolves.toBe('0');
    await expect(total(page, SHOWN, 'orders')).resolves.toBe('0');
    await fitsAndPasses(page, 'partner performance');

    await page.getByRole('navigation', { name: 'Dashboard sections' }).getByRole('link', { name: 'Statements' }).click();
    const owedTable = page.getByRole('table', { name: 'Totals per currency' });
    await owedTable.getByRole('row', { name: /USD/ }).waitFor();
    await expect(owedTable.locator('[data-net="USD"]').textContent()).resolves.toBe(dollars(owed));
    await expect(owedTable.locator('[data-owed="USD"]').textContent()).resolves.toBe(dollars(owed));
    await expect(page.locator('[data-statement-status]').textContent()).resolves.toMatch(/^Open until /);
    await expect(page.getByRole('button', { name: 'Print or save as PDF' }).isVisible()).resolves.toBe(true);
    const entries = page.getByRole('table', { name: 'Entries' }).locator('tbody tr');
    await expect(entries.count()).resolves.toBe(2);
    await expect(entries.locator('td[data-label="Amount"]').allTextContents()).resolves.toEqual([
      dollars(commission),
      dollars(-(commission - owed)),
    ]);
    await fitsAndPasses(page, 'partner statement');
  });

  it("shows Shower Co the partner's offer on its pages: the view, the click and the order it sent; it owes nothing", async () => {
    const page = await signIn(world.showerEmail);
    await page
      .getByRole('region', { name: SHOWN })
      .getByRole('table', { name: `${SHOWN}, per platform` })
      .waitFor();
    await expect(total(page, SHOWN, 'views')).resolves.toBe('1');
    await expect(total(page, SHOWN, 'clicks')).resolves.toBe('1');
    await expect(total(page, SHOWN, 'orders')).resolves.toBe('1');
    await expect(total(page, RECEIVED, 'orders')).resolves.toBe('0');
    await expect(total(page, RECEIVED, 'commission')).resolves.toBe('—');
    await fitsAndPasses(page, 'shower performance');
    await page.getByRole('navigation', { name: 'Dashboard sections' }).getByRole('link', { name: 'Statements' }).click();
    await page.getByText('Nothing owed this month.').waitFor();
    await page.screenshot({
      path: new URL('../../test-artifacts/dashboard/statement-empty.png', import.meta.url).pathname,
      fullPage: true,
    });
  });
});
