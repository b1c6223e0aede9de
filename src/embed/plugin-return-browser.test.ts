import { beforeAll, describe, expect, it } from 'vitest';
import type { Route } from 'playwright-core';
import type { TestContext } from '../../test/support/harness.js';
import { createPlatform } from '../../test/support/factories.js';
import { domainFor, embeddedPluginInChromium } from '../../test/support/embed-plugin-browser.js';

/** What the page itself started and handled, counted in the page. */
type SeenInPage = { looksStarted: number; looksHandled: number; trades: number };

/** The merchant coming back from the platform (one trade, the return flow) and the plugin on another site. */
describe('embedded plugin in Chromium, through the demo host page: coming back and cross-site', () => {
  const { shared, open, stages, sandbox, signInAtSandbox, inNewTab, screenAfterAction } = embeddedPluginInChromium();
  let context: TestContext;
  let service: string;
  let demo: string;
  let demoOtherSite: string;
  beforeAll(() => {
    ({ context, service, demo, demoOtherSite } = shared);
  });

  it(`trades the store confirmation once when two checks overlap on return (focus and visibilitychange together): \
a late refused trade does not take the merchant's token away`, async () => {
    const domain = domainFor();
    await sandbox(domain, 'install');
    await sandbox(domain, 'plan');
    const opened = await open(`/?domain=${domain}`);
    await opened.frame.locator('[data-screen="consent"]').waitFor({ timeout: 60_000 });
    // The first trade is held. A second one, if the page starts it, is answered first (the token)
    // and the held one after it (refused: the confirmation is spent), which is the order that lost
    // the token when two checks overlapped under load.
    const held: Route[] = [];
    let trades = 0;
    await opened.page.route(`${service}/plugin/v2/token`, async (route) => {
      trades += 1;
      if (trades === 1) {
        held.push(route);
        return;
      }
      await route.fulfill({ response: await route.fetch() });
      await held.shift()?.continue();
    });
    // The page's own requests, counted in the page: looks started and handled, trades started.
    await opened.frame.locator('body').evaluate(() => {
      const seen: SeenInPage = { looksStarted: 0, looksHandled: 0, trades: 0 };
      const { fetch } = window;
      const { json } = Response.prototype;
      window.fetch = (input, init) => {
        if (String(input).includes('/plugin/v2/state')) seen.looksStarted += 1;
        if (String(input).includes('/plugin/v2/token')) seen.trades += 1;
        return fetch(input, init);
      };
      Response.prototype.json = async function (this: Response) {
        const body: unknown = await json.call(this);
        if (this.url.includes('/plugin/v2/state')) seen.looksHandled += 1;
        return body;
      };
      (window as unknown as { seen: SeenInPage }).seen = seen;
    });
    const seenInPage = () =>
      opened.frame.locator('body').evaluate(async () => {
        // The app goes from a look's answer to a trade in promise callbacks only: one task after
        // the answer's body is read, a trade it would start has started.
        await new Promise((resolve) => setTimeout(resolve, 0));
        return { ...(window as unknown as { seen: SeenInPage }).seen };
      });
    await inNewTab(opened.page, opened.frame, 'Confirm at your store', 'Confirm');
    await expect.poll(() => trades).toBe(1);
    // A second look while the first trade is still out, as when focus and visibilitychange come
    // together; once every look started so far is handled, none of them has started a trade.
    const before = await seenInPage();
    await opened.frame.locator('body').evaluate(() => window.dispatchEvent(new Event('focus')));
    await expect.poll(async () => (await seenInPage()).looksStarted).toBeGreaterThan(before.looksStarted);
    await expect
      .poll(async () => {
        const seen = await seenInPage();
        return seen.looksHandled === seen.looksStarted ? seen.trades : 'a look still out';
      })
      .toBe(1);
    await held.shift()?.continue();
    await opened.frame.getByRole('button', { name: 'Turn on cross-promotions' }).click();
    await screenAfterAction(opened.frame, 'live');
    expect(trades).toBe(1);
    await opened.browserContext.close();
  });

  it('works cross-site (host on localhost, service on 127.0.0.1) with third-party cookies and storage blocked in the iframe', async () => {
    const crossSite = await createPlatform(context.support, { approvedOrigins: [demo, demoOtherSite] });
    const { page, browserContext, frame, problems } = await open(
      `${demoOtherSite}/?platformId=${crossSite.platformId}&domain=${domainFor()}`,
      {
        prepare: (p) =>
          p.context().addInitScript((serviceOrigin) => {
            if (location.origin !== serviceOrigin) return;
            const blocked = () => {
              throw new DOMException('third-party storage is blocked', 'SecurityError');
            };
            for (const name of ['localStorage', 'sessionStorage', 'indexedDB', 'caches'])
              Object.defineProperty(window, name, { get: blocked, configurable: true });
            Object.defineProperty(Document.prototype, 'cookie', { get: blocked, set: blocked, configurable: true });
          }, service),
      },
    );
    await frame.locator('[data-screen="install"]').waitFor();
    expect(await frame.locator('body').evaluate(() => location.origin)).toBe(service);
    expect(new URL(page.url()).origin).toBe(demoOtherSite);
    await inNewTab(page, frame, 'Install the app', 'Install app');
    await frame.locator('[data-screen="plan"]').waitFor();
    await inNewTab(page, frame, 'Approve plan', 'Approve plan');
    await frame.locator('[data-screen="consent"]').waitFor({ timeout: 60_000 });
    await frame.getByRole('button', { name: 'Turn on cross-promotions' }).click();
    await screenAfterAction(frame, 'live');
    await expect.poll(() => stages(page)).toEqual(['install', 'plan', 'setting_up', 'consent', 'live']);
    expect(problems).toEqual([]);
    await browserContext.close();
  });

  it(`return flow: with the page address held and the brand synced, install happens in the same tab and \
comes back to the same origin, merchant and drawer`, async () => {
    const domain = domainFor();
    const withPage = await createPlatform(context.support, { approvedOrigins: [demo, demoOtherSite], pluginPageUrl: `${demo}/` });
    await context.db.insertInto('platform_brands').values({ platform_id: withPage.platformId, domain, status: 'active' }).execute();
    const saved = shared.platformId;
    shared.platformId = withPage.platformId;
    try {
      // Started under the other name of the same host: the demo moves to the plugin page's origin first.
      const { page, browserContext, frame } = await open(`${demoOtherSite}/?mode=drawer&domain=${domain}`);
      expect(new URL(page.url()).origin).toBe(demo);
      await page.getByRole('button', { name: 'Open brand partnerships' }).click();
      await frame.getByRole('link', { name: 'Install the app' }).click();
      await page.waitForURL(/\/sandbox\/stores\/.*\/(sign-in|install)/);
      await signInAtSandbox(page, 'Install app');
      await page.getByRole('button', { name: 'Install app' }).click();
      // Back at the bare plugin page address; the platform's session remembers the merchant and the mode.
      await page.waitForURL(`${demo}/`);
      await frame.locator('[data-screen="plan"]').waitFor();
      expect(page.url()).not.toContain('svc_connect');
      expect(await page.getByText(`Merchant: ${domain}`).count()).toBe(1);
      expect(await page.locator('[role="dialog"]').isVisible()).toBe(true);
      await expect.poll(() => stages(page)).toEqual(['install', 'plan']);
      await browserContext.close();
    } finally {
      shared.platformId = saved;
    }
  });
});
