import type { IncomingHttpHeaders } from 'node:http';
import type { LRUCache } from 'lru-cache';
import { boundedCache } from '../cache/bounded.js';
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
} from './dal.js';

export type { PlatformRecord } from './dal.js';
import {
  brandKeyPrefix,
  checkKeyShape,
  constantTimeEqual,
  hashSecret,
  platformKeyPrefix,
  PLATFORM_KEY_MARKER,
  type KeyEnvironment,
} from '../shared/keys.js';
import type { UsageRecorder } from './usage-recorder.js';

/** Who is calling a brand route. `tokenPlatformId` is set when an OAuth token carries a platform. */
export interface BrandPrincipal {
  companyId: string;
  via: 'api_key' | 'oauth';
  credentialId: string;
  tokenPlatformId?: string | null;
}

/** Verifies `Authorization: Bearer` tokens; the OAuth module provides it (src/composition.ts passes it in). */
export interface BearerTokenVerifier {
  verify(token: string): Promise<BrandPrincipal | null>;
}

export interface PlatformKeyPrincipal {
  platformId: string;
  keyId: string;
}

/** Query parameters that would carry a credential in a URL, where it would leak into logs and history. */
const CREDENTIAL_QUERY_PARAMS = ['api_key', 'apikey', 'apiKey', 'key', 'x-api-key', 'access_token', 'token'];
const CREDENTIALS_IN_QUERY = 'credentials must be sent in a header, never in the query string';

/** The protection space of the brand routes, named in their Bearer challenges. */
const BRAND_REALM = 'brand API';

/**
 * A brand route's 401, in the API's error shape, with the challenge RFC 6750 3 asks for:
 * `Bearer realm` alone when no bearer token was tried (no credentials, an X-Api-Key, another
 * scheme), with `error="invalid_token"` when a bearer token was presented and is not good, and
 * `error="invalid_request"` when the request is malformed (a credential in the query, two
 * credentials). The message doubles as error_description, minus the characters it cannot hold.
 */
function brandUnauthorized(message: string, error?: 'invalid_token' | 'invalid_request'): ApiError {
  const challenge = error
    ? `Bearer realm="${BRAND_REALM}", error="${error}", error_description="${message.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, "'")}"`
    : `Bearer realm="${BRAND_REALM}"`;
  return new ApiError(401, 'unauthorized', message, {}, { 'WWW-Authenticate': challenge });
}

const CACHE_TTL_MS = 60_000;
/** Far above the keys and platforms a deployment has; a bound all the same, so memory cannot grow without one. */
const CACHE_MAX_ENTRIES = 50_000;

/** Found records for a minute, least recently used out first past the bound. Misses are never kept. */
const recordCache = <T extends object>() => boundedCache<T>(CACHE_MAX_ENTRIES, CACHE_TTL_MS);

/**
 * The one authentication layer of the service: brand keys, OAuth bearer tokens (through a
 * pluggable verifier), platform keys and the X-Platform-Id header. Credential and platform
 * lookups are served from memory and dropped on every instance when they change.
 */
export class Authenticator {
  private readonly brandKeys = recordCache<BrandKeyRecord>();
  private readonly platformKeys = recordCache<PlatformKeyRecord>();
  private readonly platforms = recordCache<PlatformRecord>();

  constructor(
    private readonly db: Db,
    private readonly keyEnvironment: KeyEnvironment,
    bus: InvalidationBus,
    private readonly usage: UsageRecorder,
    /** Checks `Authorization: Bearer` tokens (src/oauth/bearer.ts); without one every bearer token is refused. */
    public bearerVerifier?: BearerTokenVerifier,
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

  /** The brand behind an API key or OAuth access token; every refusal is a 401 with a Bearer challenge. */
  async authenticateBrand(headers: IncomingHttpHeaders, query: unknown): Promise<BrandPrincipal> {
    if (hasCredentialsInQuery(query)) throw brandUnauthorized(CREDENTIALS_IN_QUERY, 'invalid_request');
    const apiKey = singleHeader(headers['x-api-key']);
    const authorization = singleHeader(headers.authorization);
    if (apiKey !== undefined && authorization !== undefined) {
      throw brandUnauthorized('send either X-Api-Key or Authorization, not both', 'invalid_request');
    }
    if (authorization !== undefined) return this.authenticateBearer(authorization);
    if (apiKey === undefined || apiKey === '') {
      throw brandUnauthorized('missing credentials: send an API key in X-Api-Key or an OAuth access token in Authorization');
    }
    if (apiKey.startsWith(PLATFORM_KEY_MARKER)) {
      throw brandUnauthorized('platform keys are only for POST /v1/platform/brands; brand routes take a brand API key or OAuth token');
    }
    const expectedPrefix = brandKeyPrefix(this.keyEnvironment);
    const shapeProblem = checkKeyShape(apiKey, expectedPrefix);
    if (shapeProblem) throw brandUnauthorized(`invalid API key: ${shapeProblem}`);

    const keyHash = hashSecret(apiKey);
    const record = await this.cached(this.brandKeys, keyHash, () => findActiveBrandKey(this.db, keyHash));
    if (!record || !constantTimeEqual(record.keyHash, keyHash) || record.environment !== this.keyEnvironment) {
      throw brandUnauthorized('invalid API key: unknown or revoked');
    }
    this.usage.keyUsed('brand_api_keys', record.keyId);
    return { companyId: record.companyId, via: 'api_key', credentialId: record.keyId };
  }

  private async authenticateBearer(authorization: string): Promise<BrandPrincipal> {
    const [scheme = '', ...rest] = authorization.trim().split(/\s+/);
    if (scheme.toLowerCase() !== 'bearer') throw brandUnauthorized('Authorization must be "Bearer <access token>"');
    const token = rest.join(' ');
    if (!/^[A-Za-z0-9._~+/-]+=*$/.test(token))
      throw brandUnauthorized('invalid access token: not a bearer token (RFC 6750 2.1)', 'invalid_token');
    const principal = this.bearerVerifier ? await this.bearerVerifier.verify(token) : null;
    if (!principal) throw brandUnauthorized('invalid access token: unknown, expired or revoked', 'invalid_token');
    return principal;
  }

  async authenticatePlatformKey(headers: IncomingHttpHeaders, query: unknown): Promise<PlatformKeyPrincipal> {
    if (hasCredentialsInQuery(query)) throw unauthorized(CREDENTIALS_IN_QUERY);
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
    if (!platform?.active) {
      throw new ApiError(400, errorCode, 'X-Platform-Id is not an active platform');
    }
    return platform;
  }

  /** The PlatformCompany link of SPEC 2.6: upserted on the first valid call of a brand on a platform. */
  async linkBrandToPlatform(platform: PlatformRecord, brand: BrandPrincipal): Promise<void> {
    await this.usage.platformSeen(platform.id, brand.companyId);
  }

  async findPlatform(platformId: string): Promise<PlatformRecord | undefined> {
    return this.cached(this.platforms, platformId, () => findPlatform(this.db, platformId));
  }

  private async cached<T extends object>(
    cache: LRUCache<string, T>,
    key: string,
    load: () => Promise<T | undefined>,
  ): Promise<T | undefined> {
    const hit = cache.get(key);
    if (hit) return hit;
    const value = await load();
    // Misses are not cached: a key issued a moment ago must work at once.
    if (value !== undefined) cache.set(key, value);
    return value;
  }
}

function singleHeader(value: string | string[] | undefined): string | undefined {
  if (Array.isArray(value)) {
    if (value.length !== 1) return undefined;
    return value[0];
  }
  return value;
}

function hasCredentialsInQuery(query: unknown): boolean {
  if (!query || typeof query !== 'object') return false;
  const names = Object.keys(query as Record<string, unknown>).map((name) => name.toLowerCase());
  return CREDENTIAL_QUERY_PARAMS.some((param) => names.includes(param.toLowerCase()));
}
