import crypto from 'node:crypto';
import type { AppRegistration } from './core.js';

/**
 * Shopify's session tokens (ID tokens), as documented in "Session tokens for embedded apps"
 * (https://shopify.dev/docs/apps/build/authentication-authorization/session-tokens): a JWT signed
 * HS256 with the app's client secret, living one minute, whose payload names the store (`iss`
 * `https://{shop}.myshopify.com/admin`, `dest` `https://{shop}.myshopify.com`), the app (`aud`, its
 * client id), the staff member (`sub`, their user id) and the admin session (`sid`), with `exp`,
 * `nbf`, `iat` in seconds, a unique `jti` and `sig`. App Bridge hands them to the app's frontend
 * (`shopify.idToken()`) and the admin puts one in the App URL as `id_token`; the app trades one
 * for an access token (token exchange, oauth.ts).
 */
export const SESSION_TOKEN_LIFETIME_SECONDS = 60;

export interface SessionTokenPayload {
  iss: string;
  dest: string;
  aud: string;
  sub: string;
  exp: number;
  nbf: number;
  iat: number;
  jti: string;
  sid: string;
  sig: string;
}

/** Ways a test makes a token the app must refuse; none given, the token is the one Shopify would sign now. */
export interface SessionTokenVariant {
  /** Issued two minutes ago, so it ended a minute ago (past the 10 s tolerance the library allows for clocks). */
  expired?: boolean;
  /** Signed with another secret than the app's (a forged token, or another app's). */
  secret?: string;
  /** Another audience than the app's client id (a token Shopify issued to another app). */
  audience?: string;
}

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

export function signSessionToken(
  app: AppRegistration,
  claims: { shopDomain: string; userId: number; sessionId: string; now: Date },
  variant: SessionTokenVariant = {},
): string {
  const issuedAt = Math.floor(claims.now.getTime() / 1000) - (variant.expired ? 2 * SESSION_TOKEN_LIFETIME_SECONDS : 0);
  const payload: SessionTokenPayload = {
    iss: `https://${claims.shopDomain}/admin`,
    dest: `https://${claims.shopDomain}`,
    aud: variant.audience ?? app.apiKey,
    sub: String(claims.userId),
    exp: issuedAt + SESSION_TOKEN_LIFETIME_SECONDS,
    nbf: issuedAt,
    iat: issuedAt,
    jti: crypto.randomUUID(),
    sid: claims.sessionId,
    // Shopify documents `sig` only as a signature; its contents are Shopify's own, so here it is an opaque hex value.
    sig: crypto.randomBytes(32).toString('hex'),
  };
  const signingInput = `${base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${base64url(JSON.stringify(payload))}`;
  const signature = crypto
    .createHmac('sha256', variant.secret ?? app.apiSecret)
    .update(signingInput)
    .digest('base64url');
  return `${signingInput}.${signature}`;
}

/**
 * The payload of a session token Shopify itself takes now (as its token endpoint does on a token
 * exchange): HS256 with the app's secret, compared in constant time, audience the app, within its
 * lifetime. Null for anything else. No clock tolerance: Shopify's and its own clock are the same one.
 */
export function verifySessionToken(app: AppRegistration, token: string, now: Date): SessionTokenPayload | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const [header, body, signature] = parts as [string, string, string];
  const expected = crypto.createHmac('sha256', app.apiSecret).update(`${header}.${body}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return null;
  let payload: SessionTokenPayload;
  try {
    const decodedHeader = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: string };
    if (decodedHeader.alg !== 'HS256') return null;
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as SessionTokenPayload;
  } catch {
    return null;
  }
  const seconds = now.getTime() / 1000;
  if (payload.aud !== app.apiKey || !(payload.exp > seconds) || !(payload.nbf <= seconds)) return null;
  return payload;
}
