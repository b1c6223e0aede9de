import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { DATABASE_KINDS } from '../../test/support/databases.js';
import { describeEachDatabase, startTestApp, stopTestApp, type TestContext } from '../../test/support/harness.js';
import { createBrand, createPlatform } from '../../test/support/factories.js';
import { issuePlatformKey, revokeKey } from '../auth/service.js';

async function brandsOf(context: TestContext, platformId: string) {
  return context.db
    .selectFrom('platform_brands')
    .select(['domain', 'business_name', 'status', 'end_date'])
    .where('platform_id', '=', platformId)
    .orderBy('domain')
    .execute();
}

function syncRequest(context: TestContext, key: string, body: unknown) {
  return context.app.inject({
    method: 'POST',
    url: '/v1/platform/brands',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    payload: JSON.stringify(body),
  });
}

describeEachDatabase('POST /v1/platform/brands', (use) => {
  let platformId: string;
  let key: string;

  beforeAll(async () => {
    ({ platformId, key } = await createPlatform(use().support));
  });

  const sync = (body: unknown, headers: Record<string, string> = {}, apiKey = key) =>
    use().app.inject({
      method: 'POST',
      url: '/v1/platform/brands',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey, ...headers },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('creates, then updates in place, normalizing every form of the domain to one record', async () => {
    const first = await sync({ brands: [{ domain: 'HTTPS://www.Shop-One.example:8443/path?q=1#frag', businessName: 'Shop One' }] });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ received: 1, created: 1, updated: 0 });

    const second = await sync({ brands: [{ domain: 'shop-one.example' }, { domain: 'http://shop-one.example/other' }] });
    expect(second.json()).toEqual({ received: 2, created: 0, updated: 1 });

    const rows = (await brandsOf(use(), platformId)).filter((row) => row.domain === 'shop-one.example');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ business_name: 'Shop One', status: 'active', end_date: null });
  });

  it('updates one record for an internationalized domain sent as Unicode, punycode, full-width or mixed case', async () => {
    const first = await sync({ brands: [{ domain: 'café.example', businessName: 'Café' }] });
    expect(first.json()).toEqual({ received: 1, created: 1, updated: 0 });
    for (const [form, status] of [
      ['xn--caf-dma.example', 'closed'],
      ['https://www.ＣＡＦÉ．example/menu', 'active'],
      ['XN--CAF-DMA.EXAMPLE', 'closed'],
    ] as const) {
      const again = await sync({ brands: [{ domain: form, status }] });
      expect(again.json(), form).toEqual({ received: 1, created: 0, updated: 1 });
    }
    const rows = (await brandsOf(use(), platformId)).filter((row) => row.domain.includes('caf'));
    expect(rows).toEqual([{ domain: 'xn--caf-dma.example', business_name: 'Café', status: 'closed', end_date: expect.any(Date) }]);
  });

  it('keeps other subdomains and never creates a company record', async () => {
    const companiesBefore = await use()
      .db.selectFrom('companies')
      .select(({ fn }) => fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const response = await sync({ brands: [{ domain: 'https://www.shop.sub.brand.example/' }] });
    expect(response.statusCode).toBe(200);
    const domains = (await brandsOf(use(), platformId)).map((row) => row.domain);
    expect(domains).toContain('shop.sub.brand.example');
    const companiesAfter = await use()
      .db.selectFrom('companies')
      .select(({ fn }) => fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(companiesAfter.n).toBe(companiesBefore.n);
  });

  it('closes with an end date, keeps the row, and reopens on active or omitted status', async () => {
    await sync({ brands: [{ domain: 'closing.example', businessName: 'Closing' }] });
    const closed = await sync({ brands: [{ domain: 'closing.example', status: 'closed' }] });
    expect(closed.json()).toEqual({ received: 1, created: 0, updated: 1 });
    let [row] = (await brandsOf(use(), platformId)).filter((r) => r.domain === 'closing.example');
    expect(row?.status).toBe('closed');
    expect(row?.end_date).toBeInstanceOf(Date);
    expect(row?.business_name).toBe('Closing');

    await sync({ brands: [{ domain: 'closing.example' }] });
    [row] = (await brandsOf(use(), platformId)).filter((r) => r.domain === 'closing.example');
    expect(row).toMatchObject({ status: 'active', end_date: null });

    await sync({ brands: [{ domain: 'closing.example', status: 'closed' }] });
    await sync({ brands: [{ domain: 'closing.example', status: 'active' }] });
    [row] = (await brandsOf(use(), platformId)).filter((r) => r.domain === 'closing.example');
    expect(row).toMatchObject({ status: 'active', end_date: null });
  });

  it('creates an unknown domain as closed when status closed is sent', async () => {
    await sync({ brands: [{ domain: 'born-closed.example', status: 'closed' }] });
    const [row] = (await brandsOf(use(), platformId)).filter((r) => r.domain === 'born-closed.example');
    expect(row?.status).toBe('closed');
    expect(row?.end_date).toBeInstanceOf(Date);
  });

  it('leaves brands that are not in the request untouched, including earlier closures', async () => {
    await sync({ brands: [{ domain: 'kept-a.example' }, { domain: 'kept-b.example', status: 'closed' }] });
    const before = (await brandsOf(use(), platformId)).filter((r) => r.domain.startsWith('kept-'));
    await sync({ brands: [{ domain: 'unrelated.example' }] });
    const after = (await brandsOf(use(), platformId)).filter((r) => r.domain.startsWith('kept-'));
    expect(after).toEqual(before);
  });

  it('lets the later item win when one domain appears twice in a request', async () => {
    const response = await sync({
      brands: [
        { domain: 'twice.example', businessName: 'First', status: 'closed' },
        { domain: 'https://www.twice.example/x', businessName: 'Second' },
      ],
    });
    expect(response.json()).toEqual({ received: 2, created: 1, updated: 0 });
    const rows = (await brandsOf(use(), platformId)).filter((r) => r.domain === 'twice.example');
    expect(rows).toEqual([{ domain: 'twice.example', business_name: 'Second', status: 'active', end_date: null }]);
  });

  it('accepts platformId in the body when it matches the key', async () => {
    const response = await sync({ platformId, brands: [{ domain: 'with-id.example' }] });
    expect(response.statusCode).toBe(200);
  });

  it("keeps one platform's brands apart from another's", async () => {
    const other = await createPlatform(use().support);
    await sync({ brands: [{ domain: 'shared.example', businessName: 'Mine' }] });
    await sync({ brands: [{ domain: 'shared.example', businessName: 'Theirs', status: 'closed' }] }, {}, other.key);
    const [mine] = (await brandsOf(use(), platformId)).filter((r) => r.domain === 'shared.example');
    const [theirs] = (await brandsOf(use(), other.platformId)).filter((r) => r.domain === 'shared.example');
    expect(mine).toMatchObject({ business_name: 'Mine', status: 'active' });
    expect(theirs).toMatchObject({ business_name: 'Theirs', status: 'closed' });
  });

  it('upserts 1000 brands in one request', async () => {
    const brands = Array.from({ length: 1000 }, (_, i) => ({ domain: `bulk-${i}.example`, businessName: `Bulk ${i}` }));
    const response = await sync({ brands });
    expect(response.json()).toEqual({ received: 1000, created: 1000, updated: 0 });
    const again = await sync({ brands });
    expect(again.json()).toEqual({ received: 1000, created: 0, updated: 1000 });
  });

  describe('rejects bad input with nothing written', () => {
    const badBodies: Array<[string, unknown, RegExp]> = [
      [
        'more than 1000 brands',
        { brands: Array.from({ length: 1001 }, (_, i) => ({ domain: `over-${i}.example` })) },
        /brands must not have more than 1000 items/,
      ],
      ['brands missing', { items: [] }, /brands is required/],
      ['brands not an array', { brands: { domain: 'x.example' } }, /brands must be array/],
      ['missing domain', { brands: [{ domain: 'ok-1.example' }, { businessName: 'No domain' }] }, /brands\[1\]\.domain is required/],
      ['domain not a string', { brands: [{ domain: 42 }] }, /brands\[0\]\.domain must be string/],
      [
        'bad status',
        { brands: [{ domain: 'ok-2.example' }, { domain: 'ok-3.example', status: 'paused' }] },
        /brands\[1\]\.status must be one of active, closed/,
      ],
      [
        'businessName over 100 characters',
        { brands: [{ domain: 'ok-4.example', businessName: 'x'.repeat(101) }] },
        /brands\[0\]\.businessName must not be longer than 100 characters/,
      ],
      [
        'domain over 100 characters after normalization',
        { brands: [{ domain: 'ok-5.example' }, { domain: `https://www.${'a'.repeat(95)}.example/` }] },
        /brands\[1\]\.domain is longer than 100 characters/,
      ],
      [
        'a scheme other than http(s)',
        { brands: [{ domain: 'ok-7.example' }, { domain: 'ftp://brand.example/' }] },
        /brands\[1\]\.domain has an unsupported scheme "ftp:\/\/"/,
      ],
      ['a malformed scheme', { brands: [{ domain: 'https:/brand.example' }] }, /brands\[0\]\.domain has a malformed scheme "https:"/],
      [
        'a doubled scheme',
        { brands: [{ domain: 'ok-8.example' }, { domain: 'ok-9.example' }, { domain: 'http://http://a.example' }] },
        /brands\[2\]\.domain has more than one scheme/,
      ],
      ['user information', { brands: [{ domain: 'https://user@brand.example' }] }, /brands\[0\]\.domain contains user information/],
      ['a malformed port', { brands: [{ domain: 'brand.example:99999' }] }, /brands\[0\]\.domain has a malformed port "99999"/],
      ['a trailing dot', { brands: [{ domain: 'brand.example.' }] }, /brands\[0\]\.domain has an empty label/],
      [
        'domain empty after normalization',
        { brands: [{ domain: 'https://www./path' }] },
        /brands\[0\]\.domain is empty after normalization/,
      ],
      [
        'a domain UTS-46 does not map',
        { brands: [{ domain: 'ok-10.example' }, { domain: 'shopשלום.example' }] },
        /brands\[1\]\.domain does not map to a domain name \(UTS-46\)/,
      ],
      ['a second leading www.', { brands: [{ domain: 'www.www.brand.example' }] }, /brands\[0\]\.domain has more than one leading www\./],
      [
        'platformId not matching the key',
        { platformId: '00000000-0000-4000-8000-000000000000', brands: [{ domain: 'ok-6.example' }] },
        /platformId in the body does not match/,
      ],
    ];

    for (const [check, body, message] of badBodies) {
      it(check, async () => {
        const before = await brandsOf(use(), platformId);
        const response = await sync(body);
        expect(response.statusCode).toBe(400);
        expect(response.json()).toMatchObject({ error: 'invalid_request' });
        expect(response.json().message).toMatch(message);
        expect(await brandsOf(use(), platformId)).toEqual(before);
      });
    }

    it('body over 1 MB', async () => {
      const before = await brandsOf(use(), platformId);
      const big = JSON.stringify({ brands: [{ domain: 'big.example', businessName: 'y'.repeat(1024 * 1024) }] });
      const response = await sync(big);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ error: 'invalid_request', message: expect.stringMatching(/1 MB/) });
      expect(await brandsOf(use(), platformId)).toEqual(before);
    });

    it('malformed JSON', async () => {
      const before = await brandsOf(use(), platformId);
      const response = await sync('{"brands": [{"domain": "broken.example"}');
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ error: 'invalid_request', message: expect.stringMatching(/malformed JSON/) });
      expect(await brandsOf(use(), platformId)).toEqual(before);
    });

    it('a Content-Type other than application/json', async () => {
      const before = await brandsOf(use(), platformId);
      for (const contentType of ['text/plain', 'application/x-www-form-urlencoded']) {
        const response = await sync(JSON.stringify({ brands: [{ domain: 'typed.example' }] }), { 'content-type': contentType });
        expect(response.statusCode).toBe(400);
        expect(response.json()).toMatchObject({
          error: 'invalid_request',
          message: expect.stringMatching(/Content-Type must be application\/json/),
        });
      }
      expect(await brandsOf(use(), platformId)).toEqual(before);
    });

    it('X-Platform-Id sent', async () => {
      const before = await brandsOf(use(), platformId);
      const response = await sync({ brands: [{ domain: 'hdr.example' }] }, { 'x-platform-id': platformId });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ error: 'invalid_request', message: expect.stringMatching(/X-Platform-Id must not be sent/) });
      expect(await brandsOf(use(), platformId)).toEqual(before);
    });

    it('a prototype-pollution key in the body', async () => {
      const before = await brandsOf(use(), platformId);
      const response = await sync('{"brands":[{"domain":"proto.example","__proto__":{"polluted":true}}]}');
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toBe('invalid_request');
      expect(await brandsOf(use(), platformId)).toEqual(before);
    });
  });

  describe('refuses credentials other than a valid platform key with 401', () => {
    const expectRefused = async (headers: Record<string, string>, apiKey: string | undefined, message: RegExp) => {
      const before = await brandsOf(use(), platformId);
      const allHeaders: Record<string, string> = { 'content-type': 'application/json', ...headers };
      if (apiKey !== undefined) allHeaders['x-api-key'] = apiKey;
      const response = await use().app.inject({
        method: 'POST',
        url: '/v1/platform/brands',
        headers: allHeaders,
        payload: JSON.stringify({ brands: [{ domain: 'refused.example' }] }),
      });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ error: 'unauthorized' });
      expect(response.json().message).toMatch(message);
      expect(await brandsOf(use(), platformId)).toEqual(before);
    };

    it('no key', () => expectRefused({}, undefined, /missing platform key/));
    it('a brand API key', async () => {
      const brand = await createBrand(use().support);
      await expectRefused({}, brand.key, /brand API keys are not accepted/);
    });
    it('an OAuth bearer token', () =>
      expectRefused({ authorization: 'Bearer abc.def' }, undefined, /OAuth access tokens are not accepted/));
    it('an unknown platform key', () => expectRefused({}, `svc_platform_test_${'A'.repeat(32)}`, /unknown or revoked/));
    it('a live key on a test host', () => expectRefused({}, `svc_platform_live_${'A'.repeat(32)}`, /must start with svc_platform_test_/));
    it('a revoked key', async () => {
      const { key: revoked, keyId } = await issuePlatformKey(use().support, platformId);
      await revokeKey(use().support, 'platform', keyId);
      await expectRefused({}, revoked, /unknown or revoked/);
    });
    it('an expired key', async () => {
      const { key: expired } = await issuePlatformKey(use().support, platformId, { expiresAt: new Date(Date.now() - 1000) });
      await expectRefused({}, expired, /expired/);
    });
    it('a key of an inactive platform', async () => {
      const inactive = await createPlatform(use().support, { active: false });
      const response = await sync({ brands: [{ domain: 'inactive.example' }] }, {}, inactive.key);
      expect(response.statusCode).toBe(401);
      expect(response.json().message).toMatch(/inactive platform/);
      expect(await brandsOf(use(), inactive.platformId)).toEqual([]);
    });
    it('a key in the query string', async () => {
      const before = await brandsOf(use(), platformId);
      const response = await use().app.inject({
        method: 'POST',
        url: `/v1/platform/brands?api_key=${key}`,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ brands: [{ domain: 'query.example' }] }),
      });
      expect(response.statusCode).toBe(401);
      expect(response.json().message).toMatch(/never in the query string/);
      expect(await brandsOf(use(), platformId)).toEqual(before);
    });
  });
});

for (const kind of DATABASE_KINDS) {
  describe(`POST /v1/platform/brands writes in one statement [${kind}]`, () => {
    const statements: string[] = [];
    let context: TestContext;
    beforeAll(async () => {
      context = await startTestApp(kind, {}, { onQuery: (text) => statements.push(text) });
    });
    afterAll(async () => {
      if (context) await stopTestApp(context);
    });

    const brandsOfRequest = (prefix: string) => ({
      brands: Array.from({ length: 1000 }, (_, i) => ({ domain: `${prefix}-${i}.example`, businessName: `Item ${i}` })),
    });

    it('sends one bulk INSERT ... ON CONFLICT for a 1000-item request, and no other statement on platform_brands', async () => {
      const { key } = await createPlatform(context.support);
      expect((await syncRequest(context, key, { brands: [{ domain: 'warm-up.example' }] })).statusCode).toBe(200);
      // First every item is new, then every item is an update.
      for (const counts of [
        { created: 1000, updated: 0 },
        { created: 0, updated: 1000 },
      ]) {
        statements.length = 0;
        const response = await syncRequest(context, key, brandsOfRequest('bulk'));
        expect(response.json()).toEqual({ received: 1000, ...counts });
        const onBrands = statements.filter((text) => /platform_brands/.test(text));
        expect(onBrands).toHaveLength(1);
        expect(onBrands[0]).toMatch(/^\s*insert into platform_brands .* from unnest\(.* on conflict \(platform_id, domain\) do update/s);
      }
    });

    it('is one transaction: a row the database refuses at item 1000 leaves the 999 before it unwritten', async () => {
      const { platformId, key } = await createPlatform(context.support);
      await sql`create function refuse_last_item() returns trigger language plpgsql as $$
                begin if new.domain = 'atomic-999.example' then raise exception 'refused for this test'; end if;
                return new; end $$`.execute(context.db);
      await sql`create trigger refuse_last_item before insert on platform_brands for each row execute function refuse_last_item()`.execute(
        context.db,
      );
      try {
        const response = await syncRequest(context, key, brandsOfRequest('atomic'));
        expect(response.statusCode).toBe(500);
      } finally {
        await sql`drop trigger refuse_last_item on platform_brands`.execute(context.db);
        await sql`drop function refuse_last_item()`.execute(context.db);
      }
      const written = await context.db.selectFrom('platform_brands').select('domain').where('platform_id', '=', platformId).execute();
      expect(written).toEqual([]);
    });
  });
}

describeEachDatabase(
  'POST /v1/platform/brands on a prod host',
  (use) => {
    it('refuses a svc_platform_test_ key, writing nothing, and takes a svc_platform_live_ key', async () => {
      const { platformId, key: liveKey } = await createPlatform(use().support);
      expect(liveKey).toMatch(/^svc_platform_live_/);
      // A test key of the same platform, as a test host would have issued it.
      const { key: testKey } = await issuePlatformKey({ ...use().support, serviceEnv: 'test' }, platformId);
      expect(testKey).toMatch(/^svc_platform_test_/);

      const refused = await syncRequest(use(), testKey, { brands: [{ domain: 'prod-refused.example' }] });
      expect(refused.statusCode).toBe(401);
      expect(refused.json()).toMatchObject({ error: 'unauthorized', message: expect.stringMatching(/must start with svc_platform_live_/) });
      const rows = await use().db.selectFrom('platform_brands').select('domain').where('platform_id', '=', platformId).execute();
      expect(rows).toEqual([]);

      expect((await syncRequest(use(), liveKey, { brands: [{ domain: 'prod-taken.example' }] })).statusCode).toBe(200);
    });
  },
  { SERVICE_ENV: 'prod' },
);
