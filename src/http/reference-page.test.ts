import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../../test/support/browser.js';
import { startTestApp, stopTestApp, type TestContext } from '../../test/support/harness.js';
import { freePort } from '../../test/support/service-process.js';

/** The reference page and every file it loads, as the browser asks for them. */
const REFERENCE_URLS = [
  '/docs',
  '/docs/',
  '/docs/static/swagger-ui.css',
  '/docs/static/index.css',
  '/docs/static/swagger-ui-bundle.js',
  '/docs/static/swagger-ui-standalone-preset.js',
  '/docs/static/swagger-initializer.js',
  '/docs/static/favicon-32x32.png',
  '/docs/json',
  '/docs/yaml',
];

/** Collects every CSP violation a page reports, as events and as console errors. */
async function watchForCspViolations(page: Page): Promise<() => Promise<string[]>> {
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) consoleErrors.push(message.text());
  });
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.effectiveDirective} ${event.blockedURI}`));
  });
  return async () => [...consoleErrors, ...(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations))];
}

describe('API reference page (/docs)', () => {
  let context: TestContext;
  let browser: Browser;
  let baseUrl: string;

  beforeAll(async () => {
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    // Database-independent behaviour: one PostgreSQL database is the quickest to start.
    context = await startTestApp('postgres', { BASE_URL: baseUrl });
    await context.app.listen({ port, host: '127.0.0.1' });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    if (context) await stopTestApp(context);
  });

  it('serves the page and every file it loads with a CSP without inline script, unframeable and nosniff', async () => {
    for (const url of REFERENCE_URLS) {
      const response = await context.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
      const csp = String(response.headers['content-security-policy']);
      expect(csp, url).toContain("default-src 'none'");
      expect(csp, url).toContain("script-src 'self'");
      expect(csp, url).not.toContain('unsafe-inline');
      expect(csp, url).not.toContain('unsafe-eval');
      expect(csp, url).toContain("frame-ancestors 'none'");
      expect(response.headers['x-frame-options'], url).toBe('DENY');
      expect(response.headers['x-content-type-options'], url).toBe('nosniff');
    }
  });

  it('renders in Chromium, runs a request from "Try it out", opens Authorize and the schemas, with no CSP violation', async () => {
    const page = await browser.newPage();
    try {
      const violations = await watchForCspViolations(page);
      await page.goto(`${baseUrl}/docs/`);
      const partners = page.locator('.opblock-summary', { hasText: '/v1/partners' }).first();
      await partners.waitFor();
      await partners.click();
      await page.getByRole('button', { name: 'Try it out' }).click();
      await page.getByRole('button', { name: 'Execute' }).click();
      await expect.poll(() => page.locator('.live-responses-table tbody .response-col_status').first().textContent()).toContain('401');
      await page.getByRole('button', { name: 'Authorize' }).first().click();
      await page.locator('.dialog-ux .modal-ux').waitFor();
      await page.getByRole('button', { name: 'Close' }).first().click();
      await page.locator('.models .json-schema-2020-12-expand-deep-button').first().click();
      await page.locator('.models .json-schema-2020-12-property').first().waitFor();
      expect(await violations()).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('cannot be framed, even by a page of its own origin', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${baseUrl}/healthz`);
      // The page's load event waits for its frame, whether the frame loads or is refused.
      await page.setContent(`<iframe src="${baseUrl}/docs/" title="reference"></iframe>`, { waitUntil: 'load' });
      const frame = await (await page.waitForSelector('iframe')).contentFrame();
      expect(frame).not.toBeNull();
      expect(await frame!.locator('#swagger-ui').count()).toBe(0);
    } finally {
      await page.close();
    }
  });
});
