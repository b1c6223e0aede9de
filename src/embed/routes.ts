import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { badRequest, forbidden, notFound } from '../http/errors.js';
import { publishedLoaders } from './loader-files.js';
import { decideEmbedPage } from './embed-access.js';
import { exchangeSecret, newMerchantProof, requireMerchantToken } from './merchant-tokens.js';
import { ConsentBody, EmbedPageQuery, MerchantToken, StateBody, StoreBody, StoreQuery, TokenBody } from './schemas.js';
import { isPlatformId, storeDomain } from './store-domain.js';
import { hintedAncestors, refererOrigin, requireOwnOrigin } from '../http/origin.js';
import { embedPage, legalPage, returnedPage } from './pages.js';
import { StageChanges } from './stage-changes.js';
import { browserAssets } from '../http/assets.js';
import { ANY_IMAGE, pagePolicy, SELF } from '../http/csp.js';
import { sendPage } from '../http/page.js';
import { LOADABLE_ANYWHERE, securePages } from '../http/security-headers.js';
// The plugin's pages and calls are for the embed app on the service's own origin: NO_CORS, so no
// other site's script can read them (the published loader files are CROSS_ORIGIN: any page loads them).
import { CROSS_ORIGIN, NO_CORS } from '../http/cors.js';
import type { Runtime } from '../composition.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';
const errorRef = Type.Ref('ErrorResponse');
/**
 * The embed app's own calls: answered only to the service's own pages (requireOwnOrigin), so no
 * integrator can make them and the public API reference leaves them out (SPEC 4.7: the plugin
 * needs no server code).
 */
const EMBED_APP_CALL = { tags: ['plugin'], hide: true };
function checkedStore(platformId: string, domain: string): { platformId: string; domain: string } {
  if (!isPlatformId(platformId)) throw badRequest('platformId must be a UUID');
  const normalized = storeDomain(domain);
  if (!normalized) throw badRequest('domain must be a store domain such as shop.example');
  return { platformId: platformId.trim().toLowerCase(), domain: normalized };
}

function sendLoaderFile(reply: FastifyReply, body: Buffer, contentType: string) {
  return reply.header('Content-Type', contentType).header('Cache-Control', IMMUTABLE).send(body);
}

/** The embed app: its own script, store images from anywhere, calls to the service; framed by whom the decision names. */
const embedPolicy = (frameAncestors: string[]) =>
  pagePolicy({ 'script-src': SELF, 'img-src': ANY_IMAGE, 'connect-src': SELF, 'frame-ancestors': frameAncestors });

/** The loader, the embed app and its API. */
export const pluginRoutes: FastifyPluginAsync<Runtime> = async (plain, runtime) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, onboarding } = runtime;
  await securePages(app, config.baseUrl);

  // Each published version's committed bytes, read once: never rebuilt, so never changed. Any site loads them.
  const loaderFile = { config: { ...CROSS_ORIGIN, helmet: LOADABLE_ANYWHERE }, schema: { hide: true } };
  for (const published of await publishedLoaders()) {
    const base = `/plugin/v${published.version}`;
    app.get(`${base}/loader.js`, loaderFile, async (_request, reply) =>
      sendLoaderFile(reply, published.loader.body, published.loader.contentType),
    );
    app.get(`${base}/loader.js.sri`, loaderFile, async (_request, reply) =>
      sendLoaderFile(reply, Buffer.from(published.integrity), 'text/plain; charset=utf-8'),
    );
    app.get(`${base}/index.d.ts`, loaderFile, async (_request, reply) =>
      sendLoaderFile(reply, published.declarations.body, published.declarations.contentType),
    );
  }

  app.get(
    '/plugin/v2/embed',
    // Framed by other sites: frame-ancestors decides who, so no X-Frame-Options, and a host page that
    // requires CORP of what it embeds may load it.
    { config: { ...NO_CORS, helmet: { xFrameOptions: false, ...LOADABLE_ANYWHERE } }, schema: { hide: true, querystring: EmbedPageQuery } },
    async (request, reply) => {
      const assets = await browserAssets();
      const platformId = isPlatformId(request.query.platformId) ? request.query.platformId.trim().toLowerCase() : undefined;
      const given = storeDomain(request.query.domain);
      if (!platformId || !given) throw badRequest('platformId (a UUID) and domain (a store domain) are required');
      const domain = await onboarding.storeOf(given);
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
          onError: (error, what) =>
            request.log.error({ err: error }, `${what} failed; the embed page says the service could not be reached`),
        },
      );
      // The app's own calls carry its address (same origin only, the scope's Referrer-Policy); other sites get nothing.
      reply.header('Vary', 'Referer, Sec-Fetch-Dest');
      return sendPage(reply, embedPage(boot, assets), { policy: embedPolicy(frameAncestors) });
    },
  );

  const storeState = async (platformId: string, domain: string) => {
    const checked = checkedStore(platformId, domain);
    const store = { ...checked, domain: await onboarding.storeOf(checked.domain) };
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
      if (request.method === 'OPTIONS') throw forbidden("the plugin's calls are only accepted from the service's own pages");
      throw notFound(`no plugin page or call ${request.method} ${request.url.split('?')[0]}`);
    },
  });

  const stageChanges = new StageChanges();
  app.post(
    '/plugin/v2/state',
    {
      // Polled every few seconds while a store is set up: a line when the answer changes, not per poll.
      config: { ...NO_CORS, quietRequestLog: true },
      schema: {
        summary: "A store's onboarding stage, or the message shown instead (for the embed app only: same origin)",
        ...EMBED_APP_CALL,
        body: StateBody,
        response: { 400: errorRef, 403: errorRef },
      },
    },
    async (request, reply) => {
      requireOwnOrigin(request);
      const { store, platform } = await storeState(request.body.platformId, request.body.domain);
      reply.header('Cache-Control', 'no-store');
      const state = await onboarding.state(platform, store.domain, request.body.challenge ?? null);
      const changed = stageChanges.changed(store.platformId, store.domain, state);
      if (changed)
        request.log.info(
          { platformId: store.platformId, domain: store.domain, stage: changed },
          `plugin: ${store.domain} is at ${changed}`,
        );
      return state;
    },
  );

  app.post(
    '/plugin/v2/token',
    {
      config: NO_CORS,
      schema: {
        summary: "Trade the embed app page's secret for a store-bound token, once the store's owner confirmed at the commerce platform",
        ...EMBED_APP_CALL,
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
        ...EMBED_APP_CALL,
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
        ...EMBED_APP_CALL,
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

  app.post(
    '/plugin/v2/billing',
    {
      schema: {
        summary:
          "The store's billing: a higher capped amount its commerce platform waits to have approved, with the commissions " +
          "held until then and the platform's page to approve it (needs the store token)",
        ...EMBED_APP_CALL,
        body: StoreBody,
        response: { 400: errorRef, 401: errorRef, 403: errorRef },
      },
      // Polled with the state while the merchant is away at the commerce platform: a line per failure, not per poll.
      config: { ...NO_CORS, quietRequestLog: true },
    },
    async (request, reply) => {
      requireOwnOrigin(request);
      const { store } = await storeState(request.body.platformId, request.body.domain);
      // Money and the approval link are the merchant's: the Origin header any script sets proves nothing (docs/security.md).
      await requireMerchantToken(db, request, store);
      reply.header('Cache-Control', 'no-store');
      return onboarding.billing(store.domain);
    },
  );

  // Back from the commerce platform in the same tab: on to the page where the plugin lives.
  app.get('/plugin/v2/return', { config: NO_CORS, schema: { hide: true, querystring: StoreQuery } }, async (request, reply) => {
    const assets = await browserAssets();
    const { store, platform } = await storeState(request.query.platformId, request.query.domain);
    if (platform?.pluginPageUrl && (await onboarding.returnFlowHolds(platform, store.domain))) {
      const target = new URL(platform.pluginPageUrl);
      target.searchParams.set('svc_connect', 'return');
      return reply.redirect(target.toString(), 303);
    }
    return sendPage(reply, returnedPage(assets));
  });

  app.get<{ Params: { page: string } }>('/plugin/legal/:page', { schema: { hide: true } }, async (request, reply) => {
    const page = legalPage(request.params.page, await browserAssets());
    if (!page) throw notFound(`no page ${request.params.page}`);
    return sendPage(reply, page);
  });
};
