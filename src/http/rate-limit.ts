import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { ApiError } from './errors.js';
import { addOnRequestHooks } from './route-hooks.js';

const WINDOW_MS = 60_000;
const REDIS_NAMESPACE = 'svc-rate-limit-';
/** Bounds the in-process counters (one per key and scope); past it the oldest windows go first. */
const MAX_LOCAL_WINDOWS = 100_000;

/** Route config for routes that are never limited. */
export const UNLIMITED = { rateLimit: false } as const;

/** A route's own limit, in its `config.rateLimit`: requests per minute per key. */
export interface RouteRateLimit {
  max: number;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    rateLimit?: RouteRateLimit | false;
  }
}

/** Where a key stands in its current fixed window. */
export interface WindowCount {
  count: number;
  resetInMs: number;
}

/**
 * Fixed one-minute windows counted in this process. A window starts at a key's first request;
 * Map order is window age, so past the bound the oldest window is dropped.
 */
export class LocalCounters {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(private readonly maxWindows = MAX_LOCAL_WINDOWS) {}

  hit(key: string, now = Date.now()): WindowCount {
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      this.windows.delete(key);
      if (this.windows.size >= this.maxWindows) this.windows.delete(this.windows.keys().next().value!);
      window = { count: 0, resetAt: now + WINDOW_MS };
      this.windows.set(key, window);
    }
    window.count += 1;
    return { count: window.count, resetInMs: window.resetAt - now };
  }
}

// One round trip: the counter, its expiry when new, and the time left.
const REDIS_HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {count, redis.call('PTTL', KEYS[1])}
`;

type RedisWithHit = Redis & {
  svcRateLimitHit(key: string, windowMs: number): Promise<[number, number]>;
};

function withHitCommand(redis: Redis): RedisWithHit {
  const extended = redis as RedisWithHit;
  if (typeof extended.svcRateLimitHit !== 'function') {
    redis.defineCommand('svcRateLimitHit', { numberOfKeys: 1, lua: REDIS_HIT_SCRIPT });
  }
  return extended;
}

/** Counts a key's requests in one scope: in Redis when there is one, else in this process. */
interface Counter {
  hit(key: string): WindowCount | Promise<WindowCount>;
}

/** How long counting stays in process after Redis failed to answer, before Redis is asked again. */
export const REDIS_RETRY_AFTER_MS = 5000;

/**
 * Counters in Redis, shared by every instance; when Redis cannot answer, the same request is
 * counted in process instead, so an outage loosens the limit to per instance rather than
 * failing requests or letting them through uncounted. After a failure (an error, or no answer
 * within the command timeout) Redis is left alone for REDIS_RETRY_AFTER_MS: a silent Redis
 * then costs one command timeout every few seconds, not one per request.
 */
function redisCounter(redis: RedisWithHit, scope: string, onFallback: (error: Error) => void): Counter {
  const local = new LocalCounters();
  let skipRedisUntil = 0;
  return {
    hit: (key) => {
      if (Date.now() < skipRedisUntil) return local.hit(key);
      return redis.svcRateLimitHit(`${REDIS_NAMESPACE}${scope}${key}`, WINDOW_MS).then(
        ([count, ttl]) => ({ count, resetInMs: ttl > 0 ? ttl : WINDOW_MS }),
        (error: Error) => {
          skipRedisUntil = Date.now() + REDIS_RETRY_AFTER_MS;
          onFallback(error);
          return local.hit(key);
        },
      );
    },
  };
}

/** Authenticated callers are limited per brand (platform key, admin credential), everyone else per address. */
function rateLimitKey(request: FastifyRequest): string {
  if (request.brand) return `brand:${request.brand.companyId}`;
  if (request.admin) return `admin:${request.admin.credentialId}`;
  if (request.platformKey) return `platform:${request.platformKey.platformId}`;
  return `ip:${request.ip}`;
}

function answer(reply: FastifyReply, max: number, window: WindowCount, done: HookHandlerDoneFunction): void {
  const resetSeconds = Math.max(1, Math.ceil(window.resetInMs / 1000));
  reply.header('ratelimit-limit', max);
  reply.header('ratelimit-remaining', Math.max(0, max - window.count));
  reply.header('ratelimit-reset', resetSeconds);
  if (window.count <= max) {
    done();
    return;
  }
  reply.header('retry-after', resetSeconds);
  done(new ApiError(429, 'rate_limited', `rate limit of ${max} requests per minute exceeded; retry in ${resetSeconds} s`));
}

function limiter(counter: Counter, max: number): onRequestHookHandler {
  // A callback hook, answered at once when the count is in process: no promise per request.
  return function rateLimit(request, reply, done) {
    const window = counter.hit(rateLimitKey(request));
    if (window instanceof Promise) {
      window.then((counted) => answer(reply, max, counted, done), done);
    } else {
      answer(reply, max, window, done);
    }
  };
}

/**
 * Rate limits for every route registered after this (DESIGN 4): a configurable default per
 * minute, shared by all routes without a limit of their own; a route sets its own with
 * `config.rateLimit: { max }` (the offers route does, counted apart from the default) or none with
 * `config: UNLIMITED` (probes and scrapers reach the operational routes whatever the traffic).
 *
 * The check is the route's last onRequest hook: after the route's own onRequest hooks
 * (authentication), so the brand is known and requests refused by authentication are not
 * counted; before parsing, validation and preHandlers, so a refused request costs little and
 * writes nothing. Over the limit: 429 `rate_limited` with Retry-After; every limited response
 * carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset (IETF draft names).
 *
 * Our own hook rather than @fastify/rate-limit's: see docs/decisions.md, "Rate limiter".
 */
export function installRateLimits(
  app: FastifyInstance,
  { config, redis }: { config: Pick<Config, 'defaultRateLimitPerMinute'>; redis: Redis | undefined },
): void {
  let warnedAt = 0;
  const onFallback = (error: Error) => {
    // One line a minute is enough to tell operators limits are per instance for now.
    if (Date.now() - warnedAt < WINDOW_MS) return;
    warnedAt = Date.now();
    app.log.warn({ err: error }, 'Redis rate-limit store unavailable; counting in process');
  };
  const counters = new Map<string, Counter>();
  const counterFor = (scope: string): Counter => {
    let counter = counters.get(scope);
    if (!counter) {
      counter = redis ? redisCounter(withHitCommand(redis), scope, onFallback) : new LocalCounters();
      counters.set(scope, counter);
    }
    return counter;
  };
  const defaultLimiter = limiter(counterFor(''), config.defaultRateLimitPerMinute);

  app.addHook('onRoute', (route) => {
    const setting = route.config?.rateLimit;
    if (setting === false) return;
    // Keyed by path alone, so a GET route and its HEAD route share one budget.
    const hook = setting ? limiter(counterFor(`${route.url}-`), setting.max) : defaultLimiter;
    addOnRequestHooks(route, { last: [hook] });
  });
}
