import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../app.js';
import { describeEachDatabase, testConfig } from '../../test/support/harness.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/databases.js';
import { createBrand, createPlatform } from '../../test/support/factories.js';

describeEachDatabase('operability', (use) => {
  it('answers an unknown route with 404 not_found in the spec shape and a request id', async () => {
    const response = await use().app.inject({ method: 'GET', url: '/v1/nothing-here' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({
      error: 'not_found',
      message: 'no route GET /v1/nothing-here',
      requestId: response.headers['x-request-id'],
    });
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const response = await use().app.inject({ method: 'GET', url: '/v1/platform/brands' });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('POST');
    expect(response.json()).toMatchObject({ error: 'method_not_allowed' });
  });

  it('puts X-Request-Id on every response and keeps a well-formed incoming one', async () => {
    const generated = await use().app.inject({ method: 'GET', url: '/healthz' });
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const kept = await use().app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'trace-123' } });
    expect(kept.headers['x-request-id']).toBe('trace-123');
    const replaced = await use().app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'bad id with spaces' } });
    expect(replaced.headers['x-request-id']).not.toBe('bad id with spaces');
  });

  it('reports health and readiness', async () => {
    expect((await use().app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const ready = await use().app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready', database: use().kind });
  });

  it('serves Prometheus metrics that count requests by route', async () => {
    await use().app.inject({ method: 'GET', url: '/healthz' });
    const response = await use().app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/text\/plain/);
    expect(response.body).toMatch(/http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+/);
    expect(response.body).toContain('process_resident_memory_bytes');
  });

  it('serves an OpenAPI 3.1 document generated from the route schemas, and a rendered reference', async () => {
    const response = await use().app.inject({ method: 'GET', url: '/v1/openapi.json' });
    expect(response.statusCode).toBe(200);
    const document = response.json();
    expect(document.openapi).toBe('3.1.0');
    const sync = document.paths['/v1/platform/brands'].post;
    expect(sync.requestBody.content['application/json'].schema.properties.brands.maxItems).toBe(1000);
    expect(Object.keys(sync.responses)).toEqual(expect.arrayContaining(['200', '400', '401']));
    expect(document.paths['/healthz']).toBeUndefined();
    const page = await use().app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
  });

  it('answers CORS preflights for browser callers with what the API accepts, and exposes the rate-limit headers', async () => {
    for (const [url, method, requested] of [
      ['/v1/platform/brands', 'POST', 'x-api-key,content-type'],
      ['/v1/campaigns/offers?type=post-purchase', 'GET', 'x-api-key,x-platform-id'],
    ] as const) {
      const preflight = await use().app.inject({
        method: 'OPTIONS',
        url,
        headers: { origin: 'https://shop.example', 'access-control-request-method': method, 'access-control-request-headers': requested },
      });
      expect(preflight.statusCode, url).toBe(204);
      expect(preflight.body, url).toBe('');
      expect(preflight.headers, url).toMatchObject({
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'GET, POST, OPTIONS',
        'access-control-allow-headers': 'Content-Type, X-Api-Key, Authorization, X-Platform-Id, X-Request-Id',
        'access-control-max-age': '600',
      });
    }
    const simple = await use().app.inject({ method: 'GET', url: '/v1/openapi.json', headers: { origin: 'https://shop.example' } });
    expect(simple.headers['access-control-expose-headers']).toMatch(/RateLimit-Remaining/);
    expect(simple.headers['access-control-expose-headers']).toMatch(/Retry-After/);
  });

  it('lets browsers read refusals and unknown paths too', async () => {
    for (const [url, status, error] of [
      ['/v1/campaigns/offers?type=post-purchase', 401, 'unauthorized'],
      ['/v1/no-such-thing', 404, 'not_found'],
    ] as const) {
      const response = await use().app.inject({ method: 'GET', url, headers: { origin: 'https://shop.example' } });
      expect(response.statusCode).toBe(status);
      expect(response.json()).toMatchObject({ error });
      expect(response.headers['access-control-allow-origin']).toBe('*');
      expect(response.headers['access-control-expose-headers']).toBe(
        'X-Request-Id, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, WWW-Authenticate',
      );
    }
  });

  it('refuses a preflight without Origin or Access-Control-Request-Method in the API error shape', async () => {
    for (const headers of [{ origin: 'https://shop.example' }, { 'access-control-request-method': 'POST' }]) {
      const response = await use().app.inject({ method: 'OPTIONS', url: '/v1/partners', headers });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        error: 'invalid_request',
        message: expect.stringMatching(/Origin and Access-Control-Request-Method/),
      });
      expect(response.headers['access-control-allow-methods']).toBeUndefined();
    }
  });
});

describe('errors and logs', () => {
  let database: TestDatabase;
  let app: App;
  const lines: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const logStream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    app = await buildApp({ config: testConfig({ DATABASE_URL: database.url!, LOG_LEVEL: 'info' }), database, logStream });
    await app.ready();
  });

  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it('never writes keys, tokens or cookies to the logs', async () => {
    const support = { db: database.db, bus: app.runtime.bus, serviceEnv: 'test' as const };
    const platform = await createPlatform(support);
    const brand = await createBrand(support);
    await app.inject({
      method: 'POST',
      url: '/v1/platform/brands',
      headers: { 'content-type': 'application/json', 'x-api-key': platform.key, cookie: 'session=secret-cookie-value' },
      payload: { brands: [{ domain: 'logged.example' }] },
    });
    await app.inject({
      method: 'POST',
      url: `/v1/platform/brands?api_key=${brand.key}&access_token=tok-in-url`,
      headers: { authorization: 'Bearer bearer-secret-value' },
    });
    const logs = lines.join('');
    expect(logs).toContain('/v1/platform/brands');
    for (const secret of [platform.key, brand.key, 'secret-cookie-value', 'tok-in-url', 'bearer-secret-value']) {
      expect(logs).not.toContain(secret);
    }
  });

  it("logs each answer with the request id and, for an error, its code, so a user's requestId is found", async () => {
    const response = await app.inject({ method: 'GET', url: '/v1/nothing-logged', headers: { 'x-request-id': 'find-me-404' } });
    expect(response.json()).toMatchObject({ error: 'not_found', requestId: 'find-me-404' });
    const mine = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.reqId === 'find-me-404');
    expect(mine.map((line) => line.msg)).toEqual(['incoming request', 'request completed']);
    expect(mine[1]!.res).toEqual({ statusCode: 404, error: 'not_found' });

    await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'find-me-200' } });
    const completed = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.reqId === 'find-me-200' && line.res);
    expect(completed!.res).toEqual({ statusCode: 200 });
  });

  it("redacts an OAuth state, a code, a PKCE challenge and a platform's signature in request lines", async () => {
    const oneTimeValues = 'state=state-secret-1&code=code-secret-2&code_challenge=challenge-secret-3&hmac=hmac-secret-4';
    await app.inject({
      method: 'GET',
      url: `/v1/redacted-callback?${oneTimeValues}&shop=kept.example`,
      headers: { 'x-request-id': 'redacted-callback' },
    });
    const incoming = lines
      .map((line) => JSON.parse(line) as { reqId?: string; req?: { url: string } })
      .find((line) => line.reqId === 'redacted-callback' && line.req);
    expect(incoming!.req!.url).toBe(
      '/v1/redacted-callback?state=%5BREDACTED%5D&code=%5BREDACTED%5D&code_challenge=%5BREDACTED%5D&hmac=%5BREDACTED%5D&shop=kept.example',
    );
    expect(lines.join('')).not.toMatch(/-secret-\d/);
  });

  it('answers 500 internal_error without internals when the database fails, and writes nothing', async () => {
    const support = { db: database.db, bus: app.runtime.bus, serviceEnv: 'test' as const };
    const platform = await createPlatform(support);
    await database.db.schema.alterTable('platform_brands').renameTo('platform_brands_moved').execute();
    try {
      const response = await app.inject({
        method: 'POST',
        url: '/v1/platform/brands',
        headers: { 'content-type': 'application/json', 'x-api-key': platform.key },
        payload: { brands: [{ domain: 'fails.example' }] },
      });
      expect(response.statusCode).toBe(500);
      const body = response.json();
      expect(body).toEqual({ error: 'internal_error', message: expect.any(String), requestId: response.headers['x-request-id'] });
      expect(body.message).not.toMatch(/platform_brands|relation|select|insert/i);
    } finally {
      await database.db.schema.alterTable('platform_brands_moved').renameTo('platform_brands').execute();
    }
    const rows = await database.db.selectFrom('platform_brands').selectAll().where('domain', '=', 'fails.example').execute();
    expect(rows).toEqual([]);
  });

  it('reports not ready, in the spec shape, when the database is unreachable', async () => {
    const unreachable = await createTestDatabase('postgres');
    const broken = await buildApp({
      config: testConfig({ DATABASE_URL: unreachable.url! }),
      database: unreachable,
    });
    await broken.ready();
    await unreachable.close();
    const response = await broken.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ error: 'service_unavailable' });
    await broken.close();
  });
});
