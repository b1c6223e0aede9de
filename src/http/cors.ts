import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { badRequest } from './errors.js';
import { addOnRequestHooks } from './route-hooks.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: other sites' scripts may neither read this route's answers nor preflight it. */
    cors?: boolean;
  }
  interface FastifyRequest {
    /** Whether the answer carries the CORS headers; false on routes whose config says `cors: false`. */
    readableCrossOrigin: boolean;
  }
}

/** Route config for routes that only the service's own pages may call. */
export const NO_CORS = { cors: false } as const;

const ALLOWED_METHODS = 'GET, POST, OPTIONS';
const ALLOWED_HEADERS = 'Content-Type, X-Api-Key, Authorization, X-Platform-Id, X-Request-Id';
const EXPOSED_HEADERS = 'X-Request-Id, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

/**
 * CORS for browser callers on any site (platform pages call the API with their keys): every answer
 * may be read from any origin and exposes the request id and rate-limit headers, and preflights of
 * any path are answered here, before any authentication. One fixed policy, so the per-request part
 * is two constant headers added by the app's onSend hook (addCorsHeaders), where @fastify/cors
 * rebuilt its options and looked up the route twice on every request: a twentieth of the offers
 * endpoint's CPU time (docs/performance-offers.md).
 */
export function installCors(app: FastifyInstance): void {
  app.decorateRequest('readableCrossOrigin', true);
  app.addHook('onRoute', (route) => {
    if (route.config?.cors !== false) return;
    const closed = async (request: FastifyRequest) => {
      request.readableCrossOrigin = false;
    };
    addOnRequestHooks(route, { first: [closed] });
  });
  app.options('*', { schema: { hide: true } }, async (request, reply) => {
    if (!request.headers.origin || !request.headers['access-control-request-method']) {
      throw badRequest('a CORS preflight needs the Origin and Access-Control-Request-Method headers');
    }
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
