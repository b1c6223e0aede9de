import { readFileSync } from 'node:fs';
import Fastify, { type FastifyInstance } from 'fastify';
import { browserAssets, ASSETS_PATH } from '../http/assets.js';
import { policyHeader } from '../http/csp.js';
import { ICON_PATH, renderPage } from '../http/page.js';
import { DEMO_FIXTURE_PATH } from '../demo/startup.js';
import { readFixtureFile } from '../demo/loader.js';
import { parseDomain } from '../shared/domain.js';
import { demoPage, orderPage, type OfferCard } from './demo-page.js';
import { LOADER_VERSION } from './loader-files.js';
import { isPlatformId, storeDomain } from './store-domain.js';
import { findPlatformIdByName, findPluginPlatform } from './dal.js';
import type { Infrastructure } from '../composition.js';
import type { DataContext } from '../service-context.js';
import { getPlatform, updatePlatform } from '../platforms/service.js';

/**
 * A pretend tech platform ("Checkout Co") on a second origin, embedding the plugin exactly as an
 * integrator would: the published loader with its integrity hash, a Content-Security-Policy that
 * adds the service's origin to script-src, frame-src and child-src (SPEC 4.7) and nothing else,
 * page and drawer mode, and an event log.
 */
export interface DemoHostOptions {
  /** The service's public base URL, where the loader is published. */
  serviceUrl: string;
  /** The demo platform's id, looked up per request so fixtures loaded later are picked up. */
  platformId: () => Promise<string | undefined>;
  /** The plugin page address support holds for a platform (the return flow comes back to it). */
  pluginPageUrl?: (platformId: string) => Promise<string | null | undefined>;
  /**
   * The brand whose order page the platform shows, with the API key it gave the platform: its
   * shoppers see its partners' offers there (GET /v1/campaigns/offers). None: the page says so.
   */
  showcase?: () => Promise<{ brandName: string; apiKey: string } | undefined>;
  /** Whether referral links lead to the sandbox's storefronts (SANDBOX_STOREFRONTS), for the order page's note. */
  sandboxStorefronts?: boolean;
}

/**
 * The signed-in merchant and the mode they last used, as a real platform keeps them in its
 * session: the return flow comes back to the bare plugin page address and finds them here.
 */
const MERCHANT_COOKIE = 'checkout_co_merchant';

function rememberedMerchant(cookieHeader: string | undefined): { domain?: string; mode?: string } {
  const raw = cookieHeader
    ?.split(';')
    .map((part) => part.trim())
    .find((part) => part.startsWith(`${MERCHANT_COOKIE}=`))
    ?.slice(MERCHANT_COOKIE.length + 1);
  if (!raw) return {};
  try {
    const value = JSON.parse(decodeURIComponent(raw)) as { domain?: unknown; mode?: unknown };
    return { domain: storeDomain(value.domain) ?? undefined, mode: typeof value.mode === 'string' ? value.mode : undefined };
  } catch {
    return {};
  }
}

/** The pretend platform's own icon: its pages link /favicon.svg (the one page shell) on its own origin. */
const PLATFORM_ICON = readFileSync(new URL('../../web/pages/checkout-co.svg', import.meta.url));

const PRESETS: Array<{ domain: string; what: string }> = [
  { domain: 'cozy-candles.example', what: 'a new merchant: walk install → plan → setup → consent → live' },
  { domain: 'slow-roasters.example', what: 'setup runs long: the delayed stage, from SETUP_DELAYED_AFTER_SECONDS (2 min by default)' },
  { domain: 'promo-outfitters.example', what: 'the store already gives new customers 15%' },
  { domain: 'new-bakery.example', what: 'too few orders: not eligible yet' },
  { domain: 'noimages-goods.example', what: 'no product images: not eligible yet' },
];

/** The platform's own strict policy, plus the service's origin where SPEC 4.7 asks for it. */
function demoPolicy(serviceOrigin: string) {
  return {
    'default-src': ["'self'"],
    'script-src': ["'self'", serviceOrigin],
    'frame-src': ["'self'", serviceOrigin],
    'child-src': ["'self'", serviceOrigin],
    'style-src': ["'self'"],
    // The offers' pictures, from wherever the brands host them (the demo data's from the service).
    'img-src': ["'self'", 'data:', 'https:', serviceOrigin],
    'connect-src': ["'self'"],
    'base-uri': ["'none'"],
    'form-action': ["'self'"],
    'object-src': ["'none'"],
  };
}

export function demoHost(options: DemoHostOptions): FastifyInstance {
  const app = Fastify({ logger: false });
  const serviceOrigin = new URL(options.serviceUrl).origin;
  const loaderUrl = `${options.serviceUrl}/plugin/v${LOADER_VERSION}/loader.js`;
  let integrity: Promise<string> | undefined;
  // Fetched over HTTP as an integrator would copy it: the published hash is what the page trusts.
  const publishedIntegrity = () => {
    integrity ??= fetch(`${loaderUrl}.sri`)
      .then(async (response) => {
        if (!response.ok) throw new Error(`loader hash: HTTP ${response.status}`);
        return (await response.text()).trim();
      })
      .catch((error) => {
        integrity = undefined;
        throw error;
      });
    return integrity;
  };

  app.get<{ Querystring: { domain?: string; mode?: string; platformId?: string } }>('/', async (request, reply) => {
    const assets = await browserAssets();
    // Another platform's id can be tried by hand (?platformId=…); by default the demo platform's.
    const platformId = (isPlatformId(request.query.platformId) ? request.query.platformId : undefined) ?? (await options.platformId());
    // The same server under another name (localhost for 127.0.0.1): on to the plugin page's own
    // origin first, so the return flow comes back to the origin the merchant started on.
    const pageUrl = platformId ? await options.pluginPageUrl?.(platformId) : undefined;
    if (pageUrl) {
      const canonical = new URL(pageUrl);
      const here = new URL(`http://${request.headers.host ?? ''}`);
      if (canonical.host !== here.host && canonical.port === here.port) return reply.redirect(`${canonical.origin}${request.url}`, 307);
    }
    const remembered = rememberedMerchant(request.headers.cookie);
    const typed = request.query.domain;
    const refusal = typed !== undefined && !storeDomain(typed) ? { typed: typed.slice(0, 200), reason: whyNotAStore(typed) } : undefined;
    const domain = storeDomain(typed ?? '') ?? remembered.domain ?? PRESETS[0]!.domain;
    const mode = (request.query.mode ?? remembered.mode) === 'drawer' ? 'drawer' : 'page';
    const page = demoPage({
      platformId,
      pickedPlatform: Boolean(request.query.platformId),
      domain,
      ...(refusal ? { refusal } : {}),
      mode,
      presets: PRESETS,
      serviceUrl: options.serviceUrl,
      loader: platformId ? { url: loaderUrl, integrity: await publishedIntegrity() } : undefined,
      assets: { script: assets.url.demoScript, style: assets.url.demoStyle },
    });
    return reply
      .status(refusal ? 400 : 200)
      .header('Content-Type', 'text/html; charset=utf-8')
      .header('Cache-Control', 'no-store')
      .header('Set-Cookie', `${MERCHANT_COOKIE}=${encodeURIComponent(JSON.stringify({ domain, mode }))}; Path=/; HttpOnly; SameSite=Lax`)
      .header('Content-Security-Policy', policyHeader(demoPolicy(serviceOrigin)))
      .send(renderPage(page));
  });

  // The platform's order confirmation page, where it shows the brand's partners' offers to its shopper.
  app.get('/order-confirmation', async (_request, reply) => {
    const assets = await browserAssets();
    const platformId = await options.platformId();
    const showcase = await options.showcase?.();
    const offers = platformId && showcase ? await partnerOffers(options.serviceUrl, platformId, showcase.apiKey) : undefined;
    const page = orderPage({
      brandName: showcase?.brandName,
      offers,
      sandboxStorefronts: options.sandboxStorefronts ?? false,
      assets: { style: assets.url.demoStyle },
    });
    return reply
      .header('Content-Type', 'text/html; charset=utf-8')
      .header('Cache-Control', 'no-store')
      .header('Content-Security-Policy', policyHeader(demoPolicy(serviceOrigin)))
      .send(renderPage(page));
  });

  // The platform's own files, from the service's asset pipeline, on the platform's origin.
  app.get<{ Params: { name: string } }>(`${ASSETS_PATH}:name`, async (request, reply) => {
    const { url, files } = await browserAssets();
    const own = [url.demoScript, url.demoStyle].includes(`${ASSETS_PATH}${request.params.name}`);
    const found = own ? files.get(request.params.name) : undefined;
    if (!found) return reply.status(404).send('not found');
    return reply.header('Content-Type', found.contentType).header('Cache-Control', 'public, max-age=31536000, immutable').send(found.body);
  });

  for (const path of [ICON_PATH, '/favicon.ico']) {
    app.get(path, async (_request, reply) =>
      reply.type('image/svg+xml').header('Cache-Control', 'public, max-age=86400').send(PLATFORM_ICON),
    );
  }

  return app;
}

/** Why a typed store domain was refused, in the words of the domain rule (SPEC 4.2). */
function whyNotAStore(typed: string): string {
  if (typed.trim() === '') return 'it is empty';
  const { problem } = parseDomain(typed);
  return problem ? `it ${problem}` : 'it has no dot: a store domain looks like shop.example';
}

const OFFERS_TIMEOUT_MS = 5_000;

/** The offers the service gives the platform for the brand's shopper: what an integrator's server asks for. */
async function partnerOffers(serviceUrl: string, platformId: string, apiKey: string): Promise<OfferCard[] | string> {
  try {
    const response = await fetch(`${serviceUrl}/v1/campaigns/offers?type=post-purchase`, {
      headers: { 'X-Api-Key': apiKey, 'X-Platform-Id': platformId },
      signal: AbortSignal.timeout(OFFERS_TIMEOUT_MS),
    });
    if (!response.ok) return `the service answered HTTP ${response.status}`;
    return ((await response.json()) as { offers: OfferCard[] }).offers;
  } catch (error) {
    return `the service could not be reached (${error instanceof Error ? error.message : String(error)})`;
  }
}

export const DEMO_PLATFORM_NAME = 'Checkout Co';

/** The plugin demo could not bind its port; the message names DEMO_PORT. */
export class DemoListenError extends Error {}

/**
 * The origins the demo platform's page is served from: the service's host name at DEMO_PORT (the
 * banner's link), and the loopback names a browser may use for it.
 */
export function demoOrigins(baseUrl: string, demoPort: number): { display: string; all: string[] } {
  const display = new URL(baseUrl);
  display.port = String(demoPort);
  const all = new Set([display.origin, `http://localhost:${demoPort}`, `http://127.0.0.1:${demoPort}`]);
  return { display: display.origin, all: [...all] };
}

/**
 * On test and dev hosts the demo platform approves the origins its page is actually served from,
 * whatever PORT and DEMO_PORT say (the demo data names the default ports), and its plugin page
 * (where the return flow comes back) is on the served port.
 */
export async function approveServedOrigins(ctx: DataContext, served: { display: string; all: string[] }): Promise<void> {
  const platformId = await findPlatformIdByName(ctx.db, DEMO_PLATFORM_NAME);
  if (!platformId) return;
  const platform = await getPlatform(ctx, platformId);
  const approvedOrigins = [...new Set([...platform.approvedOrigins, ...served.all])];
  const pageOrigin = platform.pluginPageUrl ? new URL(platform.pluginPageUrl).origin : null;
  const pluginPageUrl = pageOrigin && served.all.includes(pageOrigin) ? platform.pluginPageUrl : `${served.display}/`;
  if (approvedOrigins.length === platform.approvedOrigins.length && pluginPageUrl === platform.pluginPageUrl) return;
  await updatePlatform(ctx, platformId, { approvedOrigins, pluginPageUrl });
}

/**
 * Starts the demo host page beside the service (npm start), on config.plugin.demoPort of the
 * same host; port 0 leaves it off, and so does a prod host (no demo data, no sandbox stores to
 * walk). Returns the banner line and how to stop it.
 */
export async function startDemoHost({
  config,
  db,
  bus,
}: Pick<Infrastructure, 'config' | 'db' | 'bus'>): Promise<{ banner: string[]; close: () => Promise<void> }> {
  if (config.plugin.demoPort === 0 || config.serviceEnv === 'prod') return { banner: [], close: async () => {} };
  const demoBrand = (await readFixtureFile(DEMO_FIXTURE_PATH)).brands?.[0];
  const apiKey = demoBrand?.apiKeys?.[0];
  const host = demoHost({
    serviceUrl: config.baseUrl,
    platformId: () => findPlatformIdByName(db, DEMO_PLATFORM_NAME),
    pluginPageUrl: async (platformId) => (await findPluginPlatform(db, platformId))?.pluginPageUrl,
    showcase: async () => (demoBrand && apiKey ? { brandName: demoBrand.businessName, apiKey } : undefined),
    sandboxStorefronts: config.sandboxStorefronts,
  });
  try {
    await host.listen({ port: config.plugin.demoPort, host: config.host });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new DemoListenError(
      `cannot listen on HOST=${config.host} DEMO_PORT=${config.plugin.demoPort} (${reason}). ` +
        'Check DEMO_PORT (0 turns the plugin demo off).',
    );
  }
  const served = demoOrigins(config.baseUrl, config.plugin.demoPort);
  await approveServedOrigins({ db, bus }, served);
  const url = served.display;
  return {
    banner: [
      `  Plugin demo:     ${url}/  (a pretend tech platform embedding ${config.baseUrl}/plugin/v${LOADER_VERSION}/loader.js; ` +
        `sandbox stores at ${config.baseUrl}/sandbox)`,
      `  Offers demo:     ${url}/order-confirmation  (the partner offers the demo platform shows a shopper after checkout)`,
    ],
    close: () => host.close(),
  };
}
