import type { ServerResponse } from 'node:http';
import { CookieNotFound } from '@shopify/shopify-api';
import type { FastifyBaseLogger, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import { Type } from 'typebox';
import { isUuid } from '../../config.js';
import type { Runtime } from '../../composition.js';
import { ApiError, badRequest, conflict, notFound, unauthorized } from '../../http/errors.js';
import { formField } from '../../http/forms.js';
import { requireOwnOrigin } from '../../http/origin.js';
import { cookiePolicyFor, csrfTokenFor, csrfTokenMatches } from '../../shared/cookies.js';
import { isSecretHash as isChallenge, randomToken } from '../../shared/keys.js';
import { platformName as platformNameOf } from '../../platforms/service.js';
import { StoreDisconnectedError } from './admin-client.js';
import { isShopDomain, type ShopifyCommerce, StoreNotInstalledError } from './adapter.js';
import * as shopifyService from './service.js';
import { securePages } from '../../http/security-headers.js';
import { acceptSignedJson, signedBodyOf } from '../../http/signed-body.js';
import { wantsHtmlPage } from '../../http/not-found-page.js';
import { InstallCookies } from './install-cookie.js';
import {
  CONFIRMATION_FIELD,
  CSRF_FIELD,
  REFUSALS,
  sendConfirmationPage,
  sendDeclinedPage,
  sendDonePage,
  sendRefusalPage,
  sendStartAgainPage,
} from './pages.js';
import { InstallQuery, PlanQuery, PlanReturnQuery, RetriedDelivery, ShopifyAttention, WebhookIdParams, WebhookReceipt } from './schemas.js';
import { COMPLIANCE_TOPICS, shopifySignature, TOPICS, WEBHOOK_BODY_LIMIT_BYTES } from './webhooks.js';
import { appHomeRoutes } from './home-routes.js';
import { WEBHOOK_PATH } from './library.js';

const errorRef = Type.Ref('ErrorResponse');
export const CALLBACK_PATH = '/commerce/shopify/callback';

/**
 * What the library writes to a Node response, caught so Fastify sends it (with the service's
 * headers) instead of the library writing the socket itself.
 */
class CapturedResponse {
  statusCode = 200;
  statusMessage = '';
  readonly headers: Record<string, string | string[]> = {};
  getHeaders() {
    return this.headers;
  }
  setHeader(name: string, value: string | string[]) {
    this.headers[name.toLowerCase()] = value;
  }
  write() {}
  end() {}
}

function shopOf(raw: string): string {
  const shop = raw.trim().toLowerCase();
  if (!isShopDomain(shop)) throw badRequest('shop must be a Shopify store domain such as acme.myshopify.com');
  return shop;
}

/** A path of this service only: never another site (an open redirect). */
function returnPathOf(raw: string | undefined): string | null {
  if (raw === undefined || raw === '') return null;
  if (!/^\/(?![/\\])[A-Za-z0-9/%._~?=&-]*$/.test(raw)) {
    throw badRequest('return must be a path of this service');
  }
  return raw;
}

const refused = (message: string) => new ApiError(400, 'invalid_callback', message);

const refuse = (reply: FastifyReply, refusal: (typeof REFUSALS)[keyof typeof REFUSALS]) =>
  sendRefusalPage(reply, refusal.status, refusal.heading, refusal.text);

function platformOf(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  if (!isUuid(raw)) throw badRequest('platform must be a UUID');
  return raw.toLowerCase();
}

/**
 * Shopify's routes: install (OAuth), its callback, plan approval and its return, and the one
 * webhook endpoint. Registered only when Shopify is configured, so they are 404 otherwise.
 */
export const shopifyRoutes: FastifyPluginAsync<Runtime> = async (plain, runtime) => {
  const shopify = runtime.commerce.shopify;
  if (!shopify) return;
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config } = runtime;
  const policy = cookiePolicyFor(config.baseUrl);
  // The callback and plan return may end on a page of the service; the confirmation is its form.
  await securePages(app, config.baseUrl);
  await app.register(cookie);
  await app.register(formbody);
  const installCookies = new InstallCookies(shopify.library.config.apiSecretKey, policy, shopifyService.INSTALL_WINDOW_MS, CALLBACK_PATH);

  app.get(
    '/commerce/shopify/install',
    {
      schema: {
        summary:
          'Install the app on a Shopify store: a redirect to Shopify OAuth (offline token) with a state bound to this browser; ' +
          'what the install carries rides in a signed cookie of this browser, nothing is written',
        tags: ['commerce'],
        querystring: InstallQuery,
        response: { 400: errorRef },
      },
    },
    async (request, reply) => {
      const shop = shopOf(request.query.shop);
      const returnTo = returnPathOf(request.query.return);
      const challenge = request.query.challenge ?? null;
      if (challenge !== null && !isChallenge(challenge)) throw badRequest('challenge must be 64 hexadecimal digits');
      const claimId = request.query.claim ?? null;
      if (claimId !== null && !isUuid(claimId)) throw badRequest('claim must be a UUID');
      const platformId = platformOf(request.query.platform);
      // A claim is confirmed only in a flow its claimant started, signed in: another browser sent here gets nothing.
      const claimant = claimId === null ? undefined : await runtime.claimantOf(request, claimId, shop);
      if (claimId !== null && !claimant) return refuse(reply, REFUSALS.notClaimant);
      return beginInstall(request, reply, {
        shop,
        challenge,
        returnTo,
        claimId,
        claimantSessionId: claimant?.sessionId ?? null,
        platformId,
      });
    },
  );

  /**
   * OAuth for an offline token: a 302 to Shopify's authorize page, the state bound to this browser by
   * the library's cookie, what the install carries by the service's (install-cookie.ts). Nothing is
   * written: a stranger's installs cost the merchant's nothing.
   */
  const beginInstall = async (request: FastifyRequest, reply: FastifyReply, inFlight: shopifyService.PendingInstall) => {
    const captured = new CapturedResponse();
    await shopify.library.auth.begin({
      shop: inFlight.shop,
      callbackPath: CALLBACK_PATH,
      isOnline: false,
      rawRequest: request.raw,
      rawResponse: captured as unknown as ServerResponse,
    });
    const location = captured.headers.location;
    if (captured.statusCode !== 302 || typeof location !== 'string') {
      throw new ApiError(captured.statusCode === 410 ? 410 : 400, 'install_refused', 'Shopify install could not start from this client');
    }
    const state = new URL(location).searchParams.get('state')!;
    installCookies.set(reply, state, inFlight, new Date());
    const cookies = captured.headers['set-cookie'];
    if (cookies) reply.header('set-cookie', cookies);
    reply.header('Cache-Control', 'no-store');
    return reply.redirect(location, 302);
  };

  /** The install a "start again" link repeats: the one this browser started last for the shop, else a plain install of it. */
  const restartUrl = (request: FastifyRequest, shop: string, now: Date) => {
    const query = new URLSearchParams({ shop });
    const started = installCookies.lastStarted(request, now);
    if (started?.shop === shop) {
      if (started.returnTo) query.set('return', started.returnTo);
      if (started.challenge) query.set('challenge', started.challenge);
      if (started.claimId) query.set('claim', started.claimId);
      if (started.platformId) query.set('platform', started.platformId);
    }
    return `/commerce/shopify/install?${query.toString()}`;
  };

  /**
   * A callback this browser holds no install for, or whose state cookie ran out: a browser gets a
   * page in words with a link that starts again; anything else the API's error.
   */
  const startAgain = (request: FastifyRequest, reply: FastifyReply, shop: string, now: Date) => {
    reply.header('Cache-Control', 'no-store');
    if (wantsHtmlPage(request, CALLBACK_PATH)) return sendStartAgainPage(reply, shop, restartUrl(request, shop, now));
    throw refused('this browser holds no install for this callback (it ran out, or was started elsewhere): start the install again');
  };

  app.get(
    CALLBACK_PATH,
    {
      schema: {
        summary: "Shopify's OAuth callback: HMAC, state and shop verified, the code exchanged, the store connected",
        tags: ['commerce'],
        response: { 400: errorRef },
      },
    },
    async (request, reply) => {
      const query = request.query as Record<string, string | undefined>;
      const shop = query.shop ?? '';
      const state = query.state ?? '';
      if (!isShopDomain(shop) || state === '') throw refused('the callback names no Shopify store or state');
      const now = new Date();
      // A replayed callback (its state taken by an install or a refusal) is refused before its code is used.
      if (await shopifyService.callbackStateTaken(db, state, now)) {
        throw refused('this install was completed already or refused: start the install again');
      }
      // Signed by Shopify (and within its 90 s): a refusal from here on spends the state, so the callback is of no use elsewhere.
      const signed = await shopify.library.utils.validateHmac(new URL(request.url, config.baseUrl).searchParams).catch(() => false);
      const refuseSigned = async () => {
        if (signed) await shopifyService.spendCallbackState(db, state, shop, now);
      };
      const pending = installCookies.read(request, state, shop, now);
      if (!pending) {
        await refuseSigned();
        return startAgain(request, reply, shop, now);
      }
      // The claimant's own session, still: checked before the code is exchanged, so a refusal stores nothing.
      const claimant = pending.claimId === null ? undefined : await runtime.claimantOf(request, pending.claimId, shop);
      if (pending.claimId !== null && claimant?.sessionId !== pending.claimantSessionId) {
        await refuseSigned();
        return refuse(reply, REFUSALS.notClaimant);
      }
      let session: Awaited<ReturnType<ShopifyCommerce['library']['auth']['callback']>>['session'];
      try {
        ({ session } = await shopify.library.auth.callback({ expiring: true, rawRequest: request.raw, rawResponse: reply.raw }));
      } catch (error) {
        await refuseSigned();
        // The library's own state cookie lives 60 s: a merchant who took longer to sign in at Shopify starts again.
        if (error instanceof CookieNotFound) return startAgain(request, reply, shop, now);
        request.log.warn({ err: error, shop }, 'Shopify OAuth callback refused');
        throw refused('the callback did not verify (signature, state or code): start the install again');
      }
      const stored = await shopifyService.completeInstall(db, {
        state,
        shop: session.shop,
        ...shopify.tokens.toStore(session),
        scopes: session.scope ?? '',
        now,
      });
      if (!stored) throw refused('this install was completed already: start the install again');
      installCookies.clear(reply);
      await afterInstall(shopify, session.shop, request.log);
      reply.header('Cache-Control', 'no-store');
      if (claimant || pending.challenge) return askStaff(request, reply, session.shop, pending, claimant ?? null, now);
      if (pending.returnTo) return reply.redirect(pending.returnTo, 303);
      return sendDonePage(reply, 'The app is installed', session.shop);
    },
  );

  /** The service's own question after a verified callback, answered by a POST with this page's CSRF token. */
  const askStaff = async (
    request: FastifyRequest,
    reply: FastifyReply,
    shop: string,
    pending: shopifyService.PendingInstall,
    claimant: { sessionId: string; email: string } | null,
    now: Date,
  ) => {
    const shopName = await shopify.shopName(shop).catch((error: unknown) => {
      request.log.warn({ err: error, shop }, 'could not read the Shopify store name for the confirmation page');
      return shop;
    });
    const platformName = pending.platformId ? await platformNameOf({ db }, pending.platformId) : null;
    const token = randomToken(43);
    const question = {
      shop,
      shopName,
      claim: claimant && pending.claimId ? { claimId: pending.claimId, ...claimant } : null,
      plugin: pending.challenge ? { challenge: pending.challenge, platformId: pending.platformId, platformName } : null,
      returnTo: pending.returnTo,
    };
    await shopifyService.askStaff(db, token, question, now);
    return sendConfirmationPage(reply, {
      shop,
      shopName,
      claimantEmail: claimant?.email ?? null,
      plugin: question.plugin && { platformName },
      token,
      csrfToken: csrfTokenFor(request, reply, policy),
    });
  };

  app.post(
    '/commerce/shopify/confirm',
    {
      schema: {
        summary:
          "The store's staff answer the question a verified callback showed them (a sign-up's claim, a plugin's challenge): " +
          'a form of that page, with its CSRF token, from the claimant’s own session for a claim',
        tags: ['commerce'],
        response: { 403: errorRef },
      },
    },
    async (request, reply) => {
      requireOwnOrigin(request);
      reply.header('Cache-Control', 'no-store');
      if (!csrfTokenMatches(request, formField(request.body, CSRF_FIELD))) return refuse(reply, REFUSALS.formExpired);
      const token = formField(request.body, CONFIRMATION_FIELD) ?? '';
      const now = new Date();
      const question = token === '' ? undefined : await shopifyService.pendingQuestion(db, token, now);
      if (!question) return refuse(reply, REFUSALS.answered);
      if (question.claim) {
        const claimant = await runtime.claimantOf(request, question.claim.claimId, question.shop);
        if (claimant?.sessionId !== question.claim.sessionId) return refuse(reply, REFUSALS.notClaimant);
      }
      const decision = formField(request.body, 'decision');
      if (decision !== 'confirm' && decision !== 'decline') return refuse(reply, REFUSALS.chooseDecision);
      if (!(await shopifyService.answerStaffQuestion(db, { token, question, decision, now }))) return refuse(reply, REFUSALS.answered);
      if (decision === 'decline') return sendDeclinedPage(reply, question.shop);
      if (question.plugin) await shopify.emit({ type: 'merchant_confirmed', domain: question.shop, state: question.plugin.challenge });
      if (question.returnTo) return reply.redirect(question.returnTo, 303);
      return sendDonePage(reply, 'The app is installed', question.shop);
    },
  );

  app.get(
    '/commerce/shopify/plan',
    {
      schema: {
        summary:
          'Approve the usage plan: for the merchant whose plugin link carries a confirmed challenge, ' +
          'redirects to Shopify’s confirmation page of the pending subscription (created once)',
        tags: ['commerce'],
        querystring: PlanQuery,
        response: { 400: errorRef, 401: errorRef },
      },
    },
    async (request, reply) => {
      const shop = shopOf(request.query.shop);
      const returnTo = returnPathOf(request.query.return);
      const challenge = request.query.challenge;
      if (challenge !== undefined && !isChallenge(challenge)) throw badRequest('challenge must be 64 hexadecimal digits');
      // A subscription spends the store's Admin API points and waits at Shopify: only the merchant's plugin link makes one.
      if (challenge === undefined) {
        throw unauthorized('the plan is approved from the plugin, whose link carries the proof that the store’s owner installed the app');
      }
      reply.header('Cache-Control', 'no-store');
      const link = { returnTo, state: challenge, platformId: platformOf(request.query.platform) ?? undefined };
      const status = await shopify.status(shop);
      if (status.installation !== 'installed') return reply.redirect(shopify.installUrl(shop, link), 303);
      if (!(await runtime.challengeConfirmed(shop, challenge))) {
        // A page loaded after the install (a reload, the same-tab return) holds a challenge nobody confirmed yet:
        // installing again signs the staff in at Shopify, the service's page asks them, and their answer comes back here.
        return reply.redirect(shopify.installUrl(shop, { ...link, returnTo: shopify.planApprovalUrl(shop, link) }), 303);
      }
      if (status.planApproved) {
        return returnTo ? reply.redirect(returnTo, 303) : sendDonePage(reply, 'The plan is approved', shop);
      }
      const back = new URLSearchParams({ shop });
      if (returnTo) back.set('return', returnTo);
      try {
        const returnUrl = `${config.baseUrl}/commerce/shopify/plan/return?${back.toString()}`;
        return reply.redirect(await shopify.subscriptionConfirmationUrl(shop, returnUrl), 303);
      } catch (error) {
        if (error instanceof StoreDisconnectedError) return reply.redirect(shopify.installUrl(shop, link), 303);
        throw error;
      }
    },
  );

  app.get('/commerce/shopify/plan/return', { schema: { hide: true, querystring: PlanReturnQuery } }, async (request, reply) => {
    const shop = shopOf(request.query.shop);
    const returnTo = returnPathOf(request.query.return);
    reply.header('Cache-Control', 'no-store');
    // Whatever the return URL carries, the plan is what the installation says. Only the return naming the subscription the
    // store waits on asks Shopify, once; any other (a stranger's, a reload) is answered from what the service recorded.
    let planApproved = false;
    try {
      planApproved = (await shopifyService.takeReturnedSubscription(db, shop, request.query.charge_id, new Date()))
        ? await shopify.refreshSubscription(shop, { ownerReturned: true })
        : (await shopify.status(shop)).planApproved;
    } catch (error) {
      if (!(error instanceof StoreNotInstalledError || error instanceof StoreDisconnectedError)) throw error;
    }
    if (returnTo) return reply.redirect(returnTo, 303);
    return sendDonePage(reply, planApproved ? 'The plan is approved' : 'The plan was not approved', shop);
  });

  const ATTENTION_LIMIT = 200;
  app.get(
    '/admin/shopify/attention',
    {
      schema: {
        summary:
          'Shopify stores that lost the app’s access, webhook deliveries that stopped after their attempts, and stores asked to ' +
          'approve a higher capped amount',
        tags: ['admin'],
        response: { 200: ShopifyAttention, 401: errorRef },
      },
    },
    async () => {
      const { stores, deliveries, capRaises } = await shopifyService.attention(db, ATTENTION_LIMIT);
      return {
        capRaises: capRaises.map((raise) => ({ ...raise, requestedAt: raise.requestedAt.toISOString() })),
        disconnectedStores: stores.map((store) => ({ ...store, disconnectedAt: store.disconnectedAt.toISOString() })),
        failedDeliveries: deliveries.map((delivery) => ({
          ...delivery,
          receivedAt: delivery.receivedAt.toISOString(),
          failedAt: delivery.failedAt?.toISOString() ?? null,
          bodyErasedAt: delivery.bodyErasedAt?.toISOString() ?? null,
        })),
      };
    },
  );

  app.post(
    '/admin/shopify/webhook-deliveries/:webhookId/retry',
    {
      schema: {
        summary: 'Sends a stopped Shopify webhook delivery through again, with a fresh round of attempts',
        tags: ['admin'],
        params: WebhookIdParams,
        response: { 200: RetriedDelivery, 401: errorRef, 404: errorRef, 409: errorRef },
      },
    },
    async (request) => {
      const { webhookId } = request.params;
      const retried = await shopifyService.retryDelivery(db, webhookId, new Date());
      if (retried === 'unknown') throw notFound(`no stopped delivery ${webhookId}`);
      if (retried === 'erased') throw conflict(`the body of delivery ${webhookId} was erased: only its ids are kept`);
      runtime.jobs.nudgeShopifyWebhooks();
      return { webhookId, retried: true as const };
    },
  );

  await app.register(async (scope) => appHomeRoutes(scope, runtime, shopify, beginInstall, afterInstall));
  await app.register(async (scope) => webhookRoute(scope, runtime, shopify));
};

/**
 * After a verified install: webhooks subscribed, the plan read back, the store's own domain linked
 * (the hourly round and the setup link it again, so a failure here only waits for them), the plugin
 * told the app is there.
 */
async function afterInstall(shopify: ShopifyCommerce, shop: string, log: FastifyBaseLogger): Promise<void> {
  await shopify.registerWebhooks(shop);
  await shopify.refreshSubscription(shop);
  await shopify.refreshDomains(shop).catch((error: unknown) => log.warn({ err: error, shop }, "could not read the Shopify store's domain"));
  await shopify.emit({ type: 'app_installed', domain: shop });
}

/**
 * Shopify names the shop in the body of these topics too: where it does, it must be the shop the
 * headers name. Shopify's own example of app/uninstalled has `myshopify_domain: null`, so a body
 * naming no shop is taken on the headers' word (the uninstall is checked with the Admin API anyway).
 */
function shopInBody(topic: string, payload: unknown): string | null {
  const body = payload as { myshopify_domain?: unknown; shop_domain?: unknown } | null;
  const named = topic === 'app/uninstalled' ? body?.myshopify_domain : COMPLIANCE_TOPICS.has(topic) ? body?.shop_domain : null;
  return typeof named === 'string' ? named : null;
}

async function webhookRoute(plain: Parameters<FastifyPluginAsync>[0], runtime: Runtime, shopify: ShopifyCommerce): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = runtime;
  const unsigned = () => unauthorized('X-Shopify-Hmac-Sha256 does not match the body, or Shopify’s headers are missing');
  // The HMAC covers the exact bytes sent: checked on them before the body is parsed or walked (issue 44).
  const secret = shopify.library.config.apiSecretKey;
  acceptSignedJson(app, (request) => {
    const signature = shopifySignature(secret, request.headers['x-shopify-hmac-sha256']);
    if (!signature) throw unsigned();
    return {
      update: (chunk) => signature.update(chunk),
      verify: () => {
        if (!signature.matches()) throw unsigned();
      },
    };
  });

  app.post(
    WEBHOOK_PATH,
    {
      bodyLimit: WEBHOOK_BODY_LIMIT_BYTES,
      schema: {
        summary:
          "Shopify's webhooks, every topic: HMAC-verified over the raw body, deduplicated by X-Shopify-Webhook-Id and " +
          'X-Shopify-Event-Id, answered at once and worked off by a durable job',
        tags: ['commerce'],
        response: { 200: WebhookReceipt, 400: errorRef, 401: errorRef },
      },
    },
    async (request, reply) => {
      const signed = signedBodyOf(request);
      if (!signed) throw unsigned();
      // The library checks Shopify's headers (and the HMAC again, over the same bytes: UTF-8, as the parser required).
      const check = await shopify.library.webhooks.validate({
        rawBody: signed.toString('utf8'),
        rawRequest: request.raw,
        rawResponse: reply.raw,
      });
      if (!check.valid) throw unsigned();
      const topic = String(request.headers['x-shopify-topic']).toLowerCase();
      const shop = check.domain.toLowerCase();
      if (!TOPICS.has(topic)) throw badRequest(`the topic ${topic} is not one this app subscribes to`);
      if (!isShopDomain(shop)) throw badRequest('X-Shopify-Shop-Domain must be a myshopify.com domain');
      const named = shopInBody(topic, request.body);
      if (named !== null && named !== shop) throw badRequest('the body names another shop than X-Shopify-Shop-Domain');
      const eventId = request.headers['x-shopify-event-id'];
      const delivery = { webhookId: check.webhookId, eventId: typeof eventId === 'string' && eventId !== '' ? eventId : null };
      const recorded = await shopifyService.recordDelivery(db, { ...delivery, shop, topic, payload: request.body, now: new Date() });
      if (!recorded) return { received: true, duplicate: true };
      // Every topic is the worker's: Shopify's 5 s hold no Admin API call. An API-only instance leaves it to the worker's poll.
      runtime.jobs.nudgeShopifyWebhooks();
      return { received: true, duplicate: false };
    },
  );
}
