import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JwtPayload } from '@shopify/shopify-api';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { fitsAndPasses } from '../support/readable.js';
import { adminBrowser, installFromListing, signInAsStaff, uninstallFromAdmin, type AdminBrowser } from '../support/shopify-admin.js';
import { shopifyLibraryFor } from './shopify-library.js';
import { ShopifyStandIn } from './stand-in.js';

const SHOP = 'rowan-field.myshopify.com';

/** What the trivial embedded app below saw: its launches' query strings and the session tokens its backend was sent. */
interface Seen {
  launches: URLSearchParams[];
  tokens: JwtPayload[];
  /** Answer the next backend call 401 with X-Shopify-Retry-Invalid-Session-Request, as an app does for a token it would not take. */
  refuseNext: boolean;
  refused: number;
}

/**
 * A trivial embedded app, served by the test on 127.0.0.1: a page with App Bridge from Shopify's CDN
 * (the stand-in's), a title bar, a nav menu, and buttons that call its backend, show a toast and
 * open an admin page; a backend that takes only session tokens the official library accepts.
 */
async function startTrivialApp(shopify: ReturnType<typeof shopifyLibraryFor>, apiKey: string, seen: Seen) {
  const server = http.createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/api/whoami') {
      const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
      const payload = token ? await shopify.session.decodeSessionToken(token).catch(() => null) : null;
      if (!payload || seen.refuseNext) {
        seen.refuseNext = false;
        seen.refused += 1;
        response.writeHead(401, { 'X-Shopify-Retry-Invalid-Session-Request': '1' }).end();
        return;
      }
      seen.tokens.push(payload);
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ shop: new URL(payload.dest).hostname, locale: request.headers['accept-language'] }));
      return;
    }
    if (!url.pathname.startsWith('/app')) {
      response.writeHead(404).end();
      return;
    }
    seen.launches.push(url.searchParams);
    const shop = url.searchParams.get('shop') ?? SHOP;
    response
      .writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        // Shopify's iframe protection: only the store's admin may frame the app.
        'content-security-policy': `frame-ancestors https://${shop} https://admin.shopify.com;`,
      })
      .end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Trivial app</title>
<meta name="shopify-api-key" content="${apiKey}">
<script src="https://cdn.shopify.com/shopifycloud/app-bridge.js"></script></head>
<body><main>
<ui-title-bar title="${url.pathname === '/app/settings' ? 'Settings' : 'Partners'}"></ui-title-bar>
<ui-nav-menu><a href="/app" rel="home">Home</a><a href="/app/settings">Settings</a></ui-nav-menu>
<h1>${url.pathname === '/app/settings' ? 'Settings page' : 'Trivial app'}</h1>
<button type="button" id="whoami">Who am I</button> <button type="button" id="toast">Save</button>
<button type="button" id="products">Products</button>
<p id="answer" role="status"></p>
</main>
<script>
document.getElementById('whoami').onclick = async () => {
  const response = await fetch('/api/whoami');
  document.getElementById('answer').textContent = response.ok ? JSON.stringify(await response.json()) : 'refused ' + response.status;
};
document.getElementById('toast').onclick = () => shopify.toast.show('Settings saved');
document.getElementById('products').onclick = () => open('shopify://admin/products', '_top');
</script></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('Shopify stand-in: Chromium installs an embedded app from the listing and uses it framed in the admin', () => {
  const seen: Seen = { launches: [], tokens: [], refuseNext: false, refused: 0 };
  const uninstalls: string[] = [];
  let standIn: ShopifyStandIn;
  let shopify: ReturnType<typeof shopifyLibraryFor>;
  let app: Awaited<ReturnType<typeof startTrivialApp>>;
  let browser: Browser;
  let merchant: AdminBrowser;

  beforeAll(async () => {
    standIn = new ShopifyStandIn({
      app: { webhooks: [{ topic: 'app/uninstalled', uri: 'https://trivial-app.test/webhooks' }] },
      deliverWebhook: async (_url, init) => {
        uninstalls.push(new Headers(init.headers).get('x-shopify-shop-domain') ?? '');
        return new Response(null, { status: 200 });
      },
    });
    shopify = shopifyLibraryFor(standIn, { hostName: 'trivial-app.test', scopes: standIn.app.scopes });
    app = await startTrivialApp(shopify, standIn.app.apiKey, seen);
    standIn.app.applicationUrl = `${app.baseUrl}/app`;
    standIn.createShop({ name: 'rowan-field', products: 1 });
    browser = await launchBrowser();
    merchant = await adminBrowser(browser, standIn);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('signs the staff member in, installs with the configuration’s scopes, launches the App URL with verifiable parameters', async () => {
    const { page } = merchant;
    await page.goto(standIn.listingUrl());
    await fitsAndPasses(page, 'the App Store listing');
    await page.getByRole('button', { name: 'Install', exact: true }).click();
    await page.getByLabel('Email').waitFor();
    await fitsAndPasses(page, "Shopify's sign-in page");

    const frame = await installFromListing(page, standIn, SHOP);
    expect(standIn.shop(SHOP).installation).toMatchObject({ installed: true, scopes: standIn.app.scopes });
    await frame.getByRole('heading', { name: 'Trivial app' }).waitFor();
    const launch = seen.launches.at(-1)!;
    expect(await shopify.utils.validateHmac(Object.fromEntries(launch))).toBe(true);
    expect(launch.get('embedded')).toBe('1');
    expect(await shopify.session.decodeSessionToken(launch.get('id_token')!)).toMatchObject({ dest: `https://${SHOP}` });
    await expect(page.getByRole('heading', { level: 1 }).first().textContent()).resolves.toBe('Partners');
    await page.getByRole('navigation').getByRole('link', { name: 'Settings' }).waitFor();
    await fitsAndPasses(page, 'the admin framing the app');
    expect(merchant.problems).toEqual([]);
  });

  it('gives the app’s fetch a session token the library accepts, and retries once with a fresh one when asked', async () => {
    const frame = merchant.page.frameLocator('#app-iframe');
    await frame.getByRole('button', { name: 'Who am I' }).click();
    await expect.poll(() => frame.getByRole('status').textContent()).toBe(JSON.stringify({ shop: SHOP, locale: 'en' }));
    const owner = standIn.staffMember(SHOP);
    expect(seen.tokens.at(-1)).toMatchObject({ sub: String(owner.id), aud: standIn.app.apiKey, iss: `https://${SHOP}/admin` });

    seen.refuseNext = true;
    const before = seen.tokens.length;
    await frame.getByRole('button', { name: 'Who am I' }).click();
    await expect.poll(() => seen.tokens.length).toBe(before + 1);
    expect(seen.refused).toBe(1);
    expect(seen.tokens.at(-1)!.jti).not.toBe(seen.tokens.at(-2)!.jti);
  });

  it('shows the app’s toast, follows its nav menu, and opens an admin page the app names', async () => {
    const { page } = merchant;
    const frame = page.frameLocator('#app-iframe');
    await frame.getByRole('button', { name: 'Save' }).click();
    await page.locator('#toasts').getByText('Settings saved').waitFor();

    await page.getByRole('navigation').getByRole('link', { name: 'Settings' }).click();
    await page.waitForURL(standIn.adminAppUrl(SHOP, '/app/settings'));
    await frame.getByRole('heading', { name: 'Settings page' }).waitFor();
    expect(new URL(`http://x/?${seen.launches.at(-1)}`).searchParams.get('shop')).toBe(SHOP);
    await expect.poll(() => page.locator('#app-title').textContent()).toBe('Settings');

    await frame.getByRole('button', { name: 'Products' }).click();
    await page.waitForURL('https://admin.shopify.com/store/rowan-field/products');
    expect(merchant.problems).toEqual([]);
  });

  it('uninstalls from the admin’s apps page: app/uninstalled goes out', async () => {
    const { page } = merchant;
    await signInAsStaff(page, standIn, SHOP);
    await fitsAndPasses(page, "the admin's apps page");
    await uninstallFromAdmin(page, standIn, SHOP);
    expect(uninstalls).toEqual([SHOP]);
    expect(standIn.shop(SHOP).installation.installed).toBe(false);
  });
});
