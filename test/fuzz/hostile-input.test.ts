import { Writable } from 'node:stream';
import fc from 'fast-check';
import { sql } from 'kysely';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { seedPartnerOffer } from '../durability/seed.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { createBrand, createPlatform } from '../support/factories.js';
import { ADMIN_TOKEN, testConfig } from '../support/harness.js';

/**
 * Property-based hostile input against every public route, on PostgreSQL: random and malformed
 * headers, query strings, JSON bodies and credentials. Every answer is 2xx/3xx or a 4xx in the
 * spec's shape (OAuth endpoints: RFC 6749's), never 5xx; a 4xx writes no row; no secret is
 * echoed in a response or written to the log.
 */

const RUNS = 60;

/** Routes that answer some refusals with an HTML page by design (a shopper or a browser reads them). */
const HTML_ALLOWED = [/^\/r\//, /^\/v1\/oauth\/authorize/, /^\/plugin\//];
const OAUTH_JSON = [/^\/v1\/oauth\/(token|revoke)/];

interface Secrets {
  brandKey: string;
  otherBrandKey: string;
  platformKey: string;
  clientSecret: string;
  accessToken: string;
  refreshToken: string;
}

/** Strings that can travel in an HTTP header. */
const headerText = fc.stringMatching(/^[\x20-\x7e]{0,120}$/);
const hostileKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'brands', 'domain', 'status', 'platformId', 'businessName');
const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', '../../etc/passwd', "' or 1=1 --", '<script>alert(1)</script>', '%00', 'NaN', '-1', '1e309', '\ud800'),
  fc.integer({ min: 100, max: 2_000 }).map((n) => 'x'.repeat(n)),
);
const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    hostileString,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(hostileKey, fc.string({ maxLength: 10 })), tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** Raw bodies no JSON parser should accept quietly: deep nesting, invalid UTF-8, huge, truncated. */
const rawBody = fc.oneof(
  fc.integer({ min: 100, max: 20_000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
  fc.integer({ min: 100, max: 5_000 }).map((depth) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)),
  fc.uint8Array({ minLength: 1, maxLength: 200 }).map((bytes) => Buffer.concat([Buffer.from('{"brands":[{"domain":"'), Buffer.from(bytes), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}]}')])),
  fc.constantFrom('{', '{"brands":', 'null', '[]', '"x"', '{"__proto__":{"admin":true},"brands":[]}', '{"constructor":{"prototype":{"polluted":1}}}'),
  fc.integer({ min: 1_048_000, max: 1_100_000 }).map((size) => JSON.stringify({ brands: [{ domain: 'a.example', businessName: 'x'.repeat(size) }] })),
  fc.integer({ min: 1_001, max: 3_000 }).map((n) => JSON.stringify({ brands: Array.from({ length: n }, (_, i) => ({ domain: `d${i}.example` })) })),
);

const query = fc
  .dictionary(fc.oneof(fc.constantFrom('status', 'pageIndex', 'pageSize', 'type', 'api_key', 'access_token', '__proto__', 'constructor', 'domain', 'platformId'), fc.string({ maxLength: 8 })), fc.oneof(hostileString, fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 })), { maxKeys: 5 })
  .map((entries) => {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(entries)) for (const one of [value].flat()) params.append(name, String(one).slice(0, 500));
    const text = params.toString();
    return text ? `?${text}` : '';
  });

function credentials(secrets: Secrets) {
  return fc.oneof(
    fc.constant({}),
    fc.constant({ 'x-api-key': secrets.brandKey }),
    fc.constant({ 'x-api-key': secrets.platformKey }),
    fc.constant({ authorization: `Bearer ${secrets.accessToken}` }),
    fc.constant({ 'x-api-key': secrets.brandKey, authorization: `Bearer ${secrets.accessToken}` }),
    headerText.map((text) => ({ 'x-api-key': `svc_test_${text}` })),
    headerText.map((text) => ({ 'x-api-key': `svc_platform_test_${text}` })),
    headerText.map((text) => ({ 'x-api-key': text })),
    headerText.map((text) => ({ authorization: `Bearer ${text}` })),
    headerText.map((text) => ({ authorization: text })),
    headerText.map((text) => ({ authorization: `Basic ${Buffer.from(text).toString('base64')}` })),
  );
}

const platformHeader = (platformId: string) =>
  fc.oneof(
    fc.constant({}),
    fc.constant({ 'x-platform-id': platformId }),
    fc.constant({ 'x-platform-id': platformId.toUpperCase() }),
    fc.uuid().map((id) => ({ 'x-platform-id': id })),
    headerText.map((text) => ({ 'x-platform-id': text })),
  );

const extraHeaders = fc.dictionary(
  fc.constantFrom('content-type', 'x-request-id', 'accept', 'origin', 'cookie', 'x-forwarded-for', 'content-encoding', 'transfer-encoding-x', 'x-custom'),
  fc.oneof(headerText, fc.constantFrom('application/json', 'application/json; charset=utf-16', 'text/plain', 'application/x-www-form-urlencoded', 'gzip', '*/*')),
  { maxKeys: 3 },
);

describe('hostile input against every public route', () => {
  let database: TestDatabase;
  let app: App;
  let secrets: Secrets;
  let platformId: string;
  let clientId: string;
  const logLines: string[] = [];
  let countAll: () => Promise<string>;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const logStream = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(chunk.toString());
        done();
      },
    });
    // No background jobs: their writes would blur the comparison of row counts around each request.
    app = await buildApp({ config: testConfig({ DATABASE_URL: database.url!, LOG_LEVEL: 'debug', RUN_BACKGROUND_JOBS: 'false' }), database, logStream });
    await app.ready();
    const support = { db: database.db, bus: app.services.bus, serviceEnv: 'test' as const };
    const platform = await createPlatform(support);
    platformId = platform.platformId;
    const brand = await createBrand(support);
    const other = await createBrand(support);
    for (let i = 0; i < 2; i += 1) await seedPartnerOffer(support, brand.companyId);

    const registered = await app.inject({
      method: 'POST',
      url: '/admin/oauth-clients',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { name: 'Fuzz client', redirectUris: ['https://app.example/callback'], confidential: true, companyId: brand.companyId },
    });
    expect(registered.statusCode).toBe(201);
    const client = registered.json() as { clientId: string; clientSecret: string };
    clientId = client.clientId;
    const token = await app.inject({
      method: 'POST',
      url: '/v1/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }).toString(),
    });
    expect(token.statusCode).toBe(200);
    const issued = token.json() as { access_token: string; refresh_token?: string };
    secrets = {
      brandKey: brand.key,
      otherBrandKey: other.key,
      platformKey: platform.key,
      clientSecret: client.clientSecret,
      accessToken: issued.access_token,
      refreshToken: issued.refresh_token ?? issued.access_token,
    };

    // One statement counting every table: cheap enough to take before and after each request.
    const tables = await sql<{ name: string }>`
      select table_name as name from information_schema.tables
      where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`.execute(database.db);
    const counting = sql.raw(`select ${tables.rows.map((t) => `(select count(*) from "${t.name}")`).join(` || ',' || `)} as counts`);
    countAll = async () => ((await counting.execute(database.db)).rows[0] as { counts: string }).counts;
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  const everySecret = () => [...Object.values(secrets), ADMIN_TOKEN];

  /** Sends one request and checks everything that must hold for any input. */
  async function probe(options: InjectOptions): Promise<LightMyRequestResponse> {
    const before = await countAll();
    const response = await app.inject(options);
    const url = String(options.url);
    const where = `${options.method} ${url.slice(0, 200)} → ${response.statusCode} ${response.body.slice(0, 300)}`;
    expect(response.statusCode, where).toBeLessThan(500);
    const echoed = `${response.body}\n${JSON.stringify(response.headers)}`;
    for (const secret of everySecret()) expect(echoed.includes(secret), `${where} echoes a secret`).toBe(false);
    if (response.statusCode >= 400) {
      expect(await countAll(), `${where} wrote rows`).toBe(before);
      const type = String(response.headers['content-type'] ?? '');
      if (HTML_ALLOWED.some((pattern) => pattern.test(url)) && type.startsWith('text/html')) return response;
      expect(type, where).toMatch(/^application\/json/);
      const body = response.json() as Record<string, unknown>;
      if (OAUTH_JSON.some((pattern) => pattern.test(url))) {
        expect(typeof body.error, where).toBe('string');
        expect(typeof body.error_description, where).toBe('string');
      } else {
        expect(typeof body.error, where).toBe('string');
        expect(typeof body.message, where).toBe('string');
      }
    }
    return response;
  }

  const property = <T>(arbitrary: fc.Arbitrary<T>, run: (value: T) => Promise<unknown>) =>
    fc.assert(fc.asyncProperty(arbitrary, async (value) => void (await run(value))), { numRuns: RUNS });

  it('POST /v1/platform/brands: random credentials, headers and bodies', async () => {
    await property(
      fc.record({ creds: credentials(secrets), extra: extraHeaders, body: fc.oneof(hostileJson.map((v) => JSON.stringify(v)), rawBody), query }),
      ({ creds, extra, body, query: q }) =>
        probe({ method: 'POST', url: `/v1/platform/brands${q}`, headers: { 'content-type': 'application/json', ...extra, ...creds }, payload: body }),
    );
  }, 120_000);

  it('POST /v1/platform/brands with the valid platform key: hostile bodies that must be refused whole', async () => {
    await property(fc.oneof(rawBody, hostileJson.map((v) => JSON.stringify({ brands: [v, { domain: 'x'.repeat(101) }] }))), (body) =>
      probe({ method: 'POST', url: '/v1/platform/brands', headers: { 'content-type': 'application/json', 'x-api-key': secrets.platformKey }, payload: body }),
    );
  }, 120_000);

  for (const path of ['/v1/partners', '/v1/campaigns', '/v1/discover/partner/recommendations', '/v1/campaigns/offers']) {
    it(`GET ${path}: random credentials, X-Platform-Id, headers and query strings`, async () => {
      await property(fc.record({ creds: credentials(secrets), platform: platformHeader(platformId), extra: extraHeaders, query }), ({ creds, platform, extra, query: q }) =>
        probe({ method: 'GET', url: `${path}${q}`, headers: { ...extra, ...platform, ...creds } }),
      );
    }, 120_000);
  }

  it('GET /r/{token}: random and damaged tokens', async () => {
    await property(fc.oneof(fc.string({ maxLength: 300 }), fc.base64String({ maxLength: 200 }), fc.constantFrom('..', '%2e%2e', '%00', 'a'.repeat(250))), (token) =>
      probe({ method: 'GET', url: `/r/${encodeURIComponent(token) || 'x'}` }),
    );
  }, 120_000);

  it('OAuth authorize, token and revoke: random parameters, bodies and client credentials', async () => {
    const oauthParams = fc.dictionary(
      fc.constantFrom('response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method', 'platform_id', 'grant_type', 'code', 'code_verifier', 'refresh_token', 'client_secret', 'token', 'token_type_hint', '__proto__'),
      fc.oneof(hostileString, fc.constantFrom(clientId, 'code', 'S256', 'plain', 'authorization_code', 'refresh_token', 'client_credentials', 'password', 'https://app.example/callback', secrets.refreshToken)),
      { maxKeys: 7 },
    );
    await property(
      fc.record({
        params: oauthParams,
        route: fc.constantFrom('GET /v1/oauth/authorize', 'POST /v1/oauth/authorize', 'POST /v1/oauth/token', 'POST /v1/oauth/revoke'),
        asJson: fc.boolean(),
        creds: credentials(secrets),
        extra: extraHeaders,
      }),
      ({ params, route, asJson, creds, extra }) => {
        const [method, path] = route.split(' ') as ['GET' | 'POST', string];
        const form = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
        if (method === 'GET') return probe({ method, url: `${path}?${form}`, headers: { ...extra, ...creds } });
        return probe({
          method,
          url: path,
          headers: { ...extra, ...creds, 'content-type': asJson ? 'application/json' : 'application/x-www-form-urlencoded' },
          payload: asJson ? JSON.stringify(params) : form,
        });
      },
    );
  }, 120_000);

  it('admin API without, with a wrong and with the right token: random paths, ids and bodies', async () => {
    const adminRoute = fc.constantFrom(
      'GET /admin/platforms',
      'POST /admin/platforms',
      'GET /admin/platforms/:id',
      'PATCH /admin/platforms/:id',
      'POST /admin/platforms/:id/activate',
      'POST /admin/platforms/:id/keys',
      'POST /admin/platform-keys/:id/revoke',
      'GET /admin/platforms/:id/brands',
      'GET /admin/platforms/:id/companies',
      'POST /admin/companies',
      'GET /admin/companies/:id',
      'PATCH /admin/companies/:id',
      'POST /admin/companies/:id/keys',
      'POST /admin/brand-keys/:id/revoke',
      'POST /admin/oauth-clients',
      'GET /admin/oauth-clients',
    );
    await property(
      fc.record({
        route: adminRoute,
        id: fc.oneof(fc.uuid(), fc.string({ minLength: 1, maxLength: 60 }), fc.constantFrom('__proto__', 'constructor', '..')),
        token: fc.oneof(fc.constant(undefined), fc.constant(ADMIN_TOKEN), headerText, fc.constant(`${ADMIN_TOKEN}x`), fc.constant(secrets.brandKey)),
        body: fc.oneof(hostileJson.map((v) => JSON.stringify(v)), rawBody),
        query,
      }),
      ({ route, id, token, body, query: q }) => {
        const [method, path] = route.split(' ') as ['GET' | 'POST' | 'PATCH', string];
        const url = `${path.replace(':id', encodeURIComponent(id))}${q}`;
        const headers: Record<string, string> = { 'content-type': 'application/json', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) };
        return probe({ method, url, headers, ...(method === 'GET' ? {} : { payload: body }) });
      },
    );
  }, 180_000);

  it('the plugin\'s public pages and calls: random query strings and bodies', async () => {
    await property(
      fc.record({ route: fc.constantFrom('GET /plugin/v2/embed', 'GET /plugin/v2/return', 'GET /plugin/v2.0.0/loader.js', 'GET /plugin/assets/x'), query, extra: extraHeaders }),
      ({ route, query: q, extra }) => {
        const [method, path] = route.split(' ') as ['GET', string];
        return probe({ method, url: `${path}${q}`, headers: extra });
      },
    );
  }, 120_000);

  it('memory stays bounded and no key or token reaches the log', async () => {
    // A further burst of the largest bodies, after everything above.
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 40; i += 1) {
      await probe({
        method: 'POST',
        url: '/v1/platform/brands',
        headers: { 'content-type': 'application/json', 'x-api-key': secrets.platformKey },
        payload: JSON.stringify({ brands: [{ domain: 'a.example', businessName: 'x'.repeat(1_040_000) }] }),
      });
    }
    // Credentials the service issues, in parameters whose names say nothing about them, every run.
    // (The admin token is chosen by the operator and has no format to recognize; docs/security.md.)
    for (const secret of Object.values(secrets)) {
      await probe({ method: 'GET', url: `/v1/partners?note=${encodeURIComponent(secret)}`, headers: { 'x-api-key': secrets.brandKey } });
      await probe({ method: 'GET', url: `/v1/oauth/authorize?state=${encodeURIComponent(secret)}&client_id=${clientId}` });
    }
    const grown = process.memoryUsage().heapUsed - before;
    expect(grown).toBeLessThan(100 * 1024 * 1024);

    const log = logLines.join('');
    expect(log.length).toBeGreaterThan(0);
    // The log did see the requests: their ids and routes are there, their credentials are not.
    expect(log).toContain('/v1/platform/brands');
    for (const secret of everySecret()) {
      const line = logLines.find((entry) => entry.includes(secret));
      expect(line?.replaceAll(secret, '<SECRET>'), `log contains ${secret.slice(0, 12)}…`).toBeUndefined();
    }
  }, 120_000);
});
