import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import { axeViolations } from './axe.js';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, FrameLocator, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { findPluginPlatform } from '../../src/embed/dal.js';
import { demoHost } from '../../src/embed/demo-host.js';
import { startBrowserApp, stopBrowserApp } from './browser-app.js';
import { createPlatform } from './factories.js';
import type { TestContext } from './harness.js';
import { injectTransport, StoreOwner, STORE_OWNER_PASSWORD } from './sandbox-owner.js';

export const ARTIFACTS = 'test-artifacts/plugin';
// The screenshots in docs/ are refreshed only on request, so a test run leaves the tracked tree unchanged.
export const DOCS = process.env.UPDATE_DOCS_SCREENSHOTS ? 'docs' : undefined;
/** The loader's wait for a first word from the embed app before it says the service could not be reached. */
export const LOADER_TIMEOUT_MS = 10_000;

export const domainFor = (prefix = '') => `${prefix}shop-${crypto.randomBytes(3).toString('hex')}.example`;

/** A page of its own on a real loopback origin (Chromium keeps fulfilled pages out of the loopback address space). */
export async function servePage(
  html: (url: URL) => string,
  headers: Record<string, string> = {},
): Promise<{ origin: string; close: () => void }> {
  const server = http.createServer((request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html', ...headers });
    response.end(html(new URL(request.url ?? '/', 'http://x')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://localhost:${(server.address() as net.AddressInfo).port}`, close: () => server.close() };
}

export interface Opened {
  page: Page;
  browserContext: BrowserContext;
  frame: FrameLocator;
  problems: string[];
  /** Every console error of the host page and the app's frame (a failed request shows as one). */
  consoleErrors: string[];
}

/** What the tests read once the app, the demo host and Chromium are up (platformId is the demo host's platform). */
export interface PluginBrowser {
  context: TestContext;
  browser: Browser;
  service: string;
  demo: string;
  /** The same demo host under another site's name: localhost against the service's 127.0.0.1. */
  demoOtherSite: string;
  /** The platform the demo host embeds; a test may point it elsewhere and must put it back. */
  platformId: string;
}

/**
 * The embedded plugin's browser files share this setup: it registers their beforeAll and afterAll
 * (the app on PGlite, the demo host, Chromium) and returns what they drive it with.
 */
export function embeddedPluginInChromium() {
  const shared = {} as PluginBrowser;
  let context: TestContext;
  let host: FastifyInstance;
  let browser: Browser;
  let service: string;
  let demo: string;
  let demoOtherSite: string;

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    ({
      context,
      browser,
      baseUrl: service,
    } = await startBrowserApp('postgres', {
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
      platformId: async () => shared.platformId,
      pluginPageUrl: async (id) => (await findPluginPlatform(context.db, id))?.pluginPageUrl,
    });
    await host.listen({ port: 0, host: '127.0.0.1' });
    const demoPort = (host.server.address() as net.AddressInfo).port;
    demo = `http://127.0.0.1:${demoPort}`;
    demoOtherSite = `http://localhost:${demoPort}`;
    shared.platformId = (await createPlatform(context.support, { approvedOrigins: [demo] })).platformId;
    Object.assign(shared, { context, browser, service, demo, demoOtherSite });
  });

  afterAll(async () => {
    await host?.close();
    await stopBrowserApp({ context, browser });
  });

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
    const violations = await axeViolations(page);
    const serious = violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
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
   * After an action the merchant took: waits for `screen`, or for what they would see instead (the
   * words under the button, the service unreachable), and fails with those words.
   */
  async function screenAfterAction(frame: FrameLocator, screen: string) {
    const instead = '[data-screen="unreachable"], [role="alert"]';
    await frame
      .locator(`[data-screen="${screen}"], ${instead}`)
      .first()
      .waitFor({ timeout: 60_000 })
      .catch(async (error: unknown) => {
        // What the merchant was looking at instead: a button still reading "Turning on…" is a request
        // still out, the button as it was is a click that did nothing.
        const shown = await frame
          .locator('[data-screen]')
          .evaluateAll((screens) =>
            screens.map((element) => `${element.getAttribute('data-screen')}: ${(element as HTMLElement).innerText.replace(/\s+/g, ' ')}`),
          )
          .catch(() => ['(the frame could not be read)']);
        throw new Error(`no ${screen} screen after the action; the plugin showed ${JSON.stringify(shown)}`, { cause: error });
      });
    expect(await frame.locator(instead).allTextContents(), `${screen} after the action`).toEqual([]);
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

  return {
    shared,
    open,
    log,
    stages,
    plugin,
    sandbox,
    expectAccessible,
    checkScreen,
    screenAfterAction,
    signInAtSandbox,
    inNewTab,
    holdAt,
    heights,
    settledHeight,
  };
}
