import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Runtime } from '../../composition.js';
import { ApiError, badRequest, unauthorized } from '../../http/errors.js';
import { formField } from '../../http/forms.js';
import { requireOwnOrigin } from '../../http/origin.js';
import { wantsHtmlPage } from '../../http/not-found-page.js';
import { cookiePolicyFor, csrfTokenFor, csrfTokenMatches } from '../../shared/cookies.js';
import { StoreDisconnectedError } from './admin-client.js';
import { isShopDomain, type ShopifyCommerce, usageTerms, USAGE_PLAN } from './adapter.js';
import { CSRF_FIELD, HOME_REFUSALS, type HomeNote, sendHomePage, sendHomeRefusal } from './pages.js';
import { AppLaunchQuery, HomeQuery } from './schemas.js';
import * as shopifyService from './service.js';

/** Shopify's App URL: where Shopify opens the app for a merchant, signed with `hmac` (docs/shopify.md). */
export const APP_PATH = '/commerce/shopify/app';
/** The app's home for one store, in the browser that holds its session. */
export const HOME_PATH = '/commerce/shopify/home';
/** The app home's session: a random value whose hash names the shop (shopify_home_sessions), set by a verified OAuth callback. */
export const HOME_COOKIE = 'svc_shopify_home';

const errorRef = Type.Ref('ErrorResponse');

/** The home of a store; `note` names what the merchant just did, so the page can say what happened. */
export function homePath(shop: string, note?: HomeNote): string {
  const query = new URLSearchParams({ shop });
  if (note) query.set('done', note);
  return `${HOME_PATH}?${query.toString()}`;
}

type BeginInstall = (request: FastifyRequest, reply: FastifyReply, inFlight: shopifyService.PendingInstall) => Promise<FastifyReply>;
type HomeActions = Parameters<Runtime['onboarding']['homeState']>[1];

/**
 * The app home at Shopify's App URL (issue 25, section 3): a merchant who installs from Shopify's
 * app listing goes live from Shopify alone. The launch is checked with Shopify's `hmac` (by the
 * library); the home acts for a store only in a browser that came back from Shopify's OAuth as its
 * staff (docs/security.md, "The Shopify app home"), and every change is a POST with the page's CSRF token.
 */
export const appHomeRoutes = async (
  plain: Parameters<FastifyPluginAsync>[0],
  runtime: Runtime,
  shopify: ShopifyCommerce,
  beginInstall: BeginInstall,
): Promise<void> => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, onboarding } = runtime;
  const policy = cookiePolicyFor(config.baseUrl);
  const terms = usageTerms(config.orders.commissionBasisPoints);
  const cap = `${USAGE_PLAN.cappedAmount.amount} ${USAGE_PLAN.cappedAmount.currencyCode}`;

  /** OAuth first: Shopify answers its signed-in staff without a page when the app is installed, and the callback opens the session. */
  const throughOAuth = (request: FastifyRequest, reply: FastifyReply, shop: string) =>
    beginInstall(request, reply, {
      shop,
      challenge: null,
      returnTo: homePath(shop),
      claimId: null,
      claimantSessionId: null,
      platformId: null,
    });

  const hasSession = (request: FastifyRequest, shop: string) =>
    shopifyService.homeSessionFor(db, request.cookies[HOME_COOKIE], shop, new Date());

  /** The home's own actions for the stages it shows: its forms, never the plugin's links. */
  const actions = (shop: string): HomeActions => ({
    link: async (action) => ({ url: action === 'plan' ? `${HOME_PATH}/plan` : homePath(shop), sameTab: true }),
    confirm: () => null,
  });

  /** A launch that does not verify: a page in words for a browser, the error shape for anything else. */
  const refuseLaunch = (request: FastifyRequest, reply: FastifyReply, message: string) => {
    if (wantsHtmlPage(request, APP_PATH)) return sendHomeRefusal(reply, HOME_REFUSALS.launch, null);
    throw unauthorized(message);
  };

  app.get(
    APP_PATH,
    {
      schema: {
        summary:
          "Shopify's App URL: the launch is verified with Shopify's hmac (within 90 s); a store without the app goes to " +
          'Shopify OAuth at once, an installed one to its home, through OAuth when this browser holds no session for it',
        tags: ['commerce'],
        querystring: AppLaunchQuery,
        response: { 400: errorRef, 401: errorRef, 429: errorRef },
      },
    },
    async (request, reply) => {
      reply.header('Cache-Control', 'no-store');
      // Every parameter Shopify sent is signed, those the schema does not name too: the raw query is what is checked.
      const signed = new URL(request.url, 'http://launch.invalid').searchParams;
      let verified = false;
      try {
        verified = await shopify.library.utils.validateHmac(signed);
      } catch (error) {
        const stale = /tolerance/i.test((error as Error).message);
        return refuseLaunch(
          request,
          reply,
          stale
            ? 'the launch is older than Shopify allows (90 s): open the app again from the Shopify admin'
            : 'the launch carries no Shopify hmac or timestamp: open the app from the Shopify admin',
        );
      }
      if (!verified) return refuseLaunch(request, reply, 'the launch hmac does not verify: open the app from the Shopify admin');
      const shop = request.query.shop.trim().toLowerCase();
      if (!isShopDomain(shop)) throw badRequest('shop must be a Shopify store domain such as acme.myshopify.com');
      const status = await shopify.status(shop);
      // Shopify's review: a store without the app goes to its authorization at once, before any page of the app.
      if (status.installation !== 'installed' || !(await hasSession(request, shop))) return throughOAuth(request, reply, shop);
      return reply.redirect(homePath(shop), 303);
    },
  );

  app.get(HOME_PATH, { schema: { hide: true, querystring: HomeQuery } }, async (request, reply) => {
    const shop = request.query.shop.trim().toLowerCase();
    if (!isShopDomain(shop)) throw badRequest('shop must be a Shopify store domain such as acme.myshopify.com');
    reply.header('Cache-Control', 'no-store');
    if (!(await hasSession(request, shop)) || (await shopify.status(shop)).installation !== 'installed') {
      return throughOAuth(request, reply, shop);
    }
    const state = await onboarding.homeState(shop, actions(shop));
    return sendHomePage(reply, {
      shop,
      state,
      note: request.query.done ?? null,
      csrfToken: csrfTokenFor(request, reply, policy),
      terms: `${terms}; charges are capped at ${cap} every 30 days`,
    });
  });

  /**
   * The checks of every action of the home: the service's own page (Origin), the page's CSRF token
   * and this browser's session for the store. Null, with the refusal sent, when one fails.
   */
  const actingFor = async (request: FastifyRequest, reply: FastifyReply): Promise<string | null> => {
    requireOwnOrigin(request);
    reply.header('Cache-Control', 'no-store');
    if (!csrfTokenMatches(request, formField(request.body, CSRF_FIELD))) {
      await sendHomeRefusal(reply, HOME_REFUSALS.formExpired, null);
      return null;
    }
    const shop = (formField(request.body, 'shop') ?? '').trim().toLowerCase();
    if (!isShopDomain(shop) || !(await hasSession(request, shop))) {
      await sendHomeRefusal(reply, HOME_REFUSALS.noSession, null);
      return null;
    }
    return shop;
  };

  app.post(`${HOME_PATH}/plan`, { schema: { hide: true, response: { 403: errorRef } } }, async (request, reply) => {
    const shop = await actingFor(request, reply);
    if (shop === null) return reply;
    const status = await shopify.status(shop);
    if (status.installation !== 'installed') return reply.redirect(homePath(shop), 303);
    if (status.planApproved) return reply.redirect(homePath(shop, 'plan'), 303);
    const back = new URLSearchParams({ shop, return: homePath(shop, 'plan') });
    try {
      const returnUrl = `${config.baseUrl}/commerce/shopify/plan/return?${back.toString()}`;
      return reply.redirect(await shopify.subscriptionConfirmationUrl(shop, returnUrl), 303);
    } catch (error) {
      if (error instanceof StoreDisconnectedError) return reply.redirect(homePath(shop), 303);
      throw error;
    }
  });

  app.post(`${HOME_PATH}/turn-on`, { schema: { hide: true, response: { 403: errorRef } } }, async (request, reply) => {
    const shop = await actingFor(request, reply);
    if (shop === null) return reply;
    try {
      await onboarding.turnOnAtHome(shop, actions(shop));
    } catch (error) {
      if (!(error instanceof ApiError) || error.statusCode >= 500) throw error;
      return sendHomeRefusal(reply, HOME_REFUSALS.wrongStage, shop);
    }
    return reply.redirect(homePath(shop, 'turned_on'), 303);
  });

  app.post(`${HOME_PATH}/consent`, { schema: { hide: true, response: { 403: errorRef } } }, async (request, reply) => {
    const shop = await actingFor(request, reply);
    if (shop === null) return reply;
    const raw = formField(request.body, 'discountPercent');
    const percent = raw === undefined || raw === '' ? undefined : Number(raw);
    if (percent !== undefined && ![10, 15, 20, 25].includes(percent)) {
      return sendHomeRefusal(reply, HOME_REFUSALS.choosePercent, shop);
    }
    try {
      await onboarding.consentAtHome(shop, percent, actions(shop));
    } catch (error) {
      if (!(error instanceof ApiError) || error.statusCode >= 500) throw error;
      // The onboarding's checks, in the page's words: no percentage chosen, or the store is not at consent (any more).
      return sendHomeRefusal(reply, error.statusCode === 400 ? HOME_REFUSALS.choosePercent : HOME_REFUSALS.wrongStage, shop);
    }
    return reply.redirect(homePath(shop, 'consented'), 303);
  });
};
