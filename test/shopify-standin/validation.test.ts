import { GraphqlQueryError } from '@shopify/shopify-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { INVALID_TOKEN_BODY } from './admin-api.js';
import { offlineSession, shopifyLibraryFor } from './shopify-library.js';
import { ShopifyStandIn } from './stand-in.js';

const SHOP = 'acme.myshopify.com';
const SCOPES = ['read_products', 'read_orders', 'write_discounts'];

describe('Shopify stand-in: documents are checked against the 2026-10 Admin API schema', () => {
  // A clock that stands still, so the bucket's level is exact.
  const standIn = new ShopifyStandIn({ now: () => new Date('2026-11-02T12:00:00Z') });
  let token = '';
  const graphql = (query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}, version = '2026-10') =>
    standIn.fetch(`https://${SHOP}/admin/api/${version}/graphql.json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-shopify-access-token': token, ...headers },
      body: JSON.stringify({ query, variables }),
    });

  beforeAll(() => {
    standIn.createShop({ name: 'acme', products: 3, title: 'Acme Outfitters', currency: 'CAD', country: 'Canada', countryCode: 'CA' });
    token = standIn.installApp(SHOP, SCOPES);
  });

  it('rejects an unknown field the way Shopify does: 200, an errors array, no data, nothing run', async () => {
    const response = await graphql('{ shop { name nickname } }');
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, any>;
    expect(body).not.toHaveProperty('data');
    expect(body.errors).toEqual([
      {
        message: "Field 'nickname' doesn't exist on type 'Shop'",
        locations: [{ line: 1, column: 15 }],
        extensions: { code: 'undefinedField', typeName: 'Shop', fieldName: 'nickname' },
      },
    ]);
    expect(body.extensions.cost.requestedQueryCost).toBe(0);
  });

  it('rejects a literal of the wrong type for an argument', async () => {
    const body = (await (await graphql('{ products(first: "ten") { nodes { id } } }')).json()) as Record<string, any>;
    expect(body).not.toHaveProperty('data');
    expect(body.errors[0]).toMatchObject({
      message: `Argument 'first' on Field 'products' has an invalid value ("ten"). Expected type 'Int'.`,
      extensions: { code: 'argumentLiteralsIncompatible', typeName: 'Field', argumentName: 'first' },
    });
  });

  it('rejects an unknown argument, a missing required argument and a variable of the wrong type', async () => {
    const unknown = (await (await graphql('{ products(first: 1, color: "red") { nodes { id } } }')).json()) as Record<string, any>;
    expect(unknown.errors[0]).toMatchObject({
      message: "Field 'products' doesn't accept argument 'color'",
      extensions: { code: 'argumentNotAccepted' },
    });
    const missing = (await (await graphql('{ product { id } }')).json()) as Record<string, any>;
    expect(missing.errors[0]).toMatchObject({
      message: "Field 'product' is missing required arguments: id",
      extensions: { code: 'missingRequiredArguments' },
    });
    const variable = (await (
      await graphql('query Page($first: Int!) { products(first: $first) { nodes { id } } }', { first: 'ten' })
    ).json()) as Record<string, any>;
    expect(variable).not.toHaveProperty('data');
    expect(variable.errors[0]).toMatchObject({
      message: 'Variable $first of type Int! was provided invalid value',
      extensions: { code: 'INVALID_VARIABLE', value: 'ten' },
    });
  });

  it('runs a valid document over the shop data, with the cost in extensions', async () => {
    const response = await graphql(`#graphql
      query Profile {
        shop { name myshopifyDomain currencyCode description primaryDomain { host url } shopAddress { country countryCodeV2 } }
        products(first: 2, query: "status:active") {
          nodes {
            id title status totalInventory featuredMedia { ... on MediaImage { image { url } } } variants(first: 1) { nodes { price } }
          }
          pageInfo { hasNextPage }
        }
      }`);
    expect(response.headers.get('x-shopify-api-version')).toBe('2026-10');
    const body = (await response.json()) as Record<string, any>;
    expect(body.errors).toBeUndefined();
    expect(body.data.shop).toEqual({
      name: 'Acme Outfitters',
      myshopifyDomain: SHOP,
      currencyCode: 'CAD',
      description: 'acme sells good things.',
      primaryDomain: { host: 'acme.example', url: 'https://acme.example' },
      shopAddress: { country: 'Canada', countryCodeV2: 'CA' },
    });
    expect(body.data.products.nodes).toHaveLength(2);
    expect(body.data.products.nodes[0]).toMatchObject({
      id: expect.stringMatching(/^gid:\/\/shopify\/Product\/\d+$/),
      status: 'ACTIVE',
      variants: { nodes: [{ price: expect.stringMatching(/^\d+\.\d{1,2}$/) }] },
    });
    expect(body.data.products.nodes[0].featuredMedia.image.url).toMatch(/^https:\/\/cdn\.shopify\.com\//);
    expect(body.data.products.pageInfo.hasNextPage).toBe(true);
    // shop 1 + primaryDomain 1 + shopAddress 1, then products 2 + 2 × (product 1 + featuredMedia 1 + image 1 + variants (2 + 1 × 1)):
    // 17 requested, and all of it came back.
    expect(body.extensions.cost).toEqual({
      requestedQueryCost: 17,
      actualQueryCost: 17,
      throttleStatus: { maximumAvailable: 2000, currentlyAvailable: 1983, restoreRate: 100 },
    });
  });

  it('answers the library’s GraphQL client through the fetch bridge, and its errors become GraphqlQueryError', async () => {
    const shopify = shopifyLibraryFor(standIn, { hostName: 'svc.test', scopes: SCOPES });
    const client = new shopify.clients.Graphql({ session: offlineSession(SHOP, token, SCOPES.join(',')) });
    const answer = await client.request(`#graphql
      query { shop { name } }`);
    expect(answer.data).toEqual({ shop: { name: 'Acme Outfitters' } });
    await expect(client.request('{ shop { nickname } }')).rejects.toBeInstanceOf(GraphqlQueryError);
  });

  it('refuses a field the access scopes do not cover, as Shopify does', async () => {
    const body = (await (await graphql('{ customer(id: "gid://shopify/Customer/1") { id } }')).json()) as Record<string, any>;
    expect(body.data).toEqual({ customer: null });
    expect(body.errors[0]).toMatchObject({
      message: 'Access denied for customer field. Required access: `read_customers` access scope.',
      extensions: { code: 'ACCESS_DENIED' },
      path: ['customer'],
    });
  });

  it('says so when a valid field has no resolver in the stand-in, instead of answering null', async () => {
    const body = (await (await graphql('{ shop { timezoneAbbreviation } }')).json()) as Record<string, any>;
    expect(body.errors[0]).toMatchObject({ extensions: { code: 'STAND_IN_NOT_IMPLEMENTED' } });
    expect(body.errors[0].message).toContain('Shop.timezoneAbbreviation');
  });

  it('answers 404 for an unknown API version and 401 for a bad or revoked token', async () => {
    expect((await graphql('{ shop { name } }', {}, {}, '2019-04')).status).toBe(404);
    const forged = await graphql('{ shop { name } }', {}, { 'x-shopify-access-token': 'shpua_forged' });
    expect(forged.status).toBe(401);
    expect(await forged.json()).toEqual(INVALID_TOKEN_BODY);
    const spare = standIn.installApp(SHOP, SCOPES);
    standIn.revokeToken(SHOP, spare);
    const revoked = await graphql('{ shop { name } }', {}, { 'x-shopify-access-token': spare });
    expect(revoked.status).toBe(401);
    expect(await revoked.text()).toBe('{"errors":"[API] Invalid API key or access token (unrecognized login or wrong password)"}');
  });

  it('refuses requests to hosts other than Shopify shops, since tests reach nothing else', async () => {
    await expect(standIn.fetch('https://example.com/')).rejects.toThrow(/not served by the Shopify stand-in/);
  });
});
