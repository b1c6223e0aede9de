import crypto from 'node:crypto';
import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, describeEachDatabase, startTestApp, stopTestApp, type TestContext } from '../../test/support/harness.js';
import { createBrand, createPlatform, uniqueId } from '../../test/support/factories.js';
import { registeredRoutes } from '../../test/support/routes.js';
import { hashSecret } from '../shared/keys.js';

type Method = 'GET' | 'POST' | 'PATCH';

function adminCall(context: TestContext, method: Method, url: string, body?: unknown, token: string | null = ADMIN_TOKEN) {
  return context.app.inject({
    method,
    url,
    headers: {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

/** Everything support can write, to prove a refused request wrote nothing. */
async function snapshot(context: TestContext) {
  const { db } = context;
  // last_used_at is the usage recorder's, written in the background after any authentication.
  const withoutUsage = <T extends { last_used_at: unknown }>(rows: T[]) => rows.map((row) => ({ ...row, last_used_at: undefined }));
  return {
    platforms: await db.selectFrom('platforms').selectAll().orderBy('id').execute(),
    platformKeys: withoutUsage(await db.selectFrom('platform_keys').selectAll().orderBy('id').execute()),
    companies: await db.selectFrom('companies').selectAll().orderBy('id').execute(),
    brandKeys: withoutUsage(await db.selectFrom('brand_api_keys').selectAll().orderBy('id').execute()),
  };
}

describeEachDatabase('admin API', (use) => {
  const call = (method: Method, url: string, body?: unknown, token?: string | null) => adminCall(use(), method, url, body, token);

  describe('public API reference', () => {
    it('lists no /admin path and no admin tag in the OpenAPI document the reference page reads', async () => {
      for (const url of ['/v1/openapi.json']) {
        const document = (await use().app.inject({ method: 'GET', url })).json();
        const paths = Object.keys(document.paths);
        expect(paths.length, url).toBeGreaterThan(0);
        expect(
          paths.filter((path) => path.startsWith('/admin')),
          url,
        ).toEqual([]);
        expect(JSON.stringify(document), url).not.toMatch(/"admin"|\/admin/);
      }
    });

    it('has docs/support.md say so, and the support docs describe every admin route the app registers', () => {
      const support = fs.readFileSync(new URL('../../docs/support.md', import.meta.url), 'utf8');
      const oauth = fs.readFileSync(new URL('../../docs/oauth.md', import.meta.url), 'utf8');
      expect(support).toContain('The admin routes are not in the public API reference');
      const adminRoutes = registeredRoutes(use().app).filter((route) => / \/admin(\/|$)/.test(route));
      expect(adminRoutes.length).toBeGreaterThan(10);
      const documented = (route: string) => new RegExp(`(^|[\\s\`])${route.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([\\s\`?]|$)`, 'm');
      const undocumented = adminRoutes
        .map((route) => route.replace(/:([A-Za-z]+)/g, '{$1}'))
        .filter((route) => !documented(route).test(`${support}\n${oauth}`));
      expect(undocumented).toEqual([]);
    });
  });

  describe('platforms', () => {
    it('creates a platform with a generated UUID and defaults, then reads and lists it', async () => {
      const created = await call('POST', '/admin/platforms', { name: 'Loyalty Loop' });
      expect(created.statusCode).toBe(201);
      const platform = created.json();
      expect(platform.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(platform).toMatchObject({
        name: 'Loyalty Loop',
        active: true,
        offerTypes: ['post-purchase'],
        approvedOrigins: [],
        pluginPageUrl: null,
      });

      const read = await call('GET', `/admin/platforms/${platform.id}`);
      expect(read.statusCode).toBe(200);
      expect(read.json()).toMatchObject({ id: platform.id, keys: [] });

      const list = await call('GET', '/admin/platforms');
      expect(list.json().data.map((p: { id: string }) => p.id)).toContain(platform.id);
      expect(list.json().totalRows).toBe(list.json().data.length);
    });

    it('creates with a given id, normalizing origins, and updates only the fields sent', async () => {
      const id = crypto.randomUUID();
      const created = await call('POST', '/admin/platforms', {
        id: id.toUpperCase(),
        name: 'Checkout Two',
        approvedOrigins: ['HTTPS://App.Example/', 'http://localhost:3001'],
        pluginPageUrl: 'https://app.example/partners',
      });
      expect(created.statusCode).toBe(201);
      expect(created.json()).toMatchObject({ id, approvedOrigins: ['https://app.example', 'http://localhost:3001'] });

      const updated = await call('PATCH', `/admin/platforms/${id}`, { name: 'Checkout 2', pluginPageUrl: null });
      expect(updated.statusCode).toBe(200);
      expect(updated.json()).toMatchObject({
        id,
        name: 'Checkout 2',
        pluginPageUrl: null,
        approvedOrigins: ['https://app.example', 'http://localhost:3001'],
      });
    });

    it("deactivates and activates; a deactivated platform's key stops working on the sync endpoint", async () => {
      const { platformId, key } = await createPlatform(use().support);
      const sync = () =>
        use().app.inject({
          method: 'POST',
          url: '/v1/platform/brands',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          payload: { brands: [{ domain: 'toggle.example' }] },
        });
      expect((await sync()).statusCode).toBe(200);

      const off = await call('POST', `/admin/platforms/${platformId}/deactivate`);
      expect(off.statusCode).toBe(200);
      expect(off.json().active).toBe(false);
      expect((await sync()).statusCode).toBe(401);

      const on = await call('POST', `/admin/platforms/${platformId}/activate`);
      expect(on.json().active).toBe(true);
      expect((await sync()).statusCode).toBe(200);
    });

    it('issues a platform key shown once, stores only its hash, and revokes it', async () => {
      const { platformId } = await createPlatform(use().support);
      const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
      const issued = await call('POST', `/admin/platforms/${platformId}/keys`, { expiresAt });
      expect(issued.statusCode).toBe(201);
      const { key, keyId } = issued.json();
      expect(key).toMatch(/^svc_platform_test_[A-Za-z0-9]{32}$/);
      expect(issued.json().expiresAt).toBe(expiresAt);

      const stored = await use().db.selectFrom('platform_keys').selectAll().where('id', '=', keyId).executeTakeFirstOrThrow();
      expect(stored.key_hash).toBe(hashSecret(key));
      expect(JSON.stringify(stored)).not.toContain(key);

      const detail = (await call('GET', `/admin/platforms/${platformId}`)).json();
      const listed = detail.keys.find((k: { keyId: string }) => k.keyId === keyId);
      expect(listed).toMatchObject({ lastFour: key.slice(-4), revokedAt: null, expiresAt });
      expect(JSON.stringify(detail)).not.toContain(key);

      const revoked = await call('POST', `/admin/platform-keys/${keyId}/revoke`);
      expect(revoked.statusCode).toBe(200);
      const again = await call('POST', `/admin/platform-keys/${keyId}/revoke`);
      expect(again.json().revokedAt).toBe(revoked.json().revokedAt);

      const sync = await use().app.inject({
        method: 'POST',
        url: '/v1/platform/brands',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        payload: { brands: [] },
      });
      expect(sync.statusCode).toBe(401);
    });

    it('issues a key without a body (no expiry)', async () => {
      const { platformId } = await createPlatform(use().support);
      const issued = await call('POST', `/admin/platforms/${platformId}/keys`);
      expect(issued.statusCode).toBe(201);
      expect(issued.json().expiresAt).toBeNull();
    });
  });

  describe('companies and brand keys', () => {
    it('creates a verified brand with a normalized domain, updates it, issues and revokes a key', async () => {
      const companyId = uniqueId('acme');
      const created = await call('POST', '/admin/companies', {
        companyId,
        domain: `https://www.${companyId}.Example/shop`,
        businessName: 'Acme Outdoor',
        categories: ['Outdoor', 'Apparel'],
        productCount: 80,
        platform: 'Shopify',
      });
      expect(created.statusCode).toBe(201);
      expect(created.json()).toMatchObject({
        companyId,
        domain: `${companyId}.example`,
        businessName: 'Acme Outdoor',
        logoImageUrl: null,
        categories: ['Outdoor', 'Apparel'],
        productCount: 80,
        platform: 'Shopify',
      });

      const updated = await call('PATCH', `/admin/companies/${companyId}`, { country: 'Canada', productCount: null });
      expect(updated.json()).toMatchObject({ companyId, country: 'Canada', productCount: null, businessName: 'Acme Outdoor' });

      const issued = await call('POST', `/admin/companies/${companyId}/keys`, { name: 'Checkout integration' });
      expect(issued.statusCode).toBe(201);
      const { key, keyId } = issued.json();
      expect(key).toMatch(/^svc_test_[A-Za-z0-9]{32}$/);
      expect(issued.json().name).toBe('Checkout integration');

      const authenticated = await use().runtime.auth.authenticateBrand({ 'x-api-key': key }, {});
      expect(authenticated.companyId).toBe(companyId);

      const detail = (await call('GET', `/admin/companies/${companyId}`)).json();
      expect(detail.keys).toEqual([
        expect.objectContaining({ keyId, name: 'Checkout integration', lastFour: key.slice(-4), revokedAt: null }),
      ]);

      const revoked = await call('POST', `/admin/brand-keys/${keyId}/revoke`);
      expect(revoked.statusCode).toBe(200);
      await expect(use().runtime.auth.authenticateBrand({ 'x-api-key': key }, {})).rejects.toMatchObject({ statusCode: 401 });
    });
  });

  describe('platform reads', () => {
    let platformId: string;
    let emptyPlatformId: string;

    beforeAll(async () => {
      const platform = await createPlatform(use().support);
      platformId = platform.platformId;
      emptyPlatformId = (await createPlatform(use().support)).platformId;
      await use().app.inject({
        method: 'POST',
        url: '/v1/platform/brands',
        headers: { 'content-type': 'application/json', 'x-api-key': platform.key },
        payload: {
          brands: [
            { domain: 'www.Read-One.example', businessName: 'Read One' },
            { domain: 'read-two.example', status: 'closed' },
          ],
        },
      });
      const brand = await createBrand(use().support);
      await use().db.insertInto('platform_companies').values({ platform_id: platformId, company_id: brand.companyId }).execute();
    });

    it("lists a platform's synced brands in the documented shape", async () => {
      const response = await call('GET', `/admin/platforms/${platformId}/brands`);
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body.totalRows).toBe(2);
      expect(body.data[0]).toEqual({ domain: 'read-one.example', businessName: 'Read One', status: 'active', endDate: null });
      expect(body.data[1]).toEqual({ domain: 'read-two.example', businessName: null, status: 'closed', endDate: expect.any(String) });
      expect(Object.keys(body).sort()).toEqual(['data', 'totalRows']);
    });

    it('filters by the normalized form of the domain given', async () => {
      const response = await call(
        'GET',
        `/admin/platforms/${platformId}/brands?domain=${encodeURIComponent('HTTPS://WWW.read-one.example/x')}`,
      );
      expect(response.json()).toEqual({
        data: [{ domain: 'read-one.example', businessName: 'Read One', status: 'active', endDate: null }],
        totalRows: 1,
      });
      const none = await call('GET', `/admin/platforms/${platformId}/brands?domain=absent.example`);
      expect(none.json()).toEqual({ data: [], totalRows: 0 });
    });

    it('lists the companies linked to a platform in the documented shape', async () => {
      const response = await call('GET', `/admin/platforms/${platformId}/companies`);
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body.totalRows).toBe(1);
      expect(Object.keys(body.data[0]).sort()).toEqual(['companyId', 'firstSeenAt', 'lastSeenAt']);
      expect(new Date(body.data[0].firstSeenAt).toISOString()).toBe(body.data[0].firstSeenAt);
      expect((await call('GET', `/admin/platforms/${emptyPlatformId}/companies`)).json()).toEqual({ data: [], totalRows: 0 });
    });
  });

  describe('refuses bad requests and writes nothing', () => {
    let platformId: string;
    let companyId: string;
    let otherCompanyDomain: string;

    beforeAll(async () => {
      platformId = (await createPlatform(use().support)).platformId;
      companyId = (await createBrand(use().support)).companyId;
      const other = await createBrand(use().support);
      otherCompanyDomain = `${other.companyId}.example`;
    });

    const unknownPlatform = '00000000-0000-4000-8000-00000000abcd';
    const cases: Array<[string, () => [Method, string, unknown?], number, string, RegExp]> = [
      ['platform without a name', () => ['POST', '/admin/platforms', { active: true }], 400, 'invalid_request', /name is required/],
      [
        'platform id not a UUID',
        () => ['POST', '/admin/platforms', { id: 'checkout', name: 'X' }],
        400,
        'invalid_request',
        /id must match format "uuid"/,
      ],
      [
        'unknown platform field',
        () => ['POST', '/admin/platforms', { name: 'X', colour: 'red' }],
        400,
        'invalid_request',
        /unknown field colour/,
      ],
      [
        'unsupported offer type',
        () => ['POST', '/admin/platforms', { name: 'X', offerTypes: ['pre-purchase'] }],
        400,
        'invalid_request',
        /offerTypes\[0\] must be one of post-purchase/,
      ],
      [
        'origin with a path',
        () => ['POST', '/admin/platforms', { name: 'X', approvedOrigins: ['https://app.example/page'] }],
        400,
        'invalid_request',
        /approvedOrigins\[0\] must be an origin only/,
      ],
      [
        'origin that is not a URL',
        () => ['POST', '/admin/platforms', { name: 'X', approvedOrigins: ['app.example'] }],
        400,
        'invalid_request',
        /approvedOrigins\[0\] must be an origin such as/,
      ],
      [
        'plugin page off the approved origins',
        () => ['POST', '/admin/platforms', { name: 'X', approvedOrigins: ['https://a.example'], pluginPageUrl: 'https://b.example/p' }],
        400,
        'invalid_request',
        /pluginPageUrl must be on one of the approved origins/,
      ],
      ['platform id taken', () => ['POST', '/admin/platforms', { id: platformId, name: 'Again' }], 409, 'conflict', /already exists/],
      [
        'empty platform update',
        () => ['PATCH', `/admin/platforms/${platformId}`, {}],
        400,
        'invalid_request',
        /must NOT have fewer than 1 properties/,
      ],
      [
        'update of an unknown platform',
        () => ['PATCH', `/admin/platforms/${unknownPlatform}`, { name: 'Y' }],
        404,
        'not_found',
        /no platform/,
      ],
      [
        'deactivating an unknown platform',
        () => ['POST', `/admin/platforms/${unknownPlatform}/deactivate`],
        404,
        'not_found',
        /no platform/,
      ],
      [
        'platform path id not a UUID',
        () => ['GET', '/admin/platforms/42'],
        400,
        'invalid_request',
        /path parameter platformId must match format "uuid"/,
      ],
      ['reading an unknown platform', () => ['GET', `/admin/platforms/${unknownPlatform}`], 404, 'not_found', /no platform/],
      ['key for an unknown platform', () => ['POST', `/admin/platforms/${unknownPlatform}/keys`, {}], 404, 'not_found', /no platform/],
      [
        'key expiring in the past',
        () => ['POST', `/admin/platforms/${platformId}/keys`, { expiresAt: '2020-01-01T00:00:00Z' }],
        400,
        'invalid_request',
        /expiresAt must be in the future/,
      ],
      [
        'key expiry not a date-time',
        () => ['POST', `/admin/platforms/${platformId}/keys`, { expiresAt: 'tomorrow' }],
        400,
        'invalid_request',
        /expiresAt must match format "date-time"/,
      ],
      [
        'revoking an unknown platform key',
        () => ['POST', `/admin/platform-keys/${crypto.randomUUID()}/revoke`],
        404,
        'not_found',
        /no platform key/,
      ],
      [
        'revoking a key id that is not a UUID',
        () => ['POST', '/admin/brand-keys/abc/revoke'],
        400,
        'invalid_request',
        /path parameter keyId/,
      ],
      ['brands of an unknown platform', () => ['GET', `/admin/platforms/${unknownPlatform}/brands`], 404, 'not_found', /no platform/],
      ['companies of an unknown platform', () => ['GET', `/admin/platforms/${unknownPlatform}/companies`], 404, 'not_found', /no platform/],
      [
        'unknown query parameter on brands',
        () => ['GET', `/admin/platforms/${platformId}/brands?status=active`],
        400,
        'invalid_request',
        /unknown field status/,
      ],
      [
        'company without a domain',
        () => ['POST', '/admin/companies', { companyId: 'no-domain', businessName: 'N' }],
        400,
        'invalid_request',
        /domain is required/,
      ],
      [
        'company id with spaces',
        () => ['POST', '/admin/companies', { companyId: 'a b', domain: 'ab.example', businessName: 'AB' }],
        400,
        'invalid_request',
        /companyId must match pattern/,
      ],
      [
        'company domain empty after normalization',
        () => ['POST', '/admin/companies', { companyId: 'empty-domain', domain: 'https://www./', businessName: 'E' }],
        400,
        'invalid_request',
        /domain is empty after normalization/,
      ],
      [
        'negative product count',
        () => ['POST', '/admin/companies', { companyId: 'neg', domain: 'neg.example', businessName: 'N', productCount: -1 }],
        400,
        'invalid_request',
        /productCount must be >= 0/,
      ],
      [
        'company id taken',
        () => ['POST', '/admin/companies', { companyId, domain: 'fresh-domain.example', businessName: 'Dup' }],
        409,
        'conflict',
        /already exists/,
      ],
      [
        'company domain taken',
        () => ['POST', '/admin/companies', { companyId: 'new-one', domain: otherCompanyDomain, businessName: 'Dup' }],
        409,
        'conflict',
        /already belongs to company/,
      ],
      [
        'update moving onto a taken domain',
        () => ['PATCH', `/admin/companies/${companyId}`, { domain: otherCompanyDomain }],
        409,
        'conflict',
        /already belongs to company/,
      ],
      [
        'update of an unknown company',
        () => ['PATCH', '/admin/companies/nobody', { country: 'France' }],
        404,
        'not_found',
        /no company nobody/,
      ],
      ['reading an unknown company', () => ['GET', '/admin/companies/nobody'], 404, 'not_found', /no company nobody/],
      ['brand key for an unknown company', () => ['POST', '/admin/companies/nobody/keys', {}], 404, 'not_found', /no company nobody/],
      [
        'brand key name empty',
        () => ['POST', `/admin/companies/${companyId}/keys`, { name: '' }],
        400,
        'invalid_request',
        /name must NOT have fewer than 1 characters/,
      ],
      [
        'revoking an unknown brand key',
        () => ['POST', `/admin/brand-keys/${crypto.randomUUID()}/revoke`],
        404,
        'not_found',
        /no brand key/,
      ],
      ['malformed JSON', () => ['POST', '/admin/platforms', '{"name": '], 400, 'invalid_request', /malformed JSON/],
    ];

    for (const [name, request, status, code, message] of cases) {
      it(name, async () => {
        const before = await snapshot(use());
        const [method, url, body] = request();
        const response =
          typeof body === 'string'
            ? await use().app.inject({
                method,
                url,
                headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
                payload: body,
              })
            : await call(method, url, body);
        expect(response.statusCode).toBe(status);
        expect(response.json()).toMatchObject({ error: code });
        expect(response.json().message).toMatch(message);
        expect(await snapshot(use())).toEqual(before);
      });
    }

    for (const [name, token] of [
      ['missing', null],
      ['wrong', 'not-the-admin-token-at-all'],
    ] as const) {
      it(`a ${name} admin token gives 401 on every admin route`, async () => {
        const before = await snapshot(use());
        const someKey = crypto.randomUUID();
        const requests: Array<[Method, string, unknown?]> = [
          ['GET', '/admin/platforms'],
          ['POST', '/admin/platforms', { name: 'Sneaky' }],
          ['GET', `/admin/platforms/${platformId}`],
          ['PATCH', `/admin/platforms/${platformId}`, { name: 'Sneaky' }],
          ['POST', `/admin/platforms/${platformId}/deactivate`],
          ['POST', `/admin/platforms/${platformId}/activate`],
          ['POST', `/admin/platforms/${platformId}/keys`, {}],
          ['POST', `/admin/platform-keys/${someKey}/revoke`],
          ['GET', `/admin/platforms/${platformId}/brands`],
          ['GET', `/admin/platforms/${platformId}/companies`],
          ['POST', '/admin/companies', { companyId: 'sneaky', domain: 'sneaky.example', businessName: 'S' }],
          ['GET', `/admin/companies/${companyId}`],
          ['PATCH', `/admin/companies/${companyId}`, { country: 'Nowhere' }],
          ['POST', `/admin/companies/${companyId}/keys`, {}],
          ['POST', `/admin/brand-keys/${someKey}/revoke`],
        ];
        for (const [method, url, body] of requests) {
          const response = await call(method, url, body, token);
          expect(response.statusCode, `${method} ${url}`).toBe(401);
          expect(response.json().error).toBe('unauthorized');
        }
        expect(await snapshot(use())).toEqual(before);
      });
    }
  });
});

describe('admin API without ADMIN_TOKEN', () => {
  it('answers 404 not_found on every admin route, writes nothing, and stays out of the public OpenAPI document', async () => {
    // Database-independent behaviour: one PostgreSQL database is the quickest to start.
    const context = await startTestApp('postgres', { ADMIN_TOKEN: '' });
    try {
      const before = await snapshot(context);
      for (const [method, url, body] of [
        ['GET', '/admin/platforms'],
        ['POST', '/admin/platforms', { name: 'Hidden' }],
        ['POST', '/admin/companies', { companyId: 'hidden', domain: 'hidden.example', businessName: 'H' }],
      ] as Array<[Method, string, unknown?]>) {
        const response = await adminCall(context, method, url, body);
        expect(response.statusCode).toBe(404);
        expect(response.json()).toMatchObject({ error: 'not_found', message: expect.stringMatching(/ADMIN_TOKEN/) });
      }
      expect(await snapshot(context)).toEqual(before);

      const document = (await context.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
      const paths = Object.keys(document.paths);
      for (const path of [
        '/admin/platforms',
        '/admin/platforms/{platformId}',
        '/admin/platforms/{platformId}/brands',
        '/admin/companies',
      ]) {
        expect(paths).not.toContain(path);
      }
    } finally {
      await stopTestApp(context);
    }
  });
});
