import { InvalidJwtError } from '@shopify/shopify-api';
import { isShopDomain } from './adapter.js';
import type { ShopifyLibrary } from './library.js';

/**
 * Shopify's session tokens (docs/shopify.md, "The app home"): the admin hands the embedded app a
 * JWT for the signed-in staff member, in the App URL's `id_token` and, through App Bridge, in the
 * `Authorization: Bearer` header of every fetch of the app's page. It lives a minute.
 */

/** The answer App Bridge reads to fetch a fresh session token and send the request again (Shopify's "Session tokens" page). */
export const RETRY_HEADER = 'X-Shopify-Retry-Invalid-Session-Request';

/** A session token that does not verify, or names another store than the request. */
export class InvalidSessionTokenError extends Error {
  override name = 'InvalidSessionTokenError';
}

export interface StaffSession {
  /** The store the token is for (`dest`), a `*.myshopify.com` domain. */
  shop: string;
  /** The staff member's Shopify user id (`sub`). */
  staffId: string;
  /** The token itself, for a token exchange. */
  token: string;
}

/**
 * Verifies a session token with the library (`session.decodeSessionToken`: HS256 with the app
 * secret, `aud` the API key, `exp` and `nbf` with Shopify's 10 s leeway), then what the library
 * leaves to the app: `dest` is a store and `iss` its admin, and, when the request names a store,
 * that it is the token's.
 */
export async function verifySessionToken(library: ShopifyLibrary, token: string, requestShop: string | null): Promise<StaffSession> {
  let payload: Awaited<ReturnType<ShopifyLibrary['session']['decodeSessionToken']>>;
  try {
    payload = await library.session.decodeSessionToken(token);
  } catch (error) {
    if (error instanceof InvalidJwtError) throw new InvalidSessionTokenError('the session token does not verify');
    throw error;
  }
  const dest = typeof payload.dest === 'string' ? payload.dest : '';
  const shop = dest.startsWith('https://') ? dest.slice('https://'.length) : '';
  if (!isShopDomain(shop) || payload.iss !== `${dest}/admin`) throw new InvalidSessionTokenError('the session token names no store');
  if (requestShop !== null && requestShop !== shop) throw new InvalidSessionTokenError('the session token is for another store');
  return { shop, staffId: String(payload.sub ?? ''), token };
}

/** The token of an `Authorization: Bearer …` header, or null when there is none. */
export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer ([A-Za-z0-9_\-.]+)$/.exec(header ?? '');
  return match ? match[1]! : null;
}
