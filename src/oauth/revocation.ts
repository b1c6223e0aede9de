import type { Db } from '../db/database.js';
import { hashSecret } from '../auth/keys.js';
import * as dal from './dal.js';

/**
 * RFC 7009: revokes a token the client presents. An access token is revoked alone; a refresh
 * token revokes its whole grant (the refresh token, its rotations and their access tokens).
 * Tokens of other clients and unknown tokens are left alone without saying so (RFC 7009 2.2).
 * Returns true when something was revoked.
 */
export async function revokePresentedToken(db: Db, clientId: string, token: string): Promise<boolean> {
  const tokenHash = hashSecret(token);
  if (await dal.revokeAccessToken(db, tokenHash, clientId)) return true;
  const refresh = await dal.findRefreshToken(db, tokenHash);
  if (!refresh || refresh.grant.clientId !== clientId || refresh.grantRevoked) return false;
  return dal.revokeGrant(db, refresh.grant.grantId, 'refresh token revoked by the client');
}

/**
 * Client credentials sent with HTTP Basic (RFC 6749 2.3.1: each part form-urlencoded first).
 * Returns undefined for a header that is absent or not Basic, and 'malformed' for a broken one.
 */
export function basicCredentials(header: string | undefined): { clientId: string; clientSecret: string } | 'malformed' | undefined {
  if (header === undefined) return undefined;
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) return /^Basic\b/i.test(header) ? 'malformed' : undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1) return 'malformed';
  try {
    const decode = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '));
    return { clientId: decode(decoded.slice(0, colon)), clientSecret: decode(decoded.slice(colon + 1)) };
  } catch {
    return 'malformed';
  }
}
