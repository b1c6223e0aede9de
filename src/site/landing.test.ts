import { axeViolations } from '../../test/support/axe.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserApp, stopBrowserApp } from '../../test/support/browser-app.js';
import type { Browser } from 'playwright-core';
import { testConfig, type TestContext } from '../../test/support/harness.js';
import { demoHostUrl, landingLinks } from './pages.js';

describe('landing page (/) and the service icon', () => {
  let context: TestContext;
  let browser: Browser;
  let baseUrl: string;

  beforeAll(async () => {
    // Database-independent behaviour: one PostgreSQL database is the quickest to start.
    ({ context, browser, baseUrl } = await startBrowserApp('postgres', { DEMO_PORT: '3001' }));
  });

  afterAll(async () => {
    await stopBrowserApp({ context, browser });
  });

  it('links the demo platform page where it runs, and not on a prod host or with DEMO_PORT=0', () => {
    expect(demoHostUrl(testConfig({ BASE_URL: 'http://127.0.0.1:3000', DEMO_PORT: '3001' }))).toBe('http://127.0.0.1:3001/');
    expect(demoHostUrl(testConfig({ DEMO_PORT: '0' }))).toBeNull();
    const labels = (config: Parameters<typeof landingLinks>[0]) => landingLinks(config).map((link) => link.label);
    expect(labels(testConfig({ DEMO_PORT: '3001' }))).toEqual(['Brand dashboard', 'API reference', 'Demo platform page', 'Health']);
    expect(labels(testConfig({ DEMO_PORT: '0' }))).toEqual(['Brand dashboard', 'API reference', 'Health']);
  });

  it('serves the icon as SVG at /favicon.svg and /favicon.ico, and every page links it', async () => {
    for (const url of ['/favicon.svg', '/favicon.ico']) {
      const response = await context.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-type'], url).toMatch(/^image\/svg\+xml/);
      expect(response.headers['x-content-type-options'], url).toBe('nosniff');
      expect(response.body, url).toContain('<svg');
    }
    for (const url of ['/', '/docs', '/dashboard', '/account/sign-in']) {
      const page = await context.app.inject({ method: 'GET', url });
      expect(page.body, url).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml"/>');
      expect(String(page.headers['content-security-policy']), url).toMatch(/img-src 'self'/);
    }
  });

  for (const width of [390, 1280]) {
    it(`at ${width} px a person finds the dashboard, the reference, the demo page and health, with no overflow \
and no axe violation`, async () => {
      const browserContext = await browser.newContext({ viewport: { width, height: 900 } });
      const page = await browserContext.newPage();
      const problems: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
      });
      try {
        await page.goto(`${baseUrl}/`);
        await page.getByRole('heading', { name: 'Brands promoting each other' }).waitFor();
        expect(await page.getByRole('link', { name: 'Demo platform page' }).getAttribute('href')).toBe('http://127.0.0.1:3001/');
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        expect(await axeViolations(page)).toEqual([]);

        await page.getByRole('link', { name: 'Health' }).click();
        await expect.poll(() => page.textContent('body')).toContain('"status":"ok"');
        await page.goBack();
        await page.getByRole('link', { name: 'API reference' }).click();
        await page.getByRole('heading', { name: 'Partner Collaboration Service API' }).waitFor();
        await page.goBack();
        await page.getByRole('link', { name: 'Brand dashboard' }).click();
        await page.waitForURL(`${baseUrl}/dashboard`);
        expect(problems).toEqual([]);
      } finally {
        await browserContext.close();
      }
    });
  }
});
