import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startBrowserApp, stopBrowserApp } from '../../test/support/browser-app.js';
import { expectAccessible, expectNoHorizontalOverflow } from '../../test/support/dashboard-browser.js';
import type { TestContext } from '../../test/support/harness.js';
import { prepareStartupData } from '../demo/startup.js';

/**
 * The newcomer's third walk (issue 27) on the dashboard's forms: Export CSV exports what the form
 * says, a range the service cannot report on is refused before any request, the chart counts in
 * whole numbers, a generated key takes the focus, and dates read the same on every page.
 */
describe('the dashboard forms, on a test host with the demo data', () => {
  let context: TestContext;
  let browser: Browser;
  let baseUrl: string;

  beforeAll(async () => {
    ({ context, browser, baseUrl } = await startBrowserApp('postgres'));
    await prepareStartupData(context.runtime, context.app.log);
  });

  afterAll(async () => {
    await stopBrowserApp({ context, browser });
  });

  const signedIn = async (width: number): Promise<Page> => {
    const page = await (await browser.newContext({ viewport: { width, height: 900 } })).newPage();
    await page.goto(`${baseUrl}/dashboard`);
    await page.getByLabel('Email').fill('staff@northwind-outfitters.example');
    await page.getByLabel('Password').fill('northwind-demo-staff');
    await page.getByRole('button', { name: 'Sign in', exact: true }).last().click();
    await page.getByRole('heading', { name: 'Partnerships', level: 1 }).waitFor();
    return page;
  };

  /** The dashboard's API requests the page sends from now on. */
  const apiRequests = (page: Page) => {
    const sent: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/dashboard/api/')) sent.push(request.url());
    });
    return sent;
  };

  /** Seconds in a time ("10:04:05") or an ISO date: neither is the dashboard's date format. */
  const NOT_THE_DATE_FORMAT = /\d:\d\d:\d\d|\d{4}-\d\d-\d\d/;

  for (const width of [390, 1280]) {
    it(`at ${width} px: exports the dates typed, refuses a range over 366 days before any request, counts in whole numbers`, async () => {
      const page = await signedIn(width);
      try {
        await page.goto(`${baseUrl}/dashboard#/performance`);
        await page.getByRole('heading', { name: 'Performance', level: 1 }).waitFor();
        const chart = page.getByRole('img', { name: /views and clicks per day/ }).first();
        await chart.waitFor();
        const axis = await chart.locator('text:not([data-day])').allTextContents();
        expect(axis.length).toBeGreaterThanOrEqual(2);
        for (const tick of axis) expect(tick).toMatch(/^\d+$/);
        for (const label of await chart.locator('text[data-day]').allTextContents()) expect(label).not.toMatch(NOT_THE_DATE_FORMAT);

        // Typed, not shown: Export CSV exports the dates in the form.
        const range = page.getByRole('form', { name: 'Date range' });
        const exportLink = (side: string) => page.getByRole('region', { name: side }).getByRole('link', { name: /^Export CSV/ });
        await range.getByLabel('From').fill('2026-01-05');
        await range.getByLabel('To').fill('2026-02-10');
        const [download] = await Promise.all([page.waitForEvent('download'), exportLink("Partners' offers on your pages").click()]);
        const url = new URL(download.url());
        expect([url.pathname, url.searchParams.get('from'), url.searchParams.get('to')]).toEqual([
          '/dashboard/api/performance/shown.csv',
          '2026-01-05',
          '2026-02-10',
        ]);

        // Over 366 days: said in the form, what to do included, and nothing asked of the service.
        const sent = apiRequests(page);
        await range.getByLabel('From').fill('2024-01-01');
        await range.getByLabel('To').fill('2025-12-31');
        await range.getByRole('button', { name: 'Show' }).click();
        const problem = page.getByRole('alert');
        await expect
          .poll(() => problem.textContent())
          .toBe('The range is 731 days; reports cover at most 366. Choose a From date on or after 2024-12-31, or an earlier To date.');
        await exportLink("Your offer on partners' pages").click();
        await expect.poll(() => problem.count()).toBe(1);
        await expectNoHorizontalOverflow(page, 'range refused');
        await expectAccessible(page, 'range refused');
        expect(sent).toEqual([]);

        await range.getByLabel('From').fill('2025-01-01');
        await expect.poll(() => problem.count()).toBe(0);
        await range.getByRole('button', { name: 'Show' }).click();
        await expect.poll(() => sent.filter((address) => address.includes('from=2025-01-01&to=2025-12-31')).length).toBe(2);
      } finally {
        await page.context().close();
      }
    });

    it(`at ${width} px: exports the month typed on Statements`, async () => {
      const page = await signedIn(width);
      try {
        await page.goto(`${baseUrl}/dashboard#/statements`);
        const month = page.getByRole('form', { name: 'Statement month' });
        await month.getByLabel('Month').fill('2025-03');
        const [download] = await Promise.all([page.waitForEvent('download'), month.getByRole('link', { name: 'Export CSV' }).click()]);
        expect(new URL(download.url()).searchParams.get('month')).toBe('2025-03');
      } finally {
        await page.context().close();
      }
    });

    it(`at ${width} px: moves the focus to a generated key and announces it; dates show no seconds`, async () => {
      const page = await signedIn(width);
      try {
        await page.goto(`${baseUrl}/dashboard#/integrations`);
        await page.getByLabel('Key name').fill(`Reports ${width}`);
        await page.getByRole('button', { name: 'Generate key' }).click();
        const key = page.getByTestId('new-key');
        await expect.poll(() => key.evaluate((element) => element === document.activeElement)).toBe(true);
        await expect
          .poll(() => page.getByTestId('key-issued-note').textContent())
          .toBe(`Key Reports ${width} was generated. It is shown below only once: copy it now.`);
        expect(await page.getByTestId('key-issued-note').getAttribute('role')).toBe('status');
        const created = page
          .getByRole('row')
          .filter({ hasText: `Reports ${width}` })
          .locator('[data-label="Created"]');
        await expect.poll(() => created.textContent()).toMatch(/\d/);
        expect(await created.textContent()).not.toMatch(NOT_THE_DATE_FORMAT);
        await expectNoHorizontalOverflow(page, 'key generated');
        await expectAccessible(page, 'key generated');
      } finally {
        await page.context().close();
      }
    });
  }
});
