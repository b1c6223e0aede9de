import fs from 'node:fs';
import { parse as readToml, type TomlTable } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { WEBHOOK_TOPICS } from '../../src/commerce/shopify/adapter.js';
import { WEBHOOK_PATH } from '../../src/commerce/shopify/library.js';
import { CALLBACK_PATH } from '../../src/commerce/shopify/routes.js';
import { COMPLIANCE_TOPICS, TOPICS } from '../../src/commerce/shopify/webhooks.js';
import { DEFAULT_SHOPIFY_API_VERSION, DEFAULT_SHOPIFY_SCOPES, SHOPIFY_APP_STORE_LISTING } from '../../src/config-schema.js';
import { COMPLIANCE_TOPICS as STAND_IN_COMPLIANCE_TOPICS } from '../support/shopify.js';
import { topicToEnum } from '../shopify-standin/webhooks.js';
import { APP_PATH } from '../../src/commerce/shopify/home-routes.js';

/**
 * The Shopify app's configuration (shopify.app.toml, deployed with `shopify app deploy`) says what
 * Shopify does for the service: where it sends merchants and webhooks, which scopes it grants, which
 * topics it delivers in which version. Each of those is checked against the service itself, so a
 * route, a scope or a topic changed on one side only fails here instead of at a real store.
 */
const toml = readToml(fs.readFileSync(new URL('../../shopify.app.toml', import.meta.url), 'utf8'));
const table = (value: unknown) => value as TomlTable;
const subscriptions = table(toml.webhooks).subscriptions as TomlTable[];
const declared = (key: 'topics' | 'compliance_topics') => subscriptions.flatMap((entry) => (entry[key] as string[] | undefined) ?? []);

describe('shopify.app.toml', () => {
  it('names a placeholder client id and an app embedded in the Shopify admin, with no POS part', () => {
    expect(toml.client_id).toBe('SHOPIFY_API_KEY');
    expect(toml.name).toEqual(expect.any(String));
    expect(toml.embedded).toBe(true);
    expect(table(toml.pos).embedded).toBe(false);
  });

  it("is listed on the App Store at the default SHOPIFY_APP_LISTING_URL, by the app's handle", () => {
    expect(SHOPIFY_APP_STORE_LISTING).toBe(`https://apps.shopify.com/${toml.handle as string}`);
  });

  it('sends merchants to the App URL route and OAuth back to the callback route', () => {
    expect(new URL(toml.application_url as string).pathname).toBe(APP_PATH);
    const redirects = table(toml.auth).redirect_urls as string[];
    expect(redirects.map((url) => new URL(url).pathname)).toEqual([CALLBACK_PATH]);
    expect(new URL(redirects[0]!).origin).toBe(new URL(toml.application_url as string).origin);
  });

  it('asks for the default SHOPIFY_SCOPES and delivers webhooks in the default SHOPIFY_API_VERSION', () => {
    expect(table(toml.access_scopes).scopes).toBe(DEFAULT_SHOPIFY_SCOPES.join(','));
    expect(table(toml.webhooks).api_version).toBe(DEFAULT_SHOPIFY_API_VERSION);
  });

  it('subscribes every topic the webhook route takes, once, to the webhook route', () => {
    expect(new Set([...declared('topics'), ...declared('compliance_topics')])).toEqual(TOPICS);
    expect(declared('topics').length + declared('compliance_topics').length).toBe(TOPICS.size);
    for (const subscription of subscriptions) {
      const uri = new URL(subscription.uri as string);
      expect(uri.protocol).toBe('https:');
      expect(uri.pathname).toBe(WEBHOOK_PATH);
      expect(uri.origin).toBe(new URL(toml.application_url as string).origin);
    }
  });

  it('declares the compliance topics the route and the stand-in know as compliance topics', () => {
    expect(new Set(declared('compliance_topics'))).toEqual(COMPLIANCE_TOPICS);
    expect(new Set(STAND_IN_COMPLIANCE_TOPICS)).toEqual(COMPLIANCE_TOPICS);
  });

  it('declares the topics the service also subscribes each shop to through the Admin API, and only those', () => {
    expect(declared('topics').map(topicToEnum).sort()).toEqual([...WEBHOOK_TOPICS].sort());
  });
});
