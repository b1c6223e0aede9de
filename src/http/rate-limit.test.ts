import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { buildApp, type App } from '../app.js';
import { LocalCounters } from './rate-limit.js';
import { ADMIN_TOKEN, describeEachDatabase, testConfig } from '../../test/support/harness.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/databases.js';
import { createBrand, createPlatform } from '../../test/support/factories.js';
import { seedPartnerOffer, totalViews } from '../../test/durability/seed.js';

const LIMITS = { OFFERS_RATE_LIMIT_PER_MINUTE: '3', RATE_LIMIT_PER_MINUTE: '4' };

const offers = (app: App, key: string, platformId: string) =>
  app.inject({
    method: 'GET',
    url: '/v1/campaigns/offers?type=post-purchase',
    headers: { 'x-api-key': key, 'x-platform-id': platformId, origin: 'https://shop.example' },
  });

describeEachDatabase(
  'rate limits',
  (use) => {
    let platformId: string;

    beforeAll(async () => {
      ({ platformId } = await createPlatform(use().support));
    });

    it('limits offers per brand: RateLimit headers on every response, then 429 rate_limited with Retry-After and no view', async () => {
      const brand = await createBrand(use().support);
      await seedPartnerOffer(use().support, brand.companyId);
      for (const remaining of ['2', '1', '0']) {
        const response = await offers(use().app, brand.key, platformId);
        expect(response.statusCode).toBe(200);
        expect(response.headers['ratelimit-limit']).toBe('3');
        expect(response.headers['ratelimit-remaining']).toBe(remaining);
        expect(Number(response.headers['ratelimit-reset'])).toBeGreaterThan(0);
        expect(response.headers['access-control-expose-headers']).toMatch(/RateLimit-Remaining/);
      }
      const before = await totalViews(use().db);
      const refused = await offers(use().app, brand.key, platformId);
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toMatchObject({ error: 'rate_limited', message: expect.stringMatching(/3 requests per minute/) });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(refused.headers['ratelimit-limit']).toBe('3');
      expect(refused.headers['ratelimit-remaining']).toBe('0');
      expect(await totalViews(use().db)).toBe(before);

      const other = await createBrand(use().support);
      expect((await offers(use().app, other.key, platformId)).statusCode).toBe(200);
    });

    it('applies the configurable default to other routes, per address when there is no brand', async () => {
      const remoteAddress = `10.9.${crypto.randomInt(255)}.${crypto.randomInt(255)}`;
      const visit = () => use().app.inject({ method: 'GET', url: '/r/AAAAAAAAAAAAAAAAAAAAAA', remoteAddress });
      for (let i = 0; i < 4; i += 1) {
        const response = await visit();
        expect(response.statusCode).toBe(404);
        expect(response.headers['ratelimit-limit']).toBe('4');
      }
      const refused = await visit();
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toMatchObject({ error: 'rate_limited' });
      const elsewhere = await use().app.inject({ method: 'GET', url: '/r/AAAAAAAAAAAAAAAAAAAAAA', remoteAddress: '10.8.0.1' });
      expect(elsewhere.statusCode).toBe(404);
    });

    it('gives the admin token its own budget; a missing or wrong admin token stays on the address budget', async () => {
      const address = () => `10.6.${crypto.randomInt(255)}.${crypto.randomInt(255)}`;
      const busy = address();
      const anonymous = (remoteAddress: string) => use().app.inject({ method: 'GET', url: '/r/AAAAAAAAAAAAAAAAAAAAAA', remoteAddress });
      const admin = (remoteAddress: string, token?: string) =>
        use().app.inject({
          method: 'GET',
          url: '/admin/platforms',
          remoteAddress,
          headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
        });

      for (let i = 0; i < 4; i += 1) expect((await anonymous(busy)).statusCode).toBe(404);
      expect((await anonymous(busy)).statusCode).toBe(429);
      const allowed = await admin(busy, ADMIN_TOKEN);
      expect(allowed.statusCode).toBe(200);
      expect(allowed.headers['ratelimit-limit']).toBe('4');
      expect(allowed.headers['ratelimit-remaining']).toBe('3');
      for (const token of [undefined, 'not-the-admin-token-0123456789']) {
        const refused = await admin(busy, token);
        expect(refused.statusCode).toBe(429);
        expect(refused.json()).toMatchObject({ error: 'rate_limited' });
      }

      // Guessing the token from a fresh address spends that address's budget.
      const guesser = address();
      for (let i = 0; i < 4; i += 1) {
        const wrong = await admin(guesser, `guess-${i}-0123456789abcdef`);
        expect(wrong.statusCode).toBe(401);
        expect(wrong.json()).toMatchObject({ error: 'unauthorized' });
      }
      expect((await admin(guesser, 'guess-4-0123456789abcdef')).statusCode).toBe(429);
      expect((await anonymous(guesser)).statusCode).toBe(429);

      // The admin budget is the token's, whatever the address, and its own: spent, it refuses the
      // token while anonymous callers elsewhere go on.
      for (const remaining of ['2', '1', '0']) expect((await admin(address(), ADMIN_TOKEN)).headers['ratelimit-remaining']).toBe(remaining);
      expect((await admin(address(), ADMIN_TOKEN)).statusCode).toBe(429);
      expect((await anonymous(address())).statusCode).toBe(404);
    });

    it('refuses a brand over its limit before anything else runs: no platform link recorded, no validation', async () => {
      const brand = await createBrand(use().support);
      const list = (query: string, headers: Record<string, string> = {}) =>
        use().app.inject({ method: 'GET', url: `/v1/partners${query}`, headers: { 'x-api-key': brand.key, ...headers } });
      for (let i = 0; i < 4; i += 1) expect((await list('')).statusCode).toBe(200);

      const { platformId: unseen } = await createPlatform(use().support);
      const refused = await list('', { 'x-platform-id': unseen });
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toMatchObject({ error: 'rate_limited' });
      const links = await use().db.selectFrom('platform_companies').selectAll().where('platform_id', '=', unseen).execute();
      expect(links).toEqual([]);

      const invalid = await list('?pageSize=101');
      expect(invalid.statusCode).toBe(429);
      expect(invalid.json()).toMatchObject({ error: 'rate_limited' });
    });

    it('counts a HEAD request once, like its GET', async () => {
      const brand = await createBrand(use().support);
      const request = (method: 'GET' | 'HEAD') =>
        use().app.inject({
          method,
          url: '/v1/campaigns/offers?type=post-purchase',
          headers: { 'x-api-key': brand.key, 'x-platform-id': platformId },
        });
      expect((await request('GET')).headers['ratelimit-remaining']).toBe('2');
      expect((await request('HEAD')).headers['ratelimit-remaining']).toBe('1');
      expect((await request('GET')).headers['ratelimit-remaining']).toBe('0');
      expect((await request('HEAD')).statusCode).toBe(429);
    });

    it('never limits /healthz, /readyz or /metrics', async () => {
      for (const url of ['/healthz', '/readyz', '/metrics']) {
        for (let i = 0; i < 6; i += 1) {
          const response = await use().app.inject({ method: 'GET', url, remoteAddress: '10.7.0.1' });
          expect(response.statusCode).toBe(200);
          expect(response.headers['ratelimit-limit']).toBeUndefined();
        }
      }
    });
  },
  LIMITS,
);

describe('LocalCounters', () => {
  it('counts a key within its one-minute window, then starts a new window', () => {
    const counters = new LocalCounters();
    const start = 1_000_000;
    expect(counters.hit('brand:a', start)).toEqual({ count: 1, resetInMs: 60_000 });
    expect(counters.hit('brand:a', start + 59_000)).toEqual({ count: 2, resetInMs: 1_000 });
    expect(counters.hit('brand:b', start + 59_000)).toEqual({ count: 1, resetInMs: 60_000 });
    expect(counters.hit('brand:a', start + 60_000)).toEqual({ count: 1, resetInMs: 60_000 });
  });

  it('keeps at most its bound of windows, dropping the oldest', () => {
    const counters = new LocalCounters(2);
    counters.hit('first', 0);
    counters.hit('second', 1);
    counters.hit('second', 2);
    counters.hit('third', 3);
    expect(counters.hit('second', 4).count).toBe(3);
    expect(counters.hit('first', 5).count).toBe(1);
  });
});

describe('rate limits with REDIS_URL', () => {
  let database: TestDatabase;
  const apps: App[] = [];

  const start = async (redisUrl: string) => {
    const app = await buildApp({
      config: testConfig({ ...LIMITS, REDIS_URL: redisUrl, DATABASE_URL: database.url! }),
      database,
    });
    await app.ready();
    apps.push(app);
    return app;
  };

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
  });

  afterAll(async () => {
    for (const app of apps) await app.close();
    await database.close();
  });

  it('shares the counters between instances through Redis', async () => {
    const first = await start('redis://127.0.0.1:6379');
    const second = await start('redis://127.0.0.1:6379');
    const support = { db: database.db, bus: first.runtime.bus, serviceEnv: first.runtime.config.serviceEnv };
    const { platformId } = await createPlatform(support);
    const brand = await createBrand(support);
    expect((await offers(first, brand.key, platformId)).statusCode).toBe(200);
    expect((await offers(first, brand.key, platformId)).statusCode).toBe(200);
    const third = await offers(second, brand.key, platformId);
    expect(third.statusCode).toBe(200);
    expect(third.headers['ratelimit-remaining']).toBe('0');
    expect((await offers(second, brand.key, platformId)).statusCode).toBe(429);
    expect((await offers(first, brand.key, platformId)).statusCode).toBe(429);
  });

  it('keeps each window in Redis under a key that expires with the window', async () => {
    const app = await start('redis://127.0.0.1:6379');
    const support = { db: database.db, bus: app.runtime.bus, serviceEnv: app.runtime.config.serviceEnv };
    const { platformId } = await createPlatform(support);
    const brand = await createBrand(support);
    const sentAt = performance.now();
    expect((await offers(app, brand.key, platformId)).statusCode).toBe(200);
    const redis = new Redis('redis://127.0.0.1:6379');
    try {
      const [key, ...others] = await redis.keys(`svc-rate-limit-*brand:${brand.companyId}`);
      expect(others).toEqual([]);
      expect(await redis.get(key!)).toBe('1');
      const ttl = await redis.pttl(key!);
      // The window's 60 s, less what has passed since the request, however slow the machine was meanwhile.
      expect(ttl).toBeGreaterThan(60_000 - (performance.now() - sentAt) - 50);
      expect(ttl).toBeLessThanOrEqual(60_000);
    } finally {
      redis.disconnect();
    }
  });

  it('falls back to counting in process when Redis cannot be reached, instead of failing requests', async () => {
    const app = await start('redis://127.0.0.1:1');
    const support = { db: database.db, bus: app.runtime.bus, serviceEnv: app.runtime.config.serviceEnv };
    const { platformId } = await createPlatform(support);
    const brand = await createBrand(support);
    for (const remaining of ['2', '1', '0']) {
      const response = await offers(app, brand.key, platformId);
      expect(response.statusCode).toBe(200);
      expect(response.headers['ratelimit-remaining']).toBe(remaining);
    }
    expect((await offers(app, brand.key, platformId)).statusCode).toBe(429);
  });
});
