import { setAbstractFetchFunc } from '@shopify/shopify-api/runtime';
import { afterEach, beforeAll, expect, it, vi } from 'vitest';
import { createPlatform, uniqueId } from '../../../test/support/factories.js';
import { collabReferral, DashboardClient } from '../../../test/support/dashboard-client.js';
import { ADMIN_TOKEN, describeEachDatabase } from '../../../test/support/harness.js';
import { shopifyCollab } from '../../../test/support/shopify-collab.js';
import {
  answerPlan,
  deliveriesWorkedOff,
  install,
  newChallenge,
  shopifyEnv,
  signedWebhookHeaders,
  standInFor,
} from '../../../test/support/shopify.js';
import { ShopifyStandIn } from '../../../test/shopify-standin/stand-in.js';
import { consentToOffer } from '../../embed/merchant-stores.js';
import { discountCodeFor } from '../../offers/service.js';

const BASE_URL = 'https://svc.test';
const ENV = {
  LOG_LEVEL: 'error',
  BASE_URL,
  SANDBOX_IMPORT_MS: '0',
  SETUP_POLL_MS: '20',
  SETUP_RETRY_MS: '50',
  ...shopifyEnv(new ShopifyStandIn()),
};

/**
 * A store whose app is uninstalled takes its brand's live offer out of the network while it is
 * gone (its orders no longer reach the service), however the brand joined, and its return (the
 * app installed again, the plan approved) brings back exactly what its leaving hid
 * (docs/shopify.md, "How it works": uninstall).
 */
describeEachDatabase(
  'Shopify: a store away and back',
  (use) => {
    let standIn: ShopifyStandIn;
    const companyOf = async (domain: string) =>
      (await use().db.selectFrom('companies').select('id').where('domain', '=', domain).executeTakeFirstOrThrow()).id;
    const offerOf = (companyId: string) =>
      use()
        .db.selectFrom('offers')
        .select(['title', 'live', 'left_with_store'])
        .where('company_id', '=', companyId)
        .executeTakeFirstOrThrow();
    /** The titles of the partner offers a platform is given for the showing brand whose key this is. */
    const served = async (key: string, platformId: string) => {
      const answer = await use().app.inject({
        method: 'GET',
        url: '/v1/campaigns/offers?type=post-purchase',
        headers: { 'x-api-key': key, 'x-platform-id': platformId },
      });
      expect(answer.statusCode, answer.body).toBe(200);
      return (answer.json().offers as Array<{ title: string }>).map((offer) => offer.title);
    };
    /** Setup, queued by the plan's approval, finished: nothing of it still calls Shopify when the store leaves. */
    const setupDone = (shop: string) =>
      expect
        .poll(async () => (await use().db.selectFrom('setup_jobs').select('step').where('domain', '=', shop).executeTakeFirst())?.step, {
          timeout: 30_000,
        })
        .toBe('done');
    const leave = async (shop: string) => {
      await standIn.uninstall(shop);
      await deliveriesWorkedOff(use().db, shop);
    };
    /** Installed (again) and the plan approved on Shopify's page, as the plugin's links lead the merchant. */
    const installAndApprove = async (shop: string) => {
      const challenge = newChallenge();
      await install(use().app, standIn, `/commerce/shopify/install?shop=${shop}&challenge=${challenge}`);
      await answerPlan(use().app, standIn, `/commerce/shopify/plan?shop=${shop}&challenge=${challenge}`);
      await deliveriesWorkedOff(use().db, shop);
    };

    /** Support's list of stores that lost the app's access. */
    const attention = async () => {
      const answer = await use().app.inject({
        method: 'GET',
        url: '/admin/shopify/attention',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(answer.statusCode, answer.body).toBe(200);
      return (answer.json().disconnectedStores as Array<{ shop: string; reason: string }>).map(({ shop, reason }) => ({ shop, reason }));
    };
    const shopRow = (shop: string) =>
      use()
        .db.selectFrom('shopify_shops')
        .select(['uninstalled_at', 'disconnected_at', 'disconnect_reason', 'access_token_encrypted'])
        .where('shop', '=', shop)
        .executeTakeFirstOrThrow();
    /** The error lines logged about the shop (the service's logger, shared by the routes and the in-process worker). */
    const errorsAbout = (spy: { mock: { calls: unknown[][] } }, shop: string) =>
      spy.mock.calls.filter(([fields]) => JSON.stringify(fields ?? null).includes(shop));

    beforeAll(() => {
      standIn = standInFor(BASE_URL, () => use().app);
      setAbstractFetchFunc(standIn.fetch);
    });
    afterEach(() => {
      vi.restoreAllMocks();
    });

    it('an uninstall is recorded as one: logged at info, not an error, out of support’s list; installed again and the plan \
approved, the store is live with its offer as it left it', async () => {
      const { shop, key, platformId } = await shopifyCollab(use(), standIn);
      const companyId = await companyOf(shop);
      await setupDone(shop);
      expect(await served(key, platformId)).toEqual(['15% off']);
      const errors = vi.spyOn(use().app.log, 'error');

      // Shopify revokes the token, then sends app/uninstalled: the delivery's own check meets the refused token.
      await leave(shop);
      expect(await shopRow(shop)).toMatchObject({
        access_token_encrypted: null,
        uninstalled_at: expect.any(Date),
        disconnected_at: null,
        disconnect_reason: 'uninstalled',
      });
      expect(errorsAbout(errors, shop)).toEqual([]);
      expect((await attention()).map((entry) => entry.shop)).not.toContain(shop);
      expect(await offerOf(companyId)).toEqual({ title: '15% off', live: false, left_with_store: shop });

      await installAndApprove(shop);
      expect(await shopRow(shop)).toMatchObject({ uninstalled_at: null, disconnected_at: null, disconnect_reason: null });
      expect(await offerOf(companyId)).toEqual({ title: '15% off', live: true, left_with_store: null });
      expect(await served(key, platformId)).toEqual(['15% off']);
    });

    it('a refused refresh of an installed store stays an error in support’s list, until Shopify says the app was uninstalled', async () => {
      const { shop } = await shopifyCollab(use(), standIn);
      await setupDone(shop);
      const errors = vi.spyOn(use().app.log, 'error');
      // Shopify ends the app's tokens while the app stays installed: the next call's renewal is refused.
      standIn.revokeToken(shop);
      await expect(use().runtime.commerce.forStore(shop).profile(shop)).rejects.toThrow(/revoked|not installed/);
      expect(await shopRow(shop)).toMatchObject({
        disconnected_at: expect.any(Date),
        uninstalled_at: null,
        disconnect_reason: 'refresh_refused',
      });
      expect(errorsAbout(errors, shop)).toHaveLength(1);
      expect(await attention()).toContainEqual({ shop, reason: 'refresh_refused' });

      // app/uninstalled, late: the refused token was the uninstall. Recorded as one, out of support's list.
      const body = JSON.stringify({ id: 1, name: 'Shop', myshopify_domain: shop });
      const delivered = await use().app.inject({
        method: 'POST',
        url: '/commerce/shopify/webhooks',
        headers: signedWebhookHeaders(standIn, shop, 'app/uninstalled', body),
        payload: body,
      });
      expect(delivered.statusCode, delivered.body).toBe(200);
      await deliveriesWorkedOff(use().db, shop);
      expect(await shopRow(shop)).toMatchObject({
        disconnected_at: null,
        uninstalled_at: expect.any(Date),
        disconnect_reason: 'uninstalled',
      });
      expect((await attention()).map((entry) => entry.shop)).not.toContain(shop);
      expect(errorsAbout(errors, shop)).toHaveLength(1);
    });

    it(`a store that joined through the dashboard leaves with its offer hidden and comes back with it, showing what \
the brand chose while it was gone`, async () => {
      const { shop, key, platformId, partner } = await shopifyCollab(use(), standIn);
      const partnerId = await companyOf(shop);
      await setupDone(shop);
      // Its offer is the one its staff saved in the dashboard: the merchant never consented in the plugin.
      const merchant = await use().db.selectFrom('merchant_stores').select('consented_at').where('domain', '=', shop).executeTakeFirst();
      expect(merchant?.consented_at ?? null).toBeNull();
      expect(await served(key, platformId)).toEqual(['15% off']);

      await leave(shop);
      expect(await offerOf(partnerId)).toEqual({ title: '15% off', live: false, left_with_store: shop });
      expect(await served(key, platformId)).toEqual([]);
      // While the store is away, the brand's staff write the offer it shows in the campaign: kept, shown once it is back.
      const campaign = await use().db.selectFrom('campaigns').select('id').where('partner_id', '=', partnerId).executeTakeFirstOrThrow();
      const saved = await partner.post(`/dashboard/api/campaigns/${campaign.id}/offer`, {
        title: 'Back with 15% off',
        imageUrl: 'https://cdn.example/back.png',
        discountPercent: 15,
      });
      expect(saved.statusCode, saved.body).toBe(200);
      expect(await served(key, platformId)).toEqual([]);

      await installAndApprove(shop);
      expect(await offerOf(partnerId)).toEqual({ title: '15% off', live: true, left_with_store: null });
      expect(await served(key, platformId)).toEqual(['Back with 15% off']);
    });

    it(`a brand that signed up under its store's own domain before the app: the store leaving hides its offer, found by \
the linked domain, and its return shows it again`, async () => {
      const name = uniqueId('away')
        .toLowerCase()
        .replace(/[^a-z0-9-]/g, '-');
      const shop = standIn.createShop({ name, products: 6, orders: 20 });
      const partner = new DashboardClient(use().app);
      const partnerId = await partner.signUpBrand('Own Domain', `https://www.${shop.primaryHost}/`, `${uniqueId('p')}@own.example`);
      const challenge = newChallenge();
      await install(use().app, standIn, `/commerce/shopify/install?shop=${shop.domain}&challenge=${challenge}`);
      const offer = await partner.post('/dashboard/api/offer', {
        title: '10% off',
        imageUrl: 'https://cdn.example/o.png',
        discountPercent: 10,
      });
      expect(offer.statusCode, offer.body).toBe(200);
      await answerPlan(use().app, standIn, `/commerce/shopify/plan?shop=${shop.domain}&challenge=${challenge}`);
      const shower = new DashboardClient(use().app);
      const showerId = await shower.signUpBrand('Shower Co', `${uniqueId('shower')}.example`, `${uniqueId('s')}@shower.example`);
      const { platformId } = await createPlatform(use().support);
      const { key } = await collabReferral(use().app, { owner: shower, ownerId: showerId, partner, partnerId, platformId, name: 'Own' });
      await setupDone(shop.domain);
      expect(await served(key, platformId)).toEqual(['10% off']);

      await leave(shop.domain);
      expect(await offerOf(partnerId)).toEqual({ title: '10% off', live: false, left_with_store: shop.domain });
      expect(await served(key, platformId)).toEqual([]);

      await installAndApprove(shop.domain);
      expect(await offerOf(partnerId)).toEqual({ title: '10% off', live: true, left_with_store: null });
      expect(await served(key, platformId)).toEqual(['10% off']);
    });

    it(`the return shows only what the leaving hid: a merchant who turned cross-promotion off while the store was away \
stays off, a draft stays a draft`, async () => {
      const { shop, key, platformId } = await shopifyCollab(use(), standIn);
      const companyId = await companyOf(shop);
      await setupDone(shop);
      // The merchant consented in the plugin too: the plugin turned the offer on.
      const consent = { percent: 15, code: discountCodeFor(shop, 15), title: '15% off' };
      expect(await consentToOffer(use().support, shop, companyId, consent, new Date())).toBe(true);
      await leave(shop);
      expect(await offerOf(companyId)).toMatchObject({ live: false, left_with_store: shop });
      // Away, the merchant closes cross-promotion: their own choice, which the store's return must not undo.
      await use().runtime.onboarding.turnOff(shop);
      expect(await offerOf(companyId)).toMatchObject({ live: false, left_with_store: null });
      await installAndApprove(shop);
      expect(await offerOf(companyId)).toMatchObject({ live: false, left_with_store: null });
      expect(await served(key, platformId)).toEqual([]);

      // A store that joined through the plugin and left before consenting: its offer from setup was never shown.
      const draftShop = standIn.createShop({
        name: uniqueId('draft')
          .toLowerCase()
          .replace(/[^a-z0-9-]/g, '-'),
        products: 6,
        orders: 20,
      }).domain;
      await installAndApprove(draftShop);
      await setupDone(draftShop);
      const draftId = await companyOf(draftShop);
      expect(await offerOf(draftId)).toMatchObject({ live: false, left_with_store: null });
      await leave(draftShop);
      expect(await offerOf(draftId)).toMatchObject({ live: false, left_with_store: null });
      await installAndApprove(draftShop);
      expect(await offerOf(draftId)).toMatchObject({ live: false, left_with_store: null });
    });
  },
  ENV,
);
