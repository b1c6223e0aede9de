import type { FastifyBaseLogger, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Runtime } from '../../composition.js';
import { ApiError, badRequest, conflict, unauthorized } from '../../http/errors.js';
import { wantsHtmlPage } from '../../http/not-found-page.js';
import { StoreDisconnectedError } from './admin-client.js';
import { isShopDomain, type ShopifyCommerce, StoreNotInstalledError, usageTerms, USAGE_PLAN } from './adapter.js';
import { EMBEDDED_PAGE, HOME_REFUSALS, renderHomeView, sendBouncePage, sendHomePage, sendHomeRefusal } from './pages.js';
import { AppLaunchQuery, BounceQuery, ClaimAnswer, HomeAction, HomeActionAnswer, HomeViewQuery, OpenQuery } from './schemas.js';
import { bearerToken, InvalidSessionTokenError, RETRY_HEADER, type StaffSession, verifySessionToken } from './session-tokens.js';
import { SessionTokenRefusedError } from './tokens.js';
import { adminAppUrl } from './library.js';
import * as shopifyService from './service.js';

/** Shopify's App URL: the admin loads it in its frame, with the staff member's session token as `id_token` (docs/shopify.md). */
export const APP_PATH = '/commerce/shopify/app';
/** The home's actions and its view, asked by the page's script with the session token App Bridge adds. */
export const HOME_PATH = '/commerce/shopify/home';
/** Shopify's session-token bounce page: App Bridge loads a fresh session token and reloads the App URL with it. */
export const BOUNCE_PATH = '/commerce/shopify/session-token-bounce';
/** Opens the app in the store's admin: where Shopify's OAuth, started outside the admin, sends the merchant back to. */
export const OPEN_PATH = '/commerce/shopify/open';

const errorRef = Type.Ref('ErrorResponse');

/** The path that opens the store's app in its admin (where an OAuth started outside the admin ends). */
export function openPath(shop: string): string {
  return `${OPEN_PATH}?${new URLSearchParams({ shop }).toString()}`;
}

type BeginInstall = (request: FastifyRequest, reply: FastifyReply, inFlight: shopifyService.PendingInstall) => Promise<FastifyReply>;
type AfterInstall = (shopify: ShopifyCommerce, shop: string, log: FastifyBaseLogger) => Promise<void>;
type HomeActions = Parameters<Runtime['onboarding']['homeState']>[1];

/** The answer that makes App Bridge fetch a fresh session token and send the request again (Shopify's documented 401). */
const retryWithFreshToken = (message: string) => new ApiError(401, 'unauthorized', message, {}, { [RETRY_HEADER]: '1' });

const shopOf = (raw: string) => {
  const shop = raw.trim().toLowerCase();
  if (!isShopDomain(shop)) throw badRequest('shop must be a Shopify store domain such as acme.myshopify.com');
  return shop;
};

/**
 * The app home, embedded in the Shopify admin (issue 45): the admin opens the App URL in its frame
 * with the staff member's session token (`id_token`), verified with the library; a store without
 * the app's token gets one by token exchange (Shopify installed the app with shopify.app.toml's
 * scopes: managed installation). The page's actions are fetches that App Bridge signs with a fresh
 * session token (`Authorization: Bearer`): no cookie, so nothing a third-party cookie policy blocks
 * (docs/security.md, "The embedded Shopify app").
 */
export const appHomeRoutes = async (
  plain: Parameters<FastifyPluginAsync>[0],
  runtime: Runtime,
  shopify: ShopifyCommerce,
  beginInstall: BeginInstall,
  afterInstall: AfterInstall,
): Promise<void> => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { config, db, onboarding, storeClaims } = runtime;
  const apiKey = shopify.library.config.apiKey;
  const terms = `${usageTerms(config.orders.commissionBasisPoints)}; charges are capped at ${USAGE_PLAN.cappedAmount.amount} ${
    USAGE_PLAN.cappedAmount.currencyCode
  } every 30 days`;

  /** The home's actions for the stages it shows: its own buttons, never the plugin's links. */
  const actions: HomeActions = { link: async () => ({ url: APP_PATH, sameTab: true }), confirm: () => null };

  /** The App URL again without the spent session token and signature: App Bridge adds a fresh `id_token` when it reloads it. */
  const reloadUrl = (shop: string, host: string | undefined) => {
    const query = new URLSearchParams({ shop, embedded: '1' });
    if (host) query.set('host', host);
    return `${config.baseUrl}${APP_PATH}?${query.toString()}`;
  };

  /** A document load whose session token is missing, stale or refused: the bounce page, as Shopify documents, never a dead page. */
  const bounce = (reply: FastifyReply, shop: string, host: string | undefined) => {
    const query = new URLSearchParams({ shop, 'shopify-reload': reloadUrl(shop, host) });
    if (host) query.set('host', host);
    return reply.redirect(`${BOUNCE_PATH}?${query.toString()}`, 302);
  };

  /** A launch that does not verify: a page in words for a browser, the error shape for anything else. */
  const refuseLaunch = (request: FastifyRequest, reply: FastifyReply, message: string) => {
    if (wantsHtmlPage(request, APP_PATH)) return sendHomeRefusal(reply, HOME_REFUSALS.launch);
    throw unauthorized(message);
  };

  /**
   * The store's token, exchanged from the session token when the store has none (managed install,
   * or back after leaving), then the callback's own steps. A store holding a token is not asked again.
   */
  const ensureInstalled = async (staff: StaffSession, log: FastifyBaseLogger) => {
    if ((await shopify.status(staff.shop)).installation === 'installed') return;
    if ((await shopify.tokens.exchange(staff.shop, staff.token)) === 'exchanged') await afterInstall(shopify, staff.shop, log);
  };

  /**
   * The dashboard's claims of the store still waiting for its staff (a claim they confirmed waits
   * only for the claimant's dashboard to notice), and the store's name to ask in.
   */
  const claimsOf = async (shop: string, log: FastifyBaseLogger) => {
    const waiting = await storeClaims.asking(shop);
    const confirmed = await shopifyService.confirmedClaims(
      db,
      shop,
      waiting.map((claim) => claim.claimId),
    );
    const asking = waiting.filter((claim) => !confirmed.has(claim.claimId));
    if (asking.length === 0) return { shopName: shop, asking };
    const shopName = await shopify.shopName(shop).catch((error: unknown) => {
      log.warn({ err: error, shop }, 'could not read the Shopify store name for the app home');
      return shop;
    });
    return { shopName, asking };
  };

  const readPlan = async (shop: string, log: FastifyBaseLogger) => {
    try {
      await shopify.refreshSubscription(shop, { ownerReturned: true });
    } catch (error) {
      if (!(error instanceof StoreNotInstalledError || error instanceof StoreDisconnectedError)) throw error;
      log.warn({ shop }, 'could not read the plan of a Shopify store that lost the app’s access');
    }
  };

  app.get(
    APP_PATH,
    {
      config: EMBEDDED_PAGE,
      schema: {
        summary:
          "Shopify's App URL, loaded in the admin's frame: the session token (id_token) is verified with the library and, for a " +
          'store without the app’s token, exchanged for an expiring offline token; a missing or stale one gets the bounce page. ' +
          'A launch outside the admin (hmac, no id_token) goes to Shopify OAuth for a store without the app, else into the admin',
        tags: ['commerce'],
        querystring: AppLaunchQuery,
        response: { 400: errorRef, 401: errorRef, 429: errorRef },
      },
    },
    async (request, reply) => {
      reply.header('Cache-Control', 'no-store');
      const { query } = request;
      const shop = shopOf(query.shop);
      if (query.hmac !== undefined) {
        // Every parameter Shopify sent is signed, those the schema does not name too: the raw query is what is checked.
        const signed = new URL(request.url, 'http://launch.invalid').searchParams;
        let verified = false;
        try {
          verified = await shopify.library.utils.validateHmac(signed);
        } catch (error) {
          const stale = /tolerance/i.test((error as Error).message);
          if (!stale) throw badRequest('timestamp is required with hmac');
          return refuseLaunch(request, reply, 'the launch is older than Shopify allows (90 s): open the app again from the Shopify admin');
        }
        if (!verified) return refuseLaunch(request, reply, 'the launch hmac does not verify: open the app from the Shopify admin');
      }
      const embedded = query.embedded === '1' || query.id_token !== undefined;
      if (!embedded) {
        if (query.hmac === undefined) throw badRequest('hmac is required: open the app from the Shopify admin');
        // Opened outside the admin (Shopify's review, an old link): OAuth for a store without the app, else into the admin.
        if ((await shopify.status(shop)).installation === 'installed') return reply.redirect(adminAppUrl(shop, apiKey), 303);
        return beginInstall(request, reply, {
          shop,
          challenge: null,
          returnTo: openPath(shop),
          claimId: null,
          claimantSessionId: null,
          platformId: null,
        });
      }
      if (query.id_token === undefined) return bounce(reply, shop, query.host);
      let staff: StaffSession;
      try {
        staff = await verifySessionToken(shopify.library, query.id_token, shop);
        await ensureInstalled(staff, request.log);
      } catch (error) {
        if (error instanceof InvalidSessionTokenError || error instanceof SessionTokenRefusedError) return bounce(reply, shop, query.host);
        throw error;
      }
      // Back from Shopify's plan page: the plan as the installation has it, whatever the address says (a read of Shopify's truth).
      if (query.done === 'plan') await readPlan(shop, request.log);
      const state = await onboarding.homeState(shop, actions);
      const claims = await claimsOf(shop, request.log);
      return sendHomePage(reply, { shop, apiKey, state, note: query.done ?? null, terms, claims });
    },
  );

  app.get(BOUNCE_PATH, { config: EMBEDDED_PAGE, schema: { hide: true, querystring: BounceQuery } }, async (request, reply) => {
    const shop = shopOf(request.query.shop);
    const reload = request.query['shopify-reload'];
    // App Bridge goes where this names: only the App URL of this service, never another site.
    if (!reload.startsWith(`${config.baseUrl}${APP_PATH}?`)) throw badRequest('shopify-reload must be the app’s own App URL');
    reply.header('Cache-Control', 'no-store');
    return sendBouncePage(reply, apiKey, shop);
  });

  app.get(
    OPEN_PATH,
    { schema: { hide: true, querystring: OpenQuery } },
    // Where Shopify's OAuth returns the merchant, outside the admin: back into it, at the app.
    async (request, reply) => reply.redirect(adminAppUrl(shopOf(request.query.shop), apiKey), 303),
  );

  /**
   * Who acts: the store of a verified session token in `Authorization: Bearer`. A missing, stale or
   * forged token, or one for another store than the request names, is Shopify's 401 with the retry
   * header, so App Bridge asks for a fresh token and sends the request again; nothing is written.
   */
  const staffOf = async (request: FastifyRequest, requestShop: string | undefined): Promise<StaffSession> => {
    const token = bearerToken(request.headers.authorization);
    if (token === null) throw retryWithFreshToken('a Shopify session token is required: open the app from the Shopify admin');
    let staff: StaffSession;
    try {
      staff = await verifySessionToken(shopify.library, token, requestShop === undefined ? null : shopOf(requestShop));
      await ensureInstalled(staff, request.log);
    } catch (error) {
      if (error instanceof InvalidSessionTokenError || error instanceof SessionTokenRefusedError) {
        throw retryWithFreshToken('the Shopify session token is not valid for this store any more: a fresh one is needed');
      }
      throw error;
    }
    return staff;
  };

  const actionSchema = (summary: string) => ({
    summary,
    tags: ['commerce'],
    body: HomeAction,
    response: { 200: HomeActionAnswer, 400: errorRef, 401: errorRef, 409: errorRef },
  });

  app.get(HOME_PATH, { schema: { hide: true, querystring: HomeViewQuery } }, async (request, reply) => {
    const { shop } = await staffOf(request, request.query.shop);
    const state = await onboarding.homeState(shop, actions);
    const claims = await claimsOf(shop, request.log);
    reply.header('Cache-Control', 'no-store');
    const page = { shop, apiKey, state, note: request.query.done ?? null, terms, claims };
    return reply.type('text/html; charset=utf-8').send(renderHomeView(page));
  });

  app.post(
    `${HOME_PATH}/plan`,
    { schema: actionSchema('The embedded home asks for the usage plan: Shopify’s confirmation page to open in the top window') },
    async (request) => {
      const { shop } = await staffOf(request, request.body.shop);
      const status = await shopify.status(shop);
      if (status.planApproved) return { done: 'plan' as const };
      try {
        // Back from Shopify's page straight into the admin (as the library does for an embedded app), where the home reads the plan.
        return { confirmationUrl: await shopify.subscriptionConfirmationUrl(shop, adminAppUrl(shop, apiKey, 'plan')) };
      } catch (error) {
        if (error instanceof StoreDisconnectedError) throw retryWithFreshToken('the store lost the app’s access: open the app again');
        throw error;
      }
    },
  );

  app.post(
    `${HOME_PATH}/turn-on`,
    { schema: actionSchema('The embedded home turns cross-promotion back on, after the merchant turned it off') },
    async (request) => {
      const { shop } = await staffOf(request, request.body.shop);
      try {
        await onboarding.turnOnAtHome(shop, actions);
      } catch (error) {
        if (!(error instanceof ApiError) || error.statusCode >= 500) throw error;
        throw conflict(HOME_REFUSALS.wrongStage);
      }
      return { done: 'turned_on' as const };
    },
  );

  app.post(
    `${HOME_PATH}/consent`,
    {
      schema: actionSchema(
        'The embedded home turns cross-promotion on: the merchant’s consent, with a discount of 10–25% unless one exists',
      ),
    },
    async (request) => {
      const { shop } = await staffOf(request, request.body.shop);
      const percent = request.body.discountPercent;
      if (percent !== undefined && ![10, 15, 20, 25].includes(percent)) throw badRequest(HOME_REFUSALS.choosePercent);
      try {
        await onboarding.consentAtHome(shop, percent, actions);
      } catch (error) {
        if (!(error instanceof ApiError) || error.statusCode >= 500) throw error;
        // The onboarding's checks, in the home's words: no percentage chosen, or the store is not at consent (any more).
        throw error.statusCode === 400 ? badRequest(HOME_REFUSALS.choosePercent) : conflict(HOME_REFUSALS.wrongStage);
      }
      return { done: 'consented' as const };
    },
  );

  app.post(
    `${HOME_PATH}/claim`,
    {
      schema: {
        summary:
          'The store’s staff answer a dashboard sign-up’s claim of the store inside the embedded app: the session token names ' +
          'the store (dest) and the staff member (sub), the proof that the claimant acts for the store',
        tags: ['commerce'],
        body: ClaimAnswer,
        response: { 200: HomeActionAnswer, 400: errorRef, 401: errorRef, 409: errorRef },
      },
    },
    async (request) => {
      const { shop, staffId } = await staffOf(request, request.body.shop);
      // The proof is a person of the store's staff: a token naming none proves nobody.
      if (staffId === '') throw retryWithFreshToken('the Shopify session token names no staff member: open the app from the Shopify admin');
      const { claimId, decision } = request.body;
      const now = new Date();
      if (decision === 'decline') {
        if (!(await storeClaims.decline(claimId, shop))) throw conflict(HOME_REFUSALS.claimAnswered);
        return { done: 'claim_declined' as const };
      }
      if (!(await storeClaims.waiting(claimId, shop))) throw conflict(HOME_REFUSALS.claimAnswered);
      await shopifyService.confirmClaimAtHome(db, { claimId, shop, staffId, now });
      return { done: 'claim_confirmed' as const };
    },
  );
};
