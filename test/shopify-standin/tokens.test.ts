import { HttpResponseError } from '@shopify/shopify-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { offlineSession, shopifyLibraryFor } from './shopify-library.js';
import { ShopifyStandIn } from './stand-in.js';
import { SHOPIFY_TOKEN_LIFETIMES } from './tokens.js';

const SHOP = 'birch-and-pine.myshopify.com';
const SCOPES = ['read_products'];
const DAY = 86_400_000;

/**
 * The stand-in's expiring offline tokens, driven by the library's own calls (`refreshToken`,
 * `migrateToExpiringToken`) and read back by its GraphQL client: Shopify's documented lifetimes,
 * refresh tokens replaced on use, a lost answer recoverable, and `invalid_grant` for the rest.
 */
describe('Shopify stand-in: expiring offline tokens, refresh and migration', () => {
  let offsetMs = 0;
  const standIn = new ShopifyStandIn({ now: () => new Date(Date.now() + offsetMs) });
  const shopify = shopifyLibraryFor(standIn, { hostName: 'app.test', scopes: SCOPES });
  const read = (accessToken: string) =>
    new shopify.clients.Graphql({ session: offlineSession(SHOP, accessToken, SCOPES.join(',')) }).request('{ shop { name } }');
  const refused = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (error: unknown) => (error instanceof HttpResponseError ? { code: error.response.code, body: error.response.body } : error),
    );

  beforeAll(() => {
    standIn.createShop({ name: 'birch-and-pine', products: 2 });
  });

  it('exchanges a non-expiring token for an expiring pair once; the same exchange again answers the same pair', async () => {
    const old = standIn.installApp(SHOP, SCOPES);
    const { session } = await shopify.auth.migrateToExpiringToken({ shop: SHOP, nonExpiringOfflineAccessToken: old });
    expect(session.refreshToken).toMatch(/^shprt_/);
    expect(session.expires!.getTime() - Date.now()).toBeGreaterThan(SHOPIFY_TOKEN_LIFETIMES.accessSeconds * 1000 - 5000);
    expect(session.refreshTokenExpires!.getTime() - Date.now()).toBeGreaterThan(89 * DAY);
    expect(await refused(read(old))).toMatchObject({ code: 401 });
    expect((await read(session.accessToken!)).data).toEqual({ shop: { name: 'Birch And Pine' } });
    const again = await shopify.auth.migrateToExpiringToken({ shop: SHOP, nonExpiringOfflineAccessToken: old });
    expect([again.session.accessToken, again.session.refreshToken]).toEqual([session.accessToken, session.refreshToken]);

    // Refreshed since, the pair is no longer the exchange's to give.
    await shopify.auth.refreshToken({ shop: SHOP, refreshToken: session.refreshToken! });
    expect(await refused(shopify.auth.migrateToExpiringToken({ shop: SHOP, nonExpiringOfflineAccessToken: old }))).toMatchObject({
      code: 400,
      body: { error: 'invalid_grant' },
    });
  });

  it('rotates the refresh token on use; a lost answer may be retried until the replacement is used, then it is spent', async () => {
    const { session: first } = await shopify.auth.migrateToExpiringToken({
      shop: SHOP,
      nonExpiringOfflineAccessToken: standIn.installApp(SHOP, SCOPES),
    });
    const { session: second } = await shopify.auth.refreshToken({ shop: SHOP, refreshToken: first.refreshToken! });
    expect(second.refreshToken).not.toBe(first.refreshToken);
    // The answer was lost: the same refresh token again gives a pair, which replaces the one before.
    const { session: retried } = await shopify.auth.refreshToken({ shop: SHOP, refreshToken: first.refreshToken! });
    expect(await refused(shopify.auth.refreshToken({ shop: SHOP, refreshToken: second.refreshToken! }))).toMatchObject({
      code: 400,
      body: { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' },
    });
    await shopify.auth.refreshToken({ shop: SHOP, refreshToken: retried.refreshToken! });
    // Its replacement used, the first refresh token is spent for good.
    expect(await refused(shopify.auth.refreshToken({ shop: SHOP, refreshToken: first.refreshToken! }))).toMatchObject({ code: 400 });
  });

  it('ends an access token after an hour and a refresh token after 90 days; uninstalling ends both', async () => {
    const { session } = await shopify.auth.migrateToExpiringToken({
      shop: SHOP,
      nonExpiringOfflineAccessToken: standIn.installApp(SHOP, SCOPES),
    });
    offsetMs = SHOPIFY_TOKEN_LIFETIMES.accessSeconds * 1000;
    expect(await refused(read(session.accessToken!))).toMatchObject({ code: 401 });
    const { session: renewed } = await shopify.auth.refreshToken({ shop: SHOP, refreshToken: session.refreshToken! });
    expect((await read(renewed.accessToken!)).data).toBeTruthy();
    offsetMs += SHOPIFY_TOKEN_LIFETIMES.refreshSeconds * 1000;
    expect(await refused(shopify.auth.refreshToken({ shop: SHOP, refreshToken: renewed.refreshToken! }))).toMatchObject({ code: 400 });

    offsetMs = 0;
    const { session: last } = await shopify.auth.migrateToExpiringToken({
      shop: SHOP,
      nonExpiringOfflineAccessToken: standIn.installApp(SHOP, SCOPES),
    });
    await standIn.uninstall(SHOP);
    expect(await refused(shopify.auth.refreshToken({ shop: SHOP, refreshToken: last.refreshToken! }))).toMatchObject({
      code: 400,
      body: { error: 'invalid_grant' },
    });
    expect(
      standIn
        .tokenRequests(SHOP)
        .filter((request) => request.grant === 'refresh_token')
        .map((request) => request.status),
    ).toEqual(expect.arrayContaining([200, 400]));
  });
});
