import { createRequire } from 'node:module';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import { ApiError } from './errors.js';

const require = createRequire(import.meta.url);

type IncrCallback = (error: Error | null, result?: { current: number; ttl: number }) => void;

interface Store {
  incr(key: string, callback: IncrCallback, timeWindow: number, max: number): void;
  child(routeOptions: object): Store;
}

type StoreConstructor = new (continueExceeding: boolean, exponentialBackoff: boolean, ...rest: unknown[]) => Store;

// The plugin's own stores; its package exposes them only by path.
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as StoreConstructor;
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as StoreConstructor;

const WINDOW_MS = 60_000;
const REDIS_NAMESPACE = 'svc-rate-limit-';

/** Route config for routes that are never limited. */
export const UNLIMITED = { rateLimit: false } as const;

/**
 * Counters in Redis, shared by every instance; when Redis cannot answer, the same request is
 * counted in process instead, so an outage loosens the limit to per instance rather than
 * failing requests or letting them through uncounted.
 */
function redisWithLocalFallback(redis: Redis, onFallback: (error: Error) => void) {
  class FallbackStore implements Store {
    constructor(
      private readonly shared: Store,
      private readonly local: Store,
    ) {}

    incr(key: string, callback: IncrCallback, timeWindow: number, max: number): void {
      this.shared.incr(
        key,
        (error, result) => {
          if (!error) return callback(null, result);
          onFallback(error);
          this.local.incr(key, callback, timeWindow, max);
        },
        timeWindow,
        max,
      );
    }

    child(routeOptions: object): Store {
      return new FallbackStore(this.shared.child(routeOptions), this.local.child(routeOptions));
    }
  }
  return class RootStore extends FallbackStore {
    constructor() {
      super(new RedisStore(false, false, redis, REDIS_NAMESPACE), new LocalStore(false, false));
    }
  };
}

/** Authenticated callers are limited per brand (or platform key), everyone else per address. */
function rateLimitKey(request: FastifyRequest): string {
  if (request.brand) return `brand:${request.brand.companyId}`;
  if (request.platformKey) return `platform:${request.platformKey.platformId}`;
  return `ip:${request.ip}`;
}

/**
 * Rate limits for every route registered after this (DESIGN 4): a configurable default per
 * minute, which a route overrides with `config.rateLimit` (the offers route does) or turns off
 * with `config: UNLIMITED` (probes and scrapers reach the operational routes whatever the
 * traffic; a route setting costs the other routes nothing, unlike an allow-list callback run on
 * every request). The check is the route's last onRequest hook: after the route's own onRequest
 * hooks (authentication), so the brand is known and requests refused by authentication are not
 * counted; before parsing, validation and preHandlers, so a refused request costs little and
 * writes nothing, and routes without a preHandler skip that stage. Over the limit: 429 `rate_limited`
 * with Retry-After; every limited response carries RateLimit-Limit, RateLimit-Remaining and
 * RateLimit-Reset.
 */
export async function installRateLimits(app: FastifyInstance): Promise<void> {
  const { config, redis } = app.services;
  let warnedAt = 0;
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    max: config.defaultRateLimitPerMinute,
    timeWindow: WINDOW_MS,
    enableDraftSpec: true,
    keyGenerator: rateLimitKey,
    ...(redis
      ? {
          store: redisWithLocalFallback(redis, (error) => {
            // One line a minute is enough to tell operators limits are per instance for now.
            if (Date.now() - warnedAt < WINDOW_MS) return;
            warnedAt = Date.now();
            app.log.warn({ err: error }, 'Redis rate-limit store unavailable; counting in process');
          }),
        }
      : {}),
    errorResponseBuilder: (_request, context) =>
      new ApiError(429, 'rate_limited', `rate limit of ${context.max} requests per minute exceeded; retry in ${context.after}`),
  });
}
