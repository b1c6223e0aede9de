import '@shopify/shopify-api/adapters/node';
import { type ApiVersion, LogSeverity, shopifyApi } from '@shopify/shopify-api';
import type { FastifyBaseLogger } from 'fastify';
import type { ShopifyConfig } from '../../config.js';

/**
 * `@shopify/shopify-api` for the service: OAuth (begin, callback with HMAC and state checks), the
 * embedded app home's session tokens and token exchange, webhook validation and the GraphQL Admin
 * client all come from it. Offline tokens only: the service keeps no session of its own for the
 * embedded app (no session cookie: `isEmbeddedApp`). Its log goes to the service's, warnings and errors only (they carry no token:
 * the library redacts its access-token headers).
 */
export type ShopifyLibrary = ReturnType<typeof shopifyLibrary>;

/** Where Shopify delivers every topic, for the subscriptions the service makes and those of shopify.app.toml. */
export const WEBHOOK_PATH = '/commerce/shopify/webhooks';

/**
 * Where the app lives in the store's admin (Shopify's embedded app URL, by the app's client id),
 * with what the merchant just did (`done`) for the home to say.
 */
export function adminAppUrl(shop: string, apiKey: string, done?: string): string {
  const url = `https://admin.shopify.com/store/${shop.replace(/\.myshopify\.com$/, '')}/apps/${apiKey}`;
  return done ? `${url}?${new URLSearchParams({ done }).toString()}` : url;
}

export function shopifyLibrary(config: ShopifyConfig, baseUrl: string, log: FastifyBaseLogger) {
  const base = new URL(baseUrl);
  return shopifyApi({
    apiKey: config.apiKey,
    apiSecretKey: config.apiSecret,
    scopes: config.scopes,
    hostName: base.host,
    hostScheme: base.protocol === 'http:' ? 'http' : 'https',
    apiVersion: config.apiVersion as ApiVersion,
    isEmbeddedApp: true,
    logger: {
      level: LogSeverity.Warning,
      httpRequests: false,
      log: async (severity, message) => {
        if (severity === LogSeverity.Error) log.error({ component: 'shopify-api' }, message);
        else log.warn({ component: 'shopify-api' }, message);
      },
    },
  });
}
