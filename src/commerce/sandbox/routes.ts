import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import { formField } from '../../http/forms.js';
import { cookiePolicyFor } from '../../shared/cookies.js';
import { looksLikeEmail } from '../../shared/email.js';
import { requireOwnOrigin } from '../../http/origin.js';
import { storeDomain } from '../../shared/domain.js';
import type { Runtime } from '../../composition.js';
import { safeNext, type OwnerGate } from './owner-gate.js';
import {
  APP_NAME,
  chooseDecisionPage,
  noSuchRequestPage,
  noSuchStorePage,
  ownerFromSupportPage,
  ownershipAnsweredPage,
  ownershipQuestionPage,
  ownerSignInPage,
  sendSandboxPage,
  storefrontPage,
  storeNotOpenedPage,
  thankYouPage,
  type SandboxPage,
} from './pages.js';
import { storeAdminRoutes } from './store-admin-routes.js';
import { MAX_ORDER_QUANTITY, type SandboxCommerce, type OrderDelivery } from './adapter.js';
import { ownerSignInState, setOwnerCookie, setSandboxOwner, signInOwner, supportSetsOwner } from './owners.js';
import { securePages } from '../../http/security-headers.js';

const CLAIM_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const REFERRAL_TOKEN = /^[A-Za-z0-9_-]{1,64}$/;
const errorRef = Type.Ref('ErrorResponse');

/** The service's own path the owner goes back to; the service set it, and it is checked again here. */
function safeReturnTo(value: string): string {
  return /^\/[A-Za-z0-9/_-]*$/.test(value) ? value : '/';
}

function deliveryText(delivery: OrderDelivery): string {
  switch (delivery.kind) {
    case 'delivered':
      return `sent to ${APP_NAME}'s order webhook, which answered HTTP ${delivery.status}`;
    case 'failed':
      return `not delivered: ${APP_NAME}'s order webhook could not be reached (${delivery.reason})`;
    case 'no_secret':
      return `not delivered: the order webhook has no signing secret (set ORDERS_WEBHOOK_SECRET)`;
    case 'not_subscribed':
      return `not sent to ${APP_NAME}: it has not subscribed to this store's orders`;
  }
}

/**
 * The sandbox commerce platform's pages under /sandbox, on hosts that have the sandbox (test and
 * dev, src/commerce/registry.ts); nothing on prod, where every /sandbox path is 404.
 */
export const sandboxRoutes: FastifyPluginAsync<Runtime> = async (app, runtime) => {
  const sandbox = runtime.commerce.sandbox;
  const gate = runtime.sandboxOwners;
  if (sandbox && gate) await app.register(sandboxPlatform(sandbox, gate, runtime));
};

/**
 * The sandbox commerce platform's pages: the store owner's sign-in, where the owner confirms or
 * declines that a sign-up acts for the store, the store admin and the app's install, plan and
 * confirmation screens (src/commerce/sandbox/store-admin-routes.ts), the storefront where a shopper orders (with the
 * referral and the discount code a partner's link brought), which the platform delivers to the
 * signed order webhook, and support's way to set up a store's owner sign-in.
 */
function sandboxPlatform(adapter: SandboxCommerce, gate: OwnerGate, { db, config }: Runtime): FastifyPluginAsync {
  return async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    const policy = cookiePolicyFor(config.baseUrl);
    await app.register(cookie);
    await app.register(formbody);
    await securePages(app, config.baseUrl);
    const send = sendSandboxPage;
    const noSuchStore = (reply: FastifyReply, raw: string) => send(reply, noSuchStorePage(raw));
    await app.register(storeAdminRoutes({ adapter, gate, send }));

    app.post(
      '/admin/sandbox/stores/:domain/owner',
      {
        schema: {
          summary: "Set up (or replace) a sandbox store's owner sign-in; the password is generated and shown once",
          tags: ['admin'],
          params: Type.Object({ domain: Type.String({ maxLength: 200 }) }),
          body: Type.Object({ email: Type.String({ maxLength: 254 }) }, { additionalProperties: false }),
          response: {
            201: Type.Object({ domain: Type.String(), email: Type.String(), password: Type.String() }),
            400: errorRef,
            401: errorRef,
          },
        },
      },
      async (request, reply) => reply.status(201).send(await setSandboxOwner(db, adapter, request.params.domain, request.body.email)),
    );

    const signInForm = async (
      request: FastifyRequest,
      reply: FastifyReply,
      domain: string,
      next: string,
      problem?: { status: number; text: string },
    ): Promise<SandboxPage> => {
      // Showing the page opens the store; a refused sign-in shows it as it is and makes none up (a refusal writes nothing).
      const storeName = (problem ? await adapter.findStore(domain) : await adapter.store(domain))?.businessName ?? domain;
      const { hasOwner, brandName: brand } = await ownerSignInState(db, domain);
      if (brand !== undefined) return ownerFromSupportPage(storeName, supportSetsOwner(brand), problem);
      return ownerSignInPage({
        storeName,
        domain,
        hasOwner,
        next,
        csrfToken: gate.csrfToken(request, reply),
        ...(problem ? { problem } : {}),
      });
    };

    app.get<{ Params: { domain: string }; Querystring: { next?: string } }>(
      '/sandbox/stores/:domain/sign-in',
      { schema: { hide: true } },
      async (request, reply) => {
        const domain = storeDomain(request.params.domain);
        if (!domain) return noSuchStore(reply, request.params.domain);
        return send(reply, await signInForm(request, reply, domain, safeNext(domain, request.query.next)));
      },
    );

    app.post<{ Params: { domain: string } }>('/sandbox/stores/:domain/sign-in', { schema: { hide: true } }, async (request, reply) => {
      const refused = gate.formRefusal(request);
      if (refused) return send(reply, refused);
      const domain = storeDomain(request.params.domain);
      if (!domain) return noSuchStore(reply, request.params.domain);
      const next = safeNext(domain, formField(request.body, 'next'));
      const result = await signInOwner(
        db,
        adapter,
        domain,
        formField(request.body, 'email') ?? '',
        formField(request.body, 'password') ?? '',
      );
      if (result.outcome === 'rejected')
        return send(reply, await signInForm(request, reply, domain, next, { status: result.status, text: result.problem }));
      setOwnerCookie(reply, domain, result.token, policy.secure);
      return reply.redirect(next, 303);
    });

    const ownershipPage = async (request: FastifyRequest, reply: FastifyReply, domain: string, claimId: string) => {
      const claim = await adapter.ownershipRequest(domain, claimId);
      if (!claim) return send(reply, noSuchRequestPage);
      const store = await adapter.store(domain);
      const ownership = { requestedBy: claim.requested_by, status: claim.status, continueTo: safeReturnTo(claim.return_to) };
      if (claim.status !== 'pending') return send(reply, ownershipAnsweredPage(store.businessName, ownership));
      return send(reply, ownershipQuestionPage(store.businessName, domain, ownership, gate.csrfToken(request, reply)));
    };

    app.get<{ Params: { domain: string; claimId: string } }>(
      '/sandbox/stores/:domain/ownership/:claimId',
      { schema: { hide: true } },
      async (request, reply) => {
        const domain = storeDomain(request.params.domain);
        if (!domain || !CLAIM_ID.test(request.params.claimId)) return noSuchStore(reply, request.params.domain);
        const signIn = await gate.signInFirst(request, domain);
        if (signIn) return reply.redirect(signIn, 303);
        return ownershipPage(request, reply, domain, request.params.claimId);
      },
    );

    app.post<{ Params: { domain: string; claimId: string } }>(
      '/sandbox/stores/:domain/ownership/:claimId',
      { schema: { hide: true } },
      async (request, reply) => {
        const forged = gate.formRefusal(request);
        if (forged) return send(reply, forged);
        const domain = storeDomain(request.params.domain);
        if (!domain || !CLAIM_ID.test(request.params.claimId)) return noSuchStore(reply, request.params.domain);
        const refused = await gate.ownerRefusal(request, domain);
        if (refused) return send(reply, refused);
        const decision = formField(request.body, 'decision');
        if (decision !== 'confirm' && decision !== 'decline') {
          return send(reply, chooseDecisionPage);
        }
        const answer = decision === 'confirm' ? 'confirmed' : 'declined';
        const stored = await adapter.answerOwnershipRequest(domain, request.params.claimId, answer);
        if (stored?.status === answer) return reply.redirect(safeReturnTo(stored.return_to), 303);
        return ownershipPage(request, reply, domain, request.params.claimId);
      },
    );

    // --- the storefront ---

    /** The storefront; a problem with the code itself (`codeRefused`) shows the code as typed, not as applied. */
    const storefront = async (
      domain: string,
      query: { discount?: string | undefined; ref?: string | undefined },
      problem?: { text: string; codeRefused?: boolean },
    ) => {
      const store = await adapter.store(domain);
      const products = (await adapter.catalog(domain)).filter((product) => product.active);
      const typed = typeof query.discount === 'string' ? query.discount.slice(0, 100) : '';
      const code = typed && !problem?.codeRefused ? await adapter.findDiscountCode(domain, typed) : undefined;
      const ref = typeof query.ref === 'string' && REFERRAL_TOKEN.test(query.ref) ? query.ref : '';
      return storefrontPage(
        { store, domain, products, code, typed, ref, ...(problem ? { problem: problem.text } : {}) },
        MAX_ORDER_QUANTITY,
      );
    };

    app.get<{ Params: { domain: string }; Querystring: { discount?: string; ref?: string } }>(
      '/sandbox/shop/:domain',
      { schema: { hide: true } },
      async (request, reply) => {
        const domain = storeDomain(request.params.domain);
        if (!domain) return noSuchStore(reply, request.params.domain);
        return send(reply, await storefront(domain, request.query));
      },
    );

    // The store's shareable discount link, as Shopify stores have: the storefront with the code applied.
    app.get<{ Params: { domain: string; code: string }; Querystring: { ref?: string } }>(
      '/sandbox/shop/:domain/discount/:code',
      { schema: { hide: true } },
      async (request, reply) => {
        const domain = storeDomain(request.params.domain);
        if (!domain) return noSuchStore(reply, request.params.domain);
        return send(reply, await storefront(domain, { discount: request.params.code, ref: request.query.ref }));
      },
    );

    app.post<{ Params: { domain: string } }>('/sandbox/shop/:domain/checkout', { schema: { hide: true } }, async (request, reply) => {
      requireOwnOrigin(request);
      const domain = storeDomain(request.params.domain);
      if (!domain) return noSuchStore(reply, request.params.domain);
      // An order comes from the storefront, which opened the store: a checkout must not make one up, least of all to refuse it.
      if (!(await adapter.findStore(domain))) return send(reply, storeNotOpenedPage(domain));
      const field = (name: string) => (formField(request.body, name) ?? '').trim();
      const email = field('email').toLowerCase();
      const ref = field('ref');
      const again = async (text: string, codeRefused = false) =>
        send(reply, await storefront(domain, { discount: field('discount'), ref }, { text, codeRefused }));
      if (!looksLikeEmail(email, 200)) return again('Enter your email address.');
      if (!/^\d{1,3}$/.test(field('quantity'))) return again(`Order 1 to ${MAX_ORDER_QUANTITY} of a product.`);
      if (ref !== '' && !REFERRAL_TOKEN.test(ref)) return again('The link you came through is damaged; open it again.');
      const result = await adapter.placeOrder(domain, {
        productId: field('productId'),
        quantity: Number(field('quantity')),
        customerEmail: email,
        discountCode: field('discount').slice(0, 100) || null,
        referralToken: ref || null,
      });
      if (result.outcome === 'refused') return again(result.reason, result.codeRefused);
      return send(reply, thankYouPage(domain, { ...result, delivery: deliveryText(result.delivery) }));
    });
  };
}
