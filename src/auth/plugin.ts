import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler, preHandlerAsyncHookHandler } from 'fastify';
import type { Authenticator, BrandPrincipal, PlatformKeyPrincipal } from './authenticator.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** onRequest hook for brand routes: API key or OAuth token, else 401. */
    requireBrand: onRequestAsyncHookHandler;
    /** onRequest hook for the platform sync route: platform key only, else 401. */
    requirePlatformKey: onRequestAsyncHookHandler;
    /**
     * Last preHandler of the brand lists: SPEC 5.2 on X-Platform-Id (400 `invalid_request`), then,
     * every check having passed, the PlatformCompany link of an active platform is recorded.
     */
    attributeListToPlatform: preHandlerAsyncHookHandler;
  }
  interface FastifyRequest {
    brand: BrandPrincipal | null;
    platformKey: PlatformKeyPrincipal | null;
  }
}

export function installAuthHooks(app: FastifyInstance, auth: Authenticator): void {
  app.decorateRequest('brand', null);
  app.decorateRequest('platformKey', null);
  app.decorate('requireBrand', async function requireBrand(request: FastifyRequest) {
    request.brand = await auth.authenticateBrand(request.headers, request.query);
  });
  app.decorate('requirePlatformKey', async function requirePlatformKey(request: FastifyRequest) {
    request.platformKey = await auth.authenticatePlatformKey(request.headers, request.query);
  });
  app.decorate('attributeListToPlatform', async function attributeListToPlatform(request: FastifyRequest) {
    const platform = await auth.resolvePlatformHeader(request.headers, 'invalid_request');
    if (platform) await auth.linkBrandToPlatform(platform, brandOf(request));
  });
}

/** The authenticated brand of a request that passed requireBrand. */
export function brandOf(request: FastifyRequest): BrandPrincipal {
  if (!request.brand) throw new Error('route is missing the requireBrand hook');
  return request.brand;
}
