import crypto from 'node:crypto';
import fs from 'node:fs';
import { sql } from 'kysely';
import http from 'node:http';
import type net from 'node:net';
import { freePort } from '../../test/support/service-process.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserApp, stopBrowserApp } from '../../test/support/browser-app.js';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, BrowserContext, FrameLocator, Page, Route } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import { startTestApp, stopTestApp, type TestContext } from '../../test/support/harness.js';
import { createPlatform } from '../../test/support/factories.js';
import { setPlatformActive } from '../platforms/service.js';
import { findPluginPlatform } from './dal.js';
import { demoHost } from './demo-host.js';
import { injectTransport, StoreOwner, STORE_OWNER_PASSWORD } from '../../test/support/sandbox-owner.js';
import type { EmbedPluginStatic } from '../../web/loader/embed-plugin.js';

const ARTIFACTS = 'test-artifacts/plugin';
// The screenshots in docs/ are refreshed only on request, so a test run leaves the tracked tree unchanged.
const DOCS = process.env.UPDATE_DOCS_SCREENSHOTS ? 'docs' : undefined;
/** The loader's wait for a first word from the embed app before it says the service could not be reached. */
const LOADER_TIMEOUT_MS = 10_000;

const domainFor = (prefix = '') => `${prefix}shop-${crypto.randomBytes(3).toString('hex')}.example`;

/** A page of its own on a real loopback origin (Chromium keeps fulfilled pages out of the loopback address space). */
async function servePage(html: (url: URL) => string, headers: Record<string, string> = {}): Promise<{ origin: string; close: () => void }> {
  const server = http.createServer((request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html', ...headers });
    response.end(html(new URL(request.url ?? '/', 'http://x')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://localhost:${(server.address() as net.AddressInfo).port}`, close: () => server.close() };
}

describe('embedded plugin in Chromium, through the demo host page', () => {
  let context: TestContext;
  let host: FastifyInstance;
  let browser: Browser;
  let service: string;
  let demo: string;
  /** The same demo host under another site's name: localhost against the service's 127.0.0.1. */
  let demoOtherSite: string;
  let platformId: string;

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    ({
      context,
      browser,
      baseUrl: service,
    } = await startBrowserApp('pglite', {
      // A normal store sets up in about 6 s (long enough to check the setting_up screen). A slow- store fails
      // until its retries outlast the 10 s threshold by one retry: five failures (0.4 + 0.8 + 1.6 + 3.2 + 6.4 s),
      // so it is still setting up from 10 s to about 18 s. Its old fixed three failures would end before 10 s.
      SETUP_DELAYED_AFTER_SECONDS: '10',
      SETUP_POLL_MS: '50',
      SETUP_RETRY_MS: '400',
      SANDBOX_IMPORT_MS: '6000',
      // Longer than any test: a change seen after the merchant comes back comes from the focus and visibility checks.
      PLUGIN_RECHECK_MS: '600000',
    }));
    host = demoHost({
      serviceUrl: service,
      platformId: async () => platformId,
      pluginPageUrl: async (id) => (await findPluginPlatform(context.db, id))?.pluginPageUrl,
    });
    await host.listen({ port: 0, host: '127.0.0.1' });
    const demoPort = (host.server.address() as net.AddressInfo).port;
    demo = `http://127.0.0.1:${demoPort}`;
    demoOtherSite = `http://localhost:${demoPort}`;
    ({ platformId } = await createPlatform(context.support, { approvedOrigins: [demo] }));
  });

  afterAll(async () => {
    await host?.close();
    await stopBrowserApp({ context, browser });
  });

  interface Opened {
    page: Page;
    browserContext: BrowserContext;
    frame: FrameLocator;
    problems: string[];
    /** Every console error of the host page and the app's frame (a failed request shows as one). */
    consoleErrors: string[];
  }

  async function open(
    url: string,
    options: { viewport?: { width: number; height: number }; prepare?: (page: Page) => Promise<unknown> } = {},
  ): Promise<Opened> {
    const browserContext = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 900 } });
    const page = await browserContext.newPage();
    const problems: string[] = [];
    const consoleErrors: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
      if (message.type() === 'error') consoleErrors.push(`${message.text()} (${message.location().url})`);
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await options.prepare?.(page);
    // Not until 'load': that waits for the plugin's iframe too, which some tests hold back.
    await page.goto(url.startsWith('http') ? url : `${demo}${url}`, { waitUntil: 'domcontentloaded' });
    return { page, browserContext, frame: page.frameLocator('iframe[title="Brand partnerships"]'), problems, consoleErrors };
  }

  const log = (page: Page) => page.locator('#event-log li').allTextContents();
  const stages = async (page: Page) => (await log(page)).map((line) => /"stage":"(\w+)"/.exec(line)?.[1]).filter(Boolean);
  const plugin = (page: Page) => page.locator('[data-embed-plugin]');
  /** The store's owner working at the sandbox outside the browser (the same sign-in the browser uses). */
  const owners = new Map<string, Promise<StoreOwner>>();
  const sandbox = async (domain: string, action: string) => {
    if (!owners.has(domain)) owners.set(domain, StoreOwner.signIn(injectTransport(context.app), domain));
    return (await owners.get(domain)!).post(action);
  };

  async function expectAccessible(page: Page, what: string) {
    const results = await new AxeBuilder({ page }).analyze();
    const serious = results.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
    expect(
      serious.map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`),
      `axe on ${what}`,
    ).toEqual([]);
  }

  async function checkScreen(page: Page, frame: FrameLocator, screen: string, shot?: string) {
    const shown = frame.locator(`[data-screen="${screen}"]`);
    await shown.waitFor({ timeout: 60_000 });
    await page.screenshot({ path: `${ARTIFACTS}/${shot ?? screen}.png` });
    await expectAccessible(page, screen);
    // Still on that screen, so the check was of it (setup moves on by itself).
    expect(await shown.count(), `${screen} still shown after the accessibility check`).toBe(1);
  }

  /**
   * The sandbox asks the store's owner to sign in first, as a commerce platform's admin does: the
   * first visitor of a store nobody knows sets up its sign-in, later ones sign in with it.
   */
  async function signInAtSandbox(tab: Page, button: string) {
    const signIn = tab.getByRole('heading', { name: /^(Set up the owner sign-in of|Sign in to) / });
    await signIn
      .or(tab.getByRole('button', { name: button }))
      .first()
      .waitFor();
    if ((await signIn.count()) === 0) return;
    await expectAccessible(tab, 'sandbox store owner sign-in');
    const domain = decodeURIComponent(/\/sandbox\/stores\/([^/]+)\//.exec(tab.url())![1]!);
    await tab.getByLabel('Email').fill(`owner@${domain}`);
    await tab.getByLabel('Password').fill(STORE_OWNER_PASSWORD);
    await tab.getByRole('button', { name: /^(Create owner sign-in|Sign in)$/ }).click();
  }

  /** Does the action on the sandbox commerce platform's own page, in the new tab the plugin opened, then comes back. */
  async function inNewTab(page: Page, frame: FrameLocator, link: string, button: string) {
    const [popup] = await Promise.all([page.context().waitForEvent('page'), frame.getByRole('link', { name: new RegExp(link) }).click()]);
    await signInAtSandbox(popup, button);
    await popup.getByRole('button', { name: button }).waitFor();
    await expectAccessible(popup, `sandbox ${button} page`);
    await popup.getByRole('button', { name: button }).click();
    await popup.getByText(/Go back to the tab where you started/).waitFor();
    await popup.close();
    await page.bringToFront();
    // What the browser fires when the merchant comes back to this tab.
    await frame.locator('body').evaluate(() => window.dispatchEvent(new Event('focus')));
  }

  /**
   * Holds the app's state requests from the first one answered with `screen` until the returned
   * function is called (which also ends the page's other routes). setting_up and delayed move on by themselves at the app's next look, so a
   * check of one of them (the screenshot, axe) must not see the next, however slow the machine.
   */
  async function holdAt(page: Page, screen: string): Promise<() => Promise<void>> {
    const url = `${service}/plugin/v2/state*`;
    let holding = false;
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const hold = async (route: Route) => {
      if (holding) await released;
      const response = await route.fetch();
      const body = await response.text();
      const state = JSON.parse(body) as { stage?: string; notice?: string };
      if (state.stage === screen || state.notice === screen) holding = true;
      await route.fulfill({ response, body });
    };
    await page.route(url, hold);
    return async () => {
      release();
      // Once the requests it held have been answered; the page keeps no other routes by then.
      await page.unrouteAll({ behavior: 'wait' });
    };
  }

  /** The iframe's height, and the height of the app's content inside it. */
  const heights = async (page: Page, frame: FrameLocator) => ({
    iframe: (await page.locator('iframe[title="Brand partnerships"]').boundingBox())!.height,
    content: await frame.locator('.shell').evaluate((element) => Math.ceil(element.getBoundingClientRect().height)),
  });
  /** Once the box follows its content: as tall as the content, and never below the 480 px it starts at. */
  async function settledHeight(page: Page, frame: FrameLocator): Promise<number> {
    await expect
      .poll(async () => {
        const h = await heights(page, frame);
        return h.iframe === Math.max(480, h.content);
      })
      .toBe(true);
    return (await heights(page, frame)).iframe;
  }

  it(`walks every stage in page mode under the host CSP (install → plan → setting_up → consent → live), 480 px at \
first, growing with its content and never below 480 px`, async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const { page, browserContext, frame, problems, consoleErrors } = await open(`/?domain=${domainFor()}`, {
      // The app's page is held back, so the box is seen as the loader first draws it.
      prepare: (p) =>
        p.route(`${service}/plugin/v2/embed*`, async (route) => {
          await held;
          await route.continue();
        }),
    });
    const iframe = page.locator('iframe[title="Brand partnerships"]');
    await iframe.waitFor();
    expect((await iframe.boundingBox())!.height).toBe(480);
    expect((await iframe.boundingBox())!.width).toBeGreaterThan(600);
    release();

    await checkScreen(page, frame, 'install');
    const install = await settledHeight(page, frame);
    // The install screen's content is shorter than the box: the box stays at 480 px, the host page does not shift.
    expect((await heights(page, frame)).content).toBeLessThan(480);
    expect(install).toBe(480);
    await inNewTab(page, frame, 'Install the app', 'Install app');
    await frame.locator('[data-screen="plan"]').waitFor();
    await checkScreen(page, frame, 'plan');
    const settingUpChecked = await holdAt(page, 'setting_up');
    await inNewTab(page, frame, 'Approve plan', 'Approve plan');

    await frame.locator('[data-screen="setting_up"]').waitFor();
    const steps = frame.locator('.progress li');
    const progress = await steps.allTextContents();
    expect(progress).toEqual([
      expect.stringMatching(/^Importing your store \((in progress|done)\)$/),
      expect.stringMatching(/^Creating your offer from your best sellers \((to do|in progress|done)\)$/),
      expect.stringMatching(/^Finding brands that fit yours \((to do|in progress|done)\)$/),
    ]);
    // The step under way is the current one.
    expect(await steps.nth(progress.findIndex((step) => !step.endsWith('(done)'))).getAttribute('aria-current')).toBe('step');
    await checkScreen(page, frame, 'setting_up');
    await settingUpChecked();

    await checkScreen(page, frame, 'consent');
    const consent = await settledHeight(page, frame);
    expect(consent).toBeGreaterThan(install);
    expect(consent).toBeGreaterThan(480);
    await page.screenshot({ path: `${ARTIFACTS}/page-consent.png` });
    if (DOCS) fs.copyFileSync(`${ARTIFACTS}/page-consent.png`, `${DOCS}/plugin-page.png`);
    expect(await frame.locator('.products li').count()).toBe(3);
    await frame.getByLabel('20%').check();
    await frame.getByRole('button', { name: 'Turn on cross-promotions' }).click();
    await checkScreen(page, frame, 'live');
    const live = await settledHeight(page, frame);
    expect(live).toBeLessThan(consent);
    expect(live).toBeGreaterThanOrEqual(480);

    await expect.poll(() => stages(page)).toEqual(['install', 'plan', 'setting_up', 'consent', 'live']);
    for (const line of await log(page)) expect(Object.keys(JSON.parse(line.slice(line.indexOf('{'))))).toEqual(['type', 'stage']);
    expect(problems).toEqual([]);
    // A store token is traded only once the owner confirmed, so no call of the walk fails in the console.
    expect(consoleErrors).toEqual([]);
    await browserContext.close();
  });

  it(`the demo platform's slow merchant shows delayed as its label says, in the exact order install → plan → setting_up → \
delayed → consent → live`, async () => {
    const { page, browserContext, frame } = await open('/');
    // The first merchant's install event is in the log, which a tab keeps across the platform's pages: cleared first.
    await expect.poll(() => stages(page)).toEqual(['install']);
    await page.getByRole('button', { name: 'Clear log' }).click();
    const preset = page.getByRole('listitem').filter({ has: page.getByRole('link', { name: 'slow-roasters.example' }) });
    expect(await preset.textContent()).toContain('the delayed stage');
    await preset.getByRole('link').click();
    await page.waitForURL(/domain=slow-roasters\.example/);
    await frame.locator('[data-screen="install"]').waitFor();
    await inNewTab(page, frame, 'Install the app', 'Install app');
    await frame.locator('[data-screen="plan"]').waitFor();
    const delayedChecked = await holdAt(page, 'delayed');
    await inNewTab(page, frame, 'Approve plan', 'Approve plan');
    await frame.locator('[data-screen="setting_up"]').waitFor();
    await checkScreen(page, frame, 'delayed');
    await delayedChecked();
    await frame.locator('[data-screen="consent"]').waitFor({ timeout: 60_000 });
    await frame.getByRole('button', { name: 'Turn on cross-promotions' }).click();
    await frame.locator('[data-screen="live"]').waitFor();
    await expect.poll(() => stages(page)).toEqual(['install', 'plan', 'setting_up', 'delayed', 'consent', 'live']);
    await browserContext.close();
  });

  it('shows the messages of SPEC 6.3 instead of a stage, without calling onEvent', async () => {
    const notEligibleDomain = domainFor('new-');
    await sandbox(notEligibleDomain, 'install');
    const notEligible = await open(`/?domain=${notEligibleDomain}`);
    await checkScreen(notEligible.page, notEligible.frame, 'not_eligible');
    // The service going away after load: the merchant is told and can try again.
    await notEligible.page.route(`${service}/plugin/v2/state*`, (route) => route.abort());
    await notEligible.frame.getByRole('button', { name: 'Check again' }).click();
    await checkScreen(notEligible.page, notEligible.frame, 'unreachable');
    await notEligible.page.unroute(`${service}/plugin/v2/state*`);
    await notEligible.frame.getByRole('button', { name: 'Try again' }).click();
    await notEligible.frame.locator('[data-screen="not_eligible"]').waitFor();
    expect(await stages(notEligible.page)).toEqual([]);
    await notEligible.browserContext.close();

    // A platform id that is a UUID but was never set up, and one that support turned off.
    const inactive = await createPlatform(context.support, { approvedOrigins: [demo] });
    await setPlatformActive(context.support, inactive.platformId, false);
    for (const id of [crypto.randomUUID(), inactive.platformId]) {
      const unavailable = await open(`/?platformId=${id}&domain=${domainFor()}`);
      await checkScreen(unavailable.page, unavailable.frame, 'unavailable');
      expect(await unavailable.frame.getByRole('heading').textContent()).toBe('Brand partnerships are not available here yet');
      expect(await stages(unavailable.page)).toEqual([]);
      await unavailable.browserContext.close();
    }

    // Installed and approved at the platform, outside this page: the page holds no store token, so
    // the merchant confirms at the store (a new tab) before turning cross-promotion on.
    const domain = domainFor();
    await sandbox(domain, 'install');
    await sandbox(domain, 'plan');
    const live = await open(`/?domain=${domain}`);
    await live.frame.locator('[data-screen="consent"]').waitFor({ timeout: 60_000 });
    expect(await live.frame.getByRole('button', { name: 'Turn on cross-promotions' }).count()).toBe(0);
    await expectAccessible(live.page, 'consent before the store is confirmed');
    await inNewTab(live.page, live.frame, 'Confirm at your store', 'Confirm');
    await live.frame.getByRole('button', { name: 'Turn on cross-promotions' }).click();
    await live.frame.locator('[data-screen="live"]').waitFor();
    await sandbox(domain, 'close-campaign');
    await live.page.getByRole('button', { name: 'Clear log' }).click();
    await live.page.reload();
    await checkScreen(live.page, live.frame, 'turned_off');
    expect(await stages(live.page)).toEqual([]);
    // The reload dropped the page's token: confirm at the store again, then turn it back on.
    await inNewTab(live.page, live.frame, 'Confirm at your store', 'Confirm');
    await live.frame.getByRole('button', { name: 'Turn cross-promotion back on' }).click();
    await live.frame.locator('[data-screen="live"]').waitFor();
    await sandbox(domain, 'uninstall');
    await live.page.getByRole('button', { name: 'Clear log' }).click();
    await live.page.reload();
    await checkScreen(live.page, live.frame, 'not_installed');
    expect(await stages(live.page)).toEqual([]);
    await live.browserContext.close();
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
    let looks = 0;
    opened.page.on('response', (response) => {
      if (response.url().startsWith(`${service}/plugin/v2/state`)) looks += 1;
    });
    await inNewTab(opened.page, opened.frame, 'Confirm at your store', 'Confirm');
    await expect.poll(() => trades).toBe(1);
    // A second look while the first trade is still out, as when focus and visibilitychange come together.
    const before = looks;
    await opened.frame.locator('body').evaluate(() => window.dispatchEvent(new Event('focus')));
    await expect.poll(() => looks).toBeGreaterThan(before);
    // Time for the second look to start a trade of its own, if it would; then the held one goes on.
    await opened.page.waitForTimeout(500);
    await held.shift()?.continue();
    await opened.frame.getByRole('button', { name: 'Turn on cross-promotions' }).click();
    await opened.frame.locator('[data-screen="live"]').waitFor();
    expect(trades).toBe(1);
    await opened.browserContext.close();
  });

  it(`says "Could not reach the service" with Try again when the embed app never answers \
(page and drawer mode) or the store cannot be read`, async () => {
    for (const mode of ['page', 'drawer'] as const) {
      const down = await open(`/?domain=${domainFor()}&mode=${mode}`, {
        prepare: (p) => p.route(`${service}/plugin/v2/embed*`, (route) => route.abort('connectionrefused')),
      });
      if (mode === 'drawer') await down.page.getByRole('button', { name: 'Open brand partnerships' }).click();
      const message = plugin(down.page).getByRole('alert');
      await message.getByText('Could not reach the service').waitFor({ timeout: LOADER_TIMEOUT_MS + 30_000 });
      expect(await message.isVisible()).toBe(true);
      await expectAccessible(down.page, `unreachable (${mode})`);
      await down.page.screenshot({ path: `${ARTIFACTS}/loader-unreachable-${mode}.png` });
      expect(await stages(down.page)).toEqual([]);
      // The service is back: Try again loads the app.
      await down.page.unroute(`${service}/plugin/v2/embed*`);
      await plugin(down.page).getByRole('button', { name: 'Try again' }).click();
      await down.frame.locator('[data-screen="install"]').waitFor();
      expect(await message.count()).toBe(0);
      await expect.poll(() => stages(down.page)).toEqual(['install']);
      await down.browserContext.close();
    }

    // The service answers but cannot read the store: the app says so itself, and Try again asks again.
    await sql`alter table sandbox_stores rename to sandbox_stores_away`.execute(context.db);
    let storeDown: Opened;
    try {
      storeDown = await open(`/?domain=${domainFor()}`);
      await checkScreen(storeDown.page, storeDown.frame, 'unreachable', 'unreachable-at-load');
    } finally {
      await sql`alter table sandbox_stores_away rename to sandbox_stores`.execute(context.db);
    }
    expect(await stages(storeDown.page)).toEqual([]);
    await storeDown.frame.getByRole('button', { name: 'Try again' }).click();
    await storeDown.frame.locator('[data-screen="install"]').waitFor();
    await expect.poll(() => stages(storeDown.page)).toEqual(['install']);
    await storeDown.browserContext.close();
  });

  it(`opens a drawer from the right (≤ 520 px, full width when narrow) that closes three ways, \
calling onClose once each and giving focus back`, async () => {
    const { page, browserContext, frame } = await open(`/?domain=${domainFor()}&mode=drawer`);
    await frame.locator('[data-screen="install"]').waitFor({ state: 'attached' });
    const panel = page.locator('[role="dialog"]');
    const opener = page.getByRole('button', { name: 'Open brand partnerships' });
    await expect.poll(() => panel.isVisible()).toBe(false);
    await opener.click();
    await expect.poll(async () => (await panel.boundingBox())?.x).toBe(1280 - 520);
    await checkScreen(page, frame, 'install', 'drawer');
    if (DOCS) fs.copyFileSync(`${ARTIFACTS}/drawer.png`, `${DOCS}/plugin-drawer.png`);
    const closes = async () => (await log(page)).filter((line) => line.endsWith('onClose')).length;
    const focusedId = () => page.evaluate(() => document.activeElement?.id);

    await page.getByRole('button', { name: 'Close brand partnerships' }).click();
    await expect.poll(() => panel.isVisible()).toBe(false);
    expect(await closes()).toBe(1);
    expect(await focusedId()).toBe('open-drawer');

    await opener.click();
    await expect.poll(async () => (await panel.boundingBox())?.x).toBe(1280 - 520);
    await page.mouse.click(100, 450);
    await expect.poll(() => panel.isVisible()).toBe(false);
    expect(await closes()).toBe(2);

    await opener.focus();
    await page.keyboard.press('Enter');
    await frame.locator('h1').click();
    await page.keyboard.press('Escape');
    await expect.poll(() => panel.isVisible()).toBe(false);
    expect(await closes()).toBe(3);
    expect(await focusedId()).toBe('open-drawer');
    await browserContext.close();

    const narrow = await open(`/?domain=${domainFor()}&mode=drawer`, { viewport: { width: 390, height: 800 } });
    await narrow.page.getByRole('button', { name: 'Open brand partnerships' }).click();
    await expect.poll(async () => (await narrow.page.locator('[role="dialog"]').boundingBox())?.width).toBe(390);
    await narrow.browserContext.close();
  });

  it('keeps focus inside the open drawer: Tab and Shift+Tab from the app never reach the page behind it', async () => {
    const { page, browserContext, frame } = await open(`/?domain=${domainFor()}&mode=drawer`);
    await frame.locator('[data-screen="install"]').waitFor({ state: 'attached' });
    await page.getByRole('button', { name: 'Open brand partnerships' }).click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.textContent)).toBe('Close');
    /** Where focus is: 'close', 'app:<text of the focused control>', or what on the host page has it. */
    const where = async () => {
      const onHost = await page.evaluate(() => {
        const active = document.activeElement;
        if (!active?.matches('[data-embed-plugin]')) return `host:${active?.tagName ?? 'none'}#${active?.id ?? ''}`;
        const inside = active.shadowRoot!.activeElement;
        return inside?.tagName === 'IFRAME' ? 'app' : inside?.textContent === 'Close' ? 'close' : `plugin:${inside?.tagName ?? 'none'}`;
      });
      if (onHost !== 'app') return onHost;
      return `app:${await frame.locator('body').evaluate(() => document.activeElement?.textContent?.trim() ?? '')}`;
    };
    /**
     * Where focus rests after a key press. While focus crosses the frame's edge Chromium can report
     * the host's body for a moment (seen in about one run in three, before and after this test's code
     * changed, with the next Tab going on from the plugin, not the host page); a stop counts once
     * focus has settled, and focus that stays on the host page still fails the test.
     */
    const settled = async () => {
      const began = Date.now();
      let stop = await where();
      while (stop === 'host:BODY#' && Date.now() - began < 1000) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        stop = await where();
      }
      return stop;
    };
    for (const direction of ['Tab', 'Shift+Tab']) {
      const seen: string[] = [];
      for (let press = 0; press < 10; press += 1) {
        await page.keyboard.press(direction);
        seen.push(await settled());
      }
      expect(
        seen.filter((stop) => !stop.startsWith('app:') && stop !== 'close'),
        `${direction} stops: ${seen.join(', ')}`,
      ).toEqual([]);
      expect(seen).toContain('close');
      expect(seen.some((stop) => stop.startsWith('app:Install the app'))).toBe(true);
    }
    await page.keyboard.press('Escape');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('open-drawer');
    await browserContext.close();
  });

  it('handle: close() calls onClose once, destroy() never does, open() does nothing in page mode', async () => {
    const { page, browserContext } = await open(`/?domain=${domainFor()}`);
    const result = await page.evaluate(async (id) => {
      const EmbedPlugin = (window as unknown as { EmbedPlugin: EmbedPluginStatic }).EmbedPlugin;
      const box = (name: string) => {
        const element = document.createElement('div');
        element.id = name;
        document.body.appendChild(element);
        return element;
      };
      const calls = { drawer: 0, destroyed: 0, page: 0 };
      const drawer = EmbedPlugin.init({
        container: box('drawer-box'),
        platformId: id,
        domain: 'handle.example',
        mode: 'drawer',
        onClose: () => (calls.drawer += 1),
      });
      drawer.open();
      drawer.close();
      drawer.close();
      const destroyed = EmbedPlugin.init({
        container: box('destroyed-box'),
        platformId: id,
        domain: 'handle.example',
        mode: 'drawer',
        onClose: () => (calls.destroyed += 1),
      });
      destroyed.open();
      destroyed.destroy();
      const pageBox = box('page-box');
      const inPage = EmbedPlugin.init({ container: pageBox, platformId: id, domain: 'handle.example', onClose: () => (calls.page += 1) });
      const shadow = pageBox.querySelector('[data-embed-plugin]')!.shadowRoot!;
      // The elements, not their styles: the iframe's height follows the app as it loads.
      const structure = () => [...shadow.querySelectorAll('*')].map((element) => `${element.tagName}.${element.className}`).join(' ');
      const before = { structure: structure(), focused: document.activeElement };
      inPage.open();
      await new Promise((resolve) => setTimeout(resolve, 300));
      return {
        calls,
        pageDialogs: shadow.querySelectorAll('[role="dialog"]').length,
        pageUnchanged: structure() === before.structure && shadow.querySelector('.page > iframe') !== null,
        pageFocusUnmoved: document.activeElement === before.focused,
      };
    }, platformId);
    expect(result).toEqual({ calls: { drawer: 1, destroyed: 0, page: 0 }, pageDialogs: 0, pageUnchanged: true, pageFocusUnmoved: true });
    await browserContext.close();
  });

  it('throws TypeErrors, shows could-not-load for a bad id or domain, keeps one plugin per container and destroys cleanly', async () => {
    const browserContext = await browser.newContext();
    const page = await browserContext.newPage();
    // Counts the host-page listeners the loader adds and removes.
    await page.addInitScript(() => {
      const counts: Record<string, number> = {};
      (window as unknown as { listenerCounts: Record<string, number> }).listenerCounts = counts;
      type Listening = {
        addEventListener: (type: string, ...rest: unknown[]) => void;
        removeEventListener: (type: string, ...rest: unknown[]) => void;
      };
      for (const target of [window, document] as unknown as Listening[]) {
        const add = target.addEventListener.bind(target);
        const remove = target.removeEventListener.bind(target);
        target.addEventListener = (type, ...rest) => {
          counts[type] = (counts[type] ?? 0) + 1;
          add(type, ...rest);
        };
        target.removeEventListener = (type, ...rest) => {
          counts[type] = (counts[type] ?? 0) - 1;
          remove(type, ...rest);
        };
      }
    });
    await page.goto(`${demo}/?domain=${domainFor()}`);
    const result = await page.evaluate(async (id) => {
      const EmbedPlugin = (window as unknown as { EmbedPlugin: EmbedPluginStatic }).EmbedPlugin;
      const errors: string[] = [];
      const attempt = (options: unknown) => {
        try {
          EmbedPlugin.init(options as Parameters<typeof EmbedPlugin.init>[0]);
          errors.push('no error');
        } catch (error) {
          errors.push(error instanceof TypeError ? 'TypeError' : String(error));
        }
      };
      attempt({ container: '#missing', platformId: id, domain: 'a.example' });
      attempt({ container: '#plugin', platformId: id, domain: 'a.example', mode: 'sidebar' });
      attempt({ container: '#plugin', platformId: id, domain: 'a.example', onEvent: 'log' });
      attempt({ container: '#plugin', platformId: id, domain: 'a.example', onClose: 42 });
      const box = document.createElement('div');
      document.body.appendChild(box);
      EmbedPlugin.init({ container: box, platformId: '42', domain: 'a.example' });
      const badId = box.querySelector('[data-embed-plugin]')!.shadowRoot!.textContent;
      EmbedPlugin.init({ container: box, platformId: id, domain: 'not a domain' });
      const badDomain = box.querySelector('[data-embed-plugin]')!.shadowRoot!.textContent;
      const hostsAfterReinit = box.querySelectorAll('[data-embed-plugin]').length;
      const before = { ...(window as unknown as { listenerCounts: Record<string, number> }).listenerCounts };
      const fresh = document.createElement('div');
      fresh.id = 'fresh';
      document.body.appendChild(fresh);
      // React StrictMode's mount, unmount, mount; then a plain second init.
      const first = EmbedPlugin.init({ container: fresh, platformId: id, domain: 'b.example', mode: 'drawer' });
      first.destroy();
      const second = EmbedPlugin.init({ container: fresh, platformId: id, domain: 'b.example', mode: 'drawer' });
      const third = EmbedPlugin.init({ container: '#fresh', platformId: id, domain: 'b.example', mode: 'drawer' });
      const plugins = fresh.querySelectorAll('[data-embed-plugin]').length;
      second.destroy();
      third.destroy();
      const after = (window as unknown as { listenerCounts: Record<string, number> }).listenerCounts;
      return {
        errors,
        badId,
        badDomain,
        hostsAfterReinit,
        plugins,
        left: fresh.querySelectorAll('[data-embed-plugin]').length,
        listenerDelta: { message: (after.message ?? 0) - (before.message ?? 0), keydown: (after.keydown ?? 0) - (before.keydown ?? 0) },
      };
    }, platformId);
    expect(result.errors).toEqual(['TypeError', 'TypeError', 'TypeError', 'TypeError']);
    expect(result.badId).toContain('could not load');
    expect(result.badDomain).toContain('store domain is missing or not valid');
    expect(result.hostsAfterReinit).toBe(1);
    expect(result.plugins).toBe(1);
    expect(result.left).toBe(0);
    expect(result.listenerDelta).toEqual({ message: 0, keydown: 0 });
    expect(await page.locator('#fresh iframe').count()).toBe(0);
    await browserContext.close();
  });

  it('enforces the published integrity hash: a wrong hash blocks the loader', async () => {
    const browserContext = await browser.newContext();
    const page = await browserContext.newPage();
    const sri = (await (await fetch(`${service}/plugin/v2.0.0/loader.js.sri`)).text()).trim();
    const wrong = `sha384-${crypto.createHash('sha384').update('something else').digest('base64')}`;
    const sriHost = await servePage(
      (url) =>
        `<!doctype html><title>SRI</title><script src="${service}/plugin/v2.0.0/loader.js" ` +
        `integrity="${url.searchParams.get('integrity') ?? ''}" crossorigin="anonymous"></script>`,
      { 'Content-Security-Policy': `default-src 'self'; script-src 'self' ${service}; frame-src ${service}; child-src ${service}` },
    );
    try {
      for (const [integrity, expected] of [
        [sri, 'object'],
        [wrong, 'undefined'],
      ] as const) {
        await page.goto(`${sriHost.origin}/?integrity=${encodeURIComponent(integrity)}`);
        expect(await page.evaluate(() => typeof (window as unknown as { EmbedPlugin?: unknown }).EmbedPlugin)).toBe(expected);
      }
    } finally {
      sriHost.close();
    }
    await browserContext.close();
  });

  it(`refuses an origin that is not approved with a visible message, in page and drawer mode, and \
when an unapproved site frames an approved page`, async () => {
    for (const mode of ['page', 'drawer'] as const) {
      const { page, browserContext } = await open(`${demoOtherSite}/?domain=${domainFor()}&mode=${mode}`);
      const message = plugin(page).getByText('This site is not approved to show the plugin');
      await message.waitFor();
      expect(await message.isVisible()).toBe(true);
      expect(await page.locator('iframe').count()).toBe(0);
      expect(await page.locator('[role="dialog"]').count()).toBe(0);
      expect(await stages(page)).toEqual([]);
      await expectAccessible(page, `refusal (${mode})`);
      await page.screenshot({ path: `${ARTIFACTS}/refused-${mode}.png` });
      await browserContext.close();
    }

    // The approved demo page inside a site that is not approved: the browser would block the app, so the box says why.
    const outer = await servePage(
      () =>
        '<!doctype html><html lang="en"><title>Elsewhere</title>' +
        `<iframe id="outer" title="Framed platform" src="${demo}/?domain=${domainFor()}" width="1000" height="700"></iframe></html>`,
    );
    try {
      const { page, browserContext } = await open(`${outer.origin}/`);
      const inner = page.frameLocator('#outer');
      const message = inner.locator('[data-embed-plugin]').getByText('This site is not approved to show the plugin');
      await message.waitFor();
      expect(await message.isVisible()).toBe(true);
      await page.screenshot({ path: `${ARTIFACTS}/refused-framed.png` });
      await browserContext.close();
    } finally {
      outer.close();
    }
  });

  it('tells the merchant when the browser blocked the new tab', async () => {
    const { page, browserContext, frame } = await open(`/?domain=${domainFor()}`);
    await frame.locator('[data-screen="install"]').waitFor();
    await frame.locator('body').evaluate(() => {
      window.open = () => null;
    });
    await frame.getByRole('link', { name: /Install the app/ }).click();
    const alert = frame.getByRole('alert');
    await alert.getByText('Your browser blocked the new tab').waitFor();
    expect(await alert.getByRole('link', { name: 'open it here' }).getAttribute('href')).toMatch(
      /\/sandbox\/stores\/.*\/install\?state=[0-9a-f]{64}$/,
    );
    await expectAccessible(page, 'popup blocked');
    await page.screenshot({ path: `${ARTIFACTS}/popup-blocked.png` });
    await browserContext.close();
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
    await frame.locator('[data-screen="live"]').waitFor();
    await expect.poll(() => stages(page)).toEqual(['install', 'plan', 'setting_up', 'consent', 'live']);
    expect(problems).toEqual([]);
    await browserContext.close();
  });

  it(`on a prod host, where no commerce platform is connected, says so plainly where \
the install step would be, and offers no sandbox`, async () => {
    const port = await freePort();
    const prodService = `http://127.0.0.1:${port}`;
    const prod = await startTestApp('pglite', { SERVICE_ENV: 'prod', BASE_URL: prodService });
    let prodPlatformId = '';
    const prodHost = demoHost({ serviceUrl: prodService, platformId: async () => prodPlatformId });
    try {
      await prod.app.listen({ port, host: '127.0.0.1' });
      await prodHost.listen({ port: 0, host: '127.0.0.1' });
      const prodDemo = `http://127.0.0.1:${(prodHost.server.address() as net.AddressInfo).port}`;
      ({ platformId: prodPlatformId } = await createPlatform(prod.support, { approvedOrigins: [prodDemo] }));
      for (const mode of ['page', 'drawer'] as const) {
        const { page, browserContext, frame, problems } = await open(`${prodDemo}/?domain=${domainFor()}&mode=${mode}`);
        if (mode === 'drawer') await page.getByRole('button', { name: 'Open brand partnerships' }).click();
        await checkScreen(page, frame, 'no_commerce_platform', `no-commerce-platform-${mode}`);
        expect(await frame.getByRole('heading').textContent()).toBe('No commerce platform is connected yet');
        expect(await frame.locator('a, button').count()).toBe(0);
        expect(await stages(page)).toEqual([]);
        expect(problems).toEqual([]);
        await browserContext.close();
      }
    } finally {
      await prodHost.close();
      await stopTestApp(prod);
    }
  });

  it(`return flow: with the page address held and the brand synced, install happens in the same tab and \
comes back to the same origin, merchant and drawer`, async () => {
    const domain = domainFor();
    const withPage = await createPlatform(context.support, { approvedOrigins: [demo, demoOtherSite], pluginPageUrl: `${demo}/` });
    await context.db.insertInto('platform_brands').values({ platform_id: withPage.platformId, domain, status: 'active' }).execute();
    const saved = platformId;
    platformId = withPage.platformId;
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
      platformId = saved;
    }
  });
});
