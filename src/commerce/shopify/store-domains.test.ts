import { setAbstractFetchFunc } from '@shopify/shopify-api/runtime';
import { beforeAll, expect, it } from 'vitest';
import { createPlatform, uniqueId } from '../../../test/support/factories.js';
import { collabReferral, DASHBOARD_PASSWORD, DashboardClient } from '../../../test/support/dashboard-client.js';
import { describeEachDatabase } from '../../../test/support/harness.js';
import { answerPlan, deliveriesWorkedOff, install, newChallenge, shopifyEnv, standInFor } from '../../../test/support/shopify.js';
import { BROWSER_USER_AGENT } from '../../../test/shopify-standin/example-app.js';
import { ShopifyStandIn } from '../../../test/shopify-standin/stand-in.js';
import type { ShopifyCommerce } from './adapter.js';

const BASE_URL = 'https://svc.test';
const ENV = {
  LOG_LEVEL: 'error',
  BASE_URL,
  SANDBOX_IMPORT_MS: '0',
  STORE_MIN_ORDERS: '0',
  SETUP_POLL_MS: '20',
  SETUP_RETRY_MS: '50',
  ...shopifyEnv(new ShopifyStandIn()),
};

/**
 * A Shopify store is known to shoppers and platforms by its own domain (`brand.com`), to Shopify's
 * API by `brand.myshopify.com` (issue 25, section 3): the primary domain is read from the Admin
 * API and linked to the store, so the plugin and a sign-up find the store by either.
 */
describeEachDatabase(
  "Shopify: the store's own domain",
  (use) => {
    let standIn: ShopifyStandIn;
    const newShop = (primaryDomain?: string | null) => {
      const name = uniqueId('dom')
        .toLowerCase()
        .replace(/[^a-z0-9-]/g, '-');
      return standIn.createShop({
        name,
        products: 6,
        orders: 20,
        primaryDomain: primaryDomain === undefined ? `${name}-brand.example` : primaryDomain,
      });
    };
    const linked = async (shop: string) =>
      (await use().db.selectFrom('store_domains').select('domain').where('store_domain', '=', shop).orderBy('domain').execute()).map(
        (row) => row.domain,
      );
    const pluginState = (platformId: string, domain: string) =>
      use().app.inject({
        method: 'POST',
        url: '/plugin/v2/state',
        headers: { origin: 'http://localhost:80', 'content-type': 'application/json' },
        payload: JSON.stringify({ platformId, domain }),
      });
    const shopify = () => use().runtime.commerce.shopify as ShopifyCommerce;

    beforeAll(() => {
      standIn = standInFor(BASE_URL, () => use().app);
      setAbstractFetchFunc(standIn.fetch);
    });

    it('links the primary domain at install: the plugin given the custom domain, in any form, finds the Shopify store', async () => {
      const shop = newShop();
      const { platformId } = await createPlatform(use().support);
      // Before the install nothing says the custom domain is this store's: it is a store of the host's first platform.
      const before = await pluginState(platformId, shop.primaryHost);
      expect(before.json()).toMatchObject({ kind: 'stage', stage: 'install' });
      expect(before.json().install.url).not.toContain(shop.domain);

      await install(use().app, standIn, `/commerce/shopify/install?shop=${shop.domain}`);
      expect(await linked(shop.domain)).toEqual([shop.primaryHost]);
      for (const given of [shop.primaryHost, `https://www.${shop.primaryHost.toUpperCase()}/collections/all`, shop.domain]) {
        const state = await pluginState(platformId, given);
        expect(state.statusCode, state.body).toBe(200);
        expect(state.json(), given).toMatchObject({ kind: 'stage', stage: 'plan' });
        expect(state.json().approve.url, given).toMatch(new RegExp(`^/commerce/shopify/plan\\?shop=${shop.domain.replace(/\./g, '\\.')}&`));
      }
    });

    it('the return flow holds when the platform synced the store by its custom domain', async () => {
      const shop = newShop();
      const { platformId, key } = await createPlatform(use().support, {
        approvedOrigins: ['https://platform.example'],
        pluginPageUrl: 'https://platform.example/apps/partners',
      });
      const synced = await use().app.inject({
        method: 'POST',
        url: '/v1/platform/brands',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        payload: JSON.stringify({ brands: [{ domain: shop.primaryHost }] }),
      });
      expect(synced.statusCode, synced.body).toBe(200);
      await install(use().app, standIn, `/commerce/shopify/install?shop=${shop.domain}`);
      const state = await pluginState(platformId, shop.primaryHost);
      expect(state.json()).toMatchObject({ kind: 'stage', stage: 'plan', approve: { sameTab: true } });
    });

    it('a sign-up by the custom domain claims the Shopify store: its owner confirms at Shopify', async () => {
      const shop = newShop();
      await install(use().app, standIn, `/commerce/shopify/install?shop=${shop.domain}`);
      const client = new DashboardClient(use().app);
      await client.start();
      const signUp = await client.signUp({
        email: `${uniqueId('owner')}@brand.example`,
        password: DASHBOARD_PASSWORD,
        brand: { businessName: 'Custom Domain Brand', domain: `https://${shop.primaryHost}/`, categories: [] },
      });
      expect(signUp.statusCode, signUp.body).toBe(201);
      expect(signUp.json().claim).toMatchObject({
        domain: shop.domain,
        confirmUrl: `https://admin.shopify.com/store/${shop.domain.split('.')[0]}/apps/${standIn.app.apiKey}`,
      });
    });

    it('a domain changed at Shopify is linked by the hourly round in the read it makes anyway, and by the setup', async () => {
      const shop = newShop();
      await install(use().app, standIn, `/commerce/shopify/install?shop=${shop.domain}`);
      const old = shop.primaryHost;
      shop.primaryHost = `new-${old}`;
      const calls = standIn.apiUsage(shop.domain).adminApiCalls;
      expect(await shopify().reconcileWebhooks(shop.domain)).toEqual([]);
      expect(standIn.apiUsage(shop.domain).adminApiCalls).toBe(calls + 1);
      expect(await linked(shop.domain)).toEqual([shop.primaryHost]);
      expect(await use().runtime.onboarding.storeOf(old)).toBe(old);

      await use().db.deleteFrom('store_domains').where('store_domain', '=', shop.domain).execute();
      await shopify().profile(shop.domain);
      expect(await linked(shop.domain)).toEqual([shop.primaryHost]);
    });

    it("shop/redact after an uninstall unlinks the store's domain; the uninstall alone keeps it for a reinstall", async () => {
      const shop = newShop();
      await install(use().app, standIn, `/commerce/shopify/install?shop=${shop.domain}`);
      await standIn.uninstall(shop.domain);
      expect(await linked(shop.domain)).toEqual([shop.primaryHost]);
      await standIn.redactShop(shop.domain);
      await expect.poll(() => linked(shop.domain), { timeout: 30_000 }).toEqual([]);
    });

    it(`orders at the Shopify store of a brand that signed up under its custom domain are the brand's: its code is made \
at Shopify, a shopper's click and the code typed alone are both credited`, async () => {
      const name = uniqueId('own')
        .toLowerCase()
        .replace(/[^a-z0-9-]/g, '-');
      const shop = standIn.createShop({ name, products: 6, orders: 20, primaryDomain: `www.${name}-brand.example` });
      // The brand signed up as www.{name}-brand.example before it had the app: its company knows the custom domain only.
      const partner = new DashboardClient(use().app);
      const partnerId = await partner.signUpBrand('Own Domain Brand', `https://www.${name}-brand.example/`, `${uniqueId('p')}@own.example`);
      const company = await use().db.selectFrom('companies').select('domain').where('id', '=', partnerId).executeTakeFirstOrThrow();
      expect(company.domain).toBe(`${name}-brand.example`);
      await install(use().app, standIn, `/commerce/shopify/install?shop=${shop.domain}`);
      expect(await linked(shop.domain)).toEqual([`${name}-brand.example`]);

      const offer = await partner.post('/dashboard/api/offer', {
        title: '15% off',
        imageUrl: 'https://cdn.example/o.png',
        discountPercent: 15,
      });
      expect(offer.statusCode, offer.body).toBeLessThan(300);
      const { discount_code: code } = await use()
        .db.selectFrom('offers')
        .select('discount_code')
        .where('company_id', '=', partnerId)
        .executeTakeFirstOrThrow();
      expect([...standIn.shop(shop.domain).discounts.values()].map((discount) => discount.code)).toEqual([code]);

      const shower = new DashboardClient(use().app);
      const showerId = await shower.signUpBrand('Shower Co', `${uniqueId('shower')}.example`, `${uniqueId('s')}@shower.example`);
      const { platformId } = await createPlatform(use().support);
      const { token } = await collabReferral(use().app, { owner: shower, ownerId: showerId, partner, partnerId, platformId, name: 'Own' });
      const click = await use().app.inject({ method: 'GET', url: `/r/${token}`, headers: { 'user-agent': BROWSER_USER_AGENT } });
      expect(click.statusCode).toBe(302);
      expect(click.headers.location).toMatch(new RegExp(`^https://${name}-brand\\.example/discount/`));
      const visit = standIn.visit(click.headers.location as string);
      expect(visit.domain).toBe(shop.domain);

      const followed = await standIn.placeOrder(shop.domain, { landingSite: visit.landingSite, discountCode: visit.discountCode });
      const typed = await standIn.placeOrder(shop.domain, { discountCode: code! });
      await deliveriesWorkedOff(use().db, shop.domain);
      const credited = (orderId: number) =>
        use()
          .db.selectFrom('attributed_orders as o')
          .innerJoin('commission_ledger as l', (join) =>
            join.onRef('l.store_domain', '=', 'o.store_domain').onRef('l.order_id', '=', 'o.order_id'),
          )
          .select(['o.platform_id', 'o.matched_by', 'l.receiving_brand_id', 'l.showing_brand_id'])
          .where('o.store_domain', '=', shop.domain)
          .where('o.order_id', '=', String(orderId))
          .executeTakeFirst();
      expect(await credited(followed.id)).toEqual({
        platform_id: platformId,
        matched_by: 'referral_link',
        receiving_brand_id: partnerId,
        showing_brand_id: showerId,
      });
      expect(await credited(typed.id)).toEqual({
        platform_id: null,
        matched_by: 'discount_code',
        receiving_brand_id: partnerId,
        showing_brand_id: showerId,
      });
    });

    it(`a brand that signed up under its custom domain and installs through the plugin stays one brand: the setup imports \
the store into its company`, async () => {
      const shop = newShop();
      const partner = new DashboardClient(use().app);
      const partnerId = await partner.signUpBrand('Signed Up First', `https://${shop.primaryHost}/`, `${uniqueId('p')}@first.example`);
      const { platformId } = await createPlatform(use().support);
      const challenge = newChallenge();
      await install(use().app, standIn, `/commerce/shopify/install?shop=${shop.domain}&challenge=${challenge}`);
      await answerPlan(use().app, standIn, `/commerce/shopify/plan?shop=${shop.domain}&challenge=${challenge}`);
      const setup = () =>
        use().db.selectFrom('setup_jobs').select(['step', 'last_error']).where('domain', '=', shop.domain).executeTakeFirst();
      await expect.poll(setup, { timeout: 30_000 }).toMatchObject({ step: 'done' });

      const brands = await use()
        .db.selectFrom('companies')
        .select(['id', 'domain', 'business_name', 'commerce_platform'])
        .where('domain', 'in', [shop.domain, shop.primaryHost])
        .execute();
      expect(brands).toEqual([{ id: partnerId, domain: shop.primaryHost, business_name: 'Signed Up First', commerce_platform: 'Shopify' }]);
      const merchant = await use()
        .db.selectFrom('merchant_stores')
        .select('company_id')
        .where('domain', '=', shop.domain)
        .executeTakeFirstOrThrow();
      expect(merchant.company_id).toBe(partnerId);
      // The plugin on either domain shows the brand's consent, with the offer built from the store's best sellers.
      const draft = await use().db.selectFrom('offers').select('live').where('company_id', '=', partnerId).executeTakeFirstOrThrow();
      expect(draft.live).toBe(false);
      for (const given of [shop.primaryHost, shop.domain]) {
        const state = await pluginState(platformId, given);
        expect(state.json(), given).toMatchObject({ kind: 'stage', stage: 'consent' });
      }
    });

    it('a store without a custom domain (primary domain at myshopify.com) links nothing', async () => {
      const shop = newShop(null);
      await install(use().app, standIn, `/commerce/shopify/install?shop=${shop.domain}`);
      expect(standIn.shop(shop.domain).primaryHost).toBe(shop.domain);
      expect(await linked(shop.domain)).toEqual([]);
    });
  },
  ENV,
);
