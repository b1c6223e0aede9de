import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { cookiesFrom } from './example-app.js';
import { hostParameter } from './oauth.js';
import { shopifyLibraryFor } from './shopify-library.js';
import { ShopifyStandIn } from './stand-in.js';
import { STAFF_PASSWORD } from './staff.js';

const SHOP = 'aspen-hill.myshopify.com';
const ELSEWHERE = 'cedar-gate.myshopify.com';
const NOT_INSTALLED = 'larch-end.myshopify.com';
const APP_URL = 'https://embedded-app.test/commerce/shopify/app';
const LOGIN = 'https://accounts.shopify.com/login';

const unescapeHtml = (text: string) => text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));

/**
 * The stand-in admin at admin.shopify.com, in process: a staff member signs in first, then the
 * app's admin page frames the App URL with Shopify's launch parameters (a fresh session token
 * among them) signed as every App URL launch is, which the official library verifies.
 */
describe('Shopify stand-in: the admin signs staff in, frames the app and launches it', () => {
  const standIn = new ShopifyStandIn({ app: { applicationUrl: APP_URL } });
  const shopify = shopifyLibraryFor(standIn, { hostName: 'embedded-app.test', scopes: standIn.app.scopes });
  const get = (url: string, cookie = '') => standIn.fetch(url, { headers: { cookie }, redirect: 'manual' });
  const post = (url: string, form: Record<string, string>, cookie = '') =>
    standIn.fetch(url, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
      redirect: 'manual',
    });
  const signIn = async (email: string, returnTo: string) => {
    const response = await post(LOGIN, { 'account[email]': email, 'account[password]': STAFF_PASSWORD, return_to: returnTo });
    expect(response.status).toBe(302);
    return cookiesFrom(response);
  };
  const frameSrc = async (response: Response) => {
    const match = /<iframe id="app-iframe"[^>]* src="([^"]+)"/.exec(await response.text());
    return new URL(unescapeHtml(match![1]!));
  };

  beforeAll(() => {
    for (const name of ['aspen-hill', 'cedar-gate', 'larch-end']) standIn.createShop({ name, products: 1 });
    standIn.installManaged(SHOP);
    standIn.installManaged(ELSEWHERE);
  });

  it('sends a staff member who is not signed in to the sign-in page first, and back after it with a cookie for shopify.com', async () => {
    const adminUrl = standIn.adminAppUrl(SHOP);
    const first = await get(adminUrl);
    expect(first.status).toBe(302);
    const login = new URL(first.headers.get('location')!);
    expect(`${login.origin}${login.pathname}`).toBe(LOGIN);
    expect(login.searchParams.get('return_to')).toBe(adminUrl);

    const form = await get(login.toString());
    expect(form.status).toBe(200);
    const page = await form.text();
    expect(page).toContain('<h1>Log in</h1>');
    expect(unescapeHtml(/name="return_to" value="([^"]*)"/.exec(page)![1]!)).toBe(adminUrl);

    const signedIn = await post(LOGIN, {
      'account[email]': 'OWNER@aspen-hill.example',
      'account[password]': STAFF_PASSWORD,
      return_to: adminUrl,
    });
    expect(signedIn.status).toBe(302);
    expect(signedIn.headers.get('location')).toBe(adminUrl);
    expect(signedIn.headers.get('set-cookie')).toMatch(
      /^standin_staff_session=[\w-]+; Domain=shopify\.com; Path=\/; Secure; HttpOnly; SameSite=Lax$/,
    );
    expect((await get(adminUrl, cookiesFrom(signedIn))).status).toBe(200);
  });

  it('refuses a wrong password on the page, in words, and sets no cookie', async () => {
    const response = await post(LOGIN, {
      'account[email]': 'owner@aspen-hill.example',
      'account[password]': 'guess',
      return_to: standIn.adminAppUrl(SHOP),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('set-cookie')).toBeNull();
    expect(await response.text()).toContain('Incorrect email or password.');
    const unknown = await post(LOGIN, { 'account[email]': 'nobody@example.com', 'account[password]': STAFF_PASSWORD, return_to: '' });
    expect([unknown.status, unknown.headers.get('set-cookie')]).toEqual([401, null]);
  });

  it('sends no one on to a host outside Shopify’s admin and App Store after signing in', async () => {
    const response = await post(LOGIN, {
      'account[email]': 'owner@aspen-hill.example',
      'account[password]': STAFF_PASSWORD,
      return_to: 'https://evil.example/steal',
    });
    expect(response.headers.get('location')).toBe('https://admin.shopify.com/');
  });

  it('frames the App URL with embedded, host, id_token, locale, session, shop, timestamp and an hmac the library verifies', async () => {
    const owner = standIn.staffMember(SHOP);
    const cookie = await signIn(owner.email, standIn.adminAppUrl(SHOP));
    const before = Math.floor(Date.now() / 1000);
    const page = await get(standIn.adminAppUrl(SHOP), cookie);
    expect(page.status).toBe(200);
    const launch = await frameSrc(page);
    expect(`${launch.origin}${launch.pathname}`).toBe(APP_URL);
    const params = Object.fromEntries(launch.searchParams);
    expect(Object.keys(params).sort()).toEqual(['embedded', 'hmac', 'host', 'id_token', 'locale', 'session', 'shop', 'timestamp']);
    expect(params).toMatchObject({ embedded: '1', host: hostParameter(SHOP), locale: 'en', shop: SHOP });
    expect(Buffer.from(params.host!, 'base64').toString()).toBe('admin.shopify.com/store/aspen-hill');
    expect(Number(params.timestamp)).toBeGreaterThanOrEqual(before);
    expect(params.session).toMatch(/^[0-9a-f]{64}$/);

    expect(await shopify.utils.validateHmac(params)).toBe(true);
    // The same signature by hand: every parameter but hmac, sorted, `k=v` joined by `&`, HMAC-SHA256 hex with the secret.
    const message = Object.keys(params)
      .filter((key) => key !== 'hmac')
      .sort()
      .map((key) => `${key}=${params[key]}`)
      .join('&');
    expect(crypto.createHmac('sha256', standIn.app.apiSecret).update(message).digest('hex')).toBe(params.hmac);
    expect(await shopify.utils.validateHmac({ ...params, shop: ELSEWHERE })).toBe(false);

    const token = await shopify.session.decodeSessionToken(params.id_token!);
    expect(token).toMatchObject({ dest: `https://${SHOP}`, iss: `https://${SHOP}/admin`, sub: String(owner.id), aud: standIn.app.apiKey });
  });

  it('frames a path of the app on the App URL’s origin, keeping the admin address’s own query', async () => {
    const cookie = await signIn('owner@aspen-hill.example', standIn.listingUrl());
    const launch = await frameSrc(await get(standIn.adminAppUrl(SHOP, '/commerce/shopify/app/partners?tab=new'), cookie));
    expect(`${launch.origin}${launch.pathname}`).toBe('https://embedded-app.test/commerce/shopify/app/partners');
    expect(launch.searchParams.get('tab')).toBe('new');
    expect(await shopify.utils.validateHmac(Object.fromEntries(launch.searchParams))).toBe(true);
  });

  it('gives the admin page a fresh session token for the signed-in staff member, and none without a sign-in', async () => {
    const clerk = standIn.addStaff(SHOP, { email: 'robin@aspen-hill.example', locale: 'de' });
    const cookie = await signIn(clerk.email, standIn.adminAppUrl(SHOP));
    const launch = await frameSrc(await get(standIn.adminAppUrl(SHOP), cookie));
    expect(launch.searchParams.get('locale')).toBe('de');
    const response = await post(`${standIn.adminAppUrl(SHOP)}/id-token`, {}, cookie);
    expect(response.status).toBe(200);
    const { idToken } = (await response.json()) as { idToken: string };
    const payload = await shopify.session.decodeSessionToken(idToken);
    const launchPayload = await shopify.session.decodeSessionToken(launch.searchParams.get('id_token')!);
    expect(payload).toMatchObject({ sub: String(clerk.id), dest: `https://${SHOP}`, sid: launchPayload.sid });
    expect(payload.jti).not.toBe(launchPayload.jti);

    const anonymous = await post(`${standIn.adminAppUrl(SHOP)}/id-token`, {});
    expect(anonymous.status).toBe(401);
  });

  it('turns away staff of another store, and sends a store without the app to its install page', async () => {
    const cookie = await signIn('owner@cedar-gate.example', standIn.adminAppUrl(SHOP));
    const forbidden = await get(standIn.adminAppUrl(SHOP), cookie);
    expect(forbidden.status).toBe(403);
    expect(await forbidden.text()).toContain('is not staff of Aspen Hill');
    const token = await post(`${standIn.adminAppUrl(SHOP)}/id-token`, {}, cookie);
    expect(token.status).toBe(403);

    const larch = await signIn('owner@larch-end.example', standIn.adminAppUrl(NOT_INSTALLED));
    const notInstalled = await get(standIn.adminAppUrl(NOT_INSTALLED), larch);
    expect(notInstalled.status).toBe(302);
    expect(notInstalled.headers.get('location')).toBe(`/store/larch-end/oauth/install?client_id=${standIn.app.apiKey}`);
    const noToken = await post(`${standIn.adminAppUrl(NOT_INSTALLED)}/id-token`, {}, larch);
    expect(noToken.status).toBe(401);
  });
});
