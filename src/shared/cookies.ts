import type { FastifyReply, FastifyRequest } from 'fastify';
import { constantTimeEqual, hashSecret, randomToken } from './keys.js';

/**
 * The cookies of the service's browser pages: their policy and the CSRF token (double submit).
 * Shared by the brand accounts (src/accounts) and the sandbox store owners (src/commerce), which
 * keep their own sessions.
 */
export const CSRF_COOKIE = 'svc_csrf';

export interface CookiePolicy {
  secure: boolean;
}

/** Secure only when the service is served over HTTPS, or the browser would drop the cookie on http hosts. */
export function cookiePolicyFor(baseUrl: string): CookiePolicy {
  return { secure: baseUrl.startsWith('https:') };
}

export const cookieOptions = (policy: CookiePolicy, maxAgeSeconds?: number) => ({
  path: '/',
  httpOnly: true,
  sameSite: 'lax' as const,
  secure: policy.secure,
  ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
});

/**
 * The CSRF token for forms (double submit): an httpOnly cookie, repeated in a hidden field.
 * A cross-site page can neither read the cookie nor, with SameSite=Lax, make the browser send it
 * on a POST.
 */
export function csrfTokenFor(request: FastifyRequest, reply: FastifyReply, policy: CookiePolicy): string {
  const existing = request.cookies[CSRF_COOKIE];
  if (existing && /^[A-Za-z0-9]{32}$/.test(existing)) return existing;
  const token = randomToken();
  reply.setCookie(CSRF_COOKIE, token, cookieOptions(policy));
  request.cookies[CSRF_COOKIE] = token;
  return token;
}

/** True when the form's token matches the cookie and the request did not come from another site. */
export function csrfValid(request: FastifyRequest, formToken: unknown, serviceOrigin: string): boolean {
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== serviceOrigin) return false;
  if (request.headers['sec-fetch-site'] === 'cross-site') return false;
  return csrfTokenMatches(request, formToken);
}

/** True when the form's token matches the CSRF cookie: the double-submit half of csrfValid. */
export function csrfTokenMatches(request: FastifyRequest, formToken: unknown): boolean {
  const cookie = request.cookies[CSRF_COOKIE];
  if (!cookie || typeof formToken !== 'string') return false;
  return constantTimeEqual(hashSecret(cookie), hashSecret(formToken));
}
