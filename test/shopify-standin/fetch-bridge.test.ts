import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formFields } from './example-app.js';
import type { LocalListener } from './fetch-bridge.js';
import { ShopifyStandIn } from './stand-in.js';

const SHOP = 'harbor.myshopify.com';

describe('Shopify stand-in: the local port, for another process', () => {
  const standIn = new ShopifyStandIn();
  let listener: LocalListener;

  beforeAll(async () => {
    standIn.createShop({ name: 'harbor', products: 2 });
    listener = await standIn.listen();
  });
  afterAll(() => standIn.close());

  it('serves https://{shop}.myshopify.com/... at http://127.0.0.1:{port}/{shop}.myshopify.com/...', async () => {
    const query = new URLSearchParams({
      client_id: standIn.app.apiKey,
      scope: 'read_products',
      redirect_uri: standIn.app.redirectUrls[0]!,
      state: 's1',
    });
    const authorize = `https://${SHOP}/admin/oauth/authorize?${query}`;
    const local = listener.localUrlFor(authorize);
    expect(local).toBe(`${listener.baseUrl}/${SHOP}/admin/oauth/authorize${new URL(authorize).search}`);
    const page = await fetch(local);
    expect(page.status).toBe(200);
    // The grant form posts to a relative path, so it works on the local port too.
    const granted = await fetch(new URL('grant', local), {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams(formFields(await page.text())),
    });
    expect(granted.status).toBe(302);
    expect(new URL(granted.headers.get('location')!).searchParams.get('shop')).toBe(SHOP);

    const token = standIn.installApp(SHOP, ['read_products']);
    const graphql = await fetch(listener.localUrlFor(`https://${SHOP}/admin/api/2026-10/graphql.json`), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-shopify-access-token': token },
      body: JSON.stringify({ query: '{ productsCount { count } }' }),
    });
    expect(((await graphql.json()) as { data: unknown }).data).toEqual({ productsCount: { count: 2 } });
    expect((await fetch(`${listener.baseUrl}/example.com/`)).status).toBe(404);
  });
});
