import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { formField } from '../accounts/schemas.js';
import { notFound as apiNotFound } from '../http/errors.js';
import { escapeHtml } from '../plugin/html.js';
import { storeDomain } from '../plugin/store-domain.js';
import type { OwnerGate } from './owner-gate.js';
import type { SandboxCommerce } from './sandbox.js';
import { placeholderSvg } from './sandbox-generator.js';
import { APP_NAME, money, noSuchStoreBody, type SandboxPage } from './pages.js';

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
 * at the platform (src/commerce/owner-gate.ts). Server-rendered forms, no script.
 */
export function storeAdminRoutes(options: StoreAdminRoutesOptions): FastifyPluginAsync {
  const { adapter, gate } = options;
  return async (app) => {

    const send = (reply: FastifyReply, title: string, body: string, status = 200) => options.send(reply, { title, body, status });
    const domainOf = (raw: string) => storeDomain(raw);
    const notFound = (reply: FastifyReply, raw: string) => send(reply, 'No such store', noSuchStoreBody(raw), 404);

    /** An owner's form, after its origin, CSRF token, store and owner are checked: the action's reply, or the refusal. */
    const ownerAction = async (
      request: FastifyRequest<{ Params: { domain: string } }>,
      reply: FastifyReply,
      action: (domain: string) => Promise<FastifyReply>,
    ): Promise<FastifyReply> => {
      const forged = gate.formRefusal(request);
      if (forged) return options.send(reply, forged);
      const domain = domainOf(request.params.domain);
      if (!domain) return notFound(reply, request.params.domain);
      const refused = await gate.ownerRefusal(request, domain);
      if (refused) return options.send(reply, refused);
      return action(domain);
    };

    app.get('/sandbox', { schema: { hide: true } }, async (_request, reply) => {
      const stores = await adapter.recentStores();
      const rows = stores
        .map(
          (store) =>
            `<li><a href="/sandbox/stores/${encodeURIComponent(store.domain)}">${escapeHtml(store.business_name)}</a> <span class="muted">${escapeHtml(store.domain)} · app ${escapeHtml(store.app_status.replace('_', ' '))}${store.plan_approved_at ? ', plan approved' : ''}</span></li>`,
        )
        .join('');
      return send(
        reply,
        'Stores',
        `<h1>Sandbox stores</h1>` +
          `<p>Every domain is a store here: its catalog and order history are made up the first time you open it, the same every time.</p>` +
          `<p>A store's admin is its owner's. The first visitor of a made-up store sets up its owner sign-in; a store whose brand is already in the network gets its sign-in from the support team.</p>` +
          `<form method="get" action="/sandbox/open" class="row"><label for="domain">Store domain</label><input id="domain" name="domain" required placeholder="cozy-candles.example"><button type="submit">Open store admin</button></form>` +
          `<p class="muted">Prefixes pick a case: <code>new-</code> too few orders, <code>noimages-</code> no product images, <code>slow-</code> slow setup, <code>promo-</code> an existing 15% welcome discount.</p>` +
          (rows ? `<h2>Recently opened</h2><ul class="stores">${rows}</ul>` : ''),
      );
    });

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
      const csrf = gate.csrfField(request, reply);
      const { products, orders, orderCount, codes } = await adapter.storeAdmin(domain);
      const path = `/sandbox/stores/${encodeURIComponent(domain)}`;
      const appState =
        store.appStatus === 'installed'
          ? store.planApprovedAt
            ? 'Installed, plan approved'
            : `Installed, plan not approved — <a href="${path}/plan">approve the plan</a>`
          : `${store.appStatus === 'uninstalled' ? 'Uninstalled' : 'Not installed'} — <a href="${path}/install">install ${APP_NAME}</a>`;
      const controls =
        `<div class="row">` +
        (store.appStatus === 'installed'
          ? `<form method="post" action="${path}/uninstall">${csrf}<button type="submit" class="secondary">Uninstall ${APP_NAME}</button></form>`
          : '') +
        `<form method="post" action="${path}/close-campaign">${csrf}<button type="submit" class="secondary">Close cross-promotion campaign</button></form>` +
        `</div>`;
      const catalog = products
        .map(
          (product) =>
            `<tr><td>${product.image_url ? `<img src="${escapeHtml(product.image_url)}" alt="" width="40" height="40">` : '<span class="muted">no image</span>'}</td>` +
            `<td>${escapeHtml(product.title)}</td><td>${money(product.price_cents)}</td><td>${escapeHtml(product.status)}</td></tr>`,
        )
        .join('');
      const orderRows = orders
        .map(
          (order) =>
            `<tr><td>${escapeHtml(order.id)}</td><td>${escapeHtml(order.title)} × ${order.quantity}</td><td>${money(order.total_cents)}</td>` +
            `<td>${order.placed_at.toISOString().slice(0, 10)}</td><td>${order.discount_code ? `<code>${escapeHtml(order.discount_code)}</code>` : ''}</td>` +
            `<td>${order.webhook_status === null ? '' : `HTTP ${order.webhook_status}`}</td></tr>`,
        )
        .join('');
      const codeRows = codes
        .map((code) => `<li><code>${escapeHtml(code.code)}</code> — ${code.percent}% off${code.once_per_customer ? ', once per customer' : ''}</li>`)
        .join('');
      return send(
        reply,
        store.businessName,
        `<h1>${escapeHtml(store.businessName)}</h1><p class="muted">${escapeHtml(domain)} · ${escapeHtml(store.category ?? '')} · ${escapeHtml(store.country ?? '')}</p>` +
          `<h2>${APP_NAME} app</h2><p>${appState}</p>${controls}` +
          (store.welcomeDiscountPercent ? `<p>This store already gives new customers ${store.welcomeDiscountPercent}% off.</p>` : '') +
          `<h2>Discount codes</h2>${codeRows ? `<ul>${codeRows}</ul>` : '<p class="muted">None yet.</p>'}` +
          `<h2>Catalog (${products.length} products)</h2><table><thead><tr><th>Image</th><th>Product</th><th>Price</th><th>Status</th></tr></thead><tbody>${catalog}</tbody></table>` +
          `<h2>Orders (${orderCount} in all, latest first)</h2>` +
          `<p><a href="/sandbox/shop/${encodeURIComponent(domain)}">Open the storefront</a> to place an order as a shopper.</p>` +
          (orderRows
            ? `<table><thead><tr><th>Order</th><th>Items</th><th>Total</th><th>Date</th><th>Discount code</th><th>Sent to ${APP_NAME}</th></tr></thead><tbody>${orderRows}</tbody></table>`
            : '<p class="muted">No orders yet.</p>'),
      );
    });

    const doneBody = (what: string, returnTo: string | null, domain: string) =>
      `<h1>${escapeHtml(what)}</h1>` +
      (returnTo
        ? `<p><a class="button" href="${escapeHtml(returnTo)}">Continue</a></p>`
        : `<p>Go back to the tab where you started: the plugin continues as soon as you return to it. You can close this tab.</p>`) +
      `<p><a href="/sandbox/stores/${encodeURIComponent(domain)}">Open the store admin</a></p>`;

    /** The hidden fields an action form carries on: where to return to, the plugin's state, the CSRF token. */
    const carried = (request: FastifyRequest, reply: FastifyReply, returnTo: string | null, state: string | null) =>
      `<input type="hidden" name="return" value="${escapeHtml(returnTo ?? '')}">` +
      (state ? `<input type="hidden" name="state" value="${escapeHtml(state)}">` : '') +
      gate.csrfField(request, reply);
    /** After the action: back through the return flow, or a page saying where to go. */
    const finished = async (request: FastifyRequest, reply: FastifyReply, domain: string, what: string) => {
      const state = linkState(formField(request.body, 'state'));
      if (state) await adapter.confirmMerchant(domain, state);
      const returnTo = safeReturn(formField(request.body, 'return'));
      if (returnTo) return reply.redirect(returnTo, 303);
      return send(reply, what, doneBody(what, null, domain));
    };

    /**
     * On a plugin's link whose action is done already: the owner still confirms the plugin with a
     * click (a form), never by opening a link, which another site could make their browser do.
     */
    const confirmForm = (request: FastifyRequest, reply: FastifyReply, domain: string, returnTo: string | null, state: string | null) =>
      state
        ? `<form method="post" action="/sandbox/stores/${encodeURIComponent(domain)}/confirm">${carried(request, reply, returnTo, state)}` +
          `<p>Let the ${APP_NAME} plugin you came from turn cross-promotion on or off for this store during the next hour?</p><button type="submit">Confirm</button></form>`
        : '';

    type ActionPage = { Params: { domain: string }; Querystring: { return?: string; state?: string } };

    app.get<ActionPage>('/sandbox/stores/:domain/install', { schema: { hide: true } }, async (request, reply) => {
      const domain = domainOf(request.params.domain);
      if (!domain) return notFound(reply, request.params.domain);
      const signIn = await gate.signInFirst(request, domain);
      if (signIn) return reply.redirect(signIn, 303);
      const store = await adapter.store(domain);
      const returnTo = safeReturn(request.query.return);
      const state = linkState(request.query.state);
      if (store.appStatus === 'installed') return send(reply, 'Installed', doneBody(`${APP_NAME} is installed`, returnTo, domain) + confirmForm(request, reply, domain, returnTo, state));
      return send(
        reply,
        `Install ${APP_NAME}`,
        `<h1>Install ${APP_NAME} on ${escapeHtml(store.businessName)}?</h1>` +
          `<p>${APP_NAME} will be able to:</p><ul><li>read your products and their images</li><li>read how many orders each product has (no customer details)</li><li>create discount codes</li></ul>` +
          `<form method="post">${carried(request, reply, returnTo, state)}<button type="submit">Install app</button></form>`,
      );
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
        return send(reply, 'Install first', `<h1>Install ${APP_NAME} first</h1><p><a href="/sandbox/stores/${encodeURIComponent(domain)}/install${query ? `?${escapeHtml(query)}` : ''}">Install the app</a>, then approve its plan.</p>`, 409);
      }
      if (store.planApprovedAt) return send(reply, 'Plan approved', doneBody('The plan is approved', returnTo, domain) + confirmForm(request, reply, domain, returnTo, state));
      return send(
        reply,
        'Approve plan',
        `<h1>Approve the ${APP_NAME} plan</h1>` +
          `<dl class="plan"><dt>Monthly fee</dt><dd>None</dd><dt>Usage charge</dt><dd>A small share of the first order of each new customer a partner brand refers</dd></dl>` +
          `<form method="post">${carried(request, reply, returnTo, state)}<button type="submit">Approve plan</button></form>`,
      );
    });

    app.post<{ Params: { domain: string } }>('/sandbox/stores/:domain/plan', { schema: { hide: true } }, async (request, reply) =>
      ownerAction(request, reply, async (domain) => {
        const store = await adapter.findStore(domain);
        if (store?.appStatus !== 'installed') {
          return send(reply, 'Install first', `<h1>Install ${APP_NAME} first</h1><p>The plan can only be approved once the app is installed.</p>`, 409);
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
      if (!state) return send(reply, 'Damaged link', '<h1>This link is damaged</h1><p>Open it again from the plugin.</p>', 400);
      const signIn = await gate.signInFirst(request, domain);
      if (signIn) return reply.redirect(signIn, 303);
      const store = await adapter.store(domain);
      return send(
        reply,
        `Confirm ${APP_NAME}`,
        `<h1>Let the ${APP_NAME} plugin act for ${escapeHtml(store.businessName)}?</h1>` +
          `<p>You opened this page from the ${APP_NAME} plugin. Confirming lets the plugin in the window where you opened it turn cross-promotion on or off for ${escapeHtml(domain)} during the next hour. ` +
          `Confirm only if you opened it yourself, just now.</p>` +
          `<form method="post">${carried(request, reply, null, state)}<button type="submit">Confirm</button></form>`,
      );
    });

    app.post<{ Params: { domain: string } }>('/sandbox/stores/:domain/confirm', { schema: { hide: true } }, async (request, reply) =>
      ownerAction(request, reply, async (domain) => {
        if (!linkState(formField(request.body, 'state'))) return send(reply, 'Damaged link', '<h1>This link is damaged</h1><p>Open it again from the plugin.</p>', 400);
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

    app.get<{ Params: { domain: string; file: string } }>('/sandbox/images/:domain/:file', { schema: { hide: true } }, async (request, reply) => {
      const match = /^([a-z0-9]{1,20})\.svg$/.exec(request.params.file);
      if (!match) throw apiNotFound('no such image');
      return reply
        .header('Content-Type', 'image/svg+xml')
        .header('Cache-Control', 'public, max-age=86400')
        .header('Cross-Origin-Resource-Policy', 'cross-origin')
        .header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'")
        .send(placeholderSvg(`${request.params.domain}/${match[1]}`, match[1] === 'logo' ? request.params.domain.replace(/^(new|noimages|slow|promo)-/, '').replace(/[.-]/g, ' ') : match[1]!));
    });
  };
}
