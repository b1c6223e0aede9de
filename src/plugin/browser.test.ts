import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { freePort } from '../../test/support/service-process.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, BrowserContext, FrameLocator, Page } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import { launchBrowser } from '../../test/support/browser.js';
import { startTestApp, stopTestApp, type TestContext } from '../../test/support/harness.js';
import { createPlatform } from '../../test/support/factories.js';
import { setPlatformActive } from '../support/service.js';
import { demoHost } from './demo-host.js';
import type { EmbedPluginStatic } from '../../web/loader/embed-plugin.js';

const ARTIFACTS = 'test-artifacts/plugin';
// The screenshots in docs/ are refreshed only on request, so a test run leaves the tracked tree unchanged.
const DOCS = process.env.UPDATE_DOCS_SCREENSHOTS ? 'docs' : undefined;


const domainFor = (prefix = '') => `${prefix}shop-${crypto.randomBytes(3).toString('hex')}.example`;

describe('embedded plugin in Chromium, through the demo host page', () => {
  let context: TestContext;
  let host: FastifyInstance;
  let browser: Browser;
  let service: string;
  let demo: string;
  let platformId: string;

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const port = await freePort();
    service = `http://127.0.0.1:${port}`;
    context = await startTestApp('pglite', { BASE_URL: service, SETUP_DELAYED_AFTER_SECONDS: '4', SETUP_POLL_MS: '50', SETUP_RETRY_MS: '500', SANDBOX_IMPORT_MS: '2000' });
    await context.app.listen({ port, host: '127.0.0.1' });
    host = demoHost({ serviceUrl: service, platformId: async () => platformId });
    await host.listen({ port: 0, host: '127.0.0.1' });
    demo = `http://127.0.0.1:${(host.server.address() as net.AddressInfo).port}`;
    ({ platformId } = await createPlatform(context.support, { approvedOrigins: [demo] }));
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await host?.close();
    if (context) await stopTestApp(context);
  });

  async function open(path: string, viewport = { width: 1280, height: 900 }): Promise<{ page: Page; browserContext: BrowserContext; frame: FrameLocator; problems: string[] }> {
    const browserContext = await browser.newContext({ viewport });
    const page = await browserContext.newPage();
    page.setDefaultTimeout(10_000);
    const problems: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${demo}${path}`);
    return { page, browserContext, frame: page.frameLocator('iframe[title="Brand partnerships"]'), problems };
  }

  const log = (page: Page) => page.locator('#event-log li').allTextContents();
  const stages = async (page: Page) => (await log(page)).map((line) => /"stage":"(\w+)"/.exec(line)?.[1]).filter(Boolean);

  async function checkScreen(page: Page, frame: FrameLocator, screen: string, shot?: string) {
    await frame.locator(`[data-screen="${screen}"]`).waitFor({ timeout: 15_000 });
    const results = await new AxeBuilder({ page }).analyze();
    const serious = results.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
    expect(serious.map((violation) => `${violation.id}: ${violation.help}`), `axe on ${screen}`).toEqual([]);
    await page.screenshot({ path: `${ARTIFACTS}/${shot ?? screen}.png` });
  }

  async function inNewTab(page: Page, frame: FrameLocator, link: string, button: string) {
    const [popup] = await Promise.all([page.context().waitForEvent('page'), frame.getByRole('link', { name: new RegExp(link) }).click()]);
    await popup.getByRole('button', { name: button }).click();
    await popup.getByText(/Go back to the tab where you started/).waitFor();
    await popup.close();
    await page.bringToFront();
    // What the browser fires when the merchant comes back to this tab.
    await frame.locator('body').evaluate(() => window.dispatchEvent(new Event('focus')));
  }

  it('walks every stage in page mode under the host CSP, with the event sequence install → plan → setting_up → consent → live', async () => {
    const { page, browserContext, frame, problems } = await open(`/?domain=${domainFor()}`);
    await checkScreen(page, frame, 'install');
    const iframe = page.locator('iframe[title="Brand partnerships"]');
    const box = (await iframe.boundingBox())!;
    expect(box.width).toBeGreaterThan(600);
    await inNewTab(page, frame, 'Install the app', 'Install app');
    await checkScreen(page, frame, 'plan');
    await inNewTab(page, frame, 'Approve plan', 'Approve plan');
    await frame.locator('[data-screen="consent"]').waitFor({ timeout: 20_000 });
    await checkScreen(page, frame, 'consent');
    await page.screenshot({ path: `${ARTIFACTS}/page-consent.png` });
    if (DOCS) fs.copyFileSync(`${ARTIFACTS}/page-consent.png`, `${DOCS}/plugin-page.png`);
    expect(await frame.locator('.products li').count()).toBe(3);
    await frame.getByLabel('20%').check();
    await frame.getByRole('button', { name: 'Turn on cross-promotions' }).click();
    await checkScreen(page, frame, 'live');
    await expect.poll(() => stages(page)).toEqual(['install', 'plan', 'setting_up', 'consent', 'live']);
    // Page mode follows its content: the live screen is shorter than the consent screen was.
    expect((await iframe.boundingBox())!.height).not.toBe(480);
    for (const line of await log(page)) expect(Object.keys(JSON.parse(line.slice(line.indexOf('{'))))).toEqual(['type', 'stage']);
    expect(problems).toEqual([]);
    await browserContext.close();
  });

  it('shows delayed when setup takes long, then consent', async () => {
    const domain = domainFor('slow-');
    await context.app.inject({ method: 'POST', url: `/sandbox/stores/${domain}/install`, headers: { origin: service, host: new URL(service).host } });
    await context.app.inject({ method: 'POST', url: `/sandbox/stores/${domain}/plan`, headers: { origin: service, host: new URL(service).host } });
    const { page, browserContext, frame } = await open(`/?domain=${domain}`);
    await checkScreen(page, frame, 'delayed');
    await frame.locator('[data-screen="consent"]').waitFor({ timeout: 20_000 });
    expect(await stages(page)).toEqual(expect.arrayContaining(['delayed', 'consent']));
    await browserContext.close();
  });

  it('shows the messages of SPEC 6.3 instead of a stage, without calling onEvent', async () => {
    const notEligible = await open(`/?domain=${domainFor('new-')}`);
    await context.app.inject({ method: 'POST', url: `/sandbox/stores/${new URL(notEligible.page.url()).searchParams.get('domain')}/install`, headers: { origin: service, host: new URL(service).host } });
    await notEligible.page.reload();
    await checkScreen(notEligible.page, notEligible.frame, 'not_eligible');
    expect(await stages(notEligible.page)).toEqual(['install']);
    // The service going away: the merchant is told and can try again.
    await notEligible.page.route(`${service}/plugin/v2/state*`, (route) => route.abort());
    await notEligible.frame.getByRole('button', { name: 'Check again' }).click();
    await checkScreen(notEligible.page, notEligible.frame, 'unreachable');
    await notEligible.browserContext.close();

    const inactive = await createPlatform(context.support, { approvedOrigins: [demo] });
    await setPlatformActive(context.support, inactive.platformId, false);
    const unavailable = await open(`/?platformId=${inactive.platformId}&domain=${domainFor()}`);
    await checkScreen(unavailable.page, unavailable.frame, 'unavailable');
    await unavailable.browserContext.close();

    const domain = domainFor();
    const headers = { origin: service, host: new URL(service).host };
    await context.app.inject({ method: 'POST', url: `/sandbox/stores/${domain}/install`, headers });
    await context.app.inject({ method: 'POST', url: `/sandbox/stores/${domain}/plan`, headers });
    const live = await open(`/?domain=${domain}`);
    await live.frame.locator('[data-screen="consent"]').waitFor({ timeout: 20_000 });
    await live.frame.getByRole('button', { name: 'Turn on cross-promotions' }).click();
    await live.frame.locator('[data-screen="live"]').waitFor();
    await context.app.inject({ method: 'POST', url: `/sandbox/stores/${domain}/close-campaign`, headers });
    await live.page.reload();
    await checkScreen(live.page, live.frame, 'turned_off');
    await live.frame.getByRole('button', { name: 'Turn cross-promotion back on' }).click();
    await live.frame.locator('[data-screen="live"]').waitFor();
    await context.app.inject({ method: 'POST', url: `/sandbox/stores/${domain}/uninstall`, headers });
    await live.page.getByRole('button', { name: 'Clear log' }).click();
    await live.page.reload();
    await checkScreen(live.page, live.frame, 'not_installed');
    expect(await stages(live.page)).toEqual([]);
    await live.browserContext.close();
  }, 90_000);

  it('opens a drawer from the right (≤ 520 px, full width when narrow) that closes three ways, calling onClose once each', async () => {
    const { page, browserContext, frame } = await open(`/?domain=${domainFor()}&mode=drawer`);
    await frame.locator('[data-screen="install"]').waitFor({ state: 'attached' });
    const panel = page.locator('[role="dialog"]');
    await expect.poll(() => panel.isVisible()).toBe(false);
    await page.getByRole('button', { name: 'Open brand partnerships' }).click();
    await expect.poll(async () => (await panel.boundingBox())?.x).toBe(1280 - 520);
    await checkScreen(page, frame, 'install', 'drawer');
    if (DOCS) fs.copyFileSync(`${ARTIFACTS}/drawer.png`, `${DOCS}/plugin-drawer.png`);
    const closes = async () => (await log(page)).filter((line) => line.endsWith('onClose')).length;

    await page.getByRole('button', { name: 'Close brand partnerships' }).click();
    await expect.poll(() => panel.isVisible()).toBe(false);
    expect(await closes()).toBe(1);

    await page.getByRole('button', { name: 'Open brand partnerships' }).click();
    await expect.poll(async () => (await panel.boundingBox())?.x).toBe(1280 - 520);
    await page.mouse.click(100, 450);
    await expect.poll(() => panel.isVisible()).toBe(false);
    expect(await closes()).toBe(2);

    await page.getByRole('button', { name: 'Open brand partnerships' }).click();
    await frame.locator('h1').click();
    await page.keyboard.press('Escape');
    await expect.poll(() => panel.isVisible()).toBe(false);
    expect(await closes()).toBe(3);
    await browserContext.close();

    const narrow = await open(`/?domain=${domainFor()}&mode=drawer`, { width: 390, height: 800 });
    await narrow.page.getByRole('button', { name: 'Open brand partnerships' }).click();
    await expect.poll(async () => (await narrow.page.locator('[role="dialog"]').boundingBox())?.width).toBe(390);
    await narrow.browserContext.close();
  });

  it('throws TypeErrors, shows could-not-load for a bad id or domain, keeps one plugin per container and destroys cleanly', async () => {
    const browserContext = await browser.newContext();
    const page = await browserContext.newPage();
    // Counts the host-page listeners the loader adds and removes.
    await page.addInitScript(() => {
      const counts: Record<string, number> = {};
      (window as unknown as { listenerCounts: Record<string, number> }).listenerCounts = counts;
      type Listening = { addEventListener: (type: string, ...rest: unknown[]) => void; removeEventListener: (type: string, ...rest: unknown[]) => void };
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
    // A host page of its own, on a real loopback origin (Chromium keeps fulfilled pages out of the loopback address space).
    const sriHost = http.createServer((request, response) => {
      const integrity = new URL(request.url ?? '/', 'http://x').searchParams.get('integrity') ?? '';
      response.writeHead(200, {
        'Content-Type': 'text/html',
        'Content-Security-Policy': `default-src 'self'; script-src 'self' ${service}; frame-src ${service}; child-src ${service}`,
      });
      response.end(`<!doctype html><title>SRI</title><script src="${service}/plugin/v2.0.0/loader.js" integrity="${integrity}" crossorigin="anonymous"></script>`);
    });
    await new Promise<void>((resolve) => sriHost.listen(0, '127.0.0.1', resolve));
    const sriOrigin = `http://127.0.0.1:${(sriHost.address() as net.AddressInfo).port}`;
    try {
      for (const [integrity, expected] of [
        [sri, 'object'],
        [wrong, 'undefined'],
      ] as const) {
        await page.goto(`${sriOrigin}/?integrity=${encodeURIComponent(integrity)}`);
        expect(await page.evaluate(() => typeof (window as unknown as { EmbedPlugin?: unknown }).EmbedPlugin)).toBe(expected);
      }
    } finally {
      sriHost.close();
    }
    await browserContext.close();
  });

  it('refuses an origin that is not approved with a visible message', async () => {
    const browserContext = await browser.newContext();
    const page = await browserContext.newPage();
    await page.goto(`${demo.replace('127.0.0.1', 'localhost')}/?domain=${domainFor()}`);
    await expect.poll(() => page.locator('[data-embed-plugin]').textContent().then(() => page.evaluate(() => document.querySelector('[data-embed-plugin]')!.shadowRoot!.textContent))).toContain(
      'This site is not approved to show the plugin',
    );
    expect(await page.locator('iframe').count()).toBe(0);
    await page.screenshot({ path: `${ARTIFACTS}/refused.png` });
    await browserContext.close();
  });

  it('return flow: with the page address held and the brand synced, install happens in the same tab and the drawer reopens', async () => {
    const domain = domainFor();
    const page0 = `${demo}/?mode=drawer&domain=${domain}`;
    const withPage = await createPlatform(context.support, { approvedOrigins: [demo], pluginPageUrl: page0 });
    await context.db.insertInto('platform_brands').values({ platform_id: withPage.platformId, domain, status: 'active' }).execute();
    const saved = platformId;
    platformId = withPage.platformId;
    try {
      const { page, browserContext, frame } = await open(`/?mode=drawer&domain=${domain}`);
      await page.getByRole('button', { name: 'Open brand partnerships' }).click();
      await frame.getByRole('link', { name: 'Install the app' }).click();
      await page.waitForURL(/\/sandbox\/stores\/.*\/install/);
      await page.getByRole('button', { name: 'Install app' }).click();
      await page.waitForURL(new RegExp(`^${demo}/\\?mode=drawer&domain=`));
      await frame.locator('[data-screen="plan"]').waitFor();
      expect(page.url()).not.toContain('svc_connect');
      expect(await page.locator('[role="dialog"]').isVisible()).toBe(true);
      await browserContext.close();
    } finally {
      platformId = saved;
    }
  });
});
