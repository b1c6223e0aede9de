import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { formField } from '../../http/forms.js';
import { notFound as apiNotFound } from '../../http/errors.js';
import { helmetPolicy, LOADABLE_ANYWHERE } from '../../http/security-headers.js';
import { decimalToMinorUnits } from '../../shared/currency.js';
import { storeDomain } from '../../shared/domain.js';
import type { OwnerGate } from './owner-gate.js';
import { SANDBOX_CURRENCY, type SandboxCommerce } from './adapter.js';
import { placeholderSvg } from './generator.js';
import {
  alreadyDonePage,
  APP_NAME,
  confirmPluginPage,
  damagedLinkPage,
  donePage,
  installFirstPage,
  installPage,
  noSuchStorePage,
  planNeedsInstallPage,
  planPage,
  storeAdminPage,
  storesPage,
  type Carried,
  type SandboxPage,
  REFUND_AMOUNT,
} from './pages.js';

export interface StoreAdminRoutesOptions {
  adapter: SandboxCommerce;
  gate: OwnerGate;
  send: (reply: FastifyReply, page: SandboxPage) => Promise<FastifyReply>;
}

/** The state a plugin link carries (the hash of the embed app's secret): opaque here, handed back as it came. */
function linkState(value: unknown): string | null {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{16,128}$/.test(value) ? value : null;
}

/** Only the service's own return address is followed after an action: never an arbitrary URL. */
function safeReturn(value: unknown): string | null {
  return typeof value === 'string' && /^\/plugin\/v2\/return\?[A-Za-z0-9%=&._~-]*$/.test(value) ? value : null;
}

/**
 * The sandbox commerce platform's pages: a store admin with a generated catalog and order
 * history, the app install, plan approval and confirmation screens the plugin links to, and the
 * controls to uninstall the app or close the campaign. All of it is the store owner's, signed in
 * at the platform (src/commerce/sandbox/owner-gate.ts). Server-rendered forms, no script.
 */
export function storeAdminRoutes(options: StoreAdminRoutesOptions): FastifyPluginAsync {
  const { adapter, gate, send } = options;
  return async (app) => {
    const domainOf = (raw: string) => storeDomain(raw);
    const notFound = (reply: FastifyReply, raw: string) => send(reply, noSuchStorePage(raw));

    /** An owner's form, after its origin, CSRF token, store and owner are checked: the action's reply, or the refusal. */
    const ownerAction = async (
      request: FastifyRequest<{ Params: { domain: string } }>,
      reply: FastifyReply,
      action: (domain: string) => Promise<FastifyReply>,
    ): Promise<FastifyReply> => {
      const forged = gate.formRefusal(request);
      if (forged) return send(reply, forged);
      const domain = domainOf(request.params.domain);
      if (!domain) return notFound(reply, request.params.domain);
      const refused = await gate.ownerRefusal(request, domain);
      if (refused) return send(reply, refused);
      return action(domain);
    };

    app.get('/sandbox', { schema: { hide: true } }, async (_request, reply) => send(reply, storesPage(await adapter.recentStores())));

    app.get<{ Querystring: { domain?: string } }>('/sandbox/open', { schema: { hide: true } }, async (request, reply) => {
      const domain = domainOf(request.query.domain ?? '');
      if (!domain) return notFound(reply, request.query.domain ?? '');
      return reply.redirect(`/sandbox/stores/${encodeURIComponent(domain)}`, 303);
    });

    app.get<{ Params: { domain: string } }>('/sandbox/stores/:domain', { schema: { hide: true } }, async (request, reply) => {
      const domain = domainOf(request.params.domain);
      if (!domain) return notFound(reply, request.params.domain);
      const signIn = await gate.signInFirst(request, domain);
      if (signIn) return reply.redirect(signIn, 303);
      const store = await adapter.store(domain);
      const csrfToken = gate.csrfToken(request, reply);
      const { products, orders, orderCount, codes } = await adapter.storeAdmin(domain);
      return send(reply, storeAdminPage({ store, domain, csrfToken, products, orders, orderCount, codes }));
    });

    /** What an action form carries on: where to return to, the plugin's state, the CSRF token. */
    const carried = (request: FastifyRequest, reply: FastifyReply, returnTo: string | null, state: string | null): Carried => ({
      returnTo,
      state,
      csrfToken: gate.csrfToken(request, reply),
    });
    /** After the action: back through the return flow, or a page saying where to go. */
    const finished = async (request: FastifyRequest, reply: FastifyReply, domain: string, what: string) => {
      const state = linkState(formField(request.body, 'state'));
      if (state) await adapter.confirmMerchant(domain, state);
      const returnTo = safeReturn(formField(request.body, 'return'));
      if (returnTo) return reply.redirect(returnTo, 303);
      return send(reply, donePage(what, domain));
    };

    type ActionPage = { Params: { domain: string }; Querystring: { return?: string; state?: string } };

    app.get<ActionPage>('/sandbox/stores/:domain/install', { schema: { hide: true } }, async (request, reply) => {
      const domain = domainOf(request.params.domain);
      if (!domain) return notFound(reply, request.params.domain);
      const signIn = await gate.signInFirst(request, domain);
      if (signIn) return reply.redirect(signIn, 303);
      const store = await adapter.store(domain);
      const returnTo = safeReturn(request.query.return);
      const state = linkState(request.query.state);
      const fields = carried(request, reply, returnTo, state);
      if (store.appStatus === 'installed') return send(reply, alreadyDonePage('Installed', `${APP_NAME} is installed`, domain, fields));
      return send(reply, installPage(store, fields));
    });

    app.post<{ Params: { domain: string } }>('/sandbox/stores/:domain/install', { schema: { hide: true } }, async (request, reply) =>
      ownerAction(request, reply, async (domain) => {
        await adapter.install(domain);
        return finished(request, reply, domain, `${APP_NAME} is installed`);
      }),
    );

    app.get<ActionPage>('/sandbox/stores/:domain/plan', { schema: { hide: true } }, async (request, reply) => {
      const domain = domainOf(request.params.domain);
      if (!domain) return notFound(reply, request.params.domain);
      const signIn = await gate.signInFirst(request, domain);
      if (signIn) return reply.redirect(signIn, 303);
      // Looked up, not opened: a store nobody opened has not installed the app.
      const store = await adapter.findStore(domain);
      const returnTo = safeReturn(request.query.return);
      const state = linkState(request.query.state);
      if (store?.appStatus !== 'installed') {
        const query = new URLSearchParams({ ...(returnTo ? { return: returnTo } : {}), ...(state ? { state } : {}) }).toString();
        return send(reply, installFirstPage(domain, query));
      }
      const fields = carried(request, reply, returnTo, state);
      // Approved already: the owner may confirm it again, which starts the app's setup if it never ran.
      return send(reply, planPage(fields, store.planApprovedAt));
    });

    app.post<{ Params: { domain: string } }>('/sandbox/stores/:domain/plan', { schema: { hide: true } }, async (request, reply) =>
      ownerAction(request, reply, async (domain) => {
        const store = await adapter.findStore(domain);
        if (store?.appStatus !== 'installed') {
          return send(reply, planNeedsInstallPage);
        }
        await adapter.approvePlan(domain);
        return finished(request, reply, domain, 'The plan is approved');
      }),
    );

    // The plugin's own confirmation: the owner, signed in here, lets the plugin session that made the state act for the store.
    app.get<ActionPage>('/sandbox/stores/:domain/confirm', { schema: { hide: true } }, async (request, reply) => {
      const domain = domainOf(request.params.domain);
      if (!domain) return notFound(reply, request.params.domain);
      const state = linkState(request.query.state);
      if (!state) return send(reply, damagedLinkPage);
      const signIn = await gate.signInFirst(request, domain);
      if (signIn) return reply.redirect(signIn, 303);
      const store = await adapter.store(domain);
      return send(reply, confirmPluginPage(store, domain, carried(request, reply, null, state)));
    });

    app.post<{ Params: { domain: string } }>('/sandbox/stores/:domain/confirm', { schema: { hide: true } }, async (request, reply) =>
      ownerAction(request, reply, async (domain) => {
        if (!linkState(formField(request.body, 'state'))) return send(reply, damagedLinkPage);
        return finished(request, reply, domain, 'Confirmed');
      }),
    );

    app.post<{ Params: { domain: string } }>('/sandbox/stores/:domain/uninstall', { schema: { hide: true } }, async (request, reply) =>
      ownerAction(request, reply, async (domain) => {
        await adapter.uninstall(domain);
        return reply.redirect(`/sandbox/stores/${encodeURIComponent(domain)}`, 303);
      }),
    );

    app.post<{ Params: { domain: string } }>('/sandbox/stores/:domain/close-campaign', { schema: { hide: true } }, async (request, reply) =>
      ownerAction(request, reply, async (domain) => {
        await adapter.closeCampaign(domain);
        return reply.redirect(`/sandbox/stores/${encodeURIComponent(domain)}`, 303);
      }),
    );

    // Refunds and cancellations: the platform tells the service with an order event (src/orders/service.ts, recordOrderEvent).
    app.post<{ Params: { domain: string } }>('/sandbox/stores/:domain/refund', { schema: { hide: true } }, async (request, reply) =>
      ownerAction(request, reply, async (domain) => {
        const amount = REFUND_AMOUNT.exec(formField(request.body, 'amount') ?? '');
        const amountCents = amount ? (decimalToMinorUnits(amount[0], SANDBOX_CURRENCY) ?? 0) : 0;
        if (amountCents > 0) await adapter.takeBack(domain, formField(request.body, 'order') ?? '', { kind: 'refund', amountCents });
        return reply.redirect(`/sandbox/stores/${encodeURIComponent(domain)}`, 303);
      }),
    );

    app.post<{ Params: { domain: string } }>('/sandbox/stores/:domain/cancel', { schema: { hide: true } }, async (request, reply) =>
      ownerAction(request, reply, async (domain) => {
        await adapter.takeBack(domain, formField(request.body, 'order') ?? '', { kind: 'cancel' });
        return reply.redirect(`/sandbox/stores/${encodeURIComponent(domain)}`, 303);
      }),
    );

    // Offers show these images on any site; an SVG opened by itself may only style itself.
    const imageHeaders = {
      ...LOADABLE_ANYWHERE,
      contentSecurityPolicy: helmetPolicy({ 'default-src': ["'none'"], 'style-src': ["'unsafe-inline'"] }),
    };
    app.get<{ Params: { domain: string; file: string } }>(
      '/sandbox/images/:domain/:file',
      { config: { helmet: imageHeaders }, schema: { hide: true } },
      async (request, reply) => {
        const match = /^([a-z0-9]{1,20})\.svg$/.exec(request.params.file);
        if (!match) throw apiNotFound('no such image');
        return reply
          .header('Content-Type', 'image/svg+xml')
          .header('Cache-Control', 'public, max-age=86400')
          .send(
            placeholderSvg(
              `${request.params.domain}/${match[1]}`,
              match[1] === 'logo' ? request.params.domain.replace(/^(new|noimages|slow|promo)-/, '').replace(/[.-]/g, ' ') : match[1]!,
            ),
          );
      },
    );
  };
}
