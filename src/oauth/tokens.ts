import crypto from 'node:crypto';
import { randomToken } from '../shared/keys.js';

export const ACCESS_TOKEN_LIFETIME_SECONDS = 3600;
/** About five years (SPEC 2.8). */
export const REFRESH_TOKEN_LIFETIME_SECONDS = 5 * 365 * 24 * 3600;
/** Codes are exchanged by the app right after the redirect; a minute is plenty and limits theft. */
export const AUTHORIZATION_CODE_LIFETIME_SECONDS = 60;

/** Prefixes let secret scanners recognise leaked tokens; 43 base62 characters carry about 256 bits. */
export const ACCESS_TOKEN_PATTERN = /^svc_at_[A-Za-z0-9]{43}$/;
export const newAccessToken = () => `svc_at_${randomToken(43)}`;
export const newRefreshToken = () => `svc_rt_${randomToken(43)}`;
export const newAuthorizationCode = () => randomToken(43);

export interface IssuedPair {
  accessToken: string;
  accessTokenExpiresAt: Date;
  refreshToken: string;
  refreshTokenExpiresAt: Date;
  scope: string[];
}

export function newPair(scope: string[], now: Date): IssuedPair {
  return {
    accessToken: newAccessToken(),
    accessTokenExpiresAt: new Date(now.getTime() + ACCESS_TOKEN_LIFETIME_SECONDS * 1000),
    refreshToken: newRefreshToken(),
    refreshTokenExpiresAt: new Date(now.getTime() + REFRESH_TOKEN_LIFETIME_SECONDS * 1000),
    scope,
  };
}

/**
 * The key that seals a rotated refresh token's successor is derived from that refresh token,
 * which is never stored: the database alone cannot open the sealed pair, only a holder of the
 * old token can, which is exactly who the grace window serves.
 */
function sealKey(refreshToken: string): Buffer {
  return crypto.createHmac('sha256', refreshToken).update('svc refresh grace v1').digest();
}

export function sealPair(pair: IssuedPair, refreshToken: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', sealKey(refreshToken), iv);
  const plaintext = JSON.stringify({
    a: pair.accessToken,
    ae: pair.accessTokenExpiresAt.getTime(),
    r: pair.refreshToken,
    re: pair.refreshTokenExpiresAt.getTime(),
    s: pair.scope,
  });
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

export function openPair(sealed: string, refreshToken: string): IssuedPair | undefined {
  try {
    const raw = Buffer.from(sealed, 'base64');
    const decipher = crypto.createDecipheriv('aes-256-gcm', sealKey(refreshToken), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    const text = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    const value = JSON.parse(text) as { a: string; ae: number; r: string; re: number; s: string[] };
    return {
      accessToken: value.a,
      accessTokenExpiresAt: new Date(value.ae),
      refreshToken: value.r,
      refreshTokenExpiresAt: new Date(value.re),
      scope: value.s,
    };
  } catch {
    return undefined;
  }
}
