import type { FastifyInstance, FastifyRequest, onRequestHookHandler, preParsingHookHandler } from 'fastify';
import { constantTimeEqual, hashSecret } from '../shared/keys.js';
import { ApiError, unauthorized } from '../http/errors.js';
import { addOnRequestHooks } from '../http/route-hooks.js';

/** A caller that presented the admin credential. */
export interface AdminPrincipal {
  /** Names the credential, never its value: the rate limiter keys the admin budget by it. */
  credentialId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    admin: AdminPrincipal | null;
  }
}

/** ADMIN_TOKEN is the one admin credential; its budget and logs name it so. */
const ADMIN_TOKEN_CREDENTIAL: AdminPrincipal = { credentialId: 'admin-token' };

function isAdminRoute(url: string): boolean {
  return url === '/admin' || url.startsWith('/admin/');
}

/**
 * Every route under /admin is the support team's (docs/support.md), protected here and nowhere
 * else, so a new admin route cannot be registered open or listed in the public API reference:
 *
 * - the caller is identified first (`Authorization: Bearer $ADMIN_TOKEN`, compared by hash in
 *   constant time), so the rate limiter, the last onRequest hook, counts a valid token against the
 *   token's own budget and anything else against the address's;
 * - a caller without the token is refused afterwards, before the body is parsed: 401, or 404 when
 *   ADMIN_TOKEN is unset. Refused calls are counted first, so guessing the token is limited.
 * - the route is hidden from the OpenAPI document and the reference page.
 */
export function installAdminAuth(app: FastifyInstance, token: string | undefined): void {
  // Hashing both sides first makes the comparison constant-time whatever the lengths.
  const expected = token ? hashSecret(token) : undefined;
  app.decorateRequest('admin', null);

  const identifyAdmin: onRequestHookHandler = (request, _reply, done) => {
    const match = /^Bearer (.+)$/.exec(request.headers.authorization ?? '');
    if (expected && match && constantTimeEqual(hashSecret(match[1]!), expected)) request.admin = ADMIN_TOKEN_CREDENTIAL;
    done();
  };
  const refuseUnlessAdmin: preParsingHookHandler = (request: FastifyRequest, _reply, payload, done) => {
    if (!expected) return done(new ApiError(404, 'not_found', 'the admin API is disabled (ADMIN_TOKEN is not set)'));
    if (!request.admin) return done(unauthorized('admin routes need Authorization: Bearer <ADMIN_TOKEN>'));
    done(null, payload);
  };

  app.addHook('onRoute', (route) => {
    if (!isAdminRoute(route.url)) return;
    route.schema = { ...route.schema, hide: true };
    addOnRequestHooks(route, { first: [identifyAdmin] });
    const own = route.preParsing;
    route.preParsing = [refuseUnlessAdmin, ...(own === undefined ? [] : Array.isArray(own) ? own : [own])];
  });
}
