import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './axe.js';
import { launchBrowser } from './browser.js';

/**
 * The suite's accessibility check itself: every page test that expects no violations is only as
 * good as this finding the ones that are there, in the page and in a frame from another origin.
 */
describe('the axe check of the browser tests', () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 390, height: 800 } });
    const serve = (body: string) => ({ status: 200, contentType: 'text/html', body });
    await page.route('http://page.test/', (route) =>
      route.fulfill(
        serve(`<!doctype html><html lang="en"><head><title>Host</title></head><body><main>
          <h1>Host</h1><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
          <iframe title="Partner" src="http://frame.test/"></iframe></main></body></html>`),
      ),
    );
    await page.route('http://frame.test/', (route) =>
      route.fulfill(
        serve(`<!doctype html><html lang="en"><head><title>Frame</title></head><body><main>
          <label>Unnamed field</label><input type="text"><button></button></main></body></html>`),
      ),
    );
  });

  afterAll(async () => {
    await browser.close();
  });

  it('finds a violation in the page and one inside a cross-origin frame, each with the element it is on', async () => {
    await page.goto('http://page.test/');
    await expect.poll(() => page.frames().map((frame) => frame.url())).toContain('http://frame.test/');
    const violations = await axeViolations(page);
    const found = Object.fromEntries(violations.map((violation) => [violation.id, violation.nodes.map((node) => node.target)]));
    expect(found['image-alt']).toEqual([['img']]);
    expect(found['button-name']).toEqual([['iframe', 'button']]);
    expect(found.label).toEqual([['iframe', 'input']]);
  });

  it('finds nothing on a page without problems', async () => {
    await page.setContent(
      '<!doctype html><html lang="en"><head><title>Clean</title></head><body><main><h1>Clean</h1></main></body></html>',
    );
    expect(await axeViolations(page)).toEqual([]);
  });

  it('checks the same markup again under print styles: a result is kept per emulated media, not per markup alone', async () => {
    await page.setContent(`<!doctype html><html lang="en"><head><title>Paper</title>
      <style>@media print { p { color: #eeeeee; background: #ffffff; } }</style></head>
      <body><main><h1>Paper</h1><p>Faint only on paper</p></main></body></html>`);
    expect(await axeViolations(page)).toEqual([]);
    await page.emulateMedia({ media: 'print' });
    try {
      expect((await axeViolations(page)).map((violation) => violation.id)).toEqual(['color-contrast']);
    } finally {
      await page.emulateMedia({ media: null });
    }
    expect(await axeViolations(page)).toEqual([]);
  });
});
