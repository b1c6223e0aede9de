import { axeViolations } from '../../test/support/axe.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserApp, stopBrowserApp } from '../../test/support/browser-app.js';
import type { Browser, Page } from 'playwright-core';
import type { TestContext } from '../../test/support/harness.js';

/** The reference page and the renderer's bundle, as the browser asks for them. */
const REFERENCE_URLS = ['/docs', '/docs/', '/docs/js/scalar.js'];

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

/** The directive's sources in a Content-Security-Policy header. */
function directive(csp: string, name: string): string[] {
  const found = csp.split(';').find((part) => part.trim().split(/\s+/)[0] === name);
  return found ? found.trim().split(/\s+/).slice(1) : [];
}

describe('API reference page (/docs)', () => {
  let context: TestContext;
  let browser: Browser;
  let baseUrl: string;

  beforeAll(async () => {
    // Database-independent behaviour: one PostgreSQL database is the quickest to start.
    ({ context, browser, baseUrl } = await startBrowserApp('postgres'));
  });

  afterAll(async () => {
    await stopBrowserApp({ context, browser });
  });

  it('serves the page and its bundle with a CSP without inline script, unframeable and nosniff', async () => {
    for (const url of REFERENCE_URLS) {
      const response = await context.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
      const csp = String(response.headers['content-security-policy']);
      expect(directive(csp, 'default-src'), url).toEqual(["'none'"]);
      expect(directive(csp, 'script-src'), url).toEqual(["'self'"]);
      expect(directive(csp, 'style-src'), url).not.toContain("'unsafe-inline'");
      expect(csp, url).not.toContain('unsafe-eval');
      expect(directive(csp, 'frame-ancestors'), url).toEqual(["'none'"]);
      expect(response.headers['x-frame-options'], url).toBe('DENY');
      expect(response.headers['x-content-type-options'], url).toBe('nosniff');
      expect(response.headers['referrer-policy'], url).toBe('no-referrer');
    }
  });

  it("tells the renderer to leave Scalar's AI features off and to start with the brand API key", async () => {
    const page = await context.app.inject({ method: 'GET', url: '/docs/' });
    const configuration = /data-configuration="([^"]+)"/.exec(page.body)![1]!.replaceAll('&quot;', '"');
    expect(JSON.parse(configuration)).toMatchObject({
      agent: { disabled: true },
      mcp: { disabled: true },
      authentication: { preferredSecurityScheme: 'apiKey' },
    });
  });

  it('gives each page its own style nonce, the one its renderer reads', async () => {
    const nonces = [];
    for (let i = 0; i < 2; i++) {
      const response = await context.app.inject({ method: 'GET', url: '/docs/' });
      const nonce = /'nonce-([^']+)'/.exec(directive(String(response.headers['content-security-policy']), 'style-src').join(' '))?.[1];
      expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
      expect(response.body).toContain(`<meta property="csp-nonce" content="${nonce}"/>`);
      nonces.push(nonce);
    }
    expect(nonces[0]).not.toBe(nonces[1]);
  });

  for (const width of [390, 1280]) {
    it(`reads at ${width} px: a person finds an operation and its example response, with no overflow, no axe violation, \
no CSP violation`, async () => {
      const browserContext = await browser.newContext({ viewport: { width, height: 900 } });
      const page = await browserContext.newPage();
      try {
        const violations = await watchForCspViolations(page);
        await page.goto(`${baseUrl}/docs`);
        await page.getByRole('heading', { name: 'Partner Collaboration Service API' }).waitFor();
        // The brand API key is the scheme a reader starts with: its header is filled in, its value
        // waits for the key. Its header field is the combobox the page's own script marks closed.
        await page.getByText('Brand API key (svc_test_… / svc_live_…)').first().waitFor();
        const headerName = page.getByRole('combobox', { name: 'Name' });
        expect(await headerName.textContent()).toBe('X-Api-Key');
        expect(await headerName.getAttribute('aria-expanded')).toBe('false');
        // The tag's card lists its operations: a person follows the one for the partners list.
        await page
          .getByRole('link', { name: /\/v1\/partners$/ })
          .first()
          .click();
        const operation = page.locator('section[id$="/GET/v1/partners"]');
        await operation.getByRole('heading', { name: "List the brand's partnerships" }).waitFor();
        await expect.poll(() => operation.textContent()).toContain('harborandvine.example');
        // Nothing sends the document to a third party: no "Ask AI", no MCP.
        expect(await page.getByText(/Ask AI|MCP/).count()).toBe(0);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        expect(await axeViolations(page)).toEqual([]);
        // The bundle tries eval once on this page and carries on without it: the policy refuses
        // it, as intended (no 'unsafe-eval'). Any other refusal would mean the page lost something.
        expect((await violations()).filter((violation) => !/^script-src eval$|unsafe-eval|EvalError/.test(violation))).toEqual([]);
      } finally {
        await browserContext.close();
      }
    });
  }

  it('cannot be framed, even by a page of its own origin', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${baseUrl}/healthz`);
      // The page's load event waits for its frame, whether the frame loads or is refused.
      await page.setContent(`<iframe src="${baseUrl}/docs/" title="reference"></iframe>`, { waitUntil: 'load' });
      const frame = await (await page.waitForSelector('iframe')).contentFrame();
      expect(frame).not.toBeNull();
      expect(await frame!.locator('#api-reference').count()).toBe(0);
    } finally {
      await page.close();
    }
  });
});
