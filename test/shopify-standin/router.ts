import { handleAdminGraphql } from './admin-api.js';
import { answerCharge, verifyConfirmationSignature } from './billing.js';
import { BULK_RESULTS_HOST, type StandInCore } from './core.js';
import type { ShopRecord } from './model.js';
import type { OAuthEndpoints } from './oauth.js';
import { chargePage, errorPage } from './pages.js';
import { SITE_HOSTS, type ShopifySites } from './sites.js';
import { decimal } from './views.js';

/**
 * Every request the stand-in answers, as a WHATWG Request: `https://{name}.myshopify.com/...` for
 * the shop's admin (OAuth, the Admin API, charge confirmation), the bulk results host, and
 * Shopify's own sites (sites.ts: the admin at admin.shopify.com, sign-in, App Store, CDN).
 */
export const SHOP_HOST_PATTERN = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/;

export function isStandInHost(host: string): boolean {
  return SHOP_HOST_PATTERN.test(host) || host === BULK_RESULTS_HOST || SITE_HOSTS.has(host);
}

const html = (status: number, body: string) => new Response(body, { status, headers: { 'content-type': 'text/html; charset=utf-8' } });
const notFound = () => html(404, errorPage('Page not found', 'The page you were looking for does not exist.'));

const CHARGE_PATH = /^\/admin\/charges\/(\d+)\/(\d+)\/RecurringApplicationCharge\/confirm_recurring_application_charge$/;

async function chargeConfirmation(
  core: StandInCore,
  shop: ShopRecord,
  request: Request,
  url: URL,
  subscriptionId: number,
): Promise<Response> {
  const subscription = shop.subscriptions.find((candidate) => candidate.id === subscriptionId);
  const form = request.method === 'POST' ? new URLSearchParams(await request.text()) : null;
  const signature = form?.get('signature') ?? url.searchParams.get('signature');
  if (!subscription || !shop.installation.installed || !verifyConfirmationSignature(core, subscriptionId, signature)) return notFound();
  if (subscription.status !== 'PENDING') {
    return html(
      410,
      errorPage(
        'Subscription already answered',
        `This subscription is ${subscription.status.toLowerCase()}; it can no longer be approved.`,
      ),
    );
  }
  if (!form) {
    const lines = subscription.lineItems.map((item) =>
      item.pricing.kind === 'usage'
        ? `Usage charges: ${item.pricing.terms} (up to ${decimal(item.pricing.cappedAmountCents)} ${item.pricing.currency} every 30 days)`
        : `${decimal(item.pricing.priceCents)} ${item.pricing.currency} ` +
          (item.pricing.interval === 'ANNUAL' ? 'every year' : 'every 30 days'),
    );
    return html(
      200,
      chargePage({
        appTitle: core.app.title,
        shop: shop.domain,
        name: subscription.name,
        lines,
        test: subscription.test,
        signature: signature!,
      }),
    );
  }
  const decision = form.get('decision');
  if (decision !== 'approve' && decision !== 'decline')
    return html(400, errorPage('Choose an answer', 'Approve or decline the subscription.'));
  const location = await answerCharge(core, shop, subscription, decision === 'approve');
  return new Response(null, { status: 302, headers: { location } });
}

export async function route(core: StandInCore, oauth: OAuthEndpoints, sites: ShopifySites, request: Request): Promise<Response> {
  const url = new URL(request.url);
  if (SITE_HOSTS.has(url.hostname)) return sites.handle(request);
  if (url.hostname === BULK_RESULTS_HOST) {
    const match = /^\/([a-z0-9-]+)\/(\d+)\.jsonl$/.exec(url.pathname);
    const shop = match ? core.shops.get(`${match[1]}.myshopify.com`) : undefined;
    const operation = shop?.bulkOperations.find((candidate) => candidate.id === Number(match![2]));
    if (request.method !== 'GET' || !operation?.jsonl) return new Response('Not Found', { status: 404 });
    return new Response(operation.jsonl, { status: 200, headers: { 'content-type': 'application/jsonl' } });
  }
  const shop = core.shops.get(url.hostname);
  if (!shop) return html(404, errorPage('Store unavailable', 'Sorry, this shop is currently unavailable.'));
  const path = url.pathname;
  if (path === '/admin/oauth/authorize' && request.method === 'GET') return oauth.authorize(shop, url);
  if (path === '/admin/oauth/grant' && request.method === 'POST') return oauth.grant(shop, request);
  if (path === '/admin/oauth/access_token' && request.method === 'POST') return oauth.accessToken(shop, request);
  const graphql = /^\/admin\/api\/([^/]+)\/graphql\.json$/.exec(path);
  if (graphql) return handleAdminGraphql(core, shop, graphql[1]!, request);
  const charge = CHARGE_PATH.exec(path);
  if (charge && Number(charge[1]) === core.app.id && (request.method === 'GET' || request.method === 'POST')) {
    return chargeConfirmation(core, shop, request, url, Number(charge[2]));
  }
  return notFound();
}
