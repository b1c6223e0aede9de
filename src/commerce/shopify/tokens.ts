import { HttpResponseError, HttpRetriableError, RequestedTokenType, Session } from '@shopify/shopify-api';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/database.js';
import * as dal from './dal.js';
import type { ShopifyLibrary } from './library.js';
import type { TokenCipher } from './token-crypto.js';

/**
 * The stores' expiring offline tokens (docs/shopify.md, "Tokens"): an access token lives an hour,
 * its refresh token 90 days, and Shopify replaces the refresh token every time it is used. The
 * access token is renewed a few minutes before it expires, or after the Admin API refused it
 * (401); a store still holding a non-expiring token has it exchanged for an expiring pair
 * (`migrateToExpiringToken`) at its next use. Every renewal runs with the store's row locked, in
 * whichever process, and first looks whether another one renewed while it waited: one refresh
 * per store, however many API instances and workers find the token old at the same moment.
 * Only Shopify refusing the refresh (`invalid_grant`: the app was uninstalled or its access
 * revoked, the refresh token expired) disconnects the store.
 */
export const RENEW_AHEAD_MS = 5 * 60_000;
/** Refresh tokens that would run out within this are renewed by the keeper, so an idle store never loses its access. */
export const REFRESH_TOKEN_RENEW_WITHIN_MS = 30 * 86_400_000;

export class StoreNotInstalledError extends Error {
  override name = 'StoreNotInstalledError';
}

/** Shopify refused to renew the store's token: the app no longer has access (the store was disconnected). */
export class TokenRefusedError extends Error {
  override name = 'TokenRefusedError';
}

/** Shopify's answer to a refresh or exchange it will not do, as opposed to a failure worth retrying. */
export function isRefusal(error: unknown): boolean {
  if (!(error instanceof HttpResponseError) || error instanceof HttpRetriableError) return false;
  const body = error.response.body as { error?: string } | undefined;
  return body?.error === 'invalid_grant' || error.response.code === 401;
}

/**
 * Shopify would not exchange the session token (`invalid_subject_token`: it expired on the way,
 * or the admin's session ended): the app asks App Bridge for a fresh one.
 */
export class SessionTokenRefusedError extends Error {
  override name = 'SessionTokenRefusedError';
}

/** Shopify's answer to a token exchange whose session token it will not take. */
function isSubjectTokenRefusal(error: unknown): boolean {
  if (!(error instanceof HttpResponseError) || error instanceof HttpRetriableError) return false;
  return (error.response.body as { error?: string } | undefined)?.error === 'invalid_subject_token';
}

export interface ShopTokensOptions {
  db: Db;
  library: ShopifyLibrary;
  cipher: TokenCipher;
  log: FastifyBaseLogger;
  /** The store lost the app's access: it leaves the network, and the merchant and support are told. */
  onRefused: (shop: string, reason: string) => Promise<void>;
}

export class ShopTokens {
  constructor(private readonly options: ShopTokensOptions) {}

  /** What to store of a session Shopify answered (install, refresh, exchange): tokens encrypted, expiries kept. */
  toStore(session: Session): dal.StoredTokens & { scopes: string | null } {
    const { cipher } = this.options;
    return {
      tokenEncrypted: cipher.encrypt(session.shop, session.accessToken!),
      accessTokenExpiresAt: session.expires ?? null,
      refreshTokenEncrypted: session.refreshToken ? cipher.encrypt(session.shop, session.refreshToken) : null,
      refreshTokenExpiresAt: session.refreshTokenExpires ?? null,
      scopes: session.scope ?? null,
    };
  }

  /** The store's offline session with an access token good for a few minutes at least. */
  async session(shop: string): Promise<Session> {
    const row = await dal.findShop(this.options.db, shop);
    if (!row?.accessTokenEncrypted) throw new StoreNotInstalledError(`the app is not installed at ${shop}`);
    if (row.accessTokenExpiresAt && row.accessTokenExpiresAt.getTime() - Date.now() > RENEW_AHEAD_MS) {
      return this.sessionOf(shop, row.accessTokenEncrypted, row.scopes);
    }
    return this.renew(shop, 'expiring');
  }

  /**
   * New tokens, because the access token is old (`expiring`), the refresh token is (`ageing`), or
   * the Admin API refused the access token (a rejected session). Whoever renewed while this
   * waited for the lock has done the work: their token is taken instead of spending the refresh
   * token again.
   */
  async renew(shop: string, why: 'expiring' | 'ageing' | { rejected: Session }): Promise<Session> {
    const outcome = await dal.withShopTokensLocked<{ session: Session } | { refused: string }>(this.options.db, shop, async (row, save) => {
      if (!row?.accessTokenEncrypted) throw new StoreNotInstalledError(`the app is not installed at ${shop}`);
      const accessToken = this.options.cipher.decrypt(shop, row.accessTokenEncrypted);
      const now = Date.now();
      const expiring = row.accessTokenExpiresAt === null || row.accessTokenExpiresAt.getTime() - now <= RENEW_AHEAD_MS;
      const ageing = row.refreshTokenExpiresAt !== null && row.refreshTokenExpiresAt.getTime() - now <= REFRESH_TOKEN_RENEW_WITHIN_MS;
      const stillGood = why === 'expiring' ? !expiring : why === 'ageing' ? !expiring && !ageing : accessToken !== why.rejected.accessToken;
      if (stillGood) return { session: this.sessionOf(shop, row.accessTokenEncrypted, null) };
      try {
        const { session } = row.refreshTokenEncrypted
          ? await this.options.library.auth.refreshToken({
              shop,
              refreshToken: this.options.cipher.decrypt(shop, row.refreshTokenEncrypted),
            })
          : await this.options.library.auth.migrateToExpiringToken({ shop, nonExpiringOfflineAccessToken: accessToken });
        await save(this.toStore(session));
        return { session };
      } catch (error) {
        if (!isRefusal(error)) throw error;
        // Not an error by itself: an uninstall revokes the token too. onRefused says which, and logs accordingly.
        this.options.log.info(
          { shop, reason: error instanceof Error ? error.message : String(error) },
          'Shopify refused to renew the store’s access token',
        );
        return { refused: row.refreshTokenEncrypted ? 'refresh_refused' : 'token_exchange_refused' };
      }
    });
    if ('refused' in outcome) {
      // Outside the lock's transaction: leaving writes through the other domains' services.
      await this.options.onRefused(shop, outcome.refused);
      throw new TokenRefusedError(`${shop} revoked the app's access: Shopify refused to renew its token (${outcome.refused})`);
    }
    return outcome.session;
  }

  /**
   * Managed installation (docs/shopify.md, "Tokens"): Shopify installed the app with the scopes of
   * shopify.app.toml before the admin opened it, and the session token of its first load is
   * exchanged for the store's expiring offline token (`auth.tokenExchange`). 'present' when the store
   * already holds a token (nothing asked of Shopify: it is refreshed and migrated as any other);
   * concurrent first loads hold the store's install lock, so Shopify is asked once.
   */
  async exchange(shop: string, sessionToken: string): Promise<'exchanged' | 'present'> {
    return dal.withShopInstallLocked(this.options.db, shop, async (row, install) => {
      if (row) return 'present';
      try {
        const { session } = await this.options.library.auth.tokenExchange({
          shop,
          sessionToken,
          requestedTokenType: RequestedTokenType.OfflineAccessToken,
          expiring: true,
        });
        await install({ ...this.toStore(session), scopes: session.scope ?? '', now: new Date() });
        return 'exchanged';
      } catch (error) {
        if (!isSubjectTokenRefusal(error)) throw error;
        this.options.log.warn({ shop }, 'Shopify refused to exchange a session token; App Bridge is asked for a fresh one');
        throw new SessionTokenRefusedError(`Shopify refused to exchange the session token of ${shop}`);
      }
    });
  }

  /**
   * The keeper's round: stores still on a non-expiring token are moved to an expiring pair, and
   * refresh tokens nearing their end are renewed, without the merchant doing anything.
   */
  async renewAgeing(limit: number): Promise<number> {
    const shops = await dal.shopsWithTokensToRenew(this.options.db, new Date(Date.now() + REFRESH_TOKEN_RENEW_WITHIN_MS), limit);
    for (const shop of shops) {
      try {
        await this.renew(shop, 'ageing');
      } catch (error) {
        if (!(error instanceof TokenRefusedError || error instanceof StoreNotInstalledError)) {
          this.options.log.warn({ err: error, shop }, 'could not renew a Shopify store’s token; the next round tries again');
        }
      }
    }
    return shops.length;
  }

  private sessionOf(shop: string, tokenEncrypted: string, scopes: string | null): Session {
    return new Session({
      id: this.options.library.session.getOfflineId(shop),
      shop,
      state: '',
      isOnline: false,
      accessToken: this.options.cipher.decrypt(shop, tokenEncrypted),
      scope: scopes ?? undefined,
    });
  }
}
