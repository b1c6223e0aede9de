import type { Db } from '../db/database.js';
import { hashSecret } from '../shared/keys.js';
import * as dal from './dal.js';

/** What revoking a presented token did: `other_client` when it was issued to another client. */
export type RevocationOutcome = 'revoked' | 'nothing_to_revoke' | 'other_client';

/**
 * RFC 7009: revokes a token the client presents. An access token is revoked alone; a refresh
 * token revokes its whole grant (the refresh token, its rotations and their access tokens).
 * Unknown and already revoked tokens are no error (RFC 7009 2.2); a token issued to another
 * client is refused and left alone (RFC 7009 2.1).
 */
export async function revokePresentedToken(db: Db, clientId: string, token: string): Promise<RevocationOutcome> {
  const tokenHash = hashSecret(token);
  if (await dal.revokeAccessToken(db, tokenHash, clientId)) return 'revoked';
  const accessTokenClient = await dal.accessTokenClientId(db, tokenHash);
  if (accessTokenClient !== undefined) return accessTokenClient === clientId ? 'nothing_to_revoke' : 'other_client';
  const refresh = await dal.findRefreshToken(db, tokenHash);
  if (!refresh) return 'nothing_to_revoke';
  if (refresh.grant.clientId !== clientId) return 'other_client';
  if (refresh.grantRevoked) return 'nothing_to_revoke';
  return (await dal.revokeGrant(db, refresh.grant.grantId, 'refresh token revoked by the client')) ? 'revoked' : 'nothing_to_revoke';
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
