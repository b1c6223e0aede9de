import { HttpResponseError, RequestedTokenType } from '@shopify/shopify-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { INVALID_SUBJECT_TOKEN, ONLINE_TOKEN_SECONDS } from './oauth.js';
import { offlineSession, shopifyLibraryFor } from './shopify-library.js';
import { ShopifyStandIn } from './stand-in.js';
import { SHOPIFY_TOKEN_LIFETIMES } from './tokens.js';

const SHOP = 'hazel-court.myshopify.com';
const OTHER = 'quince-yard.myshopify.com';
const NOT_INSTALLED = 'sorrel-lane.myshopify.com';
const DAY = 86_400_000;
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';

/**
 * Token exchange of session tokens at `POST https://{shop}/admin/oauth/access_token`, driven by the
 * library's own `auth.tokenExchange` where it can be (it checks the session token itself first, so
 * the endpoint's refusals of bad tokens are sent by hand, as an app that skipped that check would):
 * offline tokens, expiring or not, online tokens with the staff member, and Shopify's errors.
 */
describe('Shopify stand-in: token exchange of session tokens', () => {
  const standIn = new ShopifyStandIn();
  const shopify = shopifyLibraryFor(standIn, { hostName: 'app.test', scopes: standIn.app.scopes });
  const read = (shop: string, accessToken: string) =>
    new shopify.clients.Graphql({ session: offlineSession(shop, accessToken, standIn.app.scopes.join(',')) }).request('{ shop { name } }');
  const refused = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (error: unknown) => (error instanceof HttpResponseError ? { code: error.response.code, body: error.response.body } : error),
    );
  const exchangeByHand = (shop: string, fields: Record<string, string>) =>
    standIn.fetch(`https://${shop}/admin/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        client_id: standIn.app.apiKey,
        client_secret: standIn.app.apiSecret,
        grant_type: TOKEN_EXCHANGE,
        subject_token_type: ID_TOKEN,
        requested_token_type: RequestedTokenType.OfflineAccessToken,
        expiring: '1',
        ...fields,
      }),
    });

  beforeAll(() => {
    for (const name of ['hazel-court', 'quince-yard', 'sorrel-lane']) standIn.createShop({ name, products: 1 });
    standIn.installApp(SHOP, standIn.app.scopes);
    standIn.installApp(OTHER, standIn.app.scopes);
  });

  it('trades a session token for an expiring offline pair with the installation’s scopes, which the Admin API takes', async () => {
    const { session } = await shopify.auth.tokenExchange({
      shop: SHOP,
      sessionToken: standIn.sessionToken(SHOP),
      requestedTokenType: RequestedTokenType.OfflineAccessToken,
      expiring: true,
    });
    expect(session).toMatchObject({
      id: `offline_${SHOP}`,
      shop: SHOP,
      isOnline: false,
      scope: 'read_products,read_orders,write_discounts',
    });
    expect(session.refreshToken).toMatch(/^shprt_/);
    expect(session.expires!.getTime() - Date.now()).toBeGreaterThan(SHOPIFY_TOKEN_LIFETIMES.accessSeconds * 1000 - 5000);
    expect(session.refreshTokenExpires!.getTime() - Date.now()).toBeGreaterThan(89 * DAY);
    expect((await read(SHOP, session.accessToken!)).data).toEqual({ shop: { name: 'Hazel Court' } });
    expect(standIn.tokenRequests(SHOP).at(-1)).toMatchObject({ grant: 'token_exchange', status: 200 });

    // A new pair replaces the last: its refresh token is spent, as Shopify keeps one expiring token per app and store.
    await shopify.auth.tokenExchange({
      shop: SHOP,
      sessionToken: standIn.sessionToken(SHOP),
      requestedTokenType: RequestedTokenType.OfflineAccessToken,
      expiring: true,
    });
    expect(await refused(shopify.auth.refreshToken({ shop: SHOP, refreshToken: session.refreshToken! }))).toMatchObject({
      code: 400,
      body: { error: 'invalid_grant' },
    });
  });

  it('gives a non-expiring offline token without `expiring`', async () => {
    const { session } = await shopify.auth.tokenExchange({
      shop: SHOP,
      sessionToken: standIn.sessionToken(SHOP),
      requestedTokenType: RequestedTokenType.OfflineAccessToken,
    });
    expect(session.expires).toBeUndefined();
    expect(session.refreshToken).toBeUndefined();
    expect((await read(SHOP, session.accessToken!)).data).toEqual({ shop: { name: 'Hazel Court' } });
  });

  it('gives an online token for the staff member the session token names, for 24 hours', async () => {
    const clerk = standIn.addStaff(SHOP, { email: 'sam@hazel-court.example', firstName: 'Sam', lastName: 'Reyes', locale: 'fr' });
    const { session } = await shopify.auth.tokenExchange({
      shop: SHOP,
      sessionToken: standIn.sessionToken(SHOP, { staff: clerk }),
      requestedTokenType: RequestedTokenType.OnlineAccessToken,
    });
    expect(session.isOnline).toBe(true);
    expect(session.onlineAccessInfo).toMatchObject({
      expires_in: ONLINE_TOKEN_SECONDS,
      associated_user_scope: 'read_products,read_orders,write_discounts',
      associated_user: {
        id: clerk.id,
        first_name: 'Sam',
        last_name: 'Reyes',
        email: 'sam@hazel-court.example',
        account_owner: false,
        locale: 'fr',
      },
    });
    expect(session.expires!.getTime() - Date.now()).toBeGreaterThan(ONLINE_TOKEN_SECONDS * 1000 - 5000);
    expect((await read(SHOP, session.accessToken!)).data).toEqual({ shop: { name: 'Hazel Court' } });
  });

  it.each([
    ['expired', { expired: true }],
    ['signed with another secret', { secret: 'forged-secret' }],
    ['issued to another app', { audience: 'another-client-id' }],
  ])('answers 400 invalid_subject_token to a session token %s, and issues nothing', async (_name, variant) => {
    const tokensBefore = standIn.shop(SHOP).installation.tokens.size;
    const response = await exchangeByHand(SHOP, { subject_token: standIn.sessionToken(SHOP, variant) });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual(INVALID_SUBJECT_TOKEN.body);
    expect(standIn.shop(SHOP).installation.tokens.size).toBe(tokensBefore);
    expect(standIn.tokenRequests(SHOP).at(-1)).toMatchObject({ grant: 'token_exchange', status: 400 });
  });

  it('answers invalid_subject_token to another store’s session token, even one the library would take', async () => {
    const response = await exchangeByHand(SHOP, { subject_token: standIn.sessionToken(OTHER) });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual(INVALID_SUBJECT_TOKEN.body);
    // Staff of both stores: their token for the other store is still not this store's.
    const both = standIn.addStaff(OTHER, { email: 'kim@both.example' });
    standIn.addStaff(SHOP, { email: 'kim@both.example' });
    const crossed = await exchangeByHand(SHOP, { subject_token: standIn.sessionToken(OTHER, { staff: both }) });
    expect([crossed.status, (await crossed.json()).error]).toEqual([400, 'invalid_subject_token']);
    // Through the library too: it checks the token's signature, not which store it is for.
    expect(
      await refused(
        shopify.auth.tokenExchange({
          shop: SHOP,
          sessionToken: standIn.sessionToken(OTHER),
          requestedTokenType: RequestedTokenType.OfflineAccessToken,
          expiring: true,
        }),
      ),
    ).toMatchObject({ code: 400, body: INVALID_SUBJECT_TOKEN.body });
  });

  it('answers invalid_subject_token for a store that has not installed the app, and one that uninstalled it', async () => {
    expect(
      await refused(
        shopify.auth.tokenExchange({
          shop: NOT_INSTALLED,
          sessionToken: standIn.sessionToken(NOT_INSTALLED),
          requestedTokenType: RequestedTokenType.OfflineAccessToken,
          expiring: true,
        }),
      ),
    ).toMatchObject({ code: 400, body: INVALID_SUBJECT_TOKEN.body });
    expect(standIn.shop(NOT_INSTALLED).installation.tokens.size).toBe(0);

    await standIn.uninstall(OTHER);
    const response = await exchangeByHand(OTHER, { subject_token: standIn.sessionToken(OTHER) });
    expect([response.status, (await response.json()).error]).toEqual([400, 'invalid_subject_token']);
  });

  it('answers invalid_client to wrong client credentials before reading the token', async () => {
    const response = await exchangeByHand(SHOP, { subject_token: standIn.sessionToken(SHOP), client_secret: 'not-the-secret' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('answers invalid_request to a token type it cannot issue, and to a token that is not a JWT', async () => {
    const wrongType = await exchangeByHand(SHOP, { subject_token: standIn.sessionToken(SHOP), requested_token_type: 'urn:x:other' });
    expect([wrongType.status, (await wrongType.json()).error]).toEqual([400, 'invalid_request']);
    const garbage = await exchangeByHand(SHOP, { subject_token: 'not-a-jwt' });
    expect([garbage.status, (await garbage.json()).error]).toEqual([400, 'invalid_subject_token']);
  });
});
