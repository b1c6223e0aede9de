import type { onRequestHookHandler, RouteOptions } from 'fastify';

/**
 * Adds onRequest hooks to a route as it is registered (an onRoute hook), `first` before the
 * route's own and `last` after them. Always into a new array, never pushed onto the route's:
 * Fastify copies a GET route's options for its HEAD route before onRoute runs, and the HEAD route
 * gets its own pass, so a push would run the hook twice there.
 */
export function addOnRequestHooks(
  route: RouteOptions,
  { first = [], last = [] }: { first?: onRequestHookHandler[]; last?: onRequestHookHandler[] },
): void {
  const own = route.onRequest;
  route.onRequest = [...first, ...(own === undefined ? [] : Array.isArray(own) ? own : [own]), ...last];
}

/** Matches the paths a route's URL pattern serves (`/r/:token` matches `/r/abc`), with or without a trailing slash. */
export function routePathPattern(url: string): RegExp {
  return new RegExp(`^${url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+')}/?$`);
}
