import crypto from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { Db } from '../db/database.js';
import { type CookiePolicy, cookieOptions } from '../shared/cookies.js';
import { constantTimeEqual, randomToken } from '../shared/keys.js';
import { findServiceSecret } from './dal.js';

/**
 * OWASP's device cookies (Slow Down Online Guessing Attacks with Device Cookies): a browser that
 * signed in to an account gets a token naming that account, signed with an HMAC key the server
 * keeps (made once per database by migration 0043, so every instance checks what any other
 * signed). A sign-in that presents a valid token for the email it tries is a trusted device with
 * a budget of its own; every other client shares the account's one budget (src/accounts/throttle.ts).
 * A token is `nonce.signature` over the normalized email and the nonce: the email is not in the
 * cookie, and a token for one account says nothing about another. One cookie holds the tokens of
 * the last few accounts signed in from the browser.
 */
export const DEVICE_COOKIE = 'svc_device';
const TOKENS_PER_BROWSER = 5;
const DEVICE_COOKIE_MAX_AGE_SECONDS = 180 * 24 * 3600;
const TOKEN_SHAPE = /^([A-Za-z0-9]{22})\.([A-Za-z0-9_-]{43})$/;

const keys = new WeakMap<Db, Promise<Buffer>>();

/** The HMAC key, read once per database handle. */
export function deviceCookieKey(db: Db): Promise<Buffer> {
  let key = keys.get(db);
  if (!key) {
    key = findServiceSecret(db, 'device_cookie').then((secret) => {
      if (!secret) throw new Error('service_secrets has no device_cookie key: run the migrations');
      return Buffer.from(secret, 'base64url');
    });
    key.catch(() => keys.delete(db));
    keys.set(db, key);
  }
  return key;
}

function signature(key: Buffer, email: string, nonce: string): string {
  return crypto.createHmac('sha256', key).update(`device-cookie\n${email}\n${nonce}`).digest('base64url');
}

function tokensIn(cookie: string | undefined): string[] {
  return (cookie ?? '').split('~').slice(0, TOKENS_PER_BROWSER);
}

/** The nonce of the cookie's valid token for `email` (normalized), or null: a forged or altered token names no device. */
export function trustedDevice(cookie: string | undefined, email: string, key: Buffer): string | null {
  for (const token of tokensIn(cookie)) {
    const parts = TOKEN_SHAPE.exec(token);
    if (parts && constantTimeEqual(signature(key, email, parts[1]!), parts[2]!)) return parts[1]!;
  }
  return null;
}

/** The cookie after a sign-in to `email` from this browser: its token for the account first, the others kept after it. */
export function cookieTrusting(cookie: string | undefined, email: string, key: Buffer): string {
  const known = trustedDevice(cookie, email, key);
  const nonce = known ?? randomToken(22);
  const own = `${nonce}.${signature(key, email, nonce)}`;
  const others = tokensIn(cookie).filter((token) => TOKEN_SHAPE.test(token) && token !== own);
  return [own, ...others].slice(0, TOKENS_PER_BROWSER).join('~');
}

/** HttpOnly, Secure where the site is https, and sent only with the service's own requests (SameSite=Strict). */
export function setDeviceCookie(reply: FastifyReply, policy: CookiePolicy, value: string): void {
  reply.setCookie(DEVICE_COOKIE, value, { ...cookieOptions(policy, DEVICE_COOKIE_MAX_AGE_SECONDS), sameSite: 'strict' });
}
