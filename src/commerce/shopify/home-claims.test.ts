import { setAbstractFetchFunc } from '@shopify/shopify-api/runtime';
import { beforeAll, expect, it } from 'vitest';
import { DASHBOARD_PASSWORD, DashboardClient } from '../../../test/support/dashboard-client.js';
import { uniqueId } from '../../../test/support/factories.js';
import { describeEachDatabase } from '../../../test/support/harness.js';
import { answerClaimInAdmin, claimsInAdmin, install, shopifyEnv, standInFor } from '../../../test/support/shopify.js';
import { tableContents } from '../../../test/support/snapshot.js';
import { BROWSER_USER_AGENT } from '../../../test/shopify-standin/example-app.js';
import { hostParameter, signQuery } from '../../../test/shopify-standin/oauth.js';
import { ShopifyStandIn } from '../../../test/shopify-standin/stand-in.js';

const BASE_URL = 'https://svc.test';
const ENV = {
  LOG_LEVEL: 'error',
  BASE_URL,
  SANDBOX_IMPORT_MS: '0',
  STORE_MIN_ORDERS: '1',
  SETUP_POLL_MS: '20',
  ...shopifyEnv(new ShopifyStandIn()),
};
const RETRY = 'x-shopify-retry-invalid-session-request';

/**
 * A dashboard sign-up's claim of a Shopify store is proved inside the app embedded in the store's
 * admin (issue 45): the app home lists the store's waiting claims, and its Confirm is a POST with
 * Shopify's session token, which names the store (`dest`) and the staff member (`sub`). A bad
 * token gets Shopify's retry answer; a GET, a launch or a link confirms nothing.
 */
describeEachDatabase(
  'Shopify: a claim of the store confirmed by its staff inside the embedded app',
  (use) => {
    let standIn: ShopifyStandIn;

    /** A store with the app installed (OAuth, no claim on it): the admin opens the app's home. */
    const installedShop = async (name = 'Claimed Goods') => {
      const shop = standIn.createShop({
        name: uniqueId('claim')
          .toLowerCase()
          .replace(/[^a-z0-9-]/g, '-'),
        title: name,
        products: 6,
        orders: 20,
      }).domain;
      const installed = await install(use().app, standIn, `/commerce/shopify/install?shop=${shop}`);
      expect(installed.statusCode, installed.body).toBe(200);
      return shop;
    };

    /** A person signs up at the dashboard claiming `shop`: their account waits for the store's staff. */
    const claimant = async (shop: string, email = `${uniqueId('claimant')}@brand.example`) => {
      const client = await new DashboardClient(use().app).start();
      const signUp = await client.signUp({ email, password: DASHBOARD_PASSWORD, brand: { businessName: 'Claimed Goods', domain: shop } });
      expect(signUp.statusCode, signUp.body).toBe(201);
      const [claim] = (await claimsInAdmin(use().app, standIn, shop)).filter((asking) => asking.email === email);
      expect(claim, 'the app home lists the claim').toBeDefined();
      return { client, email, claimId: claim!.claimId, confirmUrl: signUp.json().claim.confirmUrl as string };
    };

    const checkClaim = async (client: DashboardClient) => (await client.post('/dashboard/api/claim/check')).json();
    const confirmations = (shop: string) =>
      use().db.selectFrom('shopify_ownership_confirmations').select(['claim_id', 'staff_id']).where('shop', '=', shop).execute();

    /** The admin's frame loading the App URL, as Shopify builds it, with `extra` parameters a lure might add. */
    const embeddedLaunch = (shop: string, extra: Record<string, string>) => {
      const params: Record<string, string> = {
        embedded: '1',
        host: hostParameter(shop),
        id_token: standIn.sessionToken(shop),
        shop,
        timestamp: String(Math.floor(Date.now() / 1000)),
        ...extra,
      };
      return `/commerce/shopify/app?${new URLSearchParams({ ...params, hmac: signQuery(standIn.app.apiSecret, params) }).toString()}`;
    };

    beforeAll(() => {
      standIn = standInFor(BASE_URL, () => use().app);
      setAbstractFetchFunc(standIn.fetch);
    });

    it('sends the claimant to the app in the store’s admin, and says to confirm there', async () => {
      const shop = await installedShop();
      const client = await new DashboardClient(use().app).start();
      const signUp = await client.signUp({
        email: `${uniqueId('claimant')}@brand.example`,
        password: DASHBOARD_PASSWORD,
        brand: { businessName: 'Claimed Goods', domain: shop },
      });
      expect(signUp.json().claim).toMatchObject({
        status: 'pending',
        confirmUrl: `https://admin.shopify.com/store/${shop.split('.')[0]}/apps/${standIn.app.apiKey}`,
        message: expect.stringContaining('Open the app in the Shopify admin'),
      });
    });

    it('the store’s staff confirm in the app home: the claimant’s account acts for the brand, the staff member recorded', async () => {
      const shop = await installedShop('Maple Row');
      const { client, email, claimId } = await claimant(shop);
      const home = await use().app.inject({
        method: 'GET',
        url: `/commerce/shopify/home?shop=${shop}`,
        headers: { authorization: `Bearer ${standIn.sessionToken(shop)}` },
      });
      expect(home.body).toContain(`<strong>${email}</strong> asks to act for Maple Row`);
      expect(await checkClaim(client)).toMatchObject({ companyId: null, claim: { status: 'pending' } });

      const answer = await answerClaimInAdmin(use().app, { shop, claimId, token: standIn.sessionToken(shop) });
      expect(answer.statusCode, answer.body).toBe(200);
      expect(answer.json()).toEqual({ done: 'claim_confirmed' });
      expect(await confirmations(shop)).toEqual([{ claim_id: claimId, staff_id: String(standIn.staffMember(shop).id) }]);
      // Confirmed, it is no longer asked; the claimant's dashboard settles it on its next look.
      expect(await claimsInAdmin(use().app, standIn, shop)).toEqual([]);
      const checked = await checkClaim(client);
      expect(checked.companyId, JSON.stringify(checked)).toBeTruthy();
      expect((await client.post('/dashboard/api/keys', { name: 'k' })).statusCode).toBeLessThan(300);
      // Settled, the claim cannot be answered again.
      const again = await answerClaimInAdmin(use().app, { shop, claimId, decision: 'decline', token: standIn.sessionToken(shop) });
      expect(again.statusCode).toBe(409);
    });

    it('critical: a forged, expired, other-app or other-store token gets Shopify’s retry answer, and nothing is confirmed', async () => {
      const shop = await installedShop();
      const other = await installedShop('Other Store');
      const { client, claimId } = await claimant(shop);
      const bad: Array<[string, string | undefined]> = [
        ['missing', undefined],
        ['expired', standIn.sessionToken(shop, { expired: true })],
        ['signed with another secret', standIn.sessionToken(shop, { secret: 'not-the-app-secret-0123456789abcd' })],
        ['for another app', standIn.sessionToken(shop, { audience: 'another-app-api-key' })],
        ['for another store', standIn.sessionToken(other)],
        ['not a JWT', 'not.a.jwt'],
      ];
      const before = await tableContents(use().db);
      for (const [kind, token] of bad) {
        const answer = await use().app.inject({
          method: 'POST',
          url: '/commerce/shopify/home/claim',
          headers: { 'content-type': 'application/json', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
          payload: JSON.stringify({ shop, claimId, decision: 'confirm' }),
        });
        expect(answer.statusCode, kind).toBe(401);
        expect(answer.headers[RETRY], kind).toBe('1');
        expect(answer.json().error, kind).toBe('unauthorized');
      }
      expect(await tableContents(use().db)).toEqual(before);
      expect(await checkClaim(client)).toMatchObject({ companyId: null, claim: { status: 'pending' } });
    });

    it('critical: another store’s staff cannot confirm a claim of this store, even naming their own store', async () => {
      const shop = await installedShop();
      const other = await installedShop('Other Store');
      const { client, claimId } = await claimant(shop);
      const before = await tableContents(use().db);
      for (const decision of ['confirm', 'decline'] as const) {
        const answer = await answerClaimInAdmin(use().app, { shop: other, claimId, decision, token: standIn.sessionToken(other) });
        expect(answer.statusCode, decision).toBe(409);
        expect(answer.json().message, decision).toContain('not waiting for an answer');
      }
      expect(await tableContents(use().db)).toEqual(before);
      expect(await checkClaim(client)).toMatchObject({ companyId: null, claim: { status: 'pending' } });
    });

    it('critical: a lure confirms nothing: a GET of the action, a launch with the claim in its address, the claimant’s link', async () => {
      const shop = await installedShop();
      const { client, claimId, confirmUrl } = await claimant(shop);
      const before = await tableContents(use().db);
      const token = standIn.sessionToken(shop);
      const lures = [
        `/commerce/shopify/home/claim?${new URLSearchParams({ shop, claimId, decision: 'confirm' }).toString()}`,
        embeddedLaunch(shop, { claim: claimId, claimId, decision: 'confirm' }),
        `/commerce/shopify/home?${new URLSearchParams({ shop, claimId, decision: 'confirm' }).toString()}`,
      ];
      for (const lure of lures) {
        const answer = await use().app.inject({
          method: 'GET',
          url: lure,
          headers: { authorization: `Bearer ${token}`, 'user-agent': BROWSER_USER_AGENT },
        });
        expect(answer.statusCode, lure).not.toBe(500);
      }
      // The claimant's own link is the admin's page of the app, which asks; it carries nothing about the claim.
      expect(confirmUrl).not.toContain(claimId);
      expect(await tableContents(use().db)).toEqual(before);
      expect(await confirmations(shop)).toEqual([]);
      expect(await checkClaim(client)).toMatchObject({ companyId: null, claim: { status: 'pending' } });
    });

    it('decline: nothing is confirmed, the claimant’s page says the store declined, the home asks no more', async () => {
      const shop = await installedShop();
      const { client, claimId } = await claimant(shop);
      const answer = await answerClaimInAdmin(use().app, { shop, claimId, decision: 'decline', token: standIn.sessionToken(shop) });
      expect(answer.statusCode, answer.body).toBe(200);
      expect(answer.json()).toEqual({ done: 'claim_declined' });
      expect(await confirmations(shop)).toEqual([]);
      expect(await claimsInAdmin(use().app, standIn, shop)).toEqual([]);
      expect(await checkClaim(client)).toMatchObject({ companyId: null, claim: { status: 'declined' } });
      // Declined, it cannot be confirmed afterwards.
      const late = await answerClaimInAdmin(use().app, { shop, claimId, token: standIn.sessionToken(shop) });
      expect(late.statusCode).toBe(409);
      expect(await confirmations(shop)).toEqual([]);
    });

    it('refuses a body without a claim id or a decision (400), nothing written', async () => {
      const shop = await installedShop();
      const { claimId } = await claimant(shop);
      const before = await tableContents(use().db);
      for (const body of [
        { shop, decision: 'confirm' },
        { shop, claimId: 'not-a-uuid', decision: 'confirm' },
        { shop, claimId, decision: 'maybe' },
      ]) {
        const answer = await use().app.inject({
          method: 'POST',
          url: '/commerce/shopify/home/claim',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${standIn.sessionToken(shop)}` },
          payload: JSON.stringify(body),
        });
        expect(answer.statusCode, JSON.stringify(body)).toBe(400);
      }
      expect(await tableContents(use().db)).toEqual(before);
    });
  },
  ENV,
);
