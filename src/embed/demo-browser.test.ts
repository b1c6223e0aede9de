import fs from 'node:fs';
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserApp, stopBrowserApp } from '../../test/support/browser-app.js';
import { axeViolations } from '../../test/support/axe.js';
import type { Browser, Page } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import type { TestContext } from '../../test/support/harness.js';
import { createPlatform } from '../../test/support/factories.js';
import { readFixtureFile } from '../demo/loader.js';
import type { FixtureFile } from '../demo/schemas.js';
import { DEMO_FIXTURE_PATH, prepareStartupData } from '../demo/startup.js';
import { DEMO_PLATFORM_NAME, demoHost } from './demo-host.js';
import { findPlatformIdByName, findPluginPlatform } from './dal.js';

const ARTIFACTS = 'test-artifacts/demo';
const WIDTHS = [390, 1280] as const;

/**
 * The demo as a newcomer meets it after `npm start`, in Chromium: the pretend platform's order page
 * with the demo brand's partner offers, one followed to the partner's sandbox storefront with its
 * discount applied and ordered; the plugin page at phone and desktop width; a mistyped store
 * domain; and the banner's staff sign-in into the demo brand's dashboard.
 */
describe('the demo in Chromium: offers, the demo host page, the staff sign-in', () => {
  let context: TestContext;
  let host: FastifyInstance;
  let browser: Browser;
  let service: string;
  let demo: string;
  let demoData: FixtureFile;
  let banner: string;
  /** A platform that approves the demo host's origin (the demo fixtures' approve port 3001 only). */
  let pluginPlatformId: string;

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    ({
      context,
      browser,
      baseUrl: service,
    } = await startBrowserApp('postgres', {
      SANDBOX_STOREFRONTS: 'true',
      ORDERS_WEBHOOK_SECRET: 'demo-browser-webhook-secret',
    }));
    // What `npm start` does on an empty database: the demo data, and the banner.
    banner = (await prepareStartupData(context.runtime, context.app.log)).banner.join('\n');
    demoData = await readFixtureFile(DEMO_FIXTURE_PATH);
    const demoBrand = demoData.brands![0]!;
    host = demoHost({
      serviceUrl: service,
      platformId: () => findPlatformIdByName(context.db, DEMO_PLATFORM_NAME),
      pluginPageUrl: async (id) => (await findPluginPlatform(context.db, id))?.pluginPageUrl,
      showcase: async () => ({ brandName: demoBrand.businessName, apiKey: demoBrand.apiKeys![0]! }),
      sandboxStorefronts: true,
    });
    await host.listen({ port: 0, host: '127.0.0.1' });
    demo = `http://127.0.0.1:${(host.server.address() as net.AddressInfo).port}`;
    ({ platformId: pluginPlatformId } = await createPlatform(context.support, { approvedOrigins: [demo] }));
  });

  afterAll(async () => {
    await host?.close();
    await stopBrowserApp({ context, browser });
  });

  /** Every answer a page got from the demo host that was not a success, as "status url". */
  const failedOnHost = new WeakMap<Page, string[]>();

  async function open(url: string, width: number): Promise<Page> {
    const browserContext = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await browserContext.newPage();
    const failed: string[] = [];
    failedOnHost.set(page, failed);
    page.on('response', (response) => {
      if (response.url().startsWith(demo) && response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
    });
    await page.goto(url, { waitUntil: 'load' });
    return page;
  }

  async function expectNoViolations(page: Page, where: string) {
    const violations = await axeViolations(page);
    expect(
      violations.map(
        (violation) =>
          `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => `${node.target.join(' ')} ${node.html.slice(0, 120)}`)}`,
      ),
      `axe on ${where}`,
    ).toEqual([]);
  }

  async function expectNoSidewaysScroll(page: Page, where: string) {
    const widths = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
    }));
    expect(widths.scroll, `${where} is ${widths.scroll} px wide in a ${widths.client} px window`).toBeLessThanOrEqual(widths.client);
  }

  /** Every image on the page loaded: none from a host the machine cannot reach. */
  async function expectImagesShown(page: Page, where: string) {
    await page.waitForLoadState('load');
    const broken = await page.$$eval('img', (images) => images.filter((image) => image.naturalWidth === 0).map((image) => image.src));
    expect(broken, `broken images on ${where}`).toEqual([]);
  }

  it(`leads a shopper from the platform's order page to the partner's storefront with the offer's discount applied, \
and orders there`, async () => {
    const page = await open(`${demo}/order-confirmation`, 1280);
    const offers = page.getByRole('region', { name: 'Offers from our partners' }).getByRole('listitem');
    await offers.first().waitFor();
    expect(await offers.count()).toBeGreaterThanOrEqual(4);
    await expectImagesShown(page, 'the order page');
    await page.screenshot({ path: `${ARTIFACTS}/order-page.png`, fullPage: true });

    const lumen = demoData.brands!.find((brand) => brand.companyId === 'lumen-skincare')!;
    expect(await page.getByRole('heading', { name: lumen.offer!.title }).count()).toBe(1);
    await page.getByRole('link', { name: `Shop the offer: ${lumen.offer!.title}` }).click();

    await page.getByRole('heading', { name: lumen.businessName, level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toMatch(new RegExp(`^/sandbox/shop/${lumen.domain}/discount/PARTNER20-[0-9A-F]{6}$`));
    const applied = page.getByRole('status');
    expect(await applied.textContent()).toMatch(/^Discount PARTNER20-[0-9A-F]{6} applied: 20% off your order\.$/);
    // The store sells what the brand does: skincare.
    expect(await page.getByRole('cell', { name: 'Daily Cleanser' }).count()).toBe(1);
    await expectImagesShown(page, 'the storefront');
    await page.screenshot({ path: `${ARTIFACTS}/storefront-discount.png`, fullPage: true });

    await page.getByLabel('Your email').fill('first-time@shopper.example');
    await page.getByRole('button', { name: 'Place order' }).click();
    await page.getByRole('heading', { name: 'Thank you for your order' }).waitFor();
    expect(await page.getByText('20% off').count()).toBe(1);
    expect(await page.getByTestId('delivery').textContent()).toContain('answered HTTP 200');
    await page.context().close();
  });

  for (const width of WIDTHS) {
    it(`shows the demo host page, the plugin in it and the order page at ${width} px with no sideways scroll \
and no axe violations`, async () => {
      const page = await open(`${demo}/?platformId=${pluginPlatformId}&domain=cozy-candles.example`, width);
      const frame = page.frameLocator('iframe[title="Brand partnerships"]');
      await frame.locator('[data-screen="install"]').waitFor();
      // The stage's event is logged, whole: no line is cut at the panel's edge.
      await page.locator('#event-log li').first().waitFor();
      const cut = await page.$$eval('#event-log li', (lines) => lines.filter((line) => line.scrollWidth > line.clientWidth).length);
      expect(cut).toBe(0);
      expect(await page.locator('#event-log li').first().textContent()).toContain('"stage":"install"');
      // The merchant line stays inside the window.
      const merchant = await page.getByText('Merchant: cozy-candles.example').boundingBox();
      expect(merchant!.x + merchant!.width).toBeLessThanOrEqual(width);
      await expectNoSidewaysScroll(page, 'the demo host page');
      const insideFrame = await frame.locator('html').evaluate((root) => ({ scroll: root.scrollWidth, client: root.clientWidth }));
      expect(insideFrame.scroll, 'the plugin scrolls sideways inside its frame').toBeLessThanOrEqual(insideFrame.client);
      await expectNoViolations(page, `the demo host page at ${width} px`);
      await page.screenshot({ path: `${ARTIFACTS}/demo-host-${width}.png`, fullPage: true });
      // The platform's own files all answered, and the icon its pages link is there.
      expect(failedOnHost.get(page)).toEqual([]);
      const iconHref = await page.locator('link[rel="icon"]').getAttribute('href');
      const icon = await page.request.get(new URL(iconHref!, demo).href);
      expect([icon.status(), icon.headers()['content-type']]).toEqual([200, 'image/svg+xml']);
      expect(await icon.text()).toContain('<title>Checkout Co</title>');

      await page.goto(`${demo}/order-confirmation`, { waitUntil: 'load' });
      await page.getByRole('region', { name: 'Offers from our partners' }).waitFor();
      await expectImagesShown(page, 'the order page');
      await expectNoSidewaysScroll(page, 'the order page');
      await expectNoViolations(page, `the order page at ${width} px`);

      // Where an offer leads: the partner's storefront, its discount applied.
      await page
        .getByRole('link', { name: /^Shop the offer: / })
        .first()
        .click();
      await page.getByRole('status').waitFor();
      await expectImagesShown(page, 'the storefront');
      await expectNoSidewaysScroll(page, 'the storefront');
      await expectNoViolations(page, `the storefront at ${width} px`);
      await page.context().close();
    });
  }

  it('says why a typed store domain was refused, keeping the merchant it had', async () => {
    const page = await open(`${demo}/?platformId=${pluginPlatformId}&domain=cozy-candles.example`, 390);
    await page.frameLocator('iframe[title="Brand partnerships"]').locator('[data-screen="install"]').waitFor();
    const field = page.getByLabel('Store domain');
    await field.fill('my shop');
    await page.getByRole('button', { name: 'Show' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    await page.frameLocator('iframe[title="Brand partnerships"]').locator('[data-screen="install"]').waitFor();
    expect(await alert.textContent()).toBe('“my shop” was not used: it contains whitespace. The merchant is still cozy-candles.example.');
    expect(await field.inputValue()).toBe('my shop');
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByText('Merchant: cozy-candles.example').count()).toBe(1);
    await expectNoSidewaysScroll(page, 'the refusal');
    await expectNoViolations(page, 'the refused domain');

    // The page itself answers 400, and keeps the merchant the browser had.
    const cookie = (await page.context().cookies(demo)).find((entry) => entry.name === 'checkout_co_merchant')!;
    const refused = await fetch(`${demo}/?domain=my%20shop`, { headers: { cookie: `${cookie.name}=${cookie.value}` } });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('The merchant is still cozy-candles.example.');

    await field.fill('localhost');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByText('“localhost” was not used: it has no dot: a store domain looks like shop.example.').waitFor();
    await page.context().close();
  });

  it("signs in with the banner's demo staff sign-in to the demo brand's dashboard, which shows its connection requests", async () => {
    const staff = demoData.brands![0]!.staff![0]!;
    expect(banner).toContain(`Staff sign-in:  ${service}/dashboard  email ${staff.email}  password ${staff.password}`);
    const page = await open(`${service}/dashboard`, 1280);
    const form = page.getByRole('form', { name: 'Sign in' });
    await form.getByLabel('Email').fill(staff.email);
    await form.getByLabel('Password').fill(staff.password);
    await form.getByRole('button', { name: 'Sign in' }).click();
    const requests = page.getByRole('region', { name: 'Connection requests received' });
    await requests.waitFor();
    const greenleaf = demoData.brands!.find((brand) => brand.companyId === 'greenleaf-tea')!;
    await requests.getByText(greenleaf.businessName).waitFor();
    expect(await requests.getByRole('button', { name: `Accept request from ${greenleaf.businessName}` }).count()).toBe(1);

    // Integrations links the brand's sandbox store admin, which takes the store owner sign-in the banner prints.
    const owner = /Store owner:\s+(\S+)\s+email (\S+)\s+password (\S+)/.exec(banner)!;
    await page.getByRole('link', { name: 'Integrations' }).click();
    await page.getByRole('region', { name: 'Sandbox store' }).getByRole('link', { name: 'store admin' }).click();
    await page.waitForURL(/\/sandbox\/stores\//);
    await page.getByLabel('Email').fill(owner[2]!);
    await page.getByLabel('Password').fill(owner[3]!);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: /^Orders \(\d+ in all, latest first\)$/ }).waitFor();
    expect(page.url()).toBe(owner[1]);
    await page.context().close();
  });
});
