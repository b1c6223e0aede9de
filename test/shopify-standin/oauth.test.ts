import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_USER_AGENT, cookiesFrom, formFields, startExampleApp, type ExampleApp } from './example-app.js';
import { AUTHORIZATION_CODE_TTL_MS, signQuery } from './oauth.js';
import { shopifyLibraryFor } from './shopify-library.js';
import { ShopifyStandIn } from './stand-in.js';

const SHOP = 'oak-and-ash.myshopify.com';
const SCOPES = ['read_products', 'read_orders', 'write_discounts'];

describe('Shopify stand-in: OAuth authorization code grant, checked by @shopify/shopify-api', () => {
  // Real time plus an offset the test moves: the library checks the callback's timestamp against its own clock.
  let offsetMs = 0;
  const standIn = new ShopifyStandIn({ now: () => new Date(Date.now() + offsetMs) });
  let shopify: ReturnType<typeof shopifyLibraryFor>;
  let app: ExampleApp;
  const get = (url: string, headers: Record<string, string> = {}) =>
    fetch(url, { redirect: 'manual', headers: { 'user-agent': BROWSER_USER_AGENT, ...headers } });

  beforeAll(async () => {
    standIn.createShop({ name: 'oak-and-ash', products: 5 });
    app = await startExampleApp((hostName) => {
      shopify = shopifyLibraryFor(standIn, { hostName, hostScheme: 'http', scopes: SCOPES });
      return shopify;
    });
    standIn.app.redirectUrls.push(app.callbackUrl);
  });
  afterAll(() => app.close());

  /**
   * The app's install redirect, followed to the stand-in's answer: once the app holds the scopes,
   * Shopify sends the staff straight back to the app, as the stand-in does after the first test.
   */
  async function installToCallback(): Promise<{ callback: URL; cookie: string }> {
    const install = await get(`${app.baseUrl}/install?shop=${SHOP}`);
    expect(install.status).toBe(302);
    const authorize = new URL(install.headers.get('location')!);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`https://${SHOP}/admin/oauth/authorize`);
    const page = await standIn.fetch(authorize);
    if (page.status === 302) return { callback: new URL(page.headers.get('location')!), cookie: cookiesFrom(install) };
    const fields = formFields(await page.text());
    const granted = await standIn.fetch(new URL('grant', authorize), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields),
    });
    expect(granted.status).toBe(302);
    return { callback: new URL(granted.headers.get('location')!), cookie: cookiesFrom(install) };
  }

  it('walks install → grant page → signed callback → token, and the token reads the Admin API', async () => {
    const install = await get(`${app.baseUrl}/install?shop=${SHOP}`);
    const authorize = new URL(install.headers.get('location')!);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      client_id: standIn.app.apiKey,
      scope: SCOPES.join(','),
      redirect_uri: app.callbackUrl,
    });

    const page = await standIn.fetch(authorize);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<button class="primary" type="submit">Install app</button>');
    for (const scope of SCOPES) expect(html).toContain(`<li>${scope}</li>`);

    const granted = await standIn.fetch(new URL('grant', authorize), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(formFields(html)),
    });
    const callback = new URL(granted.headers.get('location')!);
    expect([...callback.searchParams.keys()].sort()).toEqual(['code', 'hmac', 'host', 'shop', 'state', 'timestamp']);
    expect(callback.searchParams.get('host')).toBe(
      Buffer.from('admin.shopify.com/store/oak-and-ash').toString('base64').replace(/=+$/, ''),
    );
    expect(await shopify.utils.validateHmac(Object.fromEntries(callback.searchParams))).toBe(true);

    const done = await get(callback.toString(), { cookie: cookiesFrom(install) });
    expect(done.status).toBe(200);
    const session = app.sessions.at(-1)!;
    expect(session).toMatchObject({ shop: SHOP, isOnline: false, scope: SCOPES.join(',') });
    const client = new shopify.clients.Graphql({ session });
    expect((await client.request('{ shop { myshopifyDomain } }')).data).toEqual({ shop: { myshopifyDomain: SHOP } });
  });

  it('signs exactly as the library checks: any altered parameter fails validateHmac', async () => {
    const { callback } = await installToCallback();
    const query = Object.fromEntries(callback.searchParams);
    expect(query.hmac).toBe(signQuery(standIn.app.apiSecret, query));
    for (const key of ['code', 'shop', 'state', 'host']) {
      expect(await shopify.utils.validateHmac({ ...query, [key]: `${query[key]}x` })).toBe(false);
    }
    expect(await shopify.utils.validateHmac({ ...query, hmac: signQuery('another-secret', query) })).toBe(false);
  });

  it('lets a code work once: a replayed callback is refused by the code exchange', async () => {
    const { callback, cookie } = await installToCallback();
    const sessionsBefore = app.sessions.length;
    expect((await get(callback.toString(), { cookie })).status).toBe(200);
    const replay = await get(callback.toString(), { cookie });
    expect(replay.status).toBe(400);
    expect(await replay.text()).toBe('HttpResponseError');
    expect(app.sessions).toHaveLength(sessionsBefore + 1);

    const direct = await standIn.fetch(`https://${SHOP}/admin/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_id: standIn.app.apiKey,
        client_secret: standIn.app.apiSecret,
        code: callback.searchParams.get('code'),
      }),
    });
    expect(direct.status).toBe(400);
    expect(await direct.json()).toEqual({
      error: 'invalid_request',
      error_description: 'The authorization code was not found or was already used',
    });
  });

  it('lets a code expire, and takes none with the wrong client secret', async () => {
    const exchange = (code: string, secret = standIn.app.apiSecret) =>
      standIn.fetch(`https://${SHOP}/admin/oauth/access_token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: standIn.app.apiKey, client_secret: secret, code }),
      });
    const late = (await installToCallback()).callback.searchParams.get('code')!;
    offsetMs += AUTHORIZATION_CODE_TTL_MS;
    expect((await exchange(late)).status).toBe(400);
    offsetMs = 0;

    const fresh = (await installToCallback()).callback.searchParams.get('code')!;
    const wrongSecret = await exchange(fresh, 'not-the-secret');
    expect(wrongSecret.status).toBe(400);
    expect(await wrongSecret.json()).toMatchObject({ error: 'invalid_client' });
    const good = await exchange((await installToCallback()).callback.searchParams.get('code')!);
    expect(good.status).toBe(200);
    expect(await good.json()).toEqual({ access_token: expect.stringMatching(/^shpua_[0-9a-f]{32}$/), scope: SCOPES.join(',') });
  });

  it('redirects straight back when the app holds the scopes already, and refuses a foreign redirect_uri or client_id', async () => {
    const authorize = (params: Record<string, string>) =>
      standIn.fetch(
        `https://${SHOP}/admin/oauth/authorize?${new URLSearchParams({
          client_id: standIn.app.apiKey,
          scope: 'read_products',
          redirect_uri: app.callbackUrl,
          state: 'nonce-1',
          ...params,
        })}`,
      );
    const again = await authorize({});
    expect(again.status).toBe(302);
    expect(new URL(again.headers.get('location')!).searchParams.get('state')).toBe('nonce-1');

    const foreign = await authorize({ redirect_uri: 'https://evil.example/callback' });
    expect(foreign.status).toBe(400);
    expect(await foreign.text()).toContain('The redirect_uri is not whitelisted');
    expect((await authorize({ client_id: 'someone-else' })).status).toBe(400);
    expect((await authorize({ scope: 'read_products,launch_missiles' })).status).toBe(400);
  });
});
