import fp from 'fastify-plugin';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import { formField } from '../accounts/schemas.js';
import { looksLikeEmail } from '../accounts/users.js';
import { escapeHtml } from '../plugin/html.js';
import { requireOwnOrigin } from '../plugin/origin.js';
import { storeDomain } from '../plugin/store-domain.js';
import { bundles } from '../plugin/bundles.js';
import type { CommerceAdapter } from './adapter.js';
import * as dal from './dal.js';
import { APP_NAME, money, noSuchStoreBody, sendSandboxPage, type SandboxPage } from './pages.js';
import { MAX_ORDER_QUANTITY, SandboxCommerce, type OrderDelivery } from './sandbox.js';
import { ownerSignedIn, setOwnerCookie, signInOwner, storePath } from './sandbox-owners.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The commerce platform adapter the dashboard, the accounts and onboarding use. */
    commerce: CommerceAdapter;
    /** The same adapter as the sandbox it is on this service, for the sandbox platform's own pages. */
    sandboxCommerce: SandboxCommerce;
  }
}

const CLAIM_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const REFERRAL_TOKEN = /^[A-Za-z0-9_-]{1,64}$/;

/** After signing in, only a page of the same store is followed: never another site or store. */
function safeNext(domain: string, value: string | undefined): string {
  const base = storePath(domain);
  return value !== undefined && value.startsWith(`${base}/`) && /^[A-Za-z0-9/%._-]*$/.test(value) ? value : base;
}

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
 * The commerce platform adapter for the rest of the service (`app.commerce`), and the sandbox
 * platform's pages for it: the store owner's sign-in, where the owner confirms or declines that
 * a sign-up acts for the store, and the storefront where a shopper orders (with the referral
 * and the discount code a partner's link brought), which the platform delivers to the signed
 * order webhook.
 */
export const commerceRoutes: FastifyPluginAsync = fp(
  async (app) => {
    const { db, config } = app.services;
    const adapter = new SandboxCommerce(db, config.baseUrl, config.plugin.sandboxImportMs, config.orders.webhookSecret);
    app.decorate('commerce', adapter);
    app.decorate('sandboxCommerce', adapter);
    const secure = config.baseUrl.startsWith('https:');

    await app.register(async (scoped) => {
      await scoped.register(cookie);
      await scoped.register(formbody);
      const send = async (reply: FastifyReply, page: SandboxPage) =>
        sendSandboxPage(reply, `/plugin/assets/${(await bundles()).pagesStyle}`, page);
      const noSuchStore = (reply: FastifyReply, raw: string) => send(reply, { title: 'No such store', body: noSuchStoreBody(raw), status: 404 });

      const signInForm = async (domain: string, next: string, problem?: string) => {
        const store = await adapter.store(domain);
        const hasOwner = (await dal.findOwner(db, domain)) !== undefined;
        const heading = hasOwner ? `Sign in to ${store.businessName}` : `Set up the owner sign-in of ${store.businessName}`;
        return {
          title: heading,
          status: problem ? 401 : 200,
          body:
            `<h1>${escapeHtml(heading)}</h1>` +
            (hasOwner
              ? `<p>Sign in as the owner of ${escapeHtml(domain)}.</p>`
              : `<p class="muted">In this sandbox a store is made up the first time it is used, so ${escapeHtml(domain)} has no owner yet: the email and password you choose become its owner sign-in.</p>`) +
            (problem ? `<p role="alert" class="error">${escapeHtml(problem)}</p>` : '') +
            `<form method="post" action="${storePath(domain)}/sign-in">` +
            `<input type="hidden" name="next" value="${escapeHtml(next)}">` +
            `<div class="row"><label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required></div>` +
            `<div class="row"><label for="password">Password</label><input id="password" name="password" type="password" autocomplete="${hasOwner ? 'current-password' : 'new-password'}" required></div>` +
            `<button type="submit">${hasOwner ? 'Sign in' : 'Create owner sign-in'}</button></form>`,
        };
      };

      scoped.get<{ Params: { domain: string }; Querystring: { next?: string } }>(
        '/sandbox/stores/:domain/sign-in',
        { schema: { hide: true } },
        async (request, reply) => {
          const domain = storeDomain(request.params.domain);
          if (!domain) return noSuchStore(reply, request.params.domain);
          return send(reply, await signInForm(domain, safeNext(domain, request.query.next)));
        },
      );

      scoped.post<{ Params: { domain: string } }>('/sandbox/stores/:domain/sign-in', { schema: { hide: true } }, async (request, reply) => {
        requireOwnOrigin(request);
        const domain = storeDomain(request.params.domain);
        if (!domain) return noSuchStore(reply, request.params.domain);
        const next = safeNext(domain, formField(request.body, 'next'));
        await adapter.store(domain);
        const result = await signInOwner(db, domain, formField(request.body, 'email') ?? '', formField(request.body, 'password') ?? '');
        if (result.outcome === 'rejected') return send(reply, await signInForm(domain, next, result.problem));
        setOwnerCookie(reply, domain, result.token, secure);
        return reply.redirect(next, 303);
      });

      const ownershipPage = async (reply: FastifyReply, domain: string, claimId: string) => {
        const request = await dal.findOwnershipRequest(db, domain, claimId);
        if (!request) return send(reply, { title: 'No such request', body: '<h1>No such request</h1><p>Nobody asked to act for this store with this link.</p>', status: 404 });
        const store = await adapter.store(domain);
        const continueLink = `<p><a class="button" href="${escapeHtml(safeReturnTo(request.return_to))}">Continue to ${APP_NAME}</a></p>`;
        if (request.status !== 'pending') {
          return send(reply, {
            title: 'Answered',
            body: `<h1>You ${request.status} this request</h1><p>${escapeHtml(request.requested_by)} ${request.status === 'confirmed' ? 'may now act for' : 'does not act for'} ${escapeHtml(store.businessName)} on ${APP_NAME}.</p>${continueLink}`,
          });
        }
        return send(reply, {
          title: 'Confirm store access',
          body:
            `<h1>Does ${escapeHtml(request.requested_by)} act for ${escapeHtml(store.businessName)}?</h1>` +
            `<p>${escapeHtml(request.requested_by)} signed up on ${APP_NAME} for ${escapeHtml(domain)}. Confirm only if this is you or someone you trust: ` +
            `they will manage the store's partnerships, campaigns, offer and API keys.</p>` +
            `<form method="post" class="row"><button type="submit" name="decision" value="confirm">Confirm</button>` +
            `<button type="submit" name="decision" value="decline" class="secondary">Decline</button></form>`,
        });
      };

      scoped.get<{ Params: { domain: string; claimId: string } }>(
        '/sandbox/stores/:domain/ownership/:claimId',
        { schema: { hide: true } },
        async (request, reply) => {
          const domain = storeDomain(request.params.domain);
          if (!domain || !CLAIM_ID.test(request.params.claimId)) return noSuchStore(reply, request.params.domain);
          if (!(await ownerSignedIn(db, request, domain))) {
            const next = `${storePath(domain)}/ownership/${request.params.claimId}`;
            return reply.redirect(`${storePath(domain)}/sign-in?next=${encodeURIComponent(next)}`, 303);
          }
          return ownershipPage(reply, domain, request.params.claimId);
        },
      );

      scoped.post<{ Params: { domain: string; claimId: string } }>(
        '/sandbox/stores/:domain/ownership/:claimId',
        { schema: { hide: true } },
        async (request, reply) => {
          requireOwnOrigin(request);
          const domain = storeDomain(request.params.domain);
          if (!domain || !CLAIM_ID.test(request.params.claimId)) return noSuchStore(reply, request.params.domain);
          if (!(await ownerSignedIn(db, request, domain))) {
            return send(reply, { title: 'Sign in first', body: `<h1>Sign in first</h1><p>Only the store's owner, signed in, can answer. <a href="${storePath(domain)}/sign-in">Sign in</a>.</p>`, status: 403 });
          }
          const decision = formField(request.body, 'decision');
          if (decision !== 'confirm' && decision !== 'decline') {
            return send(reply, { title: 'Choose', body: '<h1>Choose Confirm or Decline</h1>', status: 400 });
          }
          const answer = decision === 'confirm' ? 'confirmed' : 'declined';
          await dal.answerOwnershipRequest(db, domain, request.params.claimId, answer, new Date());
          const stored = await dal.findOwnershipRequest(db, domain, request.params.claimId);
          if (stored?.status === answer) return reply.redirect(safeReturnTo(stored.return_to), 303);
          return ownershipPage(reply, domain, request.params.claimId);
        },
      );

      // --- the storefront ---

      const storefront = async (domain: string, query: { discount?: string; ref?: string }, problem?: string) => {
        const store = await adapter.store(domain);
        const products = (await adapter.catalog(domain)).filter((product) => product.active);
        const typed = typeof query.discount === 'string' ? query.discount.slice(0, 100) : '';
        const code = typed ? await dal.findDiscountCode(db, domain, typed) : undefined;
        const ref = typeof query.ref === 'string' && REFERRAL_TOKEN.test(query.ref) ? query.ref : '';
        const cards = products
          .map(
            (product) =>
              `<tr><td>${product.imageUrl ? `<img src="${escapeHtml(product.imageUrl)}" alt="" width="48" height="48">` : ''}</td>` +
              `<td>${escapeHtml(product.title)}</td><td>${money(product.priceCents)}</td></tr>`,
          )
          .join('');
        const options = products.map((product) => `<option value="${escapeHtml(product.id)}">${escapeHtml(product.title)} (${money(product.priceCents)})</option>`).join('');
        return {
          title: store.businessName,
          area: `${store.businessName} storefront (sandbox)`,
          status: problem ? 400 : 200,
          body:
            `<h1>${escapeHtml(store.businessName)}</h1><p class="muted">${escapeHtml(store.tagline ?? '')}</p>` +
            (code ? `<p role="status">Your code <code>${escapeHtml(code.code)}</code> takes ${code.percent}% off this order.</p>` : '') +
            (problem ? `<p role="alert" class="error">${escapeHtml(problem)}</p>` : '') +
            `<table><caption class="muted">Products</caption><thead><tr><th>Image</th><th>Product</th><th>Price</th></tr></thead><tbody>${cards}</tbody></table>` +
            `<h2>Checkout</h2><form method="post" action="/sandbox/shop/${encodeURIComponent(domain)}/checkout">` +
            `<input type="hidden" name="ref" value="${escapeHtml(ref)}">` +
            `<div class="row"><label for="product">Product</label><select id="product" name="productId">${options}</select></div>` +
            `<div class="row"><label for="quantity">Quantity</label><input id="quantity" name="quantity" type="number" min="1" max="${MAX_ORDER_QUANTITY}" value="1" required></div>` +
            `<div class="row"><label for="email">Your email</label><input id="email" name="email" type="email" autocomplete="email" required></div>` +
            `<div class="row"><label for="discount">Discount code</label><input id="discount" name="discount" value="${escapeHtml(code?.code ?? typed)}"></div>` +
            `<button type="submit">Place order</button></form>`,
        };
      };

      scoped.get<{ Params: { domain: string }; Querystring: { discount?: string; ref?: string } }>(
        '/sandbox/shop/:domain',
        { schema: { hide: true } },
        async (request, reply) => {
          const domain = storeDomain(request.params.domain);
          if (!domain) return noSuchStore(reply, request.params.domain);
          return send(reply, await storefront(domain, request.query));
        },
      );

      scoped.post<{ Params: { domain: string } }>('/sandbox/shop/:domain/checkout', { schema: { hide: true } }, async (request, reply) => {
        requireOwnOrigin(request);
        const domain = storeDomain(request.params.domain);
        if (!domain) return noSuchStore(reply, request.params.domain);
        const field = (name: string) => (formField(request.body, name) ?? '').trim();
        const email = field('email').toLowerCase();
        const ref = field('ref');
        const again = async (problem: string) => send(reply, await storefront(domain, { discount: field('discount'), ref }, problem));
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
        if (result.outcome === 'refused') return again(result.reason);
        return send(reply, {
          title: 'Thank you',
          area: 'storefront (sandbox)',
          status: 201,
          body:
            `<h1>Thank you for your order</h1>` +
            `<dl class="plan"><dt>Order</dt><dd>${escapeHtml(result.orderId)}</dd><dt>Total</dt><dd>${money(result.totalCents)}</dd>` +
            (result.discountPercent ? `<dt>Discount</dt><dd>${result.discountPercent}% off</dd>` : '') +
            `<dt>Sandbox delivery</dt><dd data-testid="delivery">${escapeHtml(deliveryText(result.delivery))}</dd></dl>` +
            `<p><a href="/sandbox/shop/${encodeURIComponent(domain)}">Back to the store</a></p>`,
        });
      });
    });
  },
  { name: 'commerce' },
);
