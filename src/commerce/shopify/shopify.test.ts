import crypto from 'node:crypto';
import { setAbstractFetchFunc } from '@shopify/shopify-api/runtime';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../../../test/support/harness.js';
import { tableContents } from '../../../test/support/snapshot.js';
import { createPlatform, uniqueId } from '../../../test/support/factories.js';
import {
  answerPlan,
  answerQuestion,
  asksStaff,
  deliveriesWorkedOff,
  followCallback,
  install,
  installToCallback,
  newChallenge,
  reversalsAt,
  shopifyEnv,
  standInFor,
} from '../../../test/support/shopify.js';
import { BROWSER_USER_AGENT, formFields } from '../../../test/shopify-standin/example-app.js';
import { shopifyCollab } from '../../../test/support/shopify-collab.js';
import { signWebhookBody } from '../../../test/shopify-standin/webhooks.js';
import { ShopifyStandIn } from '../../../test/shopify-standin/stand-in.js';
import { hashSecret } from '../../shared/keys.js';
import { SetupWorker } from '../../embed/setup-worker.js';
import { consentToOffer, importStore } from '../../embed/merchant-stores.js';
import { discountCodeFor } from '../../offers/service.js';
import { WebhookWorker } from './webhooks.js';
import { composeRuntime } from '../../composition.js';
import { requestBounds } from '../../db/database.js';

const BASE_URL = 'https://svc.test';
const ENV = {
  LOG_LEVEL: 'error',
  BASE_URL,
  SETUP_POLL_MS: '20',
  SETUP_RETRY_MS: '50',
  SANDBOX_IMPORT_MS: '0',
  ...shopifyEnv(new ShopifyStandIn()),
};

describeEachDatabase(
  'Shopify: install, plan, webhooks, orders and compliance against the stand-in',
  (use) => {
    let standIn: ShopifyStandIn;
    const newShop = (options: { products?: number; orders?: number } = {}) => {
      const name = uniqueId('shop')
        .toLowerCase()
        .replace(/[^a-z0-9-]/g, '-');
      return standIn.createShop({ name, products: options.products ?? 12, orders: options.orders ?? 40 }).domain;
    };
    const count = async (table: 'shopify_shops' | 'shopify_oauth_states_taken' | 'shopify_webhook_deliveries' | 'shopify_usage_records') =>
      Number(
        (
          await use()
            .db.selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const shopRow = (shop: string) => use().db.selectFrom('shopify_shops').selectAll().where('shop', '=', shop).executeTakeFirst();
    const get = (url: string, headers: Record<string, string> = {}) =>
      use().app.inject({ method: 'GET', url, headers: { 'user-agent': BROWSER_USER_AGENT, ...headers } });
    const settled = (shop: string) => deliveriesWorkedOff(use().db, shop);
    /** A new Shopify collab whose shopper follows the referral and orders goods worth at least `cents`, every delivery worked off. */
    const referredOrderOfAtLeast = async (cents: number) => {
      const { shop, token } = await shopifyCollab(use(), standIn);
      expect((await get(`/r/${token}`)).statusCode).toBe(302);
      const product = standIn.shop(shop).products.find((entry) => entry.status === 'ACTIVE')!;
      const quantity = Math.ceil(cents / product.priceCents);
      const order = await standIn.placeOrder(shop, { lineItems: [{ productId: product.id, quantity }], landingSite: `/?ref=${token}` });
      await settled(shop);
      return { shop, order };
    };

    beforeAll(() => {
      standIn = standInFor(BASE_URL, () => use().app);
      setAbstractFetchFunc(standIn.fetch);
    });

    it('answers 400 in the API error shape for a shop that is not a *.myshopify.com store, writing nothing', async () => {
      for (const shop of ['evil.example', 'acme.myshopify.com.evil.example', 'https://acme.myshopify.com', '-x.myshopify.com']) {
        const response = await get(`/commerce/shopify/install?shop=${encodeURIComponent(shop)}`);
        expect(response.statusCode, shop).toBe(400);
        expect(response.json()).toMatchObject({ error: 'invalid_request', message: expect.stringContaining('myshopify.com') });
      }
      const foreignReturn = await get(`/commerce/shopify/install?shop=${newShop()}&return=${encodeURIComponent('//evil.example/x')}`);
      expect(foreignReturn.statusCode).toBe(400);
      expect(await count('shopify_oauth_states_taken')).toBe(0);
    });

    it('a stranger’s anonymous installs for a shop write nothing and leave the merchant’s own install to complete', async () => {
      const shop = newShop();
      const { callback, cookie } = await installToCallback(use().app, standIn, `/commerce/shopify/install?shop=${shop}`);
      // Meanwhile a stranger opens the shop's install link again and again, from browsers of their own.
      const before = await tableContents(use().db);
      for (let i = 0; i < 15; i += 1) {
        const anonymous = await get(`/commerce/shopify/install?shop=${shop}&challenge=${newChallenge()}`);
        expect(anonymous.statusCode).toBe(302);
      }
      expect(await tableContents(use().db)).toEqual(before);
      const done = await followCallback(use().app, callback, cookie);
      expect(done.statusCode, done.body).toBe(200);
      expect(done.body).toContain('The app is installed');
      expect((await shopRow(shop))?.access_token_encrypted).toMatch(/^v1\./);
    });

    it('a flood of installs from one address neither writes nor slows another merchant’s install or a signed app launch', async () => {
      const before = await tableContents(use().db);
      let limited = false;
      for (let i = 0; i < 700 && !limited; i += 1) {
        const flood = await use().app.inject({
          method: 'GET',
          url: `/commerce/shopify/install?shop=flood-${i}.myshopify.com`,
          headers: { 'user-agent': BROWSER_USER_AGENT },
          remoteAddress: '203.0.113.66',
        });
        limited = flood.statusCode === 429;
        if (!limited) expect(flood.statusCode).toBe(302);
      }
      // The flooding address meets its own limit; nothing it sent is kept.
      expect(limited).toBe(true);
      expect(await tableContents(use().db)).toEqual(before);
      const launched = newShop();
      const launch = new URL(standIn.appLaunchUrl(launched, `${BASE_URL}/commerce/shopify/app`));
      const answer = await get(`${launch.pathname}${launch.search}`);
      expect(answer.statusCode, answer.body).toBe(302);
      expect(new URL(String(answer.headers.location)).hostname).toBe(launched);
      const merchant = newShop();
      expect((await install(use().app, standIn, `/commerce/shopify/install?shop=${merchant}`)).statusCode).toBe(200);
      expect((await shopRow(merchant))?.access_token_encrypted).toMatch(/^v1\./);
    });

    it('a signed callback refused in another browser is spent: the browser that started the install replays it, gets nothing', async () => {
      const shop = newShop();
      const challenge = newChallenge();
      // Someone else's browser starts the install and walks the merchant, signed in at Shopify, to its authorization.
      const { callback, cookie: starter } = await installToCallback(
        use().app,
        standIn,
        `/commerce/shopify/install?shop=${shop}&challenge=${challenge}`,
      );
      const merchant = await get(`${callback.pathname}${callback.search}`, { accept: 'text/html' });
      expect(merchant.statusCode).toBe(400);
      // The leaked callback, replayed by the browser that holds the install's cookies: its state was spent by the refusal.
      const replay = await followCallback(use().app, callback, starter);
      expect(replay.statusCode).toBe(400);
      expect(replay.json()).toMatchObject({ error: 'invalid_callback' });
      expect(asksStaff(replay)).toBe(false);
      expect(await shopRow(shop)).toBeUndefined();
      const questions = await use().db.selectFrom('shopify_confirmation_requests').select('shop').where('shop', '=', shop).execute();
      expect(questions).toEqual([]);
      expect(await use().db.selectFrom('merchant_confirmations').select('domain').where('challenge', '=', challenge).execute()).toEqual([]);
      // The merchant was told in words, and can start their own install from there.
      expect(merchant.body).toContain('Start the install again');
    });

    it('a state cookie that ran out while the merchant signed in at Shopify: a page that starts the same install again', async () => {
      const shop = newShop();
      const challenge = newChallenge();
      const path = `/commerce/shopify/install?shop=${shop}&challenge=${challenge}`;
      const { callback, cookie } = await installToCallback(use().app, standIn, path);
      // The library's state cookie lives 60 s; signing in at Shopify took longer.
      const expired = cookie
        .split('; ')
        .filter((pair) => !pair.startsWith('shopify_app_state'))
        .join('; ');
      const page = await get(`${callback.pathname}${callback.search}`, { cookie: expired, accept: 'text/html' });
      expect(page.statusCode).toBe(400);
      expect(page.headers['content-type']).toMatch(/text\/html/);
      expect(page.body).toContain('Start the install again');
      expect(page.body).toContain('Nothing was installed');
      const again = /href="([^"]*commerce\/shopify\/install[^"]*)"/.exec(page.body)![1]!.replaceAll('&amp;', '&');
      expect(Object.fromEntries(new URL(again, BASE_URL).searchParams)).toEqual({ shop, challenge });
      expect(await shopRow(shop)).toBeUndefined();
      // An API client gets the error shape.
      const api = await followCallback(use().app, callback, expired);
      expect(api.statusCode).toBe(400);
      expect(api.json()).toMatchObject({ error: 'invalid_callback' });
      // The link starts the install again, and it goes through.
      const restarted = await installToCallback(use().app, standIn, again);
      const question = await followCallback(use().app, restarted.callback, restarted.cookie);
      expect(asksStaff(question), question.body).toBe(true);
    });

    it('installs through OAuth: the token stored encrypted, webhooks subscribed, the plugin confirmed; a replay is refused', async () => {
      const shop = newShop();
      const secret = crypto.randomBytes(16).toString('hex');
      const challenge = hashSecret(secret);
      const { callback, cookie } = await installToCallback(
        use().app,
        standIn,
        `/commerce/shopify/install?shop=${shop}&challenge=${challenge}`,
      );
      expect(Object.fromEntries(callback.searchParams)).toMatchObject({ shop });
      // The callback installs and asks; only the staff's answer, a form of that page, confirms the plugin.
      const question = await followCallback(use().app, callback, cookie);
      expect(asksStaff(question), question.body).toBe(true);
      expect(question.body).toContain('asks to turn on cross-promotion for this store');
      const confirmations = () => use().db.selectFrom('merchant_confirmations').selectAll().where('challenge', '=', challenge).execute();
      expect(await confirmations()).toEqual([]);
      const done = await answerQuestion(use().app, question, cookie);
      expect(done.statusCode, done.body).toBe(200);
      expect(done.body).toContain('The app is installed');

      const row = (await shopRow(shop))!;
      const [token] = [...standIn.shop(shop).installation.tokens];
      expect(row.access_token_encrypted).toMatch(/^v1\./);
      expect(row.access_token_encrypted).not.toContain(token!);
      expect(row.scopes).toBe('read_products,read_orders,write_discounts');
      const status = await use().runtime.commerce.forStore(shop).status(shop);
      expect(status).toEqual({ installation: 'installed', planApproved: false, billingApprovalWaits: false });
      const subscribed = [...standIn.shop(shop).webhookSubscriptions.values()].map((subscription) => subscription.topic).sort();
      expect(subscribed).toEqual([
        'APP_SUBSCRIPTIONS_APPROACHING_CAPPED_AMOUNT',
        'APP_SUBSCRIPTIONS_UPDATE',
        'APP_UNINSTALLED',
        'ORDERS_CANCELLED',
        'ORDERS_CREATE',
        'ORDERS_PAID',
        'REFUNDS_CREATE',
      ]);
      expect((await confirmations()).map((entry) => entry.domain)).toEqual([shop]);
      // The same answer again: the question was taken, nothing more is written.
      const again = await answerQuestion(use().app, question, cookie);
      expect(again.statusCode).toBe(400);
      expect(await confirmations()).toHaveLength(1);

      // The same callback again (the code and the state spent): refused, the stored token untouched.
      const replay = await followCallback(use().app, callback, cookie);
      expect(replay.statusCode).toBe(400);
      expect(replay.json()).toMatchObject({ error: 'invalid_callback' });
      expect((await shopRow(shop))!.access_token_encrypted).toBe(row.access_token_encrypted);
    });

    it('refuses a forged callback, one for another shop and one this service never started, writing nothing', async () => {
      const shop = newShop();
      const { callback, cookie } = await installToCallback(use().app, standIn, `/commerce/shopify/install?shop=${shop}`);
      const forged = new URL(callback);
      forged.searchParams.set('hmac', 'f'.repeat(64));
      const otherShop = new URL(callback);
      otherShop.searchParams.set('shop', newShop());
      const unknownState = new URL(callback);
      unknownState.searchParams.set('state', 'never-started-here');
      const before = await count('shopify_shops');
      for (const url of [forged, otherShop, unknownState]) {
        const response = await followCallback(use().app, url, cookie);
        expect(response.statusCode, url.toString()).toBe(400);
        expect(response.json()).toMatchObject({ error: 'invalid_callback' });
      }
      // Without the browser's state cookie: the state is not this browser's.
      const noCookie = await followCallback(use().app, callback, '');
      expect(noCookie.statusCode).toBe(400);
      expect(await count('shopify_shops')).toBe(before);
      expect(await shopRow(shop)).toBeUndefined();
    });

    it('plan: a usage subscription with a capped amount, approved on Shopify’s page and read back from the installation', async () => {
      const shop = newShop();
      const challenge = newChallenge();
      await install(use().app, standIn, `/commerce/shopify/install?shop=${shop}&challenge=${challenge}`);
      const declined = await answerPlan(use().app, standIn, `/commerce/shopify/plan?shop=${shop}&challenge=${challenge}`, 'decline');
      expect(declined.statusCode).toBe(200);
      expect(declined.body).toContain('The plan was not approved');
      expect((await use().runtime.commerce.forStore(shop).status(shop)).planApproved).toBe(false);

      const approved = await answerPlan(
        use().app,
        standIn,
        `/commerce/shopify/plan?shop=${shop}&challenge=${challenge}&return=${encodeURIComponent('/dashboard')}`,
      );
      expect(approved.statusCode).toBe(303);
      expect(approved.headers.location).toBe('/dashboard');
      const row = (await shopRow(shop))!;
      expect(row.subscription_status).toBe('ACTIVE');
      expect(row.usage_currency).toBe('USD');
      expect(row.plan_approved_at).not.toBeNull();
      expect(row.pending_subscription_id).toBeNull();
      const subscription = standIn.shop(shop).subscriptions.find((entry) => entry.status === 'ACTIVE')!;
      expect(subscription.lineItems[0]!.pricing).toMatchObject({ kind: 'usage', cappedAmountCents: 50_000, currency: 'USD' });
      // Approved: the setup job was queued by the plan_approved event.
      const job = await use().db.selectFrom('setup_jobs').select('domain').where('domain', '=', shop).executeTakeFirst();
      expect(job?.domain).toBe(shop);
    });

    it('plan return: a stranger’s returns ask Shopify nothing; the return from the charge page reads the plan back once', async () => {
      const shop = newShop();
      const challenge = newChallenge();
      await install(use().app, standIn, `/commerce/shopify/install?shop=${shop}&challenge=${challenge}`);
      const calls = () => standIn.apiUsage(shop).adminApiCalls;
      const strangerReturns = async (expected: string) => {
        const before = calls();
        for (const chargeId of [undefined, '1', '999999999', 'gid://shopify/AppSubscription/1', '1'.repeat(30)]) {
          const query = new URLSearchParams({ shop, ...(chargeId ? { charge_id: chargeId } : {}) });
          const answer = await get(`/commerce/shopify/plan/return?${query.toString()}`);
          expect(answer.statusCode, answer.body).toBe(200);
          expect(answer.body).toContain(expected);
        }
        expect(calls()).toBe(before);
      };
      await strangerReturns('The plan was not approved');

      /** The merchant answers on Shopify's charge page, which sends them back with the subscription's charge_id. */
      const chargePage = async (decision: 'approve' | 'decline') => {
        const plan = await get(`/commerce/shopify/plan?shop=${shop}&challenge=${challenge}`);
        expect(plan.statusCode, plan.body).toBe(303);
        const confirmation = String(plan.headers.location);
        const page = await standIn.fetch(confirmation);
        const answered = await standIn.fetch(confirmation, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ ...formFields(await page.text()), decision }),
        });
        const back = new URL(answered.headers.get('location')!);
        expect(back.searchParams.get('charge_id')).toMatch(/^[0-9]+$/);
        // Shopify's app_subscriptions/update, worked off first, so only the return's own reads are counted.
        await settled(shop);
        return `${back.pathname}${back.search}`;
      };
      // Declined: the return names the subscription the store waited on, and reads the plan back once; a reload asks nothing.
      const declined = await chargePage('decline');
      let before = calls();
      expect((await get(declined)).body).toContain('The plan was not approved');
      expect(calls() - before).toBe(1);
      expect((await get(declined)).body).toContain('The plan was not approved');
      expect(calls() - before).toBe(1);
      // Approved: Shopify's webhook read the plan back already, so the return is answered from what the service recorded.
      const approved = await chargePage('approve');
      // The approval started the store's setup, which reads the store: done first, so only the returns are counted.
      await expect
        .poll(async () => (await use().db.selectFrom('setup_jobs').select('step').where('domain', '=', shop).executeTakeFirst())?.step, {
          timeout: 30_000,
        })
        .toBe('done');
      before = calls();
      expect((await get(approved)).body).toContain('The plan is approved');
      expect((await get(approved)).body).toContain('The plan is approved');
      expect(calls()).toBe(before);
      await strangerReturns('The plan is approved');
    });

    it('plan: only the merchant’s plugin link creates a subscription, and a second click reuses the pending one', async () => {
      const shop = newShop();
      const challenge = newChallenge();
      await install(use().app, standIn, `/commerce/shopify/install?shop=${shop}&challenge=${challenge}`);
      const calls = () => standIn.apiUsage(shop).adminApiCalls;
      const before = calls();

      // No proof: refused in the API's error shape, and nothing asked of Shopify.
      const anonymous = await get(`/commerce/shopify/plan?shop=${shop}`);
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json()).toMatchObject({ error: 'unauthorized', message: expect.stringContaining('plugin') });
      const malformed = await get(`/commerce/shopify/plan?shop=${shop}&challenge=not-a-challenge`);
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json()).toMatchObject({ error: 'invalid_request' });
      // A challenge nobody confirmed goes to be confirmed by installing again (Shopify signs its staff in first).
      const unconfirmed = newChallenge();
      const bounced = await get(`/commerce/shopify/plan?shop=${shop}&challenge=${unconfirmed}`);
      expect(bounced.statusCode).toBe(303);
      const reinstall = new URL(String(bounced.headers.location), BASE_URL);
      expect(reinstall.pathname).toBe('/commerce/shopify/install');
      expect(reinstall.searchParams.get('challenge')).toBe(unconfirmed);
      expect(reinstall.searchParams.get('return')).toBe(`/commerce/shopify/plan?shop=${shop}&challenge=${unconfirmed}`);
      expect(standIn.shop(shop).subscriptions).toEqual([]);
      expect(calls()).toBe(before);

      // The merchant's link, twice: one subscription, the same confirmation page.
      const first = await get(`/commerce/shopify/plan?shop=${shop}&challenge=${challenge}`);
      const second = await get(`/commerce/shopify/plan?shop=${shop}&challenge=${challenge}`);
      expect(first.statusCode).toBe(303);
      expect(second.statusCode).toBe(303);
      expect(second.headers.location).toBe(first.headers.location);
      expect(standIn.shop(shop).subscriptions.map((entry) => entry.status)).toEqual(['PENDING']);

      // The bounced challenge, once the install confirmed it, gets the same page too.
      const confirmed = await install(use().app, standIn, `${reinstall.pathname}${reinstall.search}`);
      expect(confirmed.statusCode).toBe(303);
      expect(confirmed.headers.location).toBe(`/commerce/shopify/plan?shop=${shop}&challenge=${unconfirmed}`);
      const third = await get(String(confirmed.headers.location));
      expect(third.headers.location).toBe(first.headers.location);
      expect(standIn.shop(shop).subscriptions).toHaveLength(1);

      // The plugin traded its secret for a token, spending the confirmation: the token it holds keeps the link good.
      const secret = crypto.randomBytes(16).toString('hex');
      const traded = hashSecret(secret);
      await install(use().app, standIn, `/commerce/shopify/install?shop=${shop}&challenge=${traded}`);
      const { platformId } = await createPlatform(use().support);
      const exchanged = await use().app.inject({
        method: 'POST',
        url: '/plugin/v2/token',
        headers: { origin: 'http://localhost:80', 'content-type': 'application/json' },
        payload: JSON.stringify({ platformId, domain: shop, secret }),
      });
      expect(exchanged.statusCode, exchanged.body).toBe(200);
      expect(await use().db.selectFrom('merchant_confirmations').select('challenge').where('challenge', '=', traded).execute()).toEqual([]);
      const fourth = await get(`/commerce/shopify/plan?shop=${shop}&challenge=${traded}`);
      expect(fourth.headers.location).toBe(first.headers.location);
      expect(standIn.shop(shop).subscriptions).toHaveLength(1);
    });

    it('webhooks: a forged HMAC is 401 with nothing written; each webhook id is taken once', async () => {
      const shop = newShop();
      await install(use().app, standIn, `/commerce/shopify/install?shop=${shop}`);
      const order = await standIn.placeOrder(shop, {});
      await settled(shop);
      const created = standIn.webhookDeliveries({ shop, topic: 'orders/create' }).at(-1)!;
      expect(created.status).toBe(200);
      const before = await count('shopify_webhook_deliveries');

      const forged = await use().app.inject({
        method: 'POST',
        url: '/commerce/shopify/webhooks',
        headers: {
          ...created.headers,
          'x-shopify-webhook-id': crypto.randomUUID(),
          'x-shopify-hmac-sha256': signWebhookBody('wrong-secret', created.body),
        },
        payload: created.body,
      });
      expect(forged.statusCode).toBe(401);
      expect(forged.json()).toMatchObject({ error: 'unauthorized' });
      const tampered = await use().app.inject({
        method: 'POST',
        url: '/commerce/shopify/webhooks',
        headers: { ...created.headers, 'x-shopify-webhook-id': crypto.randomUUID() },
        payload: created.body.replace(String(order.id), String(order.id + 1)),
      });
      expect(tampered.statusCode).toBe(401);
      expect(await count('shopify_webhook_deliveries')).toBe(before);

      const again = await standIn.redeliverWebhook(created.webhookId);
      expect(again.status).toBe(200);
      const deliveries = await use()
        .db.selectFrom('shopify_webhook_deliveries')
        .selectAll()
        .where('webhook_id', '=', created.webhookId)
        .execute();
      expect(deliveries).toHaveLength(1);
      expect(await count('shopify_webhook_deliveries')).toBe(before);
      const orders = await use().db.selectFrom('attributed_orders').select('order_id').where('store_domain', '=', shop).execute();
      expect(orders.map((entry) => entry.order_id)).toEqual([String(order.id)]);
    });

    it('uninstall: the store leaves promptly and starts again at install; a token revoked at Shopify disconnects it', async () => {
      const shop = newShop();
      const challenge = newChallenge();
      await install(use().app, standIn, `/commerce/shopify/install?shop=${shop}&challenge=${challenge}`);
      await answerPlan(use().app, standIn, `/commerce/shopify/plan?shop=${shop}&challenge=${challenge}`);
      // Mid-setup: the job was queued by the approval; the store goes before it is done.
      await standIn.uninstall(shop);
      const adapter = use().runtime.commerce.forStore(shop);
      // Answered at once, taken by the nudged worker (src/commerce/shopify/webhook-delivery.test.ts holds the Admin API to show it).
      await expect.poll(() => adapter.status(shop)).toEqual({ installation: 'not_installed', planApproved: false });
      const row = (await shopRow(shop))!;
      expect(row.access_token_encrypted).toBeNull();
      expect(row.uninstalled_at ?? row.disconnected_at).not.toBeNull();
      const uninstalled = standIn.webhookDeliveries({ shop, topic: 'app/uninstalled' }).at(-1)!;
      expect(uninstalled.status).toBe(200);
      // No offer for the store: it has no live offer, whatever setup had reached.
      const offers = await use()
        .db.selectFrom('offers')
        .innerJoin('companies', 'companies.id', 'offers.company_id')
        .select('offers.live')
        .where('companies.domain', '=', shop)
        .execute();
      expect(offers.every((offer) => !offer.live)).toBe(true);

      // Reinstalled, then the token revoked at Shopify while the app stays installed: the next call finds out.
      await install(use().app, standIn, `/commerce/shopify/install?shop=${shop}`);
      expect((await adapter.status(shop)).installation).toBe('installed');
      standIn.revokeToken(shop);
      // The profile read and the units-sold query it starts beside it both meet the revoked token: the one refused second
      // finds the store already gone.
      await expect(adapter.profile(shop)).rejects.toThrow(/revoked|not installed/);
      expect(await adapter.status(shop)).toEqual({ installation: 'not_installed', planApproved: false });
      expect((await shopRow(shop))!.disconnected_at).not.toBeNull();
    });

    it('a worker process hears a store leave: a token revoked at Shopify, found by the worker, hides the offer', async () => {
      const { shop } = await shopifyCollab(use(), standIn);
      // The merchant consented in the plugin too: the offer is the plugin's to hide when the store leaves.
      const companyId = await importStore(use().support, {
        domain: shop,
        businessName: 'Shopify Partner',
        tagline: null,
        logoImageUrl: null,
        categories: [],
        country: null,
        productCount: 8,
        platformName: 'Shopify',
        welcomeDiscountPercent: null,
      });
      const consent = { percent: 15, code: discountCodeFor(shop, 15), title: '15% off' };
      expect(await consentToOffer(use().support, shop, companyId, consent, new Date())).toBe(true);
      const liveOffers = async () =>
        (
          await use()
            .db.selectFrom('offers')
            .innerJoin('companies', 'companies.id', 'offers.company_id')
            .select('offers.live')
            .where('companies.domain', '=', shop)
            .execute()
        ).filter((offer) => offer.live).length;
      expect(await liveOffers()).toBe(1);
      // Built as src/worker.ts builds it: no HTTP routes, so no plugin routes.
      const worker = await composeRuntime({
        config: use().config,
        database: use().database,
        bounds: requestBounds(use().config.database),
        log: use().app.log,
        redisFallback: 'in-process fallbacks',
        jobs: { run: false, keepProcessAlive: false },
      });
      // The plan started store setup in the API instance's worker: once it is done, the process under test is the only one
      // calling Shopify, so it is the one that finds the revoked token (else the setup import may find it first).
      await expect
        .poll(
          async () => (await use().db.selectFrom('setup_jobs').select('status').where('domain', '=', shop).executeTakeFirst())?.status,
          {
            timeout: 30_000,
          },
        )
        .toBe('done');
      try {
        standIn.revokeToken(shop);
        await expect(worker.commerce.forStore(shop).profile(shop)).rejects.toThrow(/revoked|not installed/);
        // The profile read and the units-sold queries it starts beside it both meet the revoked token: whichever reaches
        // Shopify's refusal first makes the store leave, so the offer is hidden by that call, not necessarily this one.
        await expect.poll(liveOffers).toBe(0);
      } finally {
        await worker.close();
      }
    });

    it("a commission past the store's capped amount is not charged: the ledger keeps it, held for over_cap", async () => {
      // 5% of this order is more than the plan's capped amount of 500 USD every 30 days.
      const { shop, order } = await referredOrderOfAtLeast(1_100_000);
      expect(standIn.usageCharged(shop)).toBe(0);
      const entry = await use()
        .db.selectFrom('commission_ledger')
        .select(['amount_minor', 'commerce_charge_id'])
        .where('store_domain', '=', shop)
        .where('order_id', '=', String(order.id))
        .executeTakeFirstOrThrow();
      expect(entry.amount_minor).toBeGreaterThan(50_000);
      expect(entry.commerce_charge_id).toBeNull();
      expect(
        await use().db.selectFrom('commission_charge_holds').select(['order_id', 'reason']).where('store_domain', '=', shop).execute(),
      ).toEqual([{ order_id: String(order.id), reason: 'over_cap' }]);
    });

    it('a commission held over the cap is charged, once, after the merchant approves a raised cap; the hold is kept, settled', async () => {
      const { shop, order } = await referredOrderOfAtLeast(1_100_000);
      const hold = () =>
        use()
          .db.selectFrom('commission_charge_holds')
          .select(['reason', 'settled_at'])
          .where('store_domain', '=', shop)
          .where('order_id', '=', String(order.id))
          .executeTakeFirstOrThrow();
      expect(await hold()).toEqual({ reason: 'over_cap', settled_at: null });
      const entry = () =>
        use()
          .db.selectFrom('commission_ledger')
          .select(['amount_minor', 'commerce_charge_id'])
          .where('store_domain', '=', shop)
          .where('order_id', '=', String(order.id))
          .where('kind', '=', 'commission')
          .executeTakeFirstOrThrow();
      const commission = Number((await entry()).amount_minor);
      expect(standIn.usageCharged(shop)).toBe(0);

      // The refusal asked the merchant to double the cap; they approve it on Shopify's page.
      const capRaise = () =>
        use()
          .db.selectFrom('shopify_shops')
          .select(['cap_raise_minor', 'cap_raise_confirmation_url'])
          .where('shop', '=', shop)
          .executeTakeFirstOrThrow();
      expect(await capRaise()).toEqual({
        cap_raise_minor: 100_000,
        cap_raise_confirmation_url: expect.stringContaining(`https://${shop}/`),
      });
      expect(await standIn.approveCappedAmount(shop)).toBe(100_000);
      await settled(shop);
      expect(standIn.usageCharged(shop)).toBe(commission);
      expect(await capRaise()).toEqual({ cap_raise_minor: null, cap_raise_confirmation_url: null });
      expect((await entry()).commerce_charge_id).toMatch(/^gid:\/\/shopify\/AppUsageRecord\//);
      const afterRetry = await hold();
      expect(afterRetry.reason).toBe('over_cap');
      expect(afterRetry.settled_at).toBeInstanceOf(Date);

      // Shopify delivers the update again: nothing more is charged and the hold stays settled as it was.
      const update = standIn.webhookDeliveries({ shop, topic: 'app_subscriptions/update' }).at(-1)!;
      await standIn.redeliverWebhook(update.webhookId);
      await settled(shop);
      expect(standIn.usageCharged(shop)).toBe(commission);
      expect(await hold()).toEqual(afterRetry);
    });

    /**
     * The embed app's store token for `shop`: its page's challenge rides the install link, the store's staff
     * confirm on the service's page after Shopify's OAuth, and the app trades its secret.
     */
    const merchantTokenOf = async (platformId: string, shop: string) => {
      const secret = crypto.randomBytes(16).toString('hex');
      await install(use().app, standIn, `/commerce/shopify/install?shop=${shop}&challenge=${hashSecret(secret)}`);
      const traded = await use().app.inject({
        method: 'POST',
        url: '/plugin/v2/token',
        headers: { origin: 'http://localhost:80', 'content-type': 'application/json' },
        payload: JSON.stringify({ platformId, domain: shop, secret }),
      });
      expect(traded.statusCode, traded.body).toBe(200);
      return traded.json().token as string;
    };
    /** The plugin's calls as a script sends them: any Origin header it likes, the store token when it has one. */
    const pluginCall = (url: string, platformId: string, shop: string, authorization?: string) =>
      use().app.inject({
        method: 'POST',
        url,
        headers: { origin: 'http://localhost:80', 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
        payload: JSON.stringify({ platformId, domain: shop }),
      });

    it(`the plugin's install step for a Shopify store is the app's App Store listing in a new tab, carrying no store and no \
challenge; once Shopify reports the install, however it came, the plugin's next look is at the plan`, async () => {
      // Orders enough to be eligible once installed.
      const shop = newShop({ orders: 400 });
      const { platformId } = await createPlatform(use().support);
      const challenge = newChallenge();
      const state = async () => {
        const answer = await use().app.inject({
          method: 'POST',
          url: '/plugin/v2/state',
          headers: { origin: 'http://localhost:80', 'content-type': 'application/json' },
          payload: JSON.stringify({ platformId, domain: shop, challenge }),
        });
        expect(answer.statusCode, answer.body).toBe(200);
        return answer.json();
      };
      // Nothing for anyone to type: Shopify's own listing, opened in a new tab (Shopify's pages refuse frames).
      expect(await state()).toEqual({
        kind: 'stage',
        stage: 'install',
        install: { url: 'https://apps.shopify.com/brand-partner-collaborations', sameTab: false },
      });
      // A sandbox store on the same host keeps the sandbox's own install page, with the challenge.
      const sandboxStore = `${uniqueId('sandbox').toLowerCase()}.example`;
      const sandboxState = await use().app.inject({
        method: 'POST',
        url: '/plugin/v2/state',
        headers: { origin: 'http://localhost:80', 'content-type': 'application/json' },
        payload: JSON.stringify({ platformId, domain: sandboxStore, challenge }),
      });
      expect(sandboxState.json()).toMatchObject({
        stage: 'install',
        install: { url: `/sandbox/stores/${sandboxStore}/install?state=${challenge}`, sameTab: false },
      });

      // The merchant installs from the listing: Shopify opens the app's App URL, the app starts OAuth, the callback
      // stores the token. No link of the plugin was followed, and the plugin's next look is at the plan.
      const launch = new URL(standIn.appLaunchUrl(shop, `${BASE_URL}/commerce/shopify/app`));
      const { callback, cookie } = await installToCallback(use().app, standIn, `${launch.pathname}${launch.search}`);
      expect((await followCallback(use().app, callback, cookie)).statusCode).toBe(303);
      expect(standIn.shop(shop).installation.installed).toBe(true);
      const plan = await state();
      expect(plan).toMatchObject({ kind: 'stage', stage: 'plan', approve: { sameTab: false } });
      // The plan link carries the page's challenge: the plan route has the owner confirm it on the way (Shopify signs them in).
      const approve = new URL(plan.approve.url, BASE_URL);
      expect(approve.pathname).toBe('/commerce/shopify/plan');
      expect(approve.searchParams.get('challenge')).toBe(challenge);
    });

    it(`the cap raise is shown where the merchant is: the plugin holding the store token and the app home get the held \
amount and Shopify's page to approve it, until it is approved; the state anyone can ask for holds neither`, async () => {
      const { shop, order } = await referredOrderOfAtLeast(1_100_000);
      const { platformId } = await createPlatform(use().support, { approvedOrigins: ['https://host.test'] });
      const commission = Number(
        (
          await use()
            .db.selectFrom('commission_ledger')
            .select('amount_minor')
            .where('store_domain', '=', shop)
            .where('order_id', '=', String(order.id))
            .where('kind', '=', 'commission')
            .executeTakeFirstOrThrow()
        ).amount_minor,
      );
      const confirmationUrl = (
        await use().db.selectFrom('shopify_shops').select('cap_raise_confirmation_url').where('shop', '=', shop).executeTakeFirstOrThrow()
      ).cap_raise_confirmation_url!;
      expect(confirmationUrl).toMatch(new RegExp(`^https://${shop.replaceAll('.', '\\.')}/admin/charges/`));
      const dollars = (cents: number) => new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(cents / 100);
      /** Whether an answer a stranger can get holds anything of the store's billing. */
      const expectNoBilling = (body: string, what: string) => {
        expect(body, what).not.toContain('capRaise');
        expect(body, what).not.toContain('/admin/charges/');
        expect(body, what).not.toContain(String(commission));
        expect(body, what).not.toContain('100000');
        expect(body, what).not.toContain(dollars(commission));
      };

      // A script on any page sends the embed app's Origin, without the store token: the stage, and nothing of the money.
      const forged = await pluginCall('/plugin/v2/state', platformId, shop);
      expect(forged.statusCode, forged.body).toBe(200);
      expect(forged.json()).toMatchObject({ kind: 'stage', stage: 'live' });
      expectNoBilling(forged.body, 'the state answered to a forged Origin');
      // The embed page an approved host frames carries the state too: the same, nothing of the money.
      const page = await get(`/plugin/v2/embed?platformId=${platformId}&domain=${shop}`, {
        referer: 'https://host.test/merchant',
        'sec-fetch-dest': 'iframe',
      });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('"stage":"live"');
      expectNoBilling(page.body, 'the embed page of an approved host');

      // Without the store token, or with one that is not this store's, the billing call is 401 and writes nothing.
      const otherShop = newShop();
      const othersToken = await merchantTokenOf(platformId, otherShop);
      await settled(shop);
      await settled(otherShop);
      const before = await tableContents(use().db);
      for (const authorization of [
        undefined,
        `Bearer svc_store_${'A'.repeat(43)}`,
        `Bearer ${othersToken}`,
        othersToken,
        `Basic ${othersToken}`,
      ]) {
        const refused = await pluginCall('/plugin/v2/billing', platformId, shop, authorization);
        expect(refused.statusCode, String(authorization)).toBe(401);
        expect(refused.json()).toMatchObject({ error: 'unauthorized' });
        expectNoBilling(refused.body, 'a refused billing call');
      }
      expect(await tableContents(use().db)).toEqual(before);

      // The merchant's plugin, holding the store token, gets the held amount and Shopify's page to approve it.
      const token = await merchantTokenOf(platformId, shop);
      const billing = async () => {
        const answer = await pluginCall('/plugin/v2/billing', platformId, shop, `Bearer ${token}`);
        expect(answer.statusCode, answer.body).toBe(200);
        expect(answer.headers['cache-control']).toBe('no-store');
        return answer.json();
      };
      expect(await billing()).toEqual({
        capRaise: {
          platformName: 'Shopify',
          confirmationUrl,
          cappedMinor: 100_000,
          currency: 'USD',
          held: [{ amountMinor: commission, currency: 'USD' }],
        },
      });

      // The app home in the admin's frame, with the staff member's session token.
      const home = async () => {
        const page = await get(`/commerce/shopify/app?shop=${shop}&embedded=1&id_token=${standIn.sessionToken(shop)}`);
        expect(page.statusCode, page.body).toBe(200);
        return page.body;
      };
      const homePage = await home();
      expect(homePage).toContain('Approve a higher capped amount at Shopify');
      expect(homePage).toContain(`Commissions of ${dollars(commission)} are held, not charged`);
      expect(homePage).toContain(`a capped amount of ${dollars(100_000)} every 30 days`);
      expect(homePage).toContain(`href="${confirmationUrl.replaceAll('&', '&amp;')}"`);

      // Approved at Shopify: the held commission is charged, and neither door shows the raise any more.
      await standIn.approveCappedAmount(shop);
      await settled(shop);
      expect(standIn.usageCharged(shop)).toBe(commission);
      expect(await billing()).toEqual({ capRaise: null });
      expect(await home()).not.toContain('Approve a higher capped amount');
    });

    it('a raised cap that still does not cover a held commission leaves it held, charged nothing', async () => {
      // 5% of this order is more than twice the plan's capped amount: the doubled cap still does not cover it.
      const { shop, order } = await referredOrderOfAtLeast(2_100_000);
      expect(await standIn.approveCappedAmount(shop)).toBe(100_000);
      await settled(shop);
      expect(standIn.usageCharged(shop)).toBe(0);
      expect(
        await use()
          .db.selectFrom('commission_charge_holds')
          .select(['order_id', 'reason', 'settled_at'])
          .where('store_domain', '=', shop)
          .execute(),
      ).toEqual([{ order_id: String(order.id), reason: 'over_cap', settled_at: null }]);
    });

    it('the capped amount nearly used: Shopify says so and the merchant is asked to double it, once however often it says so', async () => {
      // 5% of this order is between 90% and all of the 500 USD cap: charged, and the balance crosses 90%.
      const { shop } = await referredOrderOfAtLeast(920_000);
      expect(standIn.usageCharged(shop)).toBeGreaterThanOrEqual(45_000);
      const approaching = standIn.webhookDeliveries({ shop, topic: 'app_subscriptions/approaching_capped_amount' });
      expect(approaching.length).toBeGreaterThan(0);
      const capRaise = () =>
        use()
          .db.selectFrom('shopify_shops')
          .select(['cap_raise_minor', 'cap_raise_confirmation_url', 'cap_raise_requested_at'])
          .where('shop', '=', shop)
          .executeTakeFirstOrThrow();
      const asked = await capRaise();
      expect(asked.cap_raise_minor).toBe(100_000);
      expect(asked.cap_raise_confirmation_url).toMatch(new RegExp(`^https://${shop.replaceAll('.', '\\.')}/admin/charges/`));
      // The plugin holding the store token shows it too, with nothing held yet.
      const { platformId } = await createPlatform(use().support);
      const billing = await pluginCall('/plugin/v2/billing', platformId, shop, `Bearer ${await merchantTokenOf(platformId, shop)}`);
      expect(billing.json()).toEqual({
        capRaise: {
          platformName: 'Shopify',
          confirmationUrl: asked.cap_raise_confirmation_url,
          cappedMinor: 100_000,
          currency: 'USD',
          held: [],
        },
      });
      await standIn.redeliverWebhook(approaching.at(-1)!.webhookId);
      await settled(shop);
      expect(await capRaise()).toEqual(asked);
      expect(await standIn.approveCappedAmount(shop)).toBe(100_000);
      await settled(shop);
      expect(await capRaise()).toEqual({ cap_raise_minor: null, cap_raise_confirmation_url: null, cap_raise_requested_at: null });
    });

    it(`credits the order to the platform whose link its shopper followed, carried through Shopify's discount link to the \
order's landing page, though another platform had more clicks; the code typed alone credits no platform`, async () => {
      const { shop, token, key, platformId } = await shopifyCollab(use(), standIn);
      const { platformId: busier } = await createPlatform(use().support);
      const shown = await use().app.inject({
        method: 'GET',
        url: '/v1/campaigns/offers?type=post-purchase',
        headers: { 'x-api-key': key, 'x-platform-id': busier },
      });
      const busierToken = (shown.json().offers[0].referralUrl as string).split('/r/')[1]!;
      for (let i = 0; i < 3; i += 1) expect((await get(`/r/${busierToken}`)).statusCode).toBe(302);

      const click = await get(`/r/${token}`);
      expect(click.statusCode).toBe(302);
      // The shopper follows the store's discount link: the code goes on the cart, Shopify sends them on to /?ref=…
      const visit = standIn.visit(click.headers.location as string);
      expect(visit).toMatchObject({ domain: shop, discountCode: expect.stringMatching(/^PARTNER15-/), location: `/?ref=${token}` });
      const order = await standIn.placeOrder(shop, { landingSite: visit.landingSite, discountCode: visit.discountCode });
      await settled(shop);
      // What Shopify sent: the discount link itself as the landing page, the code among the order's discount codes.
      const sent = JSON.parse(standIn.webhookDeliveries({ shop, topic: 'orders/create' }).at(-1)!.body);
      expect(sent).toMatchObject({ landing_site: visit.landingSite, discount_codes: [{ code: visit.discountCode }] });
      const credited = (orderId: number) =>
        use()
          .db.selectFrom('attributed_orders')
          .select(['platform_id', 'matched_by', 'touch'])
          .where('store_domain', '=', shop)
          .where('order_id', '=', String(orderId))
          .executeTakeFirstOrThrow();
      expect(await credited(order.id)).toEqual({ platform_id: platformId, matched_by: 'referral_link', touch: 'click' });

      // Another shopper types the code at checkout, having clicked nothing: the brand pair is credited, no platform.
      const typed = await standIn.placeOrder(shop, { discountCode: visit.discountCode });
      await settled(shop);
      expect(await credited(typed.id)).toEqual({ platform_id: null, matched_by: 'discount_code', touch: 'click' });

      // A third followed the link, left, and came back directly to order: the webhook's landing page is the store's home
      // page; the customer journey's first visit, read from the Admin API, still names the click.
      const again = standIn.visit((await get(`/r/${token}`)).headers.location as string);
      const later = await standIn.placeOrder(shop, {
        landingSite: '/',
        earlierLandingSite: again.landingSite,
        discountCode: again.discountCode,
      });
      await settled(shop);
      expect(JSON.parse(standIn.webhookDeliveries({ shop, topic: 'orders/create' }).at(-1)!.body).landing_site).toBe('/');
      expect(await credited(later.id)).toEqual({ platform_id: platformId, matched_by: 'referral_link', touch: 'click' });
    });

    it('a referred first order becomes one usage record, however often Shopify delivers it', async () => {
      const { shop, token } = await shopifyCollab(use(), standIn);
      const click = await get(`/r/${token}`);
      expect(click.statusCode).toBe(302);
      const product = standIn.shop(shop).products.find((entry) => entry.status === 'ACTIVE')!;
      const order = await standIn.placeOrder(shop, { lineItems: [{ productId: product.id, quantity: 2 }], landingSite: `/?ref=${token}` });
      await settled(shop);
      const stored = (await use().db.selectFrom('attributed_orders').selectAll().where('store_domain', '=', shop).execute())[0]!;
      expect(stored).toMatchObject({ order_id: String(order.id), matched_by: 'referral_link', new_customer: true });
      const commission = Number(stored.commission_cents);
      expect(commission).toBe(Math.round(order.totalCents * 0.05));
      expect(standIn.usageCharged(shop)).toBe(commission);

      // The same delivery again, orders/paid of the same order, and the body signed again under a new webhook id.
      const created = standIn.webhookDeliveries({ shop, topic: 'orders/create' }).at(-1)!;
      await standIn.redeliverWebhook(created.webhookId);
      const resent = await use().app.inject({
        method: 'POST',
        url: '/commerce/shopify/webhooks',
        headers: { ...created.headers, 'x-shopify-webhook-id': crypto.randomUUID() },
        payload: created.body,
      });
      expect(resent.statusCode).toBe(200);
      await settled(shop);
      expect(standIn.usageCharged(shop)).toBe(commission);
      const records = await use().db.selectFrom('shopify_usage_records').selectAll().where('shop', '=', shop).execute();
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({ order_id: String(order.id), currency: 'USD', usage_record_id: expect.any(String) });
      // The ledger's commission entry carries Shopify's usage record.
      const charged = await use()
        .db.selectFrom('commission_ledger')
        .select('commerce_charge_id')
        .where('store_domain', '=', shop)
        .where('kind', '=', 'commission')
        .executeTakeFirstOrThrow();
      expect(charged.commerce_charge_id).toBe(records[0]!.usage_record_id);

      // A returning customer's order (Shopify counts their orders) carries no commission.
      const again = await standIn.placeOrder(shop, { customerId: order.customerId!, landingSite: `/?ref=${token}` });
      await settled(shop);
      const second = await use()
        .db.selectFrom('attributed_orders')
        .selectAll()
        .where('order_id', '=', String(again.id))
        .executeTakeFirstOrThrow();
      expect(second.new_customer).toBe(false);
      expect(standIn.usageCharged(shop)).toBe(commission);

      // A refund reverses the commission in the ledger by an entry of the opposite sign (no shopper's data kept).
      await standIn.refundOrder(shop, order.id, {});
      await settled(shop);
      const refund = standIn.webhookDeliveries({ shop, topic: 'refunds/create' }).at(-1)!;
      const kept = await use()
        .db.selectFrom('shopify_webhook_deliveries')
        .select('payload')
        .where('webhook_id', '=', refund.webhookId)
        .executeTakeFirstOrThrow();
      expect(kept.payload).toMatchObject({
        reversal: { storeDomain: shop, orderId: String(order.id), refunded: [{ amountCents: order.totalCents, currency: 'USD' }] },
        outcome: { takenCents: order.totalCents, reversedCents: commission, duplicate: false },
      });
      const ledger = await use()
        .db.selectFrom('commission_ledger')
        .select(['kind', 'amount_minor', 'currency', 'customer_basis'])
        .where('store_domain', '=', shop)
        .where('order_id', '=', String(order.id))
        .orderBy('id')
        .execute();
      expect(ledger).toEqual([
        { kind: 'commission', amount_minor: commission, currency: 'USD', customer_basis: 'platform_order_count' },
        { kind: 'reversal', amount_minor: -commission, currency: 'USD', customer_basis: 'platform_order_count' },
      ]);
      // Delivered again, the refund reverses nothing more.
      await standIn.redeliverWebhook(refund.webhookId);
      await settled(shop);
      expect(await reversalsAt(use().db, shop)).toHaveLength(1);
    });

    it('compliance: a data request is answered, a shopper redacted, and the shop erased after uninstall', async () => {
      const shop = newShop();
      await install(use().app, standIn, `/commerce/shopify/install?shop=${shop}`);
      const order = await standIn.placeOrder(shop, {});
      await settled(shop);
      const customerId = order.customerId!;

      await standIn.requestCustomerData(shop, customerId);
      await settled(shop);
      const request = standIn.webhookDeliveries({ shop, topic: 'customers/data_request' }).at(-1)!;
      const answer = await use()
        .db.selectFrom('shopify_webhook_deliveries')
        .select('payload')
        .where('webhook_id', '=', request.webhookId)
        .executeTakeFirstOrThrow();
      expect(answer.payload).toMatchObject({ customer: customerId, orders: [{ orderId: String(order.id) }] });

      await standIn.redactCustomer(shop, customerId);
      await settled(shop);
      const redacted = await use().db.selectFrom('attributed_orders').select('customer_ref').where('store_domain', '=', shop).execute();
      expect(redacted.map((entry) => entry.customer_ref)).toEqual(['redacted']);
      const customers = await use().db.selectFrom('store_customers').select('customer_ref').where('store_domain', '=', shop).execute();
      expect(customers).toEqual([]);

      await standIn.uninstall(shop);
      expect(await shopRow(shop)).toBeDefined();
      await standIn.redactShop(shop);
      await settled(shop);
      expect(await shopRow(shop)).toBeUndefined();
      const left = await use().db.selectFrom('shopify_webhook_deliveries').select('topic').where('shop', '=', shop).execute();
      expect(left.map((entry) => entry.topic)).toEqual(['shop/redact']);
    });

    // Last in this file: it stops the background jobs and runs setup and webhook deliveries itself, step by step.
    it('uninstall mid-setup parks the setup until the store is back: nothing lost, nothing charged twice', async () => {
      const { runtime, app, db } = use();
      await runtime.jobs.stop();
      const options = { db, log: app.log, pollMs: 20, retryMs: 50, leaseMs: 5_000 };
      // The worker's reads of the store's status, with a hook that lets the store come back right after one of them.
      let afterNextStatus: (() => Promise<void>) | undefined;
      const primary = runtime.commerce.primary!;
      const adapter = new Proxy(primary, {
        get(target, property) {
          if (property !== 'status') {
            const value = Reflect.get(target, property, target) as unknown;
            return typeof value === 'function' ? value.bind(target) : value;
          }
          return async (domain: string) => {
            const status = await target.status(domain);
            const hook = afterNextStatus;
            afterNextStatus = undefined;
            await hook?.();
            return status;
          };
        },
      });
      const setup = new SetupWorker({ ...options, adapter, bus: runtime.bus });
      const deliveries = new WebhookWorker({ ...options, shopify: runtime.commerce.shopify!, orders: runtime.config.orders });
      /** Runs what is due (other tests' stores included) until nothing is; a hang guard bounds it. */
      const drain = async (worker: { runOnce(): Promise<boolean> }) => {
        for (let ran = 0; ran < 100 && (await worker.runOnce()); ran++);
      };
      const job = (shop: string) =>
        db.selectFrom('setup_jobs').select(['status', 'step', 'last_error']).where('domain', '=', shop).executeTakeFirstOrThrow();

      const { shop, token } = await shopifyCollab(use(), standIn);
      // This store's first step (an earlier test's store may still have one due before it).
      for (let ran = 0; ran < 20 && (await job(shop)).step === 'import'; ran++) expect(await setup.runOnce()).toBe(true);
      expect(await job(shop)).toMatchObject({ status: 'pending', step: 'offer' });
      expect((await get(`/r/${token}`)).statusCode).toBe(302);
      const order = await standIn.placeOrder(shop, { landingSite: `/?ref=${token}` });
      await drain(deliveries);
      const commission = Math.round(order.totalCents * 0.05);
      expect(standIn.usageCharged(shop)).toBe(commission);

      // The store leaves between two steps: the next step finds no token and parks the job where it stood.
      await standIn.uninstall(shop);
      await drain(setup);
      expect(await job(shop)).toMatchObject({ status: 'parked', step: 'offer', last_error: expect.any(String) });
      const attempts = await db.selectFrom('setup_jobs').select('attempts').where('domain', '=', shop).executeTakeFirstOrThrow();
      await drain(setup);
      expect(await setup.runOnce()).toBe(false);
      expect(await db.selectFrom('setup_jobs').select('attempts').where('domain', '=', shop).executeTakeFirstOrThrow()).toEqual(attempts);

      // Back: installed and the plan approved again, setup resumes at the step it reached and finishes.
      const challenge = newChallenge();
      await install(app, standIn, `/commerce/shopify/install?shop=${shop}&challenge=${challenge}`);
      expect((await job(shop)).status).toBe('parked');
      await answerPlan(app, standIn, `/commerce/shopify/plan?shop=${shop}&challenge=${challenge}`);
      expect(await job(shop)).toMatchObject({ status: 'pending', step: 'offer' });
      // A park that lands just after the approval: the store leaves again, and while the worker, its step failed, reads
      // that the store is gone, the store comes back and the owner approves (which finds the job leased, not parked).
      await standIn.uninstall(shop);
      afterNextStatus = async () => {
        const again = newChallenge();
        await install(app, standIn, `/commerce/shopify/install?shop=${shop}&challenge=${again}`);
        await answerPlan(app, standIn, `/commerce/shopify/plan?shop=${shop}&challenge=${again}`);
      };
      expect(await setup.runOnce()).toBe(true);
      expect(afterNextStatus).toBeUndefined();
      // The worker parked the job, saw the store back and approved, and resumed it: no park outlives the approval.
      expect(await job(shop)).toMatchObject({ status: 'pending', step: 'offer' });
      await drain(setup);
      expect(await job(shop)).toMatchObject({ status: 'done', step: 'done' });

      // The order's webhook again, after the reinstall: the new subscription is not charged for it.
      const created = standIn.webhookDeliveries({ shop, topic: 'orders/create' }).at(-1)!;
      const resent = await app.inject({
        method: 'POST',
        url: '/commerce/shopify/webhooks',
        headers: { ...created.headers, 'x-shopify-webhook-id': crypto.randomUUID() },
        payload: created.body,
      });
      expect(resent.statusCode).toBe(200);
      await drain(deliveries);
      expect(standIn.usageCharged(shop)).toBe(commission);
      const active = standIn.shop(shop).subscriptions.find((subscription) => subscription.status === 'ACTIVE')!;
      expect(active.lineItems.flatMap((item) => item.usageRecords)).toEqual([]);
      expect(await db.selectFrom('shopify_usage_records').select('order_id').where('shop', '=', shop).execute()).toEqual([
        { order_id: String(order.id) },
      ]);
    });
  },
  ENV,
);
