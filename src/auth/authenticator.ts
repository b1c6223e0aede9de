import type { IncomingHttpHeaders } from 'node:http';
import type { Db } from '../db/database.js';
import type { InvalidationBus } from '../cache/invalidation.js';
import { isUuid } from '../config.js';
import { ApiError, unauthorized } from '../http/errors.js';
import {
  findActiveBrandKey,
  findPlatform,
  findUnrevokedPlatformKey,
  type BrandKeyRecord,
  type PlatformKeyRecord,
  type PlatformRecord,
} from './credentials-dal.js';
import {
  brandKeyPrefix,
  checkKeyShape,
  constantTimeEqual,
  hashSecret,
  platformKeyPrefix,
  PLATFORM_KEY_MARKER,
  type KeyEnvironment,
} from './keys.js';
import type { UsageRecorder } from './usage-recorder.js';

/** Who is calling a brand route. `tokenPlatformId` is set when an OAuth token carries a platform. */
export interface BrandPrincipal {
  companyId: string;
  via: 'api_key' | 'oauth';
  credentialId: string;
  tokenPlatformId?: string | null;
}

/** Verifies `Authorization: Bearer` tokens; the OAuth module provides it. */
export interface BearerTokenVerifier {
  verify(token: string): Promise<BrandPrincipal | null>;
}

export interface PlatformKeyPrincipal {
  platformId: string;
  keyId: string;
}

/** Query parameters that would carry a credential in a URL, where it would leak into logs and history. */
const CREDENTIAL_QUERY_PARAMS = ['api_key', 'apikey', 'apiKey', 'key', 'x-api-key', 'access_token', 'token'];

const CACHE_TTL_MS = 60_000;

interface CacheEntry<T> {
  value: T;
  expiresAt: number;
}

/**
 * The one authentication layer of the service: brand keys, OAuth bearer tokens (through a
 * pluggable verifier), platform keys and the X-Platform-Id header. Credential and platform
 * lookups are served from memory and dropped on every instance when they change.
 */
export class Authenticator {
  private readonly brandKeys = new Map<string, CacheEntry<BrandKeyRecord>>();
  private readonly platformKeys = new Map<string, CacheEntry<PlatformKeyRecord>>();
  private readonly platforms = new Map<string, CacheEntry<PlatformRecord | null>>();
  bearerVerifier: BearerTokenVerifier | undefined;

  constructor(
    private readonly db: Db,
    private readonly keyEnvironment: KeyEnvironment,
    bus: InvalidationBus,
    private readonly usage: UsageRecorder,
  ) {
    bus.on('credentials', () => {
      this.brandKeys.clear();
      this.platformKeys.clear();
    });
    bus.on('platforms', () => {
      this.platforms.clear();
      this.platformKeys.clear();
    });
  }

  async authenticateBrand(headers: IncomingHttpHeaders, query: unknown): Promise<BrandPrincipal> {
    rejectCredentialsInQuery(query);
    const apiKey = singleHeader(headers['x-api-key']);
    const authorization = singleHeader(headers.authorization);
    if (apiKey !== undefined && authorization !== undefined) {
      throw unauthorized('send either X-Api-Key or Authorization, not both');
    }
    if (authorization !== undefined) return this.authenticateBearer(authorization);
    if (apiKey === undefined || apiKey === '') {
      throw unauthorized('missing credentials: send an API key in X-Api-Key or an OAuth access token in Authorization');
    }
    if (apiKey.startsWith(PLATFORM_KEY_MARKER)) {
      throw unauthorized('platform keys are only for POST /v1/platform/brands; brand routes take a brand API key or OAuth token');
    }
    const expectedPrefix = brandKeyPrefix(this.keyEnvironment);
    const shapeProblem = checkKeyShape(apiKey, expectedPrefix);
    if (shapeProblem) throw unauthorized(`invalid API key: ${shapeProblem}`);

    const keyHash = hashSecret(apiKey);
    const record = await this.cached(this.brandKeys, keyHash, () => findActiveBrandKey(this.db, keyHash));
    if (!record || !constantTimeEqual(record.keyHash, keyHash) || record.environment !== this.keyEnvironment) {
      throw unauthorized('invalid API key: unknown or revoked');
    }
    this.usage.keyUsed('brand_api_keys', record.keyId);
    return { companyId: record.companyId, via: 'api_key', credentialId: record.keyId };
  }

  private async authenticateBearer(authorization: string): Promise<BrandPrincipal> {
    const match = /^Bearer ([A-Za-z0-9._~+/=-]+)$/i.exec(authorization.trim());
    if (!match) throw unauthorized('Authorization must be "Bearer <access token>"');
    const principal = this.bearerVerifier ? await this.bearerVerifier.verify(match[1]!) : null;
    if (!principal) throw unauthorized('invalid access token: unknown, expired or revoked');
    return principal;
  }

  async authenticatePlatformKey(headers: IncomingHttpHeaders, query: unknown): Promise<PlatformKeyPrincipal> {
    rejectCredentialsInQuery(query);
    if (headers.authorization !== undefined) {
      throw unauthorized('this route takes a platform key in X-Api-Key; OAuth access tokens are not accepted');
    }
    const apiKey = singleHeader(headers['x-api-key']);
    if (apiKey === undefined || apiKey === '') throw unauthorized('missing platform key in X-Api-Key');
    if (!apiKey.startsWith(PLATFORM_KEY_MARKER)) {
      throw unauthorized('this route takes a platform key (svc_platform_...); brand API keys are not accepted');
    }
    const shapeProblem = checkKeyShape(apiKey, platformKeyPrefix(this.keyEnvironment));
    if (shapeProblem) throw unauthorized(`invalid platform key: ${shapeProblem}`);

    const keyHash = hashSecret(apiKey);
    const record = await this.cached(this.platformKeys, keyHash, () => findUnrevokedPlatformKey(this.db, keyHash));
    if (!record || !constantTimeEqual(record.keyHash, keyHash) || record.environment !== this.keyEnvironment) {
      throw unauthorized('invalid platform key: unknown or revoked');
    }
    if (record.expiresAt && record.expiresAt.getTime() <= Date.now()) {
      throw unauthorized('platform key has expired');
    }
    if (!record.platformActive) throw unauthorized('platform key belongs to an inactive platform');
    this.usage.keyUsed('platform_keys', record.keyId);
    return { platformId: record.platformId, keyId: record.keyId };
  }

  /**
   * Applies SPEC 5.2 to X-Platform-Id: omitted → undefined; not a UUID, unknown or inactive →
   * 400 with `errorCode`; active → the platform. It records nothing: the caller records the
   * PlatformCompany link (`linkBrandToPlatform`) once the request has passed every check.
   */
  async resolvePlatformHeader(headers: IncomingHttpHeaders, errorCode: string): Promise<PlatformRecord | undefined> {
    const raw = headers['x-platform-id'];
    if (raw === undefined) return undefined;
    const value = singleHeader(raw);
    if (value === undefined || !isUuid(value.trim())) {
      throw new ApiError(400, errorCode, 'X-Platform-Id must be a platform id (UUID)');
    }
    const platform = await this.findPlatform(value.trim().toLowerCase());
    if (!platform || !platform.active) {
      throw new ApiError(400, errorCode, 'X-Platform-Id is not an active platform');
    }
    return platform;
  }

  /** The PlatformCompany link of SPEC 2.6: upserted on the first valid call of a brand on a platform. */
  async linkBrandToPlatform(platform: PlatformRecord, brand: BrandPrincipal): Promise<void> {
    await this.usage.platformSeen(platform.id, brand.companyId);
  }

  async findPlatform(platformId: string): Promise<PlatformRecord | undefined> {
    const platform = await this.cached(this.platforms, platformId, async () => (await findPlatform(this.db, platformId)) ?? null);
    return platform ?? undefined;
  }

  private async cached<T>(cache: Map<string, CacheEntry<T>>, key: string, load: () => Promise<T | undefined>) {
    const now = Date.now();
    const hit = cache.get(key);
    if (hit && hit.expiresAt > now) return hit.value;
    const value = await load();
    // Misses are not cached: a key issued a moment ago must work at once.
    if (value !== undefined && value !== null) cache.set(key, { value, expiresAt: now + CACHE_TTL_MS });
    else if (value === null) cache.delete(key);
    return value ?? undefined;
  }
}

function singleHeader(value: string | string[] | undefined): string | undefined {
  if (Array.isArray(value)) {
    if (value.length !== 1) return undefined;
    return value[0];
  }
  return value;
}

function rejectCredentialsInQuery(query: unknown): void {
  if (!query || typeof query !== 'object') return;
  const names = Object.keys(query as Record<string, unknown>).map((name) => name.toLowerCase());
  if (CREDENTIAL_QUERY_PARAMS.some((param) => names.includes(param.toLowerCase()))) {
    throw unauthorized('credentials must be sent in a header, never in the query string');
  }
}
