import { HttpResponseError, RequestedTokenType } from '@shopify/shopify-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SHOPIFY_SCOPES } from '../../src/config-schema.js';
import { appFromToml } from '../support/shopify-admin.js';
import { cookiesFrom } from './example-app.js';
import { offlineSession, shopifyLibraryFor } from './shopify-library.js';
import { ShopifyStandIn } from './stand-in.js';
import { STAFF_PASSWORD } from './staff.js';

const SOLO = 'maple-row.myshopify.com';
const FIRST = 'birch-lane.myshopify.com';
const SECOND = 'elm-corner.myshopify.com';
const LOGIN = 'https://accounts.shopify.com/login';
const WEBHOOKS = 'https://embedded-app.test/commerce/shopify/webhooks';

/**
 * The App Store listing and a Shopify-managed installation, in process: Install on the listing
 * (after sign-in, choosing a store when the staff member has several) leads to the admin's install
 * page, whose Install installs the app with the configuration's scopes, calls nothing of the app and
 * issues no token, then opens the app in the admin. Uninstall from the admin's apps page sends
 * app/uninstalled and revokes the tokens.
 */
describe('Shopify stand-in: the App Store listing installs the app as a managed installation', () => {
  const delivered: Array<{ url: string; topic: string | null }> = [];
  const standIn = new ShopifyStandIn({
    app: { webhooks: [{ topic: 'app/uninstalled', uri: WEBHOOKS }] },
    deliverWebhook: async (url, init) => {
      delivered.push({ url, topic: new Headers(init.headers).get('x-shopify-topic') });
      return new Response(null, { status: 200 });
    },
  });
  const shopify = shopifyLibraryFor(standIn, { hostName: 'embedded-app.test', scopes: standIn.app.scopes });
  const get = (url: string, cookie = '') => standIn.fetch(url, { headers: { cookie }, redirect: 'manual' });
  const post = (url: string, form: Record<string, string>, cookie = '') =>
    standIn.fetch(url, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
      redirect: 'manual',
    });
  const signIn = async (email: string) =>
    cookiesFrom(await post(LOGIN, { 'account[email]': email, 'account[password]': STAFF_PASSWORD, return_to: standIn.listingUrl() }));
  const absolute = (response: Response) => new URL(response.headers.get('location')!, 'https://admin.shopify.com').toString();

  beforeAll(() => {
    for (const name of ['maple-row', 'birch-lane', 'elm-corner']) standIn.createShop({ name, products: 1 });
    standIn.addStaff(FIRST, { email: 'pat@agency.example' });
    standIn.addStaff(SECOND, { email: 'pat@agency.example' });
  });

  it('shows the listing with Install to anyone, and sends Install to the sign-in page when no one is signed in', async () => {
    const listing = await get(standIn.listingUrl());
    expect(listing.status).toBe(200);
    const page = await listing.text();
    expect(page).toContain(`<h1>${standIn.app.title}</h1>`);
    expect(page).toContain('>Install</button>');
    expect(page).not.toContain('<select');

    const install = await post(`${standIn.listingUrl()}/install`, { store: 'maple-row' });
    expect(install.status).toBe(302);
    const login = new URL(install.headers.get('location')!);
    expect(`${login.origin}${login.pathname}`).toBe(LOGIN);
    expect(login.searchParams.get('return_to')).toBe(standIn.listingUrl());
    expect(standIn.shop(SOLO).installation.installed).toBe(false);
  });

  it('installs with the configuration’s scopes on the admin’s Install, calls nothing of the app, issues no token, opens it', async () => {
    const cookie = await signIn('owner@maple-row.example');
    const listing = await (await get(standIn.listingUrl(), cookie)).text();
    expect(listing).toContain('<input type="hidden" name="store" value="maple-row">');

    const install = await post(`${standIn.listingUrl()}/install`, { store: 'maple-row' }, cookie);
    expect(install.status).toBe(302);
    const installPage = install.headers.get('location')!;
    expect(installPage).toBe(`https://admin.shopify.com/store/maple-row/oauth/install?client_id=${standIn.app.apiKey}`);
    const confirm = await get(installPage, cookie);
    const confirmation = await confirm.text();
    for (const scope of standIn.app.scopes) expect(confirmation).toContain(`<li>${scope}</li>`);
    expect(standIn.shop(SOLO).installation.installed).toBe(false);

    const installed = await post(installPage, {}, cookie);
    expect(installed.status).toBe(302);
    expect(absolute(installed)).toBe(standIn.adminAppUrl(SOLO));
    expect(standIn.shop(SOLO).installation).toMatchObject({ installed: true, scopes: standIn.app.scopes });
    expect(standIn.shop(SOLO).installation.tokens.size).toBe(0);
    expect(standIn.tokenRequests(SOLO)).toEqual([]);
    expect(delivered).toEqual([]);

    // Installed, the app opens at once: from the install page and from the admin's app page.
    expect(absolute(await get(installPage, cookie))).toBe(standIn.adminAppUrl(SOLO));
    expect((await get(standIn.adminAppUrl(SOLO), cookie)).status).toBe(200);
  });

  it('lets staff of several stores choose one, and refuses a store that is not theirs', async () => {
    const cookie = await signIn('pat@agency.example');
    const listing = await (await get(standIn.listingUrl(), cookie)).text();
    expect(listing).toContain('<label for="store">Store</label>');
    expect(listing).toContain('<option value="birch-lane">Birch Lane</option>');
    expect(listing).toContain('<option value="elm-corner">Elm Corner</option>');

    const refused = await post(`${standIn.listingUrl()}/install`, { store: 'maple-row' }, cookie);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('Choose one of your stores to install the app on.');

    const chosen = await post(`${standIn.listingUrl()}/install`, { store: 'elm-corner' }, cookie);
    expect(chosen.headers.get('location')).toBe(`https://admin.shopify.com/store/elm-corner/oauth/install?client_id=${standIn.app.apiKey}`);
    expect((await post(chosen.headers.get('location')!, {}, cookie)).status).toBe(302);
    expect([standIn.shop(SECOND).installation.installed, standIn.shop(FIRST).installation.installed]).toEqual([true, false]);
  });

  it('uninstalls from the admin’s apps page: app/uninstalled goes out and the app’s tokens stop working', async () => {
    const cookie = await signIn('owner@maple-row.example');
    const { session } = await shopify.auth.tokenExchange({
      shop: SOLO,
      sessionToken: standIn.sessionToken(SOLO),
      requestedTokenType: RequestedTokenType.OfflineAccessToken,
      expiring: true,
    });
    const client = new shopify.clients.Graphql({ session: offlineSession(SOLO, session.accessToken!, session.scope!) });
    expect((await client.request('{ shop { name } }')).data).toEqual({ shop: { name: 'Maple Row' } });

    const settings = await (await get('https://admin.shopify.com/store/maple-row/settings/apps', cookie)).text();
    expect(settings).toContain(`>Uninstall ${standIn.app.title}</button>`);
    const uninstalled = await post(`https://admin.shopify.com/store/maple-row/settings/apps/${standIn.app.handle}/uninstall`, {}, cookie);
    expect(uninstalled.status).toBe(302);
    const after = await (await get(absolute(uninstalled), cookie)).text();
    expect(after).toContain(`${standIn.app.title} was uninstalled.`);
    expect(after).toContain('No apps installed.');

    expect(delivered).toEqual([{ url: WEBHOOKS, topic: 'app/uninstalled' }]);
    expect(standIn.shop(SOLO).installation.installed).toBe(false);
    const refusal = await client.request('{ shop { name } }').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(HttpResponseError);
    expect((refusal as HttpResponseError).response.code).toBe(401);
  });

  it('uninstalls nothing for a staff member of another store', async () => {
    const cookie = await signIn('owner@maple-row.example');
    const refused = await post(`https://admin.shopify.com/store/elm-corner/settings/apps/${standIn.app.handle}/uninstall`, {}, cookie);
    expect(refused.status).toBe(403);
    expect(standIn.shop(SECOND).installation.installed).toBe(true);
    const anonymous = await post(`https://admin.shopify.com/store/elm-corner/settings/apps/${standIn.app.handle}/uninstall`, {});
    expect(anonymous.status).toBe(401);
    expect(standIn.shop(SECOND).installation.installed).toBe(true);
  });
});

describe('Shopify stand-in: the app as shopify.app.toml registers it', () => {
  it('takes the handle, name, scopes and App URL path from the configuration, on the service under test', async () => {
    const standIn = new ShopifyStandIn({ app: appFromToml('http://127.0.0.1:4321') });
    expect(standIn.app).toMatchObject({
      handle: 'brand-partner-collaborations',
      title: 'Brand Partner Collaborations',
      // The toml's scopes are SHOPIFY_SCOPES' default (test/architecture/shopify-app-toml.test.ts holds them together).
      scopes: DEFAULT_SHOPIFY_SCOPES,
      applicationUrl: 'http://127.0.0.1:4321/commerce/shopify/app',
    });
    expect(standIn.listingUrl()).toBe('https://apps.shopify.com/brand-partner-collaborations');
    standIn.createShop({ name: 'fir-hollow', products: 1 });
    standIn.installManaged('fir-hollow.myshopify.com');
    expect(standIn.shop('fir-hollow.myshopify.com').installation.scopes).toEqual(DEFAULT_SHOPIFY_SCOPES);
    expect((await standIn.fetch(standIn.listingUrl())).status).toBe(200);
  });
});
