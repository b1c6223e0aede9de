import crypto from 'node:crypto';
import type { FastifyInstance, FastifyPluginAsync, RouteHandlerMethod } from 'fastify';
import apiReference from '@scalar/fastify-api-reference';
import type { VNode } from 'preact';
import { browserAssets } from './assets.js';
import { pagePolicy, SELF, type PolicyDirectives } from './csp.js';
import { PageShell, sendPage } from './page.js';
import { securePages } from './security-headers.js';

/** Where the rendered API reference lives. */
export const API_REFERENCE_PATH = '/docs';
/** The OpenAPI document the reference renders (src/http/openapi.ts). */
export const OPENAPI_DOCUMENT_PATH = '/v1/openapi.json';
/** The renderer's bundle, served by @scalar/fastify-api-reference from the package. */
const RENDERER_SCRIPT = `${API_REFERENCE_PATH}/js/scalar.js`;
/**
 * The two `<style>` elements the bundle writes without the nonce, allowed by their SHA-256: its
 * toasts' styles and its theme for the configuration below. Both are fixed text of the pinned
 * package version; another version may change them, and the browser test then reports the
 * refused style (src/http/reference-page.test.ts).
 */
const RENDERER_STYLE_HASHES = [
  "'sha256-l/2OpPg0d+2VLTLgwjf5mQo2CYwHDEqdj5TjbfEyVJI='",
  "'sha256-T13Uev3xCax2N28XaoAE8DOzQZKvPp7ZQVAi1iRREjo='",
];

/**
 * The policy of the API reference and of the file it loads. The renderer's script is its own
 * file served from the service, so no inline or foreign script runs, and no site can frame the
 * page (clickjacking). Its stylesheets are `<style>` elements the bundle writes, allowed by a
 * nonce made for each response or by their hash; the Vue components it renders also set `style` attributes, which
 * `style-src-attr` allows (an attribute has no selectors and loads nothing the policy refuses, so
 * it cannot read the page). Images may be data: URLs (its icons). The page reads the OpenAPI
 * document from its own origin and, with "Test Request", calls the API at BASE_URL, which a
 * proxy may put on another origin than the one the page was opened on.
 */
export function referencePolicy(baseUrl: string, styleNonce?: string): PolicyDirectives {
  const apiOrigin = new URL(baseUrl).origin;
  return pagePolicy({
    'script-src': SELF,
    ...(styleNonce ? { 'style-src': [`'nonce-${styleNonce}'`, ...RENDERER_STYLE_HASHES], 'style-src-attr': ["'unsafe-inline'"] } : {}),
    'img-src': ["'self'", 'data:'],
    'font-src': SELF,
    'connect-src': ["'self'", apiOrigin],
  });
}

/**
 * What the renderer is told: the document to read, nothing from Scalar's servers (fonts,
 * telemetry, "Ask AI" and MCP, which would send the document to a third party and which the
 * page's policy refuses anyway), the light theme only (the one its contrast was checked in), and
 * the brand API key as the scheme "Test Request" starts with: the document's first scheme is
 * what most readers (brands) hold, but without this the renderer starts with none selected.
 */
const RENDERER_CONFIGURATION = {
  url: OPENAPI_DOCUMENT_PATH,
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  hideDarkModeToggle: true,
  forceDarkModeState: 'light',
  documentDownloadType: 'json',
  authentication: { preferredSecurityScheme: 'apiKey' },
} as const;

/**
 * The reference page. The renderer reads its configuration from the `api-reference` data element
 * (not run as script) and the style nonce from the `csp-nonce` meta element. Our script, loaded
 * first, corrects one attribute of the renderer's markup (web/pages/reference.ts).
 */
export function referencePage(assets: { stylesheet: string; script: string }, styleNonce: string): VNode {
  return (
    <PageShell
      title="API reference · Partner collaboration service"
      stylesheet={assets.stylesheet}
      head={<meta property="csp-nonce" content={styleNonce} />}
    >
      <script src={assets.script} />
      <script id="api-reference" type="application/json" data-configuration={JSON.stringify(RENDERER_CONFIGURATION)} />
      <script src={RENDERER_SCRIPT} />
    </PageShell>
  );
}

/**
 * Serves the API reference with its security headers. The renderer (Scalar, whose bundle
 * @scalar/fastify-api-reference serves from the package) is registered inside a scope that has the
 * page security headers with the reference's policy and no referrer. The package's own page
 * writes its configuration as inline script, which the policy refuses: its route answers with
 * the page above instead.
 */
export async function registerApiReference(app: FastifyInstance, baseUrl: string): Promise<void> {
  const sendReferencePage: RouteHandlerMethod = async (_request, reply) => {
    const styleNonce = crypto.randomBytes(16).toString('base64');
    const { url } = await browserAssets();
    return sendPage(reply, referencePage({ stylesheet: url.referenceStyle, script: url.referenceScript }, styleNonce), {
      policy: referencePolicy(baseUrl, styleNonce),
    });
  };
  const reference: FastifyPluginAsync = async (scope) => {
    await securePages(scope, baseUrl, { policy: referencePolicy(baseUrl), referrerPolicy: 'no-referrer' });
    scope.addHook('onRoute', (route) => {
      if (route.url === `${API_REFERENCE_PATH}/`) route.handler = sendReferencePage;
    });
    await scope.register(apiReference, { routePrefix: API_REFERENCE_PATH, configuration: { url: OPENAPI_DOCUMENT_PATH } });
  };
  await app.register(reference);
}
