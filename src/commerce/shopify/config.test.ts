import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, stopTestApp, testConfig, type TestContext } from '../../../test/support/harness.js';
import { TOKEN_ENCRYPTION_KEY } from '../../../test/support/shopify.js';
import type { ConfigError } from '../../config.js';

const SHOPIFY = { SHOPIFY_API_KEY: 'app-key-0123456789', SHOPIFY_API_SECRET: 'app-secret-0123456789abcdef', TOKEN_ENCRYPTION_KEY };

const problemsOf = (env: Record<string, string>) => {
  try {
    testConfig(env);
    return [];
  } catch (error) {
    return (error as ConfigError).problems;
  }
};

describe('Shopify settings', () => {
  it('are off unless all three of key, secret and encryption key are set; scopes, version, bulk concurrency and polling default', () => {
    expect(testConfig().shopify).toBeUndefined();
    expect(testConfig(SHOPIFY).shopify).toMatchObject({
      apiKey: SHOPIFY.SHOPIFY_API_KEY,
      scopes: ['read_products', 'read_orders', 'write_discounts'],
      apiVersion: '2026-10',
      bulkConcurrency: 5,
      bulkPollMs: 1000,
    });
    expect(testConfig({ ...SHOPIFY, SHOPIFY_BULK_POLL_MS: '20' }).shopify!.bulkPollMs).toBe(20);
    expect(testConfig(SHOPIFY).shopify!.tokenEncryptionKey).toHaveLength(32);
    expect(testConfig({ ...SHOPIFY, TOKEN_ENCRYPTION_KEY: 'ab'.repeat(32) }).shopify!.tokenEncryptionKey).toEqual(Buffer.alloc(32, 0xab));
  });

  it("send the plugin's install step to the app's App Store listing, or to a development store's install link given instead", () => {
    expect(testConfig(SHOPIFY).shopify!.appListingUrl).toBe('https://apps.shopify.com/brand-partner-collaborations');
    const devStoreLink = 'https://admin.shopify.com/store/dev-store/oauth/install_custom_app?client_id=abc&signature=xyz';
    expect(testConfig({ ...SHOPIFY, SHOPIFY_APP_LISTING_URL: devStoreLink }).shopify!.appListingUrl).toBe(devStoreLink);
    for (const refused of [
      'http://apps.shopify.com/brand-partner-collaborations',
      '/commerce/shopify/install',
      'https://',
      'apps.shopify.com',
    ]) {
      expect(problemsOf({ ...SHOPIFY, SHOPIFY_APP_LISTING_URL: refused }), refused).toEqual([
        expect.stringMatching(/^SHOPIFY_APP_LISTING_URL must be an https URL/),
      ]);
    }
  });

  it('refuses some without the others, a key that is not 32 bytes, bad scopes and versions, each with its own message', () => {
    expect(problemsOf({ SHOPIFY_API_KEY: 'k' })).toEqual([
      expect.stringMatching(/^SHOPIFY_API_SECRET and TOKEN_ENCRYPTION_KEY must be set too/),
    ]);
    expect(problemsOf({ ...SHOPIFY, TOKEN_ENCRYPTION_KEY: 'short' })).toEqual([
      expect.stringMatching(/^TOKEN_ENCRYPTION_KEY must be 32 random bytes/),
    ]);
    expect(problemsOf({ ...SHOPIFY, SHOPIFY_SCOPES: 'read_products, everything' })).toEqual([
      expect.stringMatching(/^SHOPIFY_SCOPES must be .*"everything"/),
    ]);
    expect(problemsOf({ ...SHOPIFY, SHOPIFY_API_VERSION: 'latest' })).toEqual([expect.stringMatching(/^SHOPIFY_API_VERSION must be/)]);
    // Shopify runs at most five bulk queries per store at once.
    expect(problemsOf({ ...SHOPIFY, SHOPIFY_BULK_CONCURRENCY: '6' })).toEqual([expect.stringMatching(/^SHOPIFY_BULK_CONCURRENCY must be/)]);
    expect(problemsOf({ ...SHOPIFY, SHOPIFY_BULK_POLL_MS: '5' })).toEqual([expect.stringMatching(/^SHOPIFY_BULK_POLL_MS must be/)]);
  });
});

describe('a host without Shopify', () => {
  let context: TestContext;
  beforeAll(async () => {
    context = await startTestApp('postgres');
  });
  afterAll(() => stopTestApp(context));

  it('answers 404 on every Shopify route', async () => {
    for (const [method, url] of [
      ['GET', '/commerce/shopify/install?shop=acme.myshopify.com'],
      ['GET', '/commerce/shopify/callback?shop=acme.myshopify.com'],
      ['GET', '/commerce/shopify/plan?shop=acme.myshopify.com'],
      ['POST', '/commerce/shopify/webhooks'],
    ] as const) {
      const response = await context.app.inject({ method, url, payload: method === 'POST' ? {} : undefined });
      expect(response.statusCode, url).toBe(404);
      expect(response.json()).toMatchObject({ error: 'not_found' });
    }
  });
});
