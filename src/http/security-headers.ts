import type { FastifyInstance, FastifyReply } from 'fastify';
import helmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import { pagePolicy, type PolicyDirectives } from './csp.js';

const ONE_YEAR_SECONDS = 31_536_000;

export interface PageSecurityOptions {
  /**
   * Leaves out Cross-Origin-Opener-Policy, for the sign-in and OAuth consent pages: an app may open
   * them in a popup and wait for its redirect page to report back to `window.opener`, which a
   * same-origin opener policy would cut off.
   */
  openedByOtherSites?: boolean;
  /** Another base policy than the pages' (the API reference's). */
  policy?: PolicyDirectives;
  /** Another referrer policy than same-origin (the API reference sends none). */
  referrerPolicy?: 'same-origin' | 'no-referrer';
}

/** helmet's form of a policy: exactly these directives, none of helmet's defaults. */
export function helmetPolicy(directives: PolicyDirectives): FastifyHelmetOptions['contentSecurityPolicy'] {
  return { useDefaults: false, directives };
}

/**
 * The security headers of every page and the files and forms around it, in one configuration.
 * Referrer-Policy is same-origin, not no-referrer: under no-referrer browsers send `Origin: null`
 * on form posts, which the CSRF and Origin checks refuse. HSTS only when BASE_URL is https, so a
 * plain-http test host is never pinned to https.
 */
export function pageHelmetOptions(baseUrl: string, options: PageSecurityOptions = {}): FastifyHelmetOptions {
  return {
    contentSecurityPolicy: helmetPolicy(options.policy ?? pagePolicy()),
    strictTransportSecurity: new URL(baseUrl).protocol === 'https:' ? { maxAge: ONE_YEAR_SECONDS, includeSubDomains: false } : false,
    xFrameOptions: { action: 'deny' },
    referrerPolicy: { policy: options.referrerPolicy ?? 'same-origin' },
    crossOriginOpenerPolicy: options.openedByOtherSites ? false : { policy: 'same-origin' },
    crossOriginResourcePolicy: { policy: 'same-origin' },
    crossOriginEmbedderPolicy: false,
  };
}

/**
 * Adds the page security headers to every route of `scope` (@fastify/helmet is registered in the
 * scopes that serve pages, not app-wide: its two hooks cost every request, the offers route's
 * included, even where a route opts out; docs/decisions.md has the figures).
 */
export async function securePages(scope: FastifyInstance, baseUrl: string, options: PageSecurityOptions = {}): Promise<void> {
  await scope.register(helmet, pageHelmetOptions(baseUrl, options));
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A route's own header options on top of its scope's, read by @fastify/helmet. Given in
     * `config`, never as the route's `helmet` shorthand: the plugin copies the shorthand into the
     * route's config object, which for `config: NO_CORS` is a constant shared by every route and app.
     */
    helmet?: Omit<FastifyHelmetOptions, 'global'>;
  }
}

/** Header options for a file any site may load (the plugin loader, store images). */
export const LOADABLE_ANYWHERE = { crossOriginResourcePolicy: { policy: 'cross-origin' } } as const satisfies FastifyHelmetOptions;

/** Gives this reply its page's policy instead of the scope's. */
export function setPolicy(reply: FastifyReply, directives: PolicyDirectives): void {
  reply.helmet({ contentSecurityPolicy: helmetPolicy(directives) });
}
