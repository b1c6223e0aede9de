import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { badRequest, forbidden, notFound } from '../http/errors.js';
import { bundles, publishedLoaders } from './bundles.js';
import { decideEmbedPage } from './embed-access.js';
import { htmlPage, inlineJson, PAGE_CSP } from './html.js';
import { Onboarding, returnFlowHolds } from './onboarding.js';
import { exchangeSecret, newMerchantProof, requireMerchantToken } from './merchant-tokens.js';
import { ConsentBody, EmbedPageQuery, MerchantToken, StateBody, StoreBody, StoreQuery, TokenBody } from './schemas.js';
import { isPlatformId, storeDomain } from './store-domain.js';
import { hintedAncestors, refererOrigin, requireOwnOrigin } from './origin.js';
import { legalPage, returnedPage } from './pages.js';
// The plugin's pages and calls are for the embed app on the service's own origin: NO_CORS, so no
// other site's script can read them (the published loader files are CROSS_ORIGIN: any page loads them).
import { CROSS_ORIGIN, NO_CORS } from '../http/cors.js';
import type { Runtime } from '../composition.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';
const errorRef = Type.Ref('ErrorResponse');
function checkedStore(platformId: string, domain: string): { platformId: string; domain: string } {
  if (!isPlatformId(platformId)) throw badRequest('platformId must be a UUID');
  const normalized = storeDomain(domain);
  if (!normalized) throw badRequest('domain must be a store domain such as shop.example');
  return { platformId: platformId.trim().toLowerCase(), domain: normalized };
}

function sendAsset(reply: FastifyReply, body: Buffer, contentType: string, cache: string) {
  return reply
    .header('Content-Type', contentType)
    .header('Cache-Control', cache)
    .header('Cross-Origin-Resource-Policy', 'cross-origin')
    .header('X-Content-Type-Options', 'nosniff')
    .send(body);
}

/** The loader, the embed app and its API. */
export const pluginRoutes: FastifyPluginAsync<Runtime> = async (plain, runtime) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { db, bus, config, jobs } = runtime;
  // One adapter per process: its events (install, plan, uninstall, confirmations) must reach this onboarding.
  const adapter = runtime.commerce.primary;
  // An API-only instance leaves setup to the worker process (src/worker.ts); nudges then do nothing.
  const onboarding = new Onboarding({ db, adapter, bus, settings: config.plugin, nudgeWorker: () => jobs.nudgeSetup() });
  adapter?.onEvent((event) => onboarding.handleCommerceEvent(event));

  // Each published version's committed bytes, read once: never rebuilt, so never changed.
  for (const published of await publishedLoaders()) {
    const base = `/plugin/v${published.version}`;
    app.get(`${base}/loader.js`, { config: CROSS_ORIGIN, schema: { hide: true } }, async (_request, reply) =>
      sendAsset(reply, published.loader.body, published.loader.contentType, IMMUTABLE),
    );
    app.get(`${base}/loader.js.sri`, { config: CROSS_ORIGIN, schema: { hide: true } }, async (_request, reply) =>
      sendAsset(reply, Buffer.from(published.integrity), 'text/plain; charset=utf-8', IMMUTABLE),
    );
    app.get(`${base}/index.d.ts`, { config: CROSS_ORIGIN, schema: { hide: true } }, async (_request, reply) =>
      sendAsset(reply, published.declarations.body, published.declarations.contentType, IMMUTABLE),
    );
  }
  app.get<{ Params: { name: string } }>('/plugin/assets/:name', { schema: { hide: true } }, async (request, reply) => {
    const found = (await bundles()).assets.get(request.params.name);
    if (!found) throw notFound(`no asset ${request.params.name}`);
    return sendAsset(reply, found.body, found.contentType, IMMUTABLE);
  });

  app.get(
    '/plugin/v2/embed',
    { config: NO_CORS, schema: { hide: true, querystring: EmbedPageQuery } },
    async (request, reply) => {
      const built = await bundles();
      const platformId = isPlatformId(request.query.platformId) ? request.query.platformId.trim().toLowerCase() : undefined;
      const domain = storeDomain(request.query.domain);
      if (!platformId || !domain) throw badRequest('platformId (a UUID) and domain (a store domain) are required');
      const destination = request.headers['sec-fetch-dest'];
      const { boot, frameAncestors } = await decideEmbedPage(
        {
          platformId,
          domain,
          mode: request.query.mode ?? 'page',
          hostOrigin: refererOrigin(request),
          hintedAncestors: hintedAncestors(request.query.ancestors),
          framed: destination === undefined || destination === 'iframe',
          proof: newMerchantProof(),
        },
        {
          findPlatform: (id) => onboarding.platform(id),
          state: (platform, store, challenge) => onboarding.state(platform, store, challenge),
          recheckMs: config.plugin.recheckMs,
          onError: (error, what) => request.log.error({ err: error }, `${what} failed; the embed page says the service could not be reached`),
        },
      );
      const body =
        `<main id="app" aria-live="polite"></main>` +
        `<script type="application/json" id="embed-boot">${inlineJson(boot)}</script>` +
        `<script src="/plugin/assets/${built.embedScript}"></script>`;
      return reply
        .header('Content-Type', 'text/html; charset=utf-8')
        .header('Cache-Control', 'no-store')
        // The app's own calls carry its address (same origin only); other sites get nothing.
        .header('Referrer-Policy', 'same-origin')
        .header('X-Content-Type-Options', 'nosniff')
        .header('Vary', 'Referer, Sec-Fetch-Dest')
        .header(
          'Content-Security-Policy',
          `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: https: http:; connect-src 'self'; ` +
            `form-action 'self'; base-uri 'none'; frame-ancestors ${frameAncestors}`,
        )
        .send(htmlPage({ title: 'Brand partnerships', stylesheet: `/plugin/assets/${built.embedStyle}`, body, bodyClass: `mode-${boot.mode}` }));
    },
  );

  const storeState = async (platformId: string, domain: string) => {
    const store = checkedStore(platformId, domain);
    const platform = await onboarding.platform(store.platformId);
    return { store, platform };
  };

  // Everything else under /plugin/v2 is answered without CORS too: a cross-site preflight gets no
  // grant (so the browser never sends the call), and a wrong method or path just its error.
  app.route({
    method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    url: '/plugin/v2/*',
    config: NO_CORS,
    schema: { hide: true },
    handler: async (request) => {
      if (request.method === 'OPTIONS') throw forbidden('the plugin\'s calls are only accepted from the service\'s own pages');
      throw notFound(`no plugin page or call ${request.method} ${request.url.split('?')[0]}`);
    },
  });

  app.post(
    '/plugin/v2/state',
    {
      config: NO_CORS,
      schema: {
        summary: "A store's onboarding stage, or the message shown instead (for the embed app only: same origin)",
        tags: ['plugin'],
        body: StateBody,
        response: { 400: errorRef, 403: errorRef },
      },
    },
    async (request, reply) => {
      requireOwnOrigin(request);
      const { store, platform } = await storeState(request.body.platformId, request.body.domain);
      reply.header('Cache-Control', 'no-store');
      return onboarding.state(platform, store.domain, request.body.challenge ?? null);
    },
  );

  app.post(
    '/plugin/v2/token',
    {
      config: NO_CORS,
      schema: {
        summary: "Trade the embed app page's secret for a store-bound token, once the store's owner confirmed at the commerce platform",
        tags: ['plugin'],
        body: TokenBody,
        response: { 200: MerchantToken, 400: errorRef, 401: errorRef, 403: errorRef },
      },
    },
    async (request, reply) => {
      requireOwnOrigin(request);
      const { store } = await storeState(request.body.platformId, request.body.domain);
      reply.header('Cache-Control', 'no-store');
      return exchangeSecret(db, store, request.body.secret);
    },
  );

  app.post(
    '/plugin/v2/consent',
    {
      schema: {
        summary: 'Turn on cross-promotions: accept the terms, create the discount code, show the offer (needs the store token)',
        tags: ['plugin'],
        body: ConsentBody,
        response: { 400: errorRef, 401: errorRef, 403: errorRef, 409: errorRef },
      },
      config: NO_CORS,
    },
    async (request) => {
      requireOwnOrigin(request);
      const { store, platform } = await storeState(request.body.platformId, request.body.domain);
      await requireMerchantToken(db, request, store);
      return onboarding.consent(platform, store.domain, request.body.discountPercent);
    },
  );

  app.post(
    '/plugin/v2/turn-on',
    {
      schema: {
        summary: 'Turn cross-promotion back on after the merchant closed it (needs the store token)',
        tags: ['plugin'],
        body: StoreBody,
        response: { 400: errorRef, 401: errorRef, 403: errorRef, 409: errorRef },
      },
      config: NO_CORS,
    },
    async (request) => {
      requireOwnOrigin(request);
      const { store, platform } = await storeState(request.body.platformId, request.body.domain);
      await requireMerchantToken(db, request, store);
      return onboarding.turnOn(platform, store.domain);
    },
  );

  // Back from the commerce platform in the same tab: on to the page where the plugin lives.
  app.get('/plugin/v2/return', { config: NO_CORS, schema: { hide: true, querystring: StoreQuery } }, async (request, reply) => {
    const built = await bundles();
    const { store, platform } = await storeState(request.query.platformId, request.query.domain);
    if (platform && platform.pluginPageUrl && (await returnFlowHolds(db, platform, store.domain))) {
      const target = new URL(platform.pluginPageUrl);
      target.searchParams.set('svc_connect', 'return');
      return reply.redirect(target.toString(), 303);
    }
    return reply
      .header('Content-Type', 'text/html; charset=utf-8')
      .header('Content-Security-Policy', PAGE_CSP)
      .send(returnedPage(`/plugin/assets/${built.pagesStyle}`));
  });

  app.get<{ Params: { page: string } }>('/plugin/legal/:page', { schema: { hide: true } }, async (request, reply) => {
    const built = await bundles();
    const page = legalPage(request.params.page, `/plugin/assets/${built.pagesStyle}`);
    if (!page) throw notFound(`no page ${request.params.page}`);
    return reply.header('Content-Type', 'text/html; charset=utf-8').header('Content-Security-Policy', PAGE_CSP).send(page);
  });
};
