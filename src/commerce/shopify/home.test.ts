import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../../../test/support/harness.js';
import { uniqueId } from '../../../test/support/factories.js';
import { followCallback, installToCallback, shopifyEnv, standInFor } from '../../../test/support/shopify.js';
import { BROWSER_USER_AGENT, formFields } from '../../../test/shopify-standin/example-app.js';
import { hostParameter, signQuery } from '../../../test/shopify-standin/oauth.js';
import { ShopifyStandIn } from '../../../test/shopify-standin/stand-in.js';
import { WEBHOOK_TOPICS } from './adapter.js';
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
const SCOPES = ['read_products', 'read_orders', 'write_discounts'];
const RETRY = 'x-shopify-retry-invalid-session-request';

/**
 * The app home embedded in the Shopify admin (issue 45), by its routes: the admin's launch with the
 * staff member's session token (`id_token`), verified with the library; managed installation by
 * token exchange, once; the bounce page for a missing or stale token; the frame only for the admin
 * and the store; and the home's actions as fetches with `Authorization: Bearer`, each refused with
 * Shopify's retry answer when the token is missing or bad, nothing written.
 */
describeEachDatabase(
  'Shopify app home embedded in the admin: session tokens, token exchange, framing, actions',
  (use) => {
    let standIn: ShopifyStandIn;
    /** A store whose staff installed the app from the listing: Shopify installed it (managed install); the service has no token yet. */
    const installedAtShopify = () => {
      const shop = standIn.createShop({
        name: uniqueId('embedded')
          .toLowerCase()
          .replace(/[^a-z0-9-]/g, '-'),
        products: 6,
        orders: 20,
      }).domain;
      standIn.installApp(shop, SCOPES);
      return shop;
    };
    const withoutTheApp = () =>
      standIn.createShop({
        name: uniqueId('no-app')
          .toLowerCase()
          .replace(/[^a-z0-9-]/g, '-'),
      }).domain;
    const get = (url: string, headers: Record<string, string> = {}) =>
      use().app.inject({ method: 'GET', url, headers: { 'user-agent': BROWSER_USER_AGENT, ...headers } });
    const act = (action: string, body: Record<string, unknown>, token?: string) =>
      use().app.inject({
        method: 'POST',
        url: `/commerce/shopify/home/${action}`,
        headers: { 'content-type': 'application/json', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
        payload: JSON.stringify(body),
      });
    /** The admin's frame loading the App URL, as Shopify builds it: embedded, signed, with a session token. */
    const embeddedLaunch = (shop: string, idToken: string | null = standIn.sessionToken(shop), extra: Record<string, string> = {}) => {
      const params: Record<string, string> = {
        embedded: '1',
        host: hostParameter(shop),
        ...(idToken === null ? {} : { id_token: idToken }),
        locale: 'en',
        session: 'a'.repeat(64),
        shop,
        timestamp: String(Math.floor(Date.now() / 1000)),
        ...extra,
      };
      return `/commerce/shopify/app?${new URLSearchParams({ ...params, hmac: signQuery(standIn.app.apiSecret, params) }).toString()}`;
    };
    /** A launch outside the admin (Shopify's review, an old link), signed at `timestamp` seconds with the app's secret or another. */
    const signedLaunch = (shop: string, options: { timestamp?: number; secret?: string } = {}) => {
      const params: Record<string, string> = {
        host: hostParameter(shop),
        shop,
        timestamp: String(options.timestamp ?? Math.floor(Date.now() / 1000)),
      };
      const hmac = signQuery(options.secret ?? standIn.app.apiSecret, params);
      return `/commerce/shopify/app?${new URLSearchParams({ ...params, hmac }).toString()}`;
    };
    const shopRow = (shop: string) => use().db.selectFrom('shopify_shops').selectAll().where('shop', '=', shop).executeTakeFirst();
    const exchanges = (shop: string) => standIn.tokenRequests(shop).filter((request) => request.grant === 'token_exchange');
    // An install in flight rides in its browser's cookies: the only row an OAuth round writes is a verified callback's state.
    const oauthRequests = (shop: string) =>
      use().db.selectFrom('shopify_oauth_states_taken').selectAll().where('shop', '=', shop).execute();
    const discounts = (shop: string) => standIn.shop(shop).discounts.size;
    const view = async (shop: string) => {
      const page = await get(`/commerce/shopify/home?shop=${shop}`, { authorization: `Bearer ${standIn.sessionToken(shop)}` });
      expect(page.statusCode, page.body).toBe(200);
      return page.body;
    };
    /** Every way a session token is bad, for `shop`: each must get Shopify's retry answer. */
    const badTokens = (shop: string): Array<[string, string]> => {
      const other = installedAtShopify();
      return [
        ['expired', standIn.sessionToken(shop, { expired: true })],
        ['signed with another secret', standIn.sessionToken(shop, { secret: 'not-the-app-secret-0123456789abcd' })],
        ['for another app', standIn.sessionToken(shop, { audience: 'another-app-api-key' })],
        ['for another store', standIn.sessionToken(other)],
        ['not a JWT', 'not.a.jwt'],
      ];
    };

    beforeAll(() => {
      standIn = standInFor(BASE_URL, () => use().app);
    });

    it('installs a store Shopify installed the app on by exchanging the first load’s session token, once', async () => {
      const shop = installedAtShopify();
      const page = await get(embeddedLaunch(shop));
      expect(page.statusCode, page.body).toBe(200);
      expect(page.body).toContain('Step 1 of 3: approve the plan');
      expect(exchanges(shop)).toHaveLength(1);
      const row = await shopRow(shop);
      // An expiring offline token, encrypted, as the OAuth callback stores it.
      expect(row?.access_token_encrypted).toBeTruthy();
      expect(row?.refresh_token_encrypted).toBeTruthy();
      expect(row?.access_token_expires_at).not.toBeNull();
      expect(row?.scopes).toBe(SCOPES.join(','));
      // The callback's own steps: the webhooks subscribed.
      const subscribed = [...standIn.shop(shop).webhookSubscriptions.values()].map((subscription) => subscription.topic);
      expect(new Set(subscribed)).toEqual(new Set(WEBHOOK_TOPICS));
      // The next loads use the stored token: Shopify is not asked again.
      expect((await get(embeddedLaunch(shop))).statusCode).toBe(200);
      expect((await get(`/commerce/shopify/app?shop=${shop}&embedded=1&id_token=${standIn.sessionToken(shop)}`)).statusCode).toBe(200);
      expect(exchanges(shop)).toHaveLength(1);
      expect(await oauthRequests(shop)).toEqual([]);
    });

    it('exchanges once when the first loads come together', async () => {
      const shop = installedAtShopify();
      const loads = await Promise.all([1, 2, 3, 4].map(() => get(embeddedLaunch(shop))));
      expect(loads.map((load) => load.statusCode)).toEqual([200, 200, 200, 200]);
      expect(exchanges(shop)).toHaveLength(1);
    });

    it('exchanges the bearer token of a fetch too, when the store has no token yet', async () => {
      const shop = installedAtShopify();
      expect(await view(shop)).toContain('Step 1 of 3: approve the plan');
      expect(exchanges(shop)).toHaveLength(1);
    });

    it('frames the home only in the admin and the store’s own admin domain; other pages refuse every frame', async () => {
      const shop = installedAtShopify();
      const page = await get(embeddedLaunch(shop));
      expect(page.headers['content-security-policy']).toContain(`frame-ancestors https://admin.shopify.com https://${shop}`);
      expect(page.headers['x-frame-options']).toBeUndefined();
      // App Bridge from Shopify's CDN as the first script, with the app's client id before it.
      const head = page.body.slice(0, page.body.indexOf('</head>'));
      expect(head).toMatch(
        new RegExp(
          `<meta name="shopify-api-key" content="${standIn.app.apiKey}"/><script src="https://cdn.shopify.com/shopifycloud/app-bridge.js">`,
        ),
      );
      expect(head.match(/<script[^>]*>/g)?.[0]).toBe('<script src="https://cdn.shopify.com/shopifycloud/app-bridge.js">');
      expect(page.body).toContain('<ui-nav-menu>');
      expect(page.body).toContain('<ui-title-bar');
      expect(page.headers['content-security-policy']).toContain("script-src 'self' https://cdn.shopify.com");
      // The same store's page never names another store as a framer.
      const other = installedAtShopify();
      expect((await get(embeddedLaunch(other))).headers['content-security-policy']).not.toContain(shop);
      // A page of the service that is not the embedded home keeps refusing frames.
      const refusal = await get(signedLaunch(shop, { secret: 'not-the-app-secret-0123456789abcd' }), { accept: 'text/html' });
      expect(refusal.headers['x-frame-options']).toBe('DENY');
      expect(refusal.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    });

    it('sends a load without a session token, or with a bad one, to the bounce page: nothing exchanged or written', async () => {
      const shop = installedAtShopify();
      const loads: Array<[string, string]> = [
        ['without id_token', embeddedLaunch(shop, null)],
        ...badTokens(shop).map(([name, token]): [string, string] => [
          name,
          `/commerce/shopify/app?shop=${shop}&embedded=1&id_token=${token}`,
        ]),
      ];
      for (const [name, url] of loads) {
        const answer = await get(url);
        expect(answer.statusCode, name).toBe(302);
        const bounce = new URL(String(answer.headers.location), BASE_URL);
        expect(bounce.pathname, name).toBe('/commerce/shopify/session-token-bounce');
        const reload = new URL(bounce.searchParams.get('shopify-reload')!);
        expect(`${reload.origin}${reload.pathname}`).toBe(APP_URL);
        expect(reload.searchParams.get('shop')).toBe(shop);
        // The spent token is not carried on: App Bridge adds a fresh one.
        expect(reload.searchParams.has('id_token')).toBe(false);
      }
      expect(exchanges(shop)).toEqual([]);
      expect(await shopRow(shop)).toBeUndefined();
      expect(await oauthRequests(shop)).toEqual([]);
    });

    it('bounces when Shopify refuses the exchange (invalid_subject_token): nothing written', async () => {
      // A session token the service verifies, for a store Shopify has no installation of: Shopify refuses to exchange it.
      const shop = withoutTheApp();
      const answer = await get(embeddedLaunch(shop));
      expect(answer.statusCode, answer.body).toBe(302);
      expect(new URL(String(answer.headers.location), BASE_URL).pathname).toBe('/commerce/shopify/session-token-bounce');
      expect(exchanges(shop).map((request) => request.status)).toEqual([400]);
      expect(await shopRow(shop)).toBeUndefined();
      // As a fetch: Shopify's 401 with the retry header.
      const fetched = await act('plan', { shop }, standIn.sessionToken(shop));
      expect(fetched.statusCode).toBe(401);
      expect(fetched.headers[RETRY]).toBe('1');
      expect(await shopRow(shop)).toBeUndefined();
    });

    it('serves the bounce page with App Bridge, framed by the admin, reloading only the App URL', async () => {
      const shop = installedAtShopify();
      const answer = await get(String((await get(embeddedLaunch(shop, null))).headers.location));
      expect(answer.statusCode).toBe(200);
      expect(answer.body).toContain(`<meta name="shopify-api-key" content="${standIn.app.apiKey}"/>`);
      expect(answer.body).toContain('<script src="https://cdn.shopify.com/shopifycloud/app-bridge.js">');
      expect(answer.headers['content-security-policy']).toContain(`frame-ancestors https://admin.shopify.com https://${shop}`);
      expect(answer.headers['x-frame-options']).toBeUndefined();
      const elsewhere = new URLSearchParams({ shop, 'shopify-reload': 'https://evil.example/commerce/shopify/app?shop=x' });
      const refused = await get(`/commerce/shopify/session-token-bounce?${elsewhere.toString()}`);
      expect(refused.statusCode).toBe(400);
    });

    it.each([
      ['without an hmac', (shop: string) => `/commerce/shopify/app?shop=${shop}`, 400, 'invalid_request', /hmac is required/],
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
    ])('refuses a launch outside the admin %s, nothing started or written', async (_case, launch, status, error, message) => {
      const shop = withoutTheApp();
      const answer = await get(launch(shop));
      expect(answer.statusCode, answer.body).toBe(status);
      expect(answer.json()).toMatchObject({ error, message: expect.stringMatching(message) });
      expect(answer.headers.location).toBeUndefined();
      expect(await oauthRequests(shop)).toEqual([]);
    });

    it('refuses an embedded launch whose hmac does not verify, with a valid session token: nothing exchanged', async () => {
      const shop = installedAtShopify();
      const forged = `${embeddedLaunch(shop)}&locale=fr`;
      expect((await get(forged)).statusCode).toBe(401);
      expect(exchanges(shop)).toEqual([]);
    });

    it('sends a store without the app, opened outside the admin, to Shopify’s authorization at once, and back into the admin', async () => {
      const shop = withoutTheApp();
      const answer = await get(signedLaunch(shop));
      expect(answer.statusCode, answer.body).toBe(302);
      const authorize = new URL(String(answer.headers.location));
      expect(`${authorize.origin}${authorize.pathname}`).toBe(`https://${shop}/admin/oauth/authorize`);
      expect(answer.cookies.map((set) => set.name)).toEqual(expect.arrayContaining(['shopify_app_state', INSTALL_COOKIE]));
      expect(await oauthRequests(shop)).toEqual([]);
      const { callback, cookie } = await installToCallback(use().app, standIn, signedLaunch(shop));
      const back = await followCallback(use().app, callback, cookie);
      expect(back.statusCode, back.body).toBe(303);
      expect(back.headers.location).toBe(`/commerce/shopify/open?shop=${shop}`);
      expect(back.cookies.map((set) => set.name)).not.toContain('svc_shopify_home');
      const open = await get(String(back.headers.location));
      expect(open.headers.location).toBe(`https://admin.shopify.com/store/${shop.split('.')[0]}/apps/${standIn.app.apiKey}`);
      // Installed, a launch outside the admin goes into it.
      const again = await get(signedLaunch(shop));
      expect(again.statusCode).toBe(303);
      expect(again.headers.location).toBe(open.headers.location);
    });

    it('refuses every action without a session token or with a bad one: 401 with Shopify’s retry header, nothing written', async () => {
      const shop = installedAtShopify();
      await get(embeddedLaunch(shop));
      const calls = standIn.apiUsage(shop).adminApiCalls;
      const attempts: Array<[string, string | undefined]> = [['no token', undefined], ...badTokens(shop)];
      for (const action of ['plan', 'consent', 'turn-on']) {
        for (const [name, token] of attempts) {
          const answer = await act(action, { shop, discountPercent: 15 }, token);
          expect(answer.statusCode, `${action} ${name}`).toBe(401);
          expect(answer.headers[RETRY], `${action} ${name}`).toBe('1');
          expect(answer.json()).toMatchObject({ error: 'unauthorized' });
        }
      }
      // The page's own view too.
      const viewed = await get(`/commerce/shopify/home?shop=${shop}`, {
        authorization: `Bearer ${standIn.sessionToken(shop, { expired: true })}`,
      });
      expect(viewed.statusCode).toBe(401);
      expect(viewed.headers[RETRY]).toBe('1');
      // A token of this store for a request naming another store.
      const other = installedAtShopify();
      const crossed = await act('plan', { shop: other }, standIn.sessionToken(shop));
      expect(crossed.statusCode).toBe(401);
      expect(crossed.headers[RETRY]).toBe('1');
      expect(standIn.apiUsage(shop).adminApiCalls).toBe(calls);
      expect((await shopRow(shop))?.pending_subscription_id).toBeNull();
      expect(await shopRow(other)).toBeUndefined();
      expect(discounts(shop)).toBe(0);
    });

    it('goes live from the embedded home: the plan at Shopify, setup, consent with a discount, turned off and on again', async () => {
      const shop = installedAtShopify();
      await get(embeddedLaunch(shop));
      const token = () => standIn.sessionToken(shop);

      const plan = await act('plan', { shop }, token());
      expect(plan.statusCode, plan.body).toBe(200);
      const confirmation = String(plan.json().confirmationUrl);
      expect(new URL(confirmation).hostname).toBe(shop);
      const charge = await standIn.fetch(confirmation);
      const approved = await standIn.fetch(confirmation, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...formFields(await charge.text()), decision: 'approve' }),
      });
      // Back from Shopify's page straight into the admin, which opens the App URL with `done=plan`.
      const intoAdmin = new URL(approved.headers.get('location')!);
      expect(`${intoAdmin.origin}${intoAdmin.pathname}`).toBe(
        `https://admin.shopify.com/store/${shop.split('.')[0]}/apps/${standIn.app.apiKey}`,
      );
      expect(intoAdmin.searchParams.get('done')).toBe('plan');
      expect((await get(embeddedLaunch(shop, token(), { done: 'plan' }))).body).toContain('The plan is approved at Shopify.');
      // Approved already: the button answers so, and Shopify is not asked for another subscription.
      expect((await act('plan', { shop }, token())).json()).toEqual({ done: 'plan' });

      await expect.poll(() => view(shop), { timeout: 30_000 }).toContain('Turn on cross-promotion');

      const unchosen = await act('consent', { shop, discountPercent: 12 }, token());
      expect(unchosen.statusCode).toBe(400);
      expect(unchosen.json().message).toContain('Choose 10, 15, 20 or 25% off');
      const none = await act('consent', { shop }, token());
      expect(none.statusCode).toBe(400);
      expect(discounts(shop)).toBe(0);

      const consent = await act('consent', { shop, discountPercent: 15 }, token());
      expect(consent.statusCode, consent.body).toBe(200);
      expect(consent.json()).toEqual({ done: 'consented' });
      const live = await get(`/commerce/shopify/home?shop=${shop}&done=consented`, { authorization: `Bearer ${token()}` });
      expect(live.body).toContain('Cross-promotion is on');
      expect(live.body).toContain('You are live');
      expect([...standIn.shop(shop).discounts.values()].map((discount) => discount.percentage)).toEqual([0.15]);
      // Once live, consent again changes nothing.
      const twice = await act('consent', { shop, discountPercent: 20 }, token());
      expect(twice.statusCode).toBe(200);
      expect(discounts(shop)).toBe(1);

      await use().runtime.onboarding.turnOff(shop);
      expect(await view(shop)).toContain('Turn cross-promotion back on');
      const turnedOn = await act('turn-on', { shop }, token());
      expect(turnedOn.json()).toEqual({ done: 'turned_on' });
      expect(await view(shop)).toContain('You are live');
      const notOff = await act('turn-on', { shop }, token());
      expect(notOff.statusCode).toBe(409);
      expect(notOff.json().message).toContain('Your store is not waiting for this any more');
    });

    it('exchanges again for a store that left and came back through the admin', async () => {
      const shop = installedAtShopify();
      await get(embeddedLaunch(shop));
      await standIn.uninstall(shop);
      await expect.poll(async () => (await shopRow(shop))?.access_token_encrypted ?? null, { timeout: 30_000 }).toBeNull();
      standIn.installApp(shop, SCOPES);
      const back = await get(embeddedLaunch(shop));
      expect(back.statusCode, back.body).toBe(200);
      expect(exchanges(shop)).toHaveLength(2);
      expect((await shopRow(shop))?.uninstalled_at).toBeNull();
    });
  },
  ENV,
);
