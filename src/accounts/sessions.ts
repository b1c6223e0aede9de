import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/database.js';
import { constantTimeEqual, hashSecret, randomToken } from '../auth/keys.js';
import * as dal from './dal.js';

export const SESSION_COOKIE = 'svc_session';
export const CSRF_COOKIE = 'svc_csrf';
export const SESSION_LIFETIME_MS = 12 * 3600_000;

export interface CookiePolicy {
  secure: boolean;
}

/** Secure only when the service is served over HTTPS, or the browser would drop the cookie on http hosts. */
export function cookiePolicyFor(baseUrl: string): CookiePolicy {
  return { secure: baseUrl.startsWith('https:') };
}

const cookieOptions = (policy: CookiePolicy, maxAgeSeconds?: number) => ({
  path: '/',
  httpOnly: true,
  sameSite: 'lax' as const,
  secure: policy.secure,
  ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
});

/** A new random session: the cookie holds the token, the database only its hash. */
export async function startSession(db: Db, reply: FastifyReply, policy: CookiePolicy, userId: string, now = new Date()): Promise<void> {
  const token = randomToken(43);
  await dal.insertSession(db, { userId, tokenHash: hashSecret(token), expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS) });
  reply.setCookie(SESSION_COOKIE, token, cookieOptions(policy, SESSION_LIFETIME_MS / 1000));
  // A fresh CSRF token with every session, so a token seen before sign-in is worthless after it.
  reply.setCookie(CSRF_COOKIE, randomToken(), cookieOptions(policy));
}

/** The signed-in account, including one whose claim of a store still waits for the owner. */
export async function currentAccount(db: Db, request: FastifyRequest): Promise<dal.SessionAccount | undefined> {
  const token = request.cookies[SESSION_COOKIE];
  if (!token) return undefined;
  return dal.findSessionAccount(db, hashSecret(token), new Date());
}

/** The signed-in account when it acts for a brand: an unverified account cannot act for any. */
export async function currentUser(db: Db, request: FastifyRequest): Promise<dal.SessionUser | undefined> {
  const account = await currentAccount(db, request);
  return account && actsForBrand(account) ? account : undefined;
}

export function actsForBrand(account: dal.SessionAccount): account is dal.SessionUser {
  return account.companyId !== null;
}

export async function endSession(db: Db, request: FastifyRequest, reply: FastifyReply, policy: CookiePolicy): Promise<void> {
  const token = request.cookies[SESSION_COOKIE];
  if (token) await dal.revokeSession(db, hashSecret(token));
  reply.clearCookie(SESSION_COOKIE, cookieOptions(policy));
}

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
