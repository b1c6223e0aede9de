import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserApp, stopBrowserApp } from '../../test/support/browser-app.js';
import type { Browser, Page } from 'playwright-core';
import { sql } from 'kysely';
import type { TestContext } from '../../test/support/harness.js';
import { seedPerformanceStory, utcDay, type PerformanceStory } from '../../test/support/performance-story.js';
import { DASHBOARD_PASSWORD } from '../../test/support/dashboard-client.js';
import { seriousViolations } from '../../test/support/readable.js';

/**
 * The performance page in Chromium: each of the brand's two roles (issue 16) has its chart, which covers
 * every day of the range, with axes, and its partner table pages.
 */
describe('performance page in Chromium', () => {
  let context: TestContext;
  let browser: Browser;
  let baseUrl: string;
  let story: PerformanceStory;
  let page: Page;

  beforeAll(async () => {
    ({ context, browser, baseUrl } = await startBrowserApp('postgres'));
    story = await seedPerformanceStory(context);
    page = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
    await page.goto(`${baseUrl}/dashboard`);
    const signIn = page.getByRole('form', { name: 'Sign in' });
    await signIn.getByLabel('Email').fill(story.alphaEmail);
    await signIn.getByLabel('Password').fill(DASHBOARD_PASSWORD);
    await signIn.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Performance' }).click();
    await page.getByRole('heading', { name: 'Performance', level: 1 }).waitFor();
  });

  afterAll(async () => {
    await stopBrowserApp({ context, browser });
  });

  const SHOWN = "Partners' offers on your pages";
  const RECEIVED = "Your offer on partners' pages";
  const region = (name: string) => page.getByRole('region', { name });
  const chart = (side = SHOWN) => region(side).getByRole('img', { name: /views and clicks per day/ });
  const dayLabels = () =>
    chart()
      .locator('text[data-day]')
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-day')));
  const axisValues = () => chart().locator('text:not([data-day])').allTextContents();
  /** A UTC day as the dashboard shows it: the browser's own medium date (web/dashboard/dates.ts). */
  const shown = (isoDay: string) =>
    page.evaluate(
      (day) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`)),
      isoDay,
    );

  it('charts the last 30 days by default, empty days included, with labelled axes', async () => {
    await chart().waitFor();
    const [from, to] = [await shown(utcDay(29)), await shown(utcDay(0))];
    await expect(chart().getAttribute('aria-label')).resolves.toBe(
      `${SHOWN}: views and clicks per day from ${from} to ${to}, 30 days. Most views: 5 on ${await shown(utcDay(3))}.`,
    );
    await expect(chart(RECEIVED).getAttribute('aria-label')).resolves.toBe(
      `${RECEIVED}: views and clicks per day from ${from} to ${to}, 30 days. Most views: 4 on ${await shown(utcDay(2))}.`,
    );
    const labels = await dayLabels();
    expect(labels[0]).toBe(utcDay(29));
    expect(labels.at(-1)).toBe(utcDay(0));
    expect(labels.length).toBeGreaterThanOrEqual(5);
    // Counts: no half view on the axis.
    await expect(axisValues()).resolves.toEqual(['0', '5']);
    // Bars only where something happened: three days with views, two with clicks; Zeta showed Alpha's offer on one day.
    await expect(chart().locator('rect.bar-views').count()).resolves.toBe(3);
    await expect(chart().locator('rect.bar-clicks').count()).resolves.toBe(2);
    await expect(chart(RECEIVED).locator('rect').count()).resolves.toBe(2);
    await expect(region(SHOWN).locator('[data-total="views"]').textContent()).resolves.toBe('10');
    await expect(region(RECEIVED).locator('[data-total="views"]').textContent()).resolves.toBe('4');
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({
      path: new URL('../../test-artifacts/dashboard/performance-30-days.png', import.meta.url).pathname,
      fullPage: true,
    });
  });

  it('labels every day of a short range, the empty one too', async () => {
    const range = page.getByRole('form', { name: 'Date range' });
    await range.getByLabel('From').fill(utcDay(3));
    await range.getByLabel('To').fill(utcDay(0));
    await range.getByRole('button', { name: 'Show' }).click();
    await expect.poll(dayLabels).toEqual([utcDay(3), utcDay(2), utcDay(1), utcDay(0)]);
    const partners = page.getByRole('table', { name: `${SHOWN}, per partner` }).locator('tbody th');
    await expect(partners.allTextContents()).resolves.toEqual(['Beta Tea Traders', 'Zeta Coffee House']);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('pages through more partners than fit on a page', async () => {
    // 60 more partners, each in a campaign with Alpha, with one view each today.
    await sql`
      insert into companies (id, domain, business_name)
      select 'many-' || i, 'many-' || i || '.example', 'Many ' || lpad(i::text, 2, '0') from generate_series(1, 60) as i`.execute(
      context.db,
    );
    await sql`
      insert into campaigns (id, owner_id, partner_id, name, status, created_at, updated_at)
      select 'many-campaign-' || i, ${story.alphaId}, 'many-' || i, 'Many', 'active', now(), now()
      from generate_series(1, 60) as i`.execute(context.db);
    await sql`
      insert into attribution_counters (platform_id, day, campaign_id, brand_id, partner_id, shard, views, clicks)
      select ${story.platforms.p1}::uuid, (now() at time zone 'UTC')::date, 'many-campaign-' || i, ${story.alphaId}, 'many-' || i, 0, 1, 0
      from generate_series(1, 60) as i`.execute(context.db);
    await page.getByRole('button', { name: 'Show' }).click();
    const shown = region(SHOWN);
    const partners = shown.getByRole('table', { name: `${SHOWN}, per partner` }).locator('tbody th');
    await shown.getByText('Page 1 of 2 (62 partners)').waitFor();
    await expect(partners.count()).resolves.toBe(50);
    await shown.getByRole('button', { name: 'Next partners' }).click();
    await shown.getByText('Page 2 of 2 (62 partners)').waitFor();
    await expect(partners.allTextContents()).resolves.toEqual([
      ...Array.from({ length: 11 }, (_, i) => `Many ${i + 50}`),
      'Zeta Coffee House',
    ]);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('keeps the chart readable on a phone: at 390 px its labels are 11 px text, apart, inside the chart', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.getByRole('button', { name: 'Show' }).click();
      // The chart redraws at the width it is shown at: the last day's label stays the range's last day.
      await expect.poll(async () => (await dayLabels()).at(-1)).toBe(utcDay(0));
      const svg = await chart().boundingBox();
      const labels = await chart()
        .locator('text')
        .evaluateAll((nodes) =>
          nodes.map((node) => {
            const box = node.getBoundingClientRect();
            return {
              day: node.getAttribute('data-day'),
              text: node.textContent,
              left: box.left,
              right: box.right,
              top: box.top,
              bottom: box.bottom,
              size: getComputedStyle(node).fontSize,
            };
          }),
        );
      expect(svg!.x + svg!.width).toBeLessThanOrEqual(390);
      for (const label of labels) {
        expect(label.size, label.text ?? '').toBe('11px');
        // Rendered at its own size: a chart scaled down to the phone would draw 11 px text a third as tall.
        expect(label.bottom - label.top, label.text ?? '').toBeGreaterThanOrEqual(11);
        expect(label.left, label.text ?? '').toBeGreaterThanOrEqual(svg!.x - 0.5);
        expect(label.right, label.text ?? '').toBeLessThanOrEqual(svg!.x + svg!.width + 0.5);
      }
      const days = labels.filter((label) => label.day !== null).sort((a, b) => a.left - b.left);
      expect(days.length).toBeGreaterThanOrEqual(2);
      for (let i = 1; i < days.length; i += 1)
        expect(days[i]!.left, `${days[i]!.text} after ${days[i - 1]!.text}`).toBeGreaterThan(days[i - 1]!.right);
      const widths = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
      expect(widths[0]).toBeLessThanOrEqual(widths[1]!);
      await region(SHOWN)
        .locator('figure')
        .screenshot({
          path: new URL('../../test-artifacts/dashboard/performance-chart-390.png', import.meta.url).pathname,
        });
    } finally {
      await page.setViewportSize({ width: 1200, height: 900 });
    }
  });

  it('turns view-through on and off with the switch, saying what changed, and keeps it across a reload', async () => {
    const viewThrough = page.getByRole('checkbox', { name: /view-through/ });
    await expect(viewThrough.isChecked()).resolves.toBe(false);
    await viewThrough.check();
    await page.getByRole('status').filter({ hasText: 'Views count too' }).waitFor();
    await expect.poll(() => viewThrough.evaluate((box) => box === document.activeElement)).toBe(true);
    const stored = await sql<{
      view_through: boolean;
    }>`select view_through from store_attribution_settings where company_id = ${story.alphaId}`.execute(context.db);
    expect(stored.rows).toEqual([{ view_through: true }]);

    await page.reload();
    await expect(page.getByRole('checkbox', { name: /view-through/ }).isChecked()).resolves.toBe(true);
    await page.getByRole('checkbox', { name: /view-through/ }).uncheck();
    await page.getByRole('status').filter({ hasText: 'Clicks only' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
  });
});
