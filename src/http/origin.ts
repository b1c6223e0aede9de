import type { FastifyRequest } from 'fastify';
import { forbidden } from './errors.js';

/**
 * The plugin's calls (state, consent, turn on) are only answered for the service's own pages,
 * that is the embed app in its iframe. Browsers send Origin on every POST and page scripts cannot
 * set it, nor Sec-Fetch-Site; so a script on another site calling directly is refused. The plugin
 * carries no credentials (SPEC 5.5), so this is its guard against other sites reading a store's
 * state or acting for it.
 */
export function requireOwnOrigin(request: FastifyRequest): void {
  const origin = request.headers.origin;
  let same = false;
  try {
    // Both sides parsed, so an explicit default port (host:80) equals its omission.
    same = origin !== undefined && new URL(origin).host === new URL(`http://${request.headers.host ?? ''}`).host;
  } catch {
    same = false;
  }
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') same = false;
  if (!same) throw forbidden("this call is only accepted from the service's own pages");
}

/** `value` when it is exactly an origin (scheme, host, optional port; nothing else), else undefined. */
export function exactOrigin(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const origin = new URL(value).origin;
    return origin !== 'null' && origin === value ? origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The origin of the page that framed the embed page, from the Referer its browser sent. The
 * loader asks for it (referrerpolicy="origin" on the iframe) and a page cannot make the browser
 * send another origin's; it can only leave it out, which is refused.
 */
export function refererOrigin(request: FastifyRequest): string | undefined {
  const referer = request.headers.referer;
  if (typeof referer !== 'string') return undefined;
  try {
    return exactOrigin(new URL(referer).origin);
  } catch {
    return undefined;
  }
}

/**
 * Origins the loader reports around the host page (its own and `location.ancestorOrigins`). Only
 * a hint: it can make the service refuse (a site framing an approved page), never approve.
 */
export function hintedAncestors(value: unknown): string[] {
  if (typeof value !== 'string' || value.length > 2000) return [];
  return value
    .split(' ')
    .map(exactOrigin)
    .filter((origin): origin is string => origin !== undefined)
    .slice(0, 10);
}
