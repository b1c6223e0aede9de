import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../../../test/support/harness.js';
import { uniqueId } from '../../../test/support/factories.js';
import { followCallback, hiddenFields, installToCallback, shopifyEnv, standInFor, withCookies } from '../../../test/support/shopify.js';
import { BROWSER_USER_AGENT, formFields } from '../../../test/shopify-standin/example-app.js';
import { hostParameter, signQuery } from '../../../test/shopify-standin/oauth.js';
import { ShopifyStandIn } from '../../../test/shopify-standin/stand-in.js';
import { HOME_COOKIE } from './home-routes.js';
import { INSTALL_COOKIE } from './install-cookie.js';

const BASE_URL = 'https://svc.test';
const APP_URL = `${BASE_URL}/commerce/shopify/app`;
const ENV = {
  LOG_LEVEL: 'error',
  BASE_URL,
  SETUP_POLL_MS: '20',
  SANDBOX_IMPORT_MS: '0',
  STORE_MIN_ORDERS: '1',
  ...shopifyEnv(new ShopifyStandIn()),
};
const OWN_ORIGIN = 'http://localhost:80';

/**
 * The app home at Shopify's App URL (issue 25, section 3), by its routes: the launch's hmac and
 * timestamp, OAuth first for a store without the app or a browser without the home's session, and
 * the plan and consent as forms that need the session and the page's CSRF token.
 */
describeEachDatabase(
  'Shopify app home: launch from Shopify, OAuth first, then the store’s stage and actions',
  (use) => {
    let standIn: ShopifyStandIn;
    const newShop = () =>
      standIn.createShop({
        name: uniqueId('home')
          .toLowerCase()
          .replace(/[^a-z0-9-]/g, '-'),
        products: 6,
        orders: 20,
      }).domain;
    const get = (url: string, cookie = '', headers: Record<string, string> = {}) =>
      use().app.inject({ method: 'GET', url, headers: { 'user-agent': BROWSER_USER_AGENT, cookie, ...headers } });
    const post = (url: string, cookie: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
      use().app.inject({
        method: 'POST',
        url,
        headers: {
          cookie,
          origin: OWN_ORIGIN,
          'content-type': 'application/x-www-form-urlencoded',
          'user-agent': BROWSER_USER_AGENT,
          ...headers,
        },
        payload: new URLSearchParams(fields).toString(),
      });
    const pathOf = (url: string) => {
      const parsed = new URL(url);
      return `${parsed.pathname}${parsed.search}`;
    };
    const rows = async (table: 'shopify_oauth_states_taken' | 'shopify_home_sessions', shop: string) =>
      use().db.selectFrom(table).selectAll().where('shop', '=', shop).execute();
    /** A launch signed as Shopify signs it, at `timestamp` seconds (now by default), with the app's secret or another. */
    const signedLaunch = (shop: string, options: { timestamp?: number; secret?: string; extra?: Record<string, string> } = {}) => {
      const params: Record<string, string> = {
        ...options.extra,
        host: hostParameter(shop),
        shop,
        timestamp: String(options.timestamp ?? Math.floor(Date.now() / 1000)),
      };
      const hmac = signQuery(options.secret ?? standIn.app.apiSecret, params);
      return `/commerce/shopify/app?${new URLSearchParams({ ...params, hmac }).toString()}`;
    };
    /** Launch, Shopify's OAuth (its grant page when the app is new there), the callback: the browser's cookies and the last answer. */
    const launchThroughOAuth = async (shop: string, cookie = '') => {
      const { callback, cookie: withState } = await installToCallback(
        use().app,
        standIn,
        pathOf(standIn.appLaunchUrl(shop, APP_URL)),
        cookie,
      );
      const back = await followCallback(use().app, callback, withState);
      return { back, cookie: withCookies(withState, back) };
    };
    const home = async (shop: string, cookie: string) => {
      const page = await get(`/commerce/shopify/home?shop=${shop}`, cookie);
      expect(page.statusCode, page.body).toBe(200);
      return { page, cookie: withCookies(cookie, page), fields: hiddenFields(page.body) };
    };
    const discounts = (shop: string) => standIn.shop(shop).discounts.size;

    beforeAll(() => {
      standIn = standInFor(BASE_URL, () => use().app);
    });

    it.each([
      [
        'without an hmac',
        (shop: string) => `/commerce/shopify/app?shop=${shop}&timestamp=${Math.floor(Date.now() / 1000)}`,
        400,
        'invalid_request',
        /hmac is required/,
      ],
      [
        'without a timestamp',
        (shop: string) => signedLaunch(shop).replace(/&timestamp=\d+/, ''),
        400,
        'invalid_request',
        /timestamp is required/,
      ],
      [
        'with an hmac of another secret',
        (shop: string) => signedLaunch(shop, { secret: 'not-the-app-secret-0123456789abcd' }),
        401,
        'unauthorized',
        /does not verify/,
      ],
      [
        'with a parameter added after signing',
        (shop: string) => `${signedLaunch(shop)}&return=%2Fdashboard`,
        401,
        'unauthorized',
        /does not verify/,
      ],
      [
        'signed ten minutes ago',
        (shop: string) => signedLaunch(shop, { timestamp: Math.floor(Date.now() / 1000) - 600 }),
        401,
        'unauthorized',
        /older than/,
      ],
    ])('refuses a launch %s: %i %s, no OAuth started, nothing written', async (_case, launch, status, error, message) => {
      const shop = newShop();
      const answer = await get(launch(shop));
      expect(answer.statusCode, answer.body).toBe(status);
      expect(answer.json()).toMatchObject({ error, message: expect.stringMatching(message) });
      expect(answer.headers.location).toBeUndefined();
      expect(await rows('shopify_oauth_states_taken', shop)).toEqual([]);
      expect(await rows('shopify_home_sessions', shop)).toEqual([]);
    });

    it('says so in words to a browser that opens a forged launch', async () => {
      const shop = newShop();
      const answer = await get(signedLaunch(shop, { secret: 'not-the-app-secret-0123456789abcd' }), '', { accept: 'text/html' });
      expect(answer.statusCode).toBe(401);
      expect(answer.headers['content-type']).toMatch(/text\/html/);
      expect(answer.body).toContain('Open the app from your Shopify admin');
      expect(await rows('shopify_oauth_states_taken', shop)).toEqual([]);
    });

    it('takes every parameter Shopify signed, those it adds beyond shop, host and timestamp too', async () => {
      const shop = newShop();
      const answer = await get(signedLaunch(shop, { extra: { embedded: '0', locale: 'en' } }));
      expect(answer.statusCode, answer.body).toBe(302);
    });

    it('sends a store without the app to Shopify’s authorization at once, the state bound to this browser', async () => {
      const shop = newShop();
      const answer = await get(pathOf(standIn.appLaunchUrl(shop, APP_URL)));
      expect(answer.statusCode, answer.body).toBe(302);
      const authorize = new URL(String(answer.headers.location));
      expect(`${authorize.origin}${authorize.pathname}`).toBe(`https://${shop}/admin/oauth/authorize`);
      expect(authorize.searchParams.get('client_id')).toBe(standIn.app.apiKey);
      expect(authorize.searchParams.get('redirect_uri')).toBe(`${BASE_URL}/commerce/shopify/callback`);
      // The install and where it returns ride in this browser's cookies; nothing is written until Shopify's callback.
      expect(answer.cookies.map((cookie) => cookie.name)).toEqual(expect.arrayContaining(['shopify_app_state', INSTALL_COOKIE]));
      expect(await rows('shopify_oauth_states_taken', shop)).toEqual([]);
    });

    it('installs, opens the home’s session in the browser the callback came back to, and shows the plan to approve', async () => {
      const shop = newShop();
      const { back, cookie } = await launchThroughOAuth(shop);
      expect(back.statusCode, back.body).toBe(303);
      expect(back.headers.location).toBe(`/commerce/shopify/home?shop=${shop}`);
      const session = back.cookies.find((set) => set.name === HOME_COOKIE)!;
      expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', secure: true, path: '/' });
      const [row] = await rows('shopify_home_sessions', shop);
      // Kept by its hash only, for an hour.
      expect(row!.session_hash).not.toContain(session.value);
      expect(row!.expires_at.getTime() - row!.created_at.getTime()).toBe(60 * 60_000);
      const { page } = await home(shop, cookie);
      expect(page.body).toContain('Approve the plan at Shopify');
      expect(page.body).toContain('percent of each new customer');
    });

    it('sends an installed store’s launch without this browser’s session through OAuth, which Shopify answers without a page', async () => {
      const shop = newShop();
      await launchThroughOAuth(shop);
      const otherBrowser = await get(pathOf(standIn.appLaunchUrl(shop, APP_URL)));
      expect(otherBrowser.statusCode).toBe(302);
      expect(new URL(String(otherBrowser.headers.location)).pathname).toBe('/admin/oauth/authorize');
      expect((await standIn.fetch(String(otherBrowser.headers.location))).status).toBe(302);
      // Its home without the session: OAuth too, never the store's stage.
      const homeWithout = await get(`/commerce/shopify/home?shop=${shop}`);
      expect(homeWithout.statusCode).toBe(302);
      expect(new URL(String(homeWithout.headers.location)).hostname).toBe(shop);
      // Launched again in the browser that holds the session: straight to the home.
      const { cookie } = await launchThroughOAuth(shop);
      const again = await get(pathOf(standIn.appLaunchUrl(shop, APP_URL)), cookie);
      expect(again.statusCode).toBe(303);
      expect(again.headers.location).toBe(`/commerce/shopify/home?shop=${shop}`);
    });

    it('refuses the plan without the CSRF token, from another site, or without this store’s session: Shopify is not asked', async () => {
      const shop = newShop();
      const other = newShop();
      const { cookie: launched } = await launchThroughOAuth(shop);
      const { cookie, fields } = await home(shop, launched);
      const { cookie: otherCookie } = await launchThroughOAuth(other);
      const calls = standIn.apiUsage(shop).adminApiCalls;

      const noToken = await post('/commerce/shopify/home/plan', cookie, { shop });
      expect(noToken.statusCode).toBe(403);
      expect(noToken.body).toContain('This form has expired');
      const wrongToken = await post('/commerce/shopify/home/plan', cookie, { ...fields, csrf_token: 'x'.repeat(32) });
      expect(wrongToken.statusCode).toBe(403);
      const crossSite = await post('/commerce/shopify/home/plan', cookie, fields, { origin: 'https://evil.example' });
      expect(crossSite.statusCode).toBe(403);
      expect(crossSite.json()).toMatchObject({ error: 'forbidden' });
      // The session of another store, with a valid CSRF pair, does not act for this one.
      const { fields: otherFields, cookie: otherPageCookie } = await home(other, otherCookie);
      const elsewhere = await post('/commerce/shopify/home/plan', otherPageCookie, { ...otherFields, shop });
      expect(elsewhere.statusCode).toBe(403);
      expect(elsewhere.body).toContain('not signed in for this store');

      expect(standIn.apiUsage(shop).adminApiCalls).toBe(calls);
      const row = await use().db.selectFrom('shopify_shops').select('pending_subscription_id').where('shop', '=', shop).executeTakeFirst();
      expect(row?.pending_subscription_id).toBeNull();
    });

    it('goes live from the home: the plan approved at Shopify, setup, consent; a consent without the token changes nothing', async () => {
      const shop = newShop();
      const { cookie: launched } = await launchThroughOAuth(shop);
      let { cookie, fields } = await home(shop, launched);

      const plan = await post('/commerce/shopify/home/plan', cookie, fields);
      expect(plan.statusCode, plan.body).toBe(303);
      const confirmation = String(plan.headers.location);
      expect(new URL(confirmation).hostname).toBe(shop);
      const charge = await standIn.fetch(confirmation);
      const approved = await standIn.fetch(confirmation, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...formFields(await charge.text()), decision: 'approve' }),
      });
      const planReturn = await get(pathOf(approved.headers.get('location')!), cookie);
      expect(planReturn.statusCode).toBe(303);
      expect(planReturn.headers.location).toBe(`/commerce/shopify/home?shop=${shop}&done=plan`);
      expect((await get(String(planReturn.headers.location), cookie)).body).toContain('The plan is approved at Shopify.');

      await expect.poll(async () => (await home(shop, cookie)).page.body, { timeout: 30_000 }).toContain('Turn on cross-promotion');
      ({ cookie, fields } = await home(shop, cookie));

      const forged = await post('/commerce/shopify/home/consent', cookie, { shop, discountPercent: '15' });
      expect(forged.statusCode).toBe(403);
      const unchosen = await post('/commerce/shopify/home/consent', cookie, { ...fields, discountPercent: '12' });
      expect(unchosen.statusCode).toBe(400);
      expect(unchosen.body).toContain('Choose 10, 15, 20 or 25% off');
      const none = await post('/commerce/shopify/home/consent', cookie, fields);
      expect(none.statusCode).toBe(400);
      expect(discounts(shop)).toBe(0);

      const consent = await post('/commerce/shopify/home/consent', cookie, { ...fields, discountPercent: '15' });
      expect(consent.statusCode, consent.body).toBe(303);
      expect(consent.headers.location).toBe(`/commerce/shopify/home?shop=${shop}&done=consented`);
      const live = await get(String(consent.headers.location), cookie);
      expect(live.body).toContain('Cross-promotion is on');
      expect(live.body).toContain('You are live');
      expect([...standIn.shop(shop).discounts.values()].map((discount) => discount.percentage)).toEqual([0.15]);
      // Once live, consent again changes nothing and says why.
      const twice = await post('/commerce/shopify/home/consent', cookie, { ...fields, discountPercent: '20' });
      expect(twice.statusCode).toBe(303);
      expect(discounts(shop)).toBe(1);

      // The merchant closed the campaign: the home offers to turn it back on, with the same checks.
      await use().runtime.onboarding.turnOff(shop);
      ({ cookie, fields } = await home(shop, cookie));
      expect((await home(shop, cookie)).page.body).toContain('Turn cross-promotion back on');
      expect((await post('/commerce/shopify/home/turn-on', cookie, { shop })).statusCode).toBe(403);
      expect((await home(shop, cookie)).page.body).toContain('Cross-promotion is off');
      const turnedOn = await post('/commerce/shopify/home/turn-on', cookie, fields);
      expect(turnedOn.headers.location).toBe(`/commerce/shopify/home?shop=${shop}&done=turned_on`);
      expect((await get(String(turnedOn.headers.location), cookie)).body).toContain('Cross-promotion is on');
      const notOff = await post('/commerce/shopify/home/turn-on', cookie, fields);
      expect(notOff.statusCode).toBe(409);
      expect(notOff.body).toContain('Your store is at another step');
    });

    it('forgets the store’s sessions when it leaves', async () => {
      const shop = newShop();
      const { cookie } = await launchThroughOAuth(shop);
      await standIn.uninstall(shop);
      await expect.poll(async () => (await rows('shopify_home_sessions', shop)).length, { timeout: 30_000 }).toBe(0);
      const after = await get(`/commerce/shopify/home?shop=${shop}`, cookie);
      expect(after.statusCode).toBe(302);
    });
  },
  ENV,
);
