import { Session } from '@shopify/shopify-api';
import { afterEach, beforeAll, expect, it, vi } from 'vitest';
import { describeEachDatabase } from '../../../test/support/harness.js';
import { uniqueId } from '../../../test/support/factories.js';
import { install, shopifyEnv, standInFor } from '../../../test/support/shopify.js';
import { ShopifyStandIn } from '../../../test/shopify-standin/stand-in.js';
import { SHOPIFY_TOKEN_LIFETIMES } from '../../../test/shopify-standin/tokens.js';
import { composeRuntime } from '../../composition.js';
import { DEFAULT_SHOPIFY_SCOPES } from '../../config.js';
import { requestBounds } from '../../db/database.js';
import type { ShopifyCommerce } from './adapter.js';
import { tokenColumns } from './dal.js';
import * as documents from './documents.js';

const BASE_URL = 'https://svc.test';
const ENV = { LOG_LEVEL: 'silent', BASE_URL, SETUP_POLL_MS: '20', SANDBOX_IMPORT_MS: '0', ...shopifyEnv(new ShopifyStandIn()) };
const MINUTE = 60_000;
const DAY = 86_400_000;

/**
 * Expiring offline tokens against the stand-in, which issues them as Shopify documents (1 hour,
 * 90 days, refresh tokens replaced on use). The clock is compressed by moving the process's Date
 * (the library, the service and the stand-in all read it); timers run in real time.
 */
describeEachDatabase(
  'Shopify expiring offline tokens: stored, refreshed once per store, migrated, refused',
  (use) => {
    let standIn: ShopifyStandIn;
    const shopify = () => use().runtime.commerce.shopify as ShopifyCommerce;
    const shopRow = async (shop: string) =>
      (await use().db.selectFrom('shopify_shops').selectAll().where('shop', '=', shop).executeTakeFirst())!;
    const refreshes = (shop: string) => standIn.tokenRequests(shop).filter((request) => request.grant === 'refresh_token');
    const readShop = (adapter: ShopifyCommerce, shop: string) =>
      adapter.request<{ shop: { name: string } }>(shop, documents.SHOP_PROFILE).then((data) => data.shop.name);
    const moveClock = (ms: number) => {
      if (!vi.isFakeTimers()) vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
      vi.setSystemTime(Date.now() + ms);
    };
    const installed = async () => {
      const shop = standIn.createShop({
        name: uniqueId('tok')
          .toLowerCase()
          .replace(/[^a-z0-9-]/g, '-'),
        products: 3,
      }).domain;
      const done = await install(use().app, standIn, `/commerce/shopify/install?shop=${shop}`);
      expect(done.statusCode, done.body).toBe(200);
      return shop;
    };

    beforeAll(() => {
      standIn = standInFor(BASE_URL, () => use().app);
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    it('asks for an expiring token at install and stores the access token, the refresh token and both expiries, encrypted', async () => {
      const before = Date.now();
      const shop = await installed();
      const row = await shopRow(shop);
      const installation = standIn.shop(shop).installation;
      const [refreshToken] = [...installation.refreshTokens.keys()];
      const [accessToken] = [...installation.tokens];
      expect(row.access_token_encrypted).toMatch(/^v1\./);
      expect(row.refresh_token_encrypted).toMatch(/^v1\./);
      expect(row.access_token_encrypted).not.toContain(accessToken!);
      expect(row.refresh_token_encrypted).not.toContain(refreshToken!);
      const lifetime = (at: Date | null) => at!.getTime() - before;
      expect(lifetime(row.access_token_expires_at)).toBeGreaterThanOrEqual(SHOPIFY_TOKEN_LIFETIMES.accessSeconds * 1000);
      expect(lifetime(row.access_token_expires_at)).toBeLessThan(SHOPIFY_TOKEN_LIFETIMES.accessSeconds * 1000 + MINUTE);
      expect(lifetime(row.refresh_token_expires_at)).toBeGreaterThanOrEqual(SHOPIFY_TOKEN_LIFETIMES.refreshSeconds * 1000);
      expect(standIn.tokenRequests(shop).map((request) => [request.grant, request.status])).toContainEqual(['authorization_code', 200]);
    });

    it('refreshes a token a few minutes before it expires, then uses the new one; the spent refresh token is gone', async () => {
      const shop = await installed();
      const before = await shopRow(shop);
      await readShop(shopify(), shop);
      expect(refreshes(shop)).toHaveLength(0);

      moveClock(56 * MINUTE);
      expect(await readShop(shopify(), shop)).toBeTruthy();
      expect(refreshes(shop).map((request) => request.status)).toEqual([200]);
      const after = await shopRow(shop);
      expect(after.refresh_token_encrypted).not.toBe(before.refresh_token_encrypted);
      expect(after.access_token_expires_at!.getTime()).toBeGreaterThan(Date.now() + 55 * MINUTE);
      // The next call, still within the new hour, refreshes nothing.
      await readShop(shopify(), shop);
      expect(refreshes(shop)).toHaveLength(1);
      expect(await shopify().status(shop)).toEqual({ installation: 'installed', planApproved: false, billingApprovalWaits: false });
    });

    it('answers a 401 with one refresh and a retry, and the store stays connected', async () => {
      const shop = await installed();
      const calls = standIn.apiUsage(shop).adminApiCalls;
      // Shopify ended the token's life before the service expected: the Admin API answers 401.
      standIn.expireAccessTokens(shop);
      expect(await readShop(shopify(), shop)).toBeTruthy();
      expect(refreshes(shop).map((request) => request.status)).toEqual([200]);
      expect(standIn.apiUsage(shop).adminApiCalls).toBe(calls + 1);
      expect((await shopRow(shop)).disconnected_at).toBeNull();
    });

    it('refreshes once when an API instance and the worker find the token expired at the same moment; neither is stranded', async () => {
      const shop = await installed();
      const worker = await composeRuntime({
        config: use().config,
        database: use().database,
        bounds: requestBounds(use().config.database),
        log: use().app.log,
        redisFallback: 'in-process fallbacks',
        jobs: { run: false, keepProcessAlive: false },
      });
      try {
        const workerShopify = worker.commerce.shopify as ShopifyCommerce;
        moveClock(61 * MINUTE);
        const names = await Promise.all([
          readShop(shopify(), shop),
          readShop(workerShopify, shop),
          readShop(shopify(), shop),
          readShop(workerShopify, shop),
        ]);
        expect(new Set(names).size).toBe(1);
        expect(refreshes(shop).map((request) => request.status)).toEqual([200]);

        // The refresh token both now hold is the one Shopify has in effect: the next hour refreshes again, once.
        moveClock(61 * MINUTE);
        await Promise.all([readShop(workerShopify, shop), readShop(shopify(), shop)]);
        expect(refreshes(shop).map((request) => request.status)).toEqual([200, 200]);
        expect(await shopify().status(shop)).toEqual({ installation: 'installed', planApproved: false, billingApprovalWaits: false });
      } finally {
        await worker.close();
      }
    });

    it('disconnects only on a refused refresh: the store starts again at install, the reason kept for support', async () => {
      const shop = await installed();
      // The refresh token outlived (90 days with no call): Shopify answers invalid_grant.
      moveClock(91 * DAY);
      await expect(readShop(shopify(), shop)).rejects.toThrow(/revoked the app's access/);
      expect(refreshes(shop).map((request) => request.status)).toEqual([400]);
      expect(await shopify().status(shop)).toEqual({ installation: 'not_installed', planApproved: false });
      const row = await shopRow(shop);
      expect(row).toMatchObject({ access_token_encrypted: null, refresh_token_encrypted: null, disconnect_reason: 'refresh_refused' });
      expect(row.disconnected_at).not.toBeNull();

      // Installing again connects it with a new pair, the reason cleared.
      vi.useRealTimers();
      const again = await install(use().app, standIn, `/commerce/shopify/install?shop=${shop}`);
      expect(again.statusCode).toBe(200);
      expect(await shopRow(shop)).toMatchObject({ disconnect_reason: null, disconnected_at: null });
      expect(await readShop(shopify(), shop)).toBeTruthy();
    });

    it('moves a store still on a non-expiring token to an expiring pair at its next call, without the merchant', async () => {
      const shop = standIn.createShop({
        name: uniqueId('old')
          .toLowerCase()
          .replace(/[^a-z0-9-]/g, '-'),
        products: 3,
      }).domain;
      const oldToken = standIn.installApp(shop, DEFAULT_SHOPIFY_SCOPES);
      await use()
        .db.insertInto('shopify_shops')
        .values({
          shop,
          ...tokenColumns(
            shopify().tokens.toStore(new Session({ id: `offline_${shop}`, shop, state: '', isOnline: false, accessToken: oldToken })),
          ),
          scopes: DEFAULT_SHOPIFY_SCOPES.join(','),
          installed_at: new Date(),
        })
        .execute();
      expect((await shopRow(shop)).access_token_expires_at).toBeNull();

      expect(await readShop(shopify(), shop)).toBeTruthy();
      expect(standIn.tokenRequests(shop).map((request) => [request.grant, request.status])).toEqual([['token_exchange', 200]]);
      const row = await shopRow(shop);
      expect(row.access_token_expires_at).not.toBeNull();
      expect(row.refresh_token_encrypted).toMatch(/^v1\./);
      // The old token is spent: Shopify no longer takes it.
      expect(standIn.shop(shop).installation.tokens.has(oldToken)).toBe(false);
    });

    it('the keeper migrates idle stores and renews refresh tokens nearing their end, so no store loses access unused', async () => {
      const idle = standIn.createShop({
        name: uniqueId('idle')
          .toLowerCase()
          .replace(/[^a-z0-9-]/g, '-'),
        products: 3,
      }).domain;
      const oldToken = standIn.installApp(idle, DEFAULT_SHOPIFY_SCOPES);
      await use()
        .db.insertInto('shopify_shops')
        .values({
          shop: idle,
          ...tokenColumns(
            shopify().tokens.toStore(new Session({ id: `offline_${idle}`, shop: idle, state: '', isOnline: false, accessToken: oldToken })),
          ),
          scopes: DEFAULT_SHOPIFY_SCOPES.join(','),
          installed_at: new Date(),
        })
        .execute();
      const quiet = await installed();
      await shopify().tokens.renewAgeing(1000);
      expect((await shopRow(idle)).refresh_token_encrypted).toMatch(/^v1\./);
      expect(refreshes(quiet)).toHaveLength(0);

      // 61 days without a call: the quiet store's refresh token has 29 days left and is renewed.
      moveClock(61 * DAY);
      await shopify().tokens.renewAgeing(1000);
      expect(refreshes(quiet).map((request) => request.status)).toEqual([200]);
      expect((await shopRow(quiet)).refresh_token_expires_at!.getTime()).toBeGreaterThan(Date.now() + 89 * DAY);
      moveClock(40 * DAY);
      expect(await readShop(shopify(), quiet)).toBeTruthy();
      expect(await readShop(shopify(), idle)).toBeTruthy();
    });
  },
  ENV,
);
