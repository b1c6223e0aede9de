import OAuth2Server from '@node-oauth/oauth2-server';
import type { Db } from '../db/database.js';
import { constantTimeEqual, hashSecret } from '../shared/keys.js';
import * as dal from './dal.js';
import { resolveScope } from './scopes.js';
import { newAccessToken, newAuthorizationCode, newPair, newRefreshToken, openPair, sealPair, type IssuedPair } from './tokens.js';

const { InvalidGrantError } = OAuth2Server;

/**
 * Who a grant acts for. The library passes this "user" through every model call, so it also
 * carries the platform chosen at authorization, the grant (token family) once it exists, and the
 * pair already issued by a refresh-token rotation.
 */
export interface Grantee {
  userId: string | null;
  companyId: string;
  platformId: string | null;
  grantId?: string;
  issued?: IssuedPair;
}

/** The scope, client and grantee a stored code or token was issued under. */
function issuedUnder(grant: dal.GrantRecord): { scope: string[]; client: OAuth2Server.Client; user: Grantee } {
  return {
    scope: grant.scope,
    client: { id: grant.clientId, grants: [] },
    user: { userId: grant.userId, companyId: grant.companyId, platformId: grant.platformId, grantId: grant.grantId },
  };
}

export interface ServiceClient extends OAuth2Server.Client {
  id: string;
  name: string;
  redirectUris: string[];
  grants: string[];
  confidential: boolean;
  companyId: string | null;
}

export function toServiceClient(record: dal.ClientRecord): ServiceClient {
  const grants = ['authorization_code', 'refresh_token'];
  // Client credentials need a secret and a brand to act for; any other client is refused the grant.
  if (record.secretHash !== null && record.companyId !== null) grants.push('client_credentials');
  return {
    id: record.clientId,
    name: record.name,
    redirectUris: record.redirectUris,
    grants,
    confidential: record.secretHash !== null,
    companyId: record.companyId,
  };
}

/**
 * Checks a client's credentials as the token and revocation endpoints see them: a confidential
 * client must present its secret, a public client must present none.
 */
export async function authenticateClient(
  db: Db,
  clientId: string,
  clientSecret: string | undefined | null,
): Promise<ServiceClient | undefined> {
  const record = await dal.findClient(db, clientId);
  if (!record) return undefined;
  if (record.secretHash !== null) {
    if (!clientSecret || !constantTimeEqual(hashSecret(clientSecret), record.secretHash)) return undefined;
  } else if (clientSecret) {
    return undefined;
  }
  return toServiceClient(record);
}

export interface ModelOptions {
  db: Db;
  /** Called after any token is revoked, so every instance drops cached verifications. */
  onRevoked: () => Promise<void>;
  /**
   * How long a rotated refresh token still answers with its successor pair (OAUTH_REFRESH_GRACE_SECONDS);
   * from then on its use revokes the grant. 0: any second use revokes it.
   */
  refreshGraceSeconds: number;
}

export type OAuthModel = OAuth2Server.AuthorizationCodeModel & OAuth2Server.RefreshTokenModel & OAuth2Server.ClientCredentialsModel;

/**
 * The storage side of @node-oauth/oauth2-server: the library runs the grants (client checks,
 * PKCE, expiry, redirect URI binding, scope narrowing) and calls these functions for data.
 */
export function createOAuthModel({ db, onRevoked, refreshGraceSeconds }: ModelOptions): OAuthModel {
  // With 0 no use is within grace, not even one that raced the rotation (its clock read first).
  const withinGrace = (rotatedAt: Date, now: number) => refreshGraceSeconds > 0 && now - rotatedAt.getTime() < refreshGraceSeconds * 1000;
  const revokeGrant = async (grantId: string, reason: string) => {
    await dal.revokeGrant(db, grantId, reason);
    await onRevoked();
  };

  return {
    getClient: (clientId, clientSecret) => authenticateClient(db, clientId, clientSecret),

    generateAuthorizationCode: async () => newAuthorizationCode(),
    generateAccessToken: async () => newAccessToken(),
    generateRefreshToken: async () => newRefreshToken(),

    validateScope: async (_user, _client, scope) => resolveScope(scope) ?? false,

    async saveAuthorizationCode(code, client, user) {
      const grantee = user as Grantee;
      if (!code.codeChallenge || code.codeChallengeMethod !== 'S256') {
        throw new InvalidGrantError('PKCE with code_challenge_method S256 is required');
      }
      await dal.insertGrantWithCode(
        db,
        {
          clientId: client.id,
          companyId: grantee.companyId,
          userId: grantee.userId,
          platformId: grantee.platformId,
          scope: code.scope ?? [],
        },
        {
          codeHash: hashSecret(code.authorizationCode),
          redirectUri: code.redirectUri,
          codeChallenge: code.codeChallenge,
          expiresAt: code.expiresAt,
        },
      );
      return { ...code, client, user };
    },

    async getAuthorizationCode(authorizationCode) {
      const codeHash = hashSecret(authorizationCode);
      const record = await dal.findCode(db, codeHash);
      if (!record || record.grantRevoked) return false;
      if (record.used) {
        // RFC 6749 4.1.2: a code used twice means it leaked; what it already bought is revoked too.
        await revokeGrant(record.grant.grantId, 'authorization code replayed');
        throw new InvalidGrantError('Invalid grant: authorization code was already used; tokens issued with it are revoked');
      }
      return {
        authorizationCode,
        expiresAt: record.expiresAt,
        redirectUri: record.redirectUri,
        codeChallenge: record.codeChallenge,
        codeChallengeMethod: record.codeChallengeMethod,
        ...issuedUnder(record.grant),
      };
    },

    async revokeAuthorizationCode(code) {
      const used = await dal.markCodeUsed(db, hashSecret(code.authorizationCode), new Date());
      if (!used) await revokeGrant((code.user as Grantee).grantId!, 'authorization code replayed');
      return used;
    },

    async getRefreshToken(refreshToken) {
      const record = await dal.findRefreshToken(db, hashSecret(refreshToken));
      if (!record || record.grantRevoked) return false;
      if (record.rotatedAt && !withinGrace(record.rotatedAt, Date.now())) {
        await revokeGrant(record.grant.grantId, 'rotated refresh token reused');
        throw new InvalidGrantError('Invalid grant: refresh token was already used; every token of this grant is revoked');
      }
      return {
        refreshToken,
        refreshTokenExpiresAt: record.expiresAt,
        ...issuedUnder(record.grant),
      };
    },

    /**
     * Rotation happens here, in one transaction, and the new pair rides on the grantee to
     * saveToken. A request that loses the race (or retries within the grace window) gets the
     * pair the winner issued, unsealed with the refresh token it presented.
     */
    async revokeToken(token) {
      const grantee = token.user as Grantee;
      const now = new Date();
      const pair = newPair(token.scope ?? [], now);
      const tokenHash = hashSecret(token.refreshToken);
      const rotated = await dal.rotateRefreshToken(db, {
        tokenHash,
        grantId: grantee.grantId!,
        sealedSuccessor: sealPair(pair, token.refreshToken),
        at: now,
        successor: {
          accessHash: hashSecret(pair.accessToken),
          accessExpiresAt: pair.accessTokenExpiresAt,
          refresh: { hash: hashSecret(pair.refreshToken), expiresAt: pair.refreshTokenExpiresAt },
        },
      });
      if (rotated) {
        grantee.issued = pair;
        return true;
      }
      const record = await dal.findRefreshToken(db, tokenHash);
      if (!record || record.grantRevoked || !record.rotatedAt) return false;
      if (!withinGrace(record.rotatedAt, now.getTime()) || !record.successorSealed) {
        await revokeGrant(record.grant.grantId, 'rotated refresh token reused');
        throw new InvalidGrantError('Invalid grant: refresh token was already used; every token of this grant is revoked');
      }
      const earlier = openPair(record.successorSealed, token.refreshToken);
      if (!earlier) return false;
      grantee.issued = earlier;
      return true;
    },

    getUserFromClient: async (client) => {
      const serviceClient = client as ServiceClient;
      if (!serviceClient.companyId) return false;
      const grantee: Grantee = { userId: null, companyId: serviceClient.companyId, platformId: null };
      return grantee;
    },

    async saveToken(token, client, user) {
      const grantee = user as Grantee;
      if (grantee.issued) return { ...grantee.issued, client, user };
      const rows: dal.TokenRows = {
        accessHash: hashSecret(token.accessToken),
        accessExpiresAt: token.accessTokenExpiresAt!,
        ...(token.refreshToken ? { refresh: { hash: hashSecret(token.refreshToken), expiresAt: token.refreshTokenExpiresAt! } } : {}),
      };
      if (grantee.grantId) {
        await dal.saveTokens(db, grantee.grantId, rows);
      } else {
        grantee.grantId = await dal.saveTokensWithNewGrant(
          db,
          {
            clientId: client.id,
            companyId: grantee.companyId,
            userId: grantee.userId,
            platformId: grantee.platformId,
            scope: token.scope ?? [],
          },
          rows,
        );
      }
      return { ...token, client, user };
    },

    async getAccessToken(accessToken) {
      const record = await dal.findActiveAccessToken(db, hashSecret(accessToken), new Date());
      if (!record) return false;
      return {
        accessToken,
        accessTokenExpiresAt: record.expiresAt,
        ...issuedUnder(record.grant),
        tokenId: record.tokenId,
      };
    },
  };
}
