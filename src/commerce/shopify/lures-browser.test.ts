import crypto from 'node:crypto';
import { axeViolations } from '../../../test/support/axe.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../../test/support/browser.js';
import { DASHBOARD_PASSWORD, DashboardClient } from '../../../test/support/dashboard-client.js';
import { createPlatform, uniqueId } from '../../../test/support/factories.js';
import { startTestApp, stopTestApp, type TestContext } from '../../../test/support/harness.js';
import {
  COMPLIANCE_TOPICS,
  install,
  legacyClaimInstallPath,
  shopifyEnv,
  standInForPort,
  withCookies,
} from '../../../test/support/shopify.js';
import { BROWSER_USER_AGENT } from '../../../test/shopify-standin/example-app.js';
import type { ShopifyStandIn } from '../../../test/shopify-standin/stand-in.js';
import { hashSecret } from '../../shared/keys.js';

/** The attacker's site: any page the merchant opens there sends their browser on. */
const LURE = 'https://lure.evil.example';

/**
 * The hostile review's store takeovers through Shopify (issue 23), in Chromium against the
 * stand-in: Shopify sends the staff of a store that has the app straight back to the callback,
 * so a page the merchant is lured to can walk their browser through install and callback without
 * a click. None of it may confirm a claim or a plugin's challenge. (A claim's honest path is now
 * the app home in the admin: claim-browser.test.ts; its install link from before is what is lured here.)
 */
describe('Shopify lures: a chain of redirects never proves who owns a store (Chromium)', () => {
  let context: TestContext;
  let browser: Browser;
  let service: string;
  let standIn: ShopifyStandIn;
  let platform: { id: string; name: string };

  beforeAll(async () => {
    let port: number;
    ({ port, service, standIn } = await standInForPort(COMPLIANCE_TOPICS));
    context = await startTestApp('postgres', { BASE_URL: service, PLUGIN_RECHECK_MS: '600000', ...shopifyEnv(standIn) });
    await context.app.listen({ port, host: '127.0.0.1' });
    const { platformId } = await createPlatform(context.support);
    const row = await context.db.selectFrom('platforms').select('name').where('id', '=', platformId).executeTakeFirstOrThrow();
    platform = { id: platformId, name: row.name };
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    if (context) await stopTestApp(context);
  });

  const newShop = (title: string) =>
    standIn.createShop({
      name: uniqueId('victim')
        .toLowerCase()
        .replace(/[^a-z0-9-]/g, '-'),
      products: 6,
      orders: 20,
      title,
    }).domain;

  /** A store whose app is installed already: Shopify answers its staff's authorize without a page. */
  async function installedShop(title: string): Promise<string> {
    const shop = newShop(title);
    expect((await install(context.app, standIn, `/commerce/shopify/install?shop=${shop}`)).statusCode).toBe(200);
    expect(standIn.shop(shop).installation.installed).toBe(true);
    return shop;
  }

  /** The merchant's browser: the stand-in answers for *.myshopify.com, and the lure site sends the browser to `target`. */
  async function merchantBrowser(target: string): Promise<{ browserContext: BrowserContext; page: Page }> {
    const browserContext = await browser.newContext({ userAgent: BROWSER_USER_AGENT, viewport: { width: 1280, height: 900 } });
    await standIn.routeBrowser(browserContext, (url) => url.pathname.startsWith('/commerce/shopify/'));
    await browserContext.route(`${LURE}/**`, (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html><title>Free stickers</title><script>location.href = ${JSON.stringify(`${service}${target}`)};</script>`,
      }),
    );
    return { browserContext, page: await browserContext.newPage() };
  }

  const rows = async (
    table: 'shopify_oauth_states_taken' | 'shopify_ownership_confirmations' | 'shopify_confirmation_requests',
    shop: string,
  ) => (await context.db.selectFrom(table).select('shop').where('shop', '=', shop).execute()).length;
  const merchantConfirmations = async (shop: string) =>
    (await context.db.selectFrom('merchant_confirmations').select('challenge').where('domain', '=', shop).execute()).length;

  async function attackerClaims(shop: string, businessName: string) {
    const attacker = await new DashboardClient(context.app).start();
    const email = `mallory-${uniqueId('m')}@evil.example`;
    const signUp = await attacker.signUp({ email, password: DASHBOARD_PASSWORD, brand: { businessName, domain: shop, categories: [] } });
    expect(signUp.statusCode, signUp.body).toBe(201);
    // The claim's install link from before issue 45, which the install still honours (the dashboard now sends to the admin).
    return { attacker, confirmUrl: await legacyClaimInstallPath(context.db, shop, email) };
  }

  it('critical: the merchant lured to an attacker’s confirmUrl is refused before Shopify; nothing written', async () => {
    for (const state of ['installed', 'not installed'] as const) {
      const shop = state === 'installed' ? await installedShop('Victim Goods') : newShop('Victim Goods');
      const { attacker, confirmUrl } = await attackerClaims(shop, 'Victim Goods');
      expect(confirmUrl).toMatch(/^\/commerce\/shopify\/install\?/);
      // The store's own install took its callback's state; the lure takes none.
      const statesTaken = await rows('shopify_oauth_states_taken', shop);

      const { browserContext, page } = await merchantBrowser(confirmUrl);
      const answer = page.waitForResponse((response) => response.url().startsWith(`${service}/commerce/shopify/install`));
      await page.goto(`${LURE}/stickers`);
      expect((await answer).status(), state).toBe(403);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Sign in as the account that asked');
      expect(new URL(page.url()).origin).toBe(service);
      await browserContext.close();

      expect(await rows('shopify_oauth_states_taken', shop), state).toBe(statesTaken);
      expect(await rows('shopify_ownership_confirmations', shop), state).toBe(0);
      expect(await rows('shopify_confirmation_requests', shop), state).toBe(0);
      const checked = await attacker.post('/dashboard/api/claim/check');
      expect(checked.json(), state).toMatchObject({ companyId: null, claim: { status: 'pending' } });
      // The attacker can mint nothing: their account acts for no brand.
      expect((await attacker.post('/dashboard/api/keys', { name: 'x' })).statusCode, state).toBeGreaterThanOrEqual(400);
    }
  });

  it('critical: the claimant’s install, taken to another browser at Shopify, is refused at the callback', async () => {
    const shop = await installedShop('Victim Goods');
    const { attacker, confirmUrl } = await attackerClaims(shop, 'Victim Goods');
    // The attacker starts the install signed in, and hands the merchant Shopify's authorize address.
    const started = await context.app.inject({
      method: 'GET',
      url: confirmUrl,
      headers: { cookie: attacker.cookies, 'user-agent': BROWSER_USER_AGENT },
    });
    expect(started.statusCode).toBe(302);
    const authorize = String(started.headers.location);
    expect(new URL(authorize).hostname).toBe(shop);
    const { browserContext, page } = await merchantBrowser('/');
    const callback = page.waitForResponse((response) => response.url().startsWith(`${service}/commerce/shopify/callback`));
    await page.goto(authorize);
    // The merchant's browser holds no install for this state: told in words, nothing installed.
    const refused = await callback;
    expect(refused.status()).toBe(400);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Start the install again');
    await expect(page.getByRole('link', { name: 'Start again' }).getAttribute('href')).resolves.toBe(
      `/commerce/shopify/install?shop=${shop}`,
    );
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    }
    expect((await axeViolations(page)).map((violation) => violation.id)).toEqual([]);
    await browserContext.close();
    // The callback's address leaks to the attacker, whose browser holds the install's cookies: the refusal spent it.
    const leaked = new URL(refused.url());
    const replay = await context.app.inject({
      method: 'GET',
      url: `${leaked.pathname}${leaked.search}`,
      headers: { cookie: withCookies(attacker.cookies, started), 'user-agent': BROWSER_USER_AGENT },
    });
    expect(replay.statusCode).toBe(400);
    expect(replay.json()).toMatchObject({ error: 'invalid_callback' });
    expect(await rows('shopify_ownership_confirmations', shop)).toBe(0);
    expect(await rows('shopify_confirmation_requests', shop)).toBe(0);
    expect((await attacker.post('/dashboard/api/claim/check')).json()).toMatchObject({ companyId: null });
  });

  it('high: a made-up challenge through the install or the plan link confirms nothing; its secret buys no token', async () => {
    const shop = await installedShop('Victim Goods');
    for (const link of ['install', 'plan'] as const) {
      const secret = crypto.randomBytes(16).toString('hex');
      const challenge = hashSecret(secret);
      const { browserContext, page } = await merchantBrowser(
        `/commerce/shopify/${link}?shop=${shop}&challenge=${challenge}&platform=${platform.id}`,
      );
      await page.goto(`${LURE}/coupon`);
      // Shopify sent the signed-in staff straight back: the service asks, naming who and what for, and waits.
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Confirm what you asked for');
      await expect(page.getByRole('listitem').first().textContent()).resolves.toContain(
        `${platform.name} asks to turn on cross-promotion for this store`,
      );
      await expect(page.locator('main').textContent()).resolves.toContain('Victim Goods');
      expect(await merchantConfirmations(shop), link).toBe(0);

      // The lure page posts the answer itself (it cannot know the page's token or CSRF token): refused, nothing written.
      const forged = await page.request.post(`${service}/commerce/shopify/confirm`, {
        headers: { origin: LURE },
        form: { decision: 'confirm', confirmation: 'x', csrf_token: 'x' },
      });
      expect(forged.status(), link).toBe(403);
      await browserContext.close();

      const traded = await context.app.inject({
        method: 'POST',
        url: '/plugin/v2/token',
        headers: { origin: 'http://localhost:80', 'content-type': 'application/json' },
        payload: JSON.stringify({ platformId: platform.id, domain: shop, secret }),
      });
      expect(traded.statusCode, link).toBe(401);
      expect(traded.json()).toMatchObject({ error: 'not_confirmed' });
      expect(await merchantConfirmations(shop), link).toBe(0);
      expect(standIn.shop(shop).discounts.size).toBe(0);
      expect(standIn.shop(shop).subscriptions).toEqual([]);
    }
  });
});
