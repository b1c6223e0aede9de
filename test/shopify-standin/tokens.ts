import crypto from 'node:crypto';
import type { Installation } from './model.js';

/**
 * Shopify's offline access tokens, as documented
 * (https://shopify.dev/docs/apps/build/authentication-authorization/access-tokens/offline-access-tokens,
 * changelogs "Offline access tokens now support expiry and refresh", 2025-12-10, "More resilient
 * refreshes for expiring offline access tokens", 2026-08-28, "More resilient token exchanges when
 * migrating tokens without a user session"):
 * - asked for with `expiring=1`, an access token lives `expires_in` = 3600 s and comes with a
 *   refresh token living `refresh_token_expires_in` = 90 days;
 * - a refresh (`grant_type=refresh_token`) answers a new pair: Shopify replaces the refresh token
 *   every time it is used. The used one can be tried again (a lost answer) until the app presents
 *   its replacement, for at most 30 days; a retry issues a new pair, which replaces the one issued
 *   before (the stand-in's reading: the newest pair is the one in effect). A refresh token that is
 *   unknown, expired, retired or of an uninstalled app is 400 `invalid_grant`;
 * - a non-expiring token is exchanged for an expiring pair (token exchange with
 *   `subject_token` = the old token, `expiring=1`); the old token stops working for the Admin API,
 *   and the same exchange again within 7 days answers the same pair, until that pair is refreshed.
 */
export const SHOPIFY_TOKEN_LIFETIMES = { accessSeconds: 3600, refreshSeconds: 90 * 86_400 };
const REFRESH_RETRY_WINDOW_MS = 30 * 86_400_000;
const MIGRATION_RETRY_WINDOW_MS = 7 * 86_400_000;

export interface TokenLifetimes {
  accessSeconds: number;
  refreshSeconds: number;
}

export interface TokenPair {
  access_token: string;
  scope: string;
  expires_in: number;
  refresh_token: string;
  refresh_token_expires_in: number;
}

export interface RefreshTokenRecord {
  expiresAt: number;
  /** When it was first presented; null while unused. */
  usedAt: number | null;
  /** The refresh token its last use issued. */
  replacement: string | null;
  /** Replaced by a later acquisition, or by its own successor being used. */
  retired: boolean;
}

/** Every request to the token endpoint, for tests to count refreshes. */
export interface TokenRequest {
  grant: 'authorization_code' | 'refresh_token' | 'token_exchange';
  status: number;
  at: Date;
}

export const newAccessToken = () => `shpua_${crypto.randomBytes(16).toString('hex')}`;
const newRefreshToken = () => `shprt_${crypto.randomBytes(16).toString('hex')}`;

export class TokenIssuer {
  constructor(
    private readonly lifetimes: TokenLifetimes,
    private readonly now: () => number,
  ) {}

  /** An access token the Admin API takes now. */
  accessTokenValid(installation: Installation, token: string): boolean {
    if (!installation.tokens.has(token)) return false;
    const expiresAt = installation.accessExpiries.get(token);
    return expiresAt === undefined || expiresAt > this.now();
  }

  /** A new expiring pair; it replaces every refresh token issued before. */
  issuePair(installation: Installation): TokenPair {
    for (const record of installation.refreshTokens.values()) record.retired = true;
    const accessToken = newAccessToken();
    const refreshToken = newRefreshToken();
    installation.tokens.add(accessToken);
    installation.accessExpiries.set(accessToken, this.now() + this.lifetimes.accessSeconds * 1000);
    installation.refreshTokens.set(refreshToken, {
      expiresAt: this.now() + this.lifetimes.refreshSeconds * 1000,
      usedAt: null,
      replacement: null,
      retired: false,
    });
    return {
      access_token: accessToken,
      scope: installation.scopes.join(','),
      expires_in: this.lifetimes.accessSeconds,
      refresh_token: refreshToken,
      refresh_token_expires_in: this.lifetimes.refreshSeconds,
    };
  }

  /** The refresh grant: a new pair, or null for `invalid_grant`. */
  refresh(installation: Installation, refreshToken: string): TokenPair | null {
    const record = installation.refreshTokens.get(refreshToken);
    const now = this.now();
    if (!installation.installed || !record || record.expiresAt <= now) return null;
    if (record.usedAt !== null) {
      // A retry of a used token (its answer lost): only while its replacement is in effect and was never presented.
      const successor = record.replacement ? installation.refreshTokens.get(record.replacement) : undefined;
      if (!successor || successor.retired || successor.usedAt !== null || now - record.usedAt > REFRESH_RETRY_WINDOW_MS) return null;
    } else if (record.retired) {
      return null;
    }
    record.usedAt ??= now;
    const pair = this.issuePair(installation);
    record.replacement = pair.refresh_token;
    return pair;
  }

  /** Token exchange of a non-expiring offline token for an expiring pair; null when the token is not one. */
  migrate(installation: Installation, nonExpiringToken: string): TokenPair | null {
    const now = this.now();
    const earlier = installation.migrations.get(nonExpiringToken);
    if (earlier) {
      const record = installation.refreshTokens.get(earlier.pair.refresh_token);
      const stillInEffect = record && record.usedAt === null && !record.retired;
      if (!installation.installed || !stillInEffect || now - earlier.at > MIGRATION_RETRY_WINDOW_MS) return null;
      installation.accessExpiries.set(earlier.pair.access_token, now + this.lifetimes.accessSeconds * 1000);
      return { ...earlier.pair, expires_in: this.lifetimes.accessSeconds };
    }
    if (!installation.installed || !installation.tokens.has(nonExpiringToken) || installation.accessExpiries.has(nonExpiringToken)) {
      return null;
    }
    installation.tokens.delete(nonExpiringToken);
    const pair = this.issuePair(installation);
    installation.migrations.set(nonExpiringToken, { pair, at: now });
    return pair;
  }
}
