import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { badRequest, forbidden } from './errors.js';
import { addOnRequestHooks, routePathPattern } from './route-hooks.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Whether other sites' scripts may read this route's answers and preflight it. Unset: only
     * the public API under /v1/ may; `true` opens another route (the plugin loader's files),
     * `false` closes one under /v1/ (the OAuth authorize page, which people use).
     */
    cors?: boolean;
  }
  interface FastifyRequest {
    /** Whether the answer carries the CORS headers: set by the open routes' first hook. */
    readableCrossOrigin: boolean;
  }
}

/** Route config for routes that only the service's own pages may call. */
export const NO_CORS = { cors: false } as const;
/** Route config for a route outside /v1/ that any site's script may read (the plugin loader's files). */
export const CROSS_ORIGIN = { cors: true } as const;

const PUBLIC_API_PREFIX = '/v1/';
const ALLOWED_METHODS = 'GET, POST, OPTIONS';
const ALLOWED_HEADERS = 'Content-Type, X-Api-Key, Authorization, X-Platform-Id, X-Request-Id';
const EXPOSED_HEADERS = 'X-Request-Id, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, WWW-Authenticate';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

/** The public API, which platform pages call from the browser with their keys. */
export function isPublicApiPath(path: string): boolean {
  return path.startsWith(PUBLIC_API_PREFIX);
}

const open: onRequestHookHandler = (request, _reply, done) => {
  request.readableCrossOrigin = true;
  done();
};

/**
 * CORS for browser callers on any site, on the public API and the loader's files only: their
 * answers may be read from any origin and expose the request id, rate-limit headers and the Bearer challenge. Pages,
 * the staff and dashboard routes, the sandbox, the OAuth authorize page and the operational routes
 * send no CORS header at all, so another site's script can neither read them nor preflight them:
 * an answer is closed unless its route opened it, so a route added without a thought is closed too.
 *
 * One fixed policy, so the per-request part is a flag set by the open routes' first onRequest hook
 * and two constant headers added by the app's onSend hook (addCorsHeaders), where @fastify/cors
 * rebuilt its options and looked up the route twice on every request (docs/performance-offers.md).
 * Must be installed before any route it governs is registered.
 */
export function installCors(app: FastifyInstance): void {
  app.decorateRequest('readableCrossOrigin', false);
  const openPaths: RegExp[] = [];
  app.addHook('onRoute', (route) => {
    if (!(route.config?.cors ?? isPublicApiPath(route.url))) return;
    openPaths.push(routePathPattern(route.url));
    addOnRequestHooks(route, { first: [open] });
  });
  app.options('*', { schema: { hide: true } }, async (request, reply) => {
    if (!request.headers.origin || !request.headers['access-control-request-method']) {
      throw badRequest('a CORS preflight needs the Origin and Access-Control-Request-Method headers');
    }
    const path = request.url.split('?')[0] ?? '/';
    if (!openPaths.some((pattern) => pattern.test(path))) {
      throw forbidden(`${path} answers the service's own pages only; other sites may call the public API under ${PUBLIC_API_PREFIX}`);
    }
    request.readableCrossOrigin = true;
    return reply
      .code(204)
      .header('Access-Control-Allow-Methods', ALLOWED_METHODS)
      .header('Access-Control-Allow-Headers', ALLOWED_HEADERS)
      .header('Access-Control-Max-Age', PREFLIGHT_MAX_AGE_SECONDS)
      .header('Content-Length', '0')
      .send();
  });
}

export function addCorsHeaders(request: FastifyRequest, reply: FastifyReply): void {
  if (!request.readableCrossOrigin) return;
  reply.header('Access-Control-Allow-Origin', '*');
  reply.header('Access-Control-Expose-Headers', EXPOSED_HEADERS);
}
