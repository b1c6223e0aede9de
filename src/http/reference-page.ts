import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import swaggerUi from '@fastify/swagger-ui';
import { pagePolicy, SELF, type PolicyDirectives } from './csp.js';
import { securePages } from './security-headers.js';

/** Where the rendered API reference lives. */
export const API_REFERENCE_PATH = '/docs';

/**
 * The policy of the API reference and of every file it loads. The renderer's scripts, styles,
 * images and fonts are its own files served from the service, so nothing inline and nothing from
 * elsewhere is allowed: no script, style or frame can be injected through the page, and no site
 * can frame it (clickjacking). Images may be data: URLs (the renderer's icons and logo). The page
 * reads the OpenAPI document from its own origin and, with "Try it out", calls the API at
 * BASE_URL, which a proxy may put on another origin than the one the page was opened on.
 */
export function referencePolicy(baseUrl: string): PolicyDirectives {
  const apiOrigin = new URL(baseUrl).origin;
  return pagePolicy({ 'script-src': SELF, 'img-src': ["'self'", 'data:'], 'font-src': SELF, 'connect-src': ["'self'", apiOrigin] });
}

/**
 * Serves the API reference with its security headers. The renderer (Swagger UI, whose files
 * @fastify/swagger-ui serves from the package) is registered inside a scope that has the page
 * security headers with the reference's policy and no referrer, so a renderer that replaces it
 * gets them by being registered here.
 */
export async function registerApiReference(app: FastifyInstance, baseUrl: string): Promise<void> {
  const reference: FastifyPluginAsync = async (scope) => {
    await securePages(scope, baseUrl, { policy: referencePolicy(baseUrl), referrerPolicy: 'no-referrer' });
    // BaseLayout: the reference without Swagger UI's top bar, whose logo is an SVG with an inline
    // <style> (refused by the policy) and whose box loads any other document into the page.
    await scope.register(swaggerUi, {
      routePrefix: API_REFERENCE_PATH,
      uiConfig: { docExpansion: 'list', deepLinking: true, layout: 'BaseLayout' },
    });
  };
  await app.register(reference);
}
