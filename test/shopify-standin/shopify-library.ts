import '@shopify/shopify-api/adapters/node';
import { ApiVersion, BillingInterval, LogSeverity, Session, shopifyApi } from '@shopify/shopify-api';
import { setAbstractFetchFunc } from '@shopify/shopify-api/runtime';
import type { ShopifyStandIn } from './stand-in.js';

/**
 * `@shopify/shopify-api` wired to a stand-in, as the adapter will wire it in tests: the node
 * adapter first (it sets the global fetch), then the stand-in's fetch in its place. The library's
 * GraphQL clients read the fetch when they are made, so this comes before any client is made.
 */
export const USAGE_PLAN = 'Partner network usage';

export function shopifyLibraryFor(standIn: ShopifyStandIn, options: { hostName: string; hostScheme?: 'http' | 'https'; scopes: string[] }) {
  setAbstractFetchFunc(standIn.fetch);
  return shopifyApi({
    apiKey: standIn.app.apiKey,
    apiSecretKey: standIn.app.apiSecret,
    scopes: options.scopes,
    hostName: options.hostName,
    hostScheme: options.hostScheme ?? 'https',
    apiVersion: ApiVersion.October26,
    isEmbeddedApp: false,
    logger: { level: LogSeverity.Error, log: async () => {} },
    billing: {
      [USAGE_PLAN]: {
        lineItems: [
          { interval: BillingInterval.Usage, amount: 500, currencyCode: 'USD', terms: 'A share of each first order your partners bring' },
        ],
      },
    },
  });
}

export function offlineSession(shop: string, accessToken: string, scope: string): Session {
  return new Session({ id: `offline_${shop}`, shop, state: 'standin', isOnline: false, accessToken, scope });
}
