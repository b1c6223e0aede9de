import { boundedCache } from '../cache/bounded.js';
import type { BearerTokenVerifier, BrandPrincipal } from '../auth/authenticator.js';
import type { InvalidationBus } from '../cache/invalidation.js';
import { hashSecret } from '../shared/keys.js';
import type { Grantee, OAuthModel } from './model.js';
import { ACCESS_TOKEN_PATTERN } from './tokens.js';

const CACHE_TTL_MS = 60_000;
const CACHE_MAX_ENTRIES = 50_000;

/**
 * Verifies OAuth access tokens for `Authorization: Bearer`. A verified token is kept in memory
 * (by hash) for at most a minute and never past its expiry, so the hot path costs what an API key
 * costs; every revocation publishes `credentials`, which empties this cache on every instance.
 */
export class OAuthBearerVerifier implements BearerTokenVerifier {
  private readonly cache = boundedCache<BrandPrincipal>(CACHE_MAX_ENTRIES);

  constructor(
    private readonly model: Pick<OAuthModel, 'getAccessToken'>,
    bus: InvalidationBus,
  ) {
    bus.on('credentials', () => this.cache.clear());
  }

  async verify(token: string): Promise<BrandPrincipal | null> {
    if (!ACCESS_TOKEN_PATTERN.test(token)) return null;
    const cacheKey = hashSecret(token);
    const hit = this.cache.get(cacheKey);
    if (hit) return hit;
    const found = await this.model.getAccessToken(token);
    if (!found) return null;
    if (!found.accessTokenExpiresAt) return null;
    const grantee = found.user as Grantee;
    const principal: BrandPrincipal = {
      companyId: grantee.companyId,
      via: 'oauth',
      credentialId: String(found.tokenId),
      tokenPlatformId: grantee.platformId,
    };
    const ttl = Math.min(CACHE_TTL_MS, found.accessTokenExpiresAt.getTime() - Date.now());
    // A TTL of 0 would mean "never expires" to the LRU: a token at its expiry is not kept.
    if (ttl > 0) this.cache.set(cacheKey, principal, { ttl });
    return principal;
  }
}
