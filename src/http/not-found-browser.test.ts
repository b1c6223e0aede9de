import { axeViolations } from '../../test/support/axe.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startBrowserApp, stopBrowserApp } from '../../test/support/browser-app.js';
import type { TestContext } from '../../test/support/harness.js';

describe('a mistyped address', () => {
  let context: TestContext;
  let browser: Browser;
  let baseUrl: string;

  beforeAll(async () => {
    ({ context, browser, baseUrl } = await startBrowserApp('postgres'));
  });

  afterAll(async () => {
    await stopBrowserApp({ context, browser });
  });

  it('answers API clients with the JSON error, by Accept and by path, and browsers with a page', async () => {
    const get = (url: string, accept?: string) => context.app.inject({ method: 'GET', url, headers: accept ? { accept } : {} });
    const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    for (const [url, accept] of [
      ['/dashbord', undefined],
      ['/dashbord', 'application/json'],
      ['/dashbord', '*/*'],
      ['/v1/partnerz', browserAccept],
      ['/dashboard/api/nothing', browserAccept],
    ] as const) {
      const response = await get(url, accept);
      expect(response.statusCode, `${url} ${accept}`).toBe(404);
      expect(response.json(), `${url} ${accept}`).toMatchObject({ error: 'not_found' });
    }
    const page = await get('/dashbord', browserAccept);
    expect(page.statusCode).toBe(404);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toMatch(/^default-src 'none'/);
    expect(page.body).toContain('<h1>Page not found</h1>');
    expect(page.body).toContain(String(page.headers['x-request-id']));
    const posted = await context.app.inject({ method: 'POST', url: '/dashbord', headers: { accept: browserAccept } });
    expect(posted.json()).toMatchObject({ error: 'not_found' });
  });

  for (const width of [390, 1280]) {
    it(`shows a browser at ${width} px a page that says so and leads home, with no overflow and no axe violation`, async () => {
      const browserContext = await browser.newContext({ viewport: { width, height: 800 } });
      const page = await browserContext.newPage();
      try {
        const response = await page.goto(`${baseUrl}/dashbord/partners?tab=${'x'.repeat(300)}`);
        expect(response?.status()).toBe(404);
        await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Page not found');
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        expect(await axeViolations(page)).toEqual([]);
        await page.getByRole('link', { name: 'Brand dashboard' }).click();
        await expect.poll(() => new URL(page.url()).pathname).toBe('/dashboard');
      } finally {
        await browserContext.close();
      }
    });
  }
});
