import { beforeAll, describe, expect, it } from 'vitest';
import crypto from 'node:crypto';
import { describeOnBothEngines } from '../../test/support/harness.js';
import { createBrand, createPlatform, savePlatform } from '../../test/support/factories.js';
import { ApiError } from '../http/errors.js';
import { issueBrandKey, revokeKey } from './service.js';
import { setPlatformActive } from '../platforms/service.js';
import { hashSecret } from '../shared/keys.js';

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected the call to be refused');
}

describeOnBothEngines('brand authentication and X-Platform-Id', (use) => {
  let brand: { companyId: string; key: string; keyId: string };
  let platform: { platformId: string; key: string };

  beforeAll(async () => {
    brand = await createBrand(use().support);
    platform = await createPlatform(use().support);
  });

  const authenticate = (headers: Record<string, string>, query: Record<string, string> = {}) =>
    use().runtime.auth.authenticateBrand(headers, query);

  it('accepts a valid brand key and names its company', async () => {
    const principal = await authenticate({ 'x-api-key': brand.key });
    expect(principal).toEqual({ companyId: brand.companyId, via: 'api_key', credentialId: brand.keyId });
  });

  it('stores only the hash of a brand key', async () => {
    const row = await use().db.selectFrom('brand_api_keys').selectAll().where('id', '=', brand.keyId).executeTakeFirstOrThrow();
    expect(row.key_hash).toBe(hashSecret(brand.key));
    expect(JSON.stringify(row)).not.toContain(brand.key);
    expect(row.key_last_four).toBe(brand.key.slice(-4));
  });

  it.each([
    ['no credentials', {}, /missing credentials/],
    ['an empty key', { 'x-api-key': '' }, /missing credentials/],
    ['a live key on a test host', { 'x-api-key': `svc_live_${'a'.repeat(32)}` }, /must start with svc_test_/],
    ['an unknown key', { 'x-api-key': `svc_test_${'a'.repeat(32)}` }, /unknown or revoked/],
    ['a malformed key', { 'x-api-key': 'svc_test_short' }, /malformed/],
    ['a bearer token with no OAuth verifier', { authorization: 'Bearer abc' }, /invalid access token/],
    ['a malformed Authorization header', { authorization: 'Basic abc' }, /Bearer/],
  ])('refuses %s with 401', async (_name, headers, message) => {
    const error = await refusal(authenticate(headers));
    expect(error.statusCode).toBe(401);
    expect(error.code).toBe('unauthorized');
    expect(error.message).toMatch(message);
  });

  it('refuses a platform key on brand routes with 401', async () => {
    const error = await refusal(authenticate({ 'x-api-key': platform.key }));
    expect(error.statusCode).toBe(401);
    expect(error.message).toMatch(/platform keys are only for POST \/v1\/platform\/brands/);
  });

  it('refuses a key sent in the query string, even alongside a valid header', async () => {
    for (const param of ['api_key', 'apiKey', 'key', 'access_token']) {
      const error = await refusal(authenticate({ 'x-api-key': brand.key }, { [param]: brand.key }));
      expect(error.statusCode).toBe(401);
      expect(error.message).toMatch(/never in the query string/);
    }
  });

  it('refuses a revoked key at once, even after it was cached', async () => {
    const extra = await issueBrandKey(use().support, brand.companyId);
    await authenticate({ 'x-api-key': extra.key });
    await revokeKey(use().support, 'brand', extra.keyId);
    const error = await refusal(authenticate({ 'x-api-key': extra.key }));
    expect(error.message).toMatch(/unknown or revoked/);
  });

  it('takes live keys on a prod host and refuses test keys there', async () => {
    const { Authenticator } = await import('./authenticator.js');
    const prodAuth = new Authenticator(use().db, 'live', use().runtime.bus, use().runtime.usage);
    const error = await refusal(prodAuth.authenticateBrand({ 'x-api-key': brand.key }, {}));
    expect(error.message).toMatch(/must start with svc_live_/);
  });

  describe('X-Platform-Id (SPEC 5.2)', () => {
    const resolve = async (value: string | undefined) => {
      const headers: Record<string, string> = value === undefined ? {} : { 'x-platform-id': value };
      return use().runtime.auth.resolvePlatformHeader(headers, 'invalid_request');
    };

    it('allows an omitted X-Platform-Id', async () => {
      expect(await resolve(undefined)).toBeUndefined();
    });

    it.each([
      ['empty', ''],
      ['an integer', '42'],
      ['a word', 'checkout'],
      ['a UUID with junk', `${crypto.randomUUID()}x`],
    ])('answers 400 for X-Platform-Id that is %s', async (_name, value) => {
      const error = await refusal(resolve(value));
      expect(error.statusCode).toBe(400);
      expect(error.code).toBe('invalid_request');
      expect(error.message).toMatch(/must be a platform id \(UUID\)/);
    });

    it('answers 400 for an unknown or inactive platform, and links nothing', async () => {
      const inactive = await createPlatform(use().support, { active: false });
      for (const platformId of [crypto.randomUUID(), inactive.platformId]) {
        const error = await refusal(resolve(platformId));
        expect(error.statusCode).toBe(400);
        expect(error.message).toMatch(/not an active platform/);
      }
      const links = await use().db.selectFrom('platform_companies').selectAll().where('platform_id', '=', inactive.platformId).execute();
      expect(links).toEqual([]);
    });

    it('resolves an active platform without linking it; the link is upserted once, by linkBrandToPlatform', async () => {
      const fresh = await createPlatform(use().support);
      const linksOf = () => use().db.selectFrom('platform_companies').selectAll().where('platform_id', '=', fresh.platformId).execute();
      const resolved = await resolve(fresh.platformId.toUpperCase());
      expect(resolved?.id).toBe(fresh.platformId);
      expect(await linksOf()).toEqual([]);
      const principal = await authenticate({ 'x-api-key': brand.key });
      await use().runtime.auth.linkBrandToPlatform(resolved!, principal);
      const [link] = await linksOf();
      expect(link).toMatchObject({ company_id: brand.companyId });
      await use().runtime.auth.linkBrandToPlatform(resolved!, principal);
      await use().runtime.usage.flush();
      const after = await linksOf();
      expect(after).toHaveLength(1);
      expect(after[0]!.first_seen_at).toEqual(link!.first_seen_at);
      expect(after[0]!.last_seen_at.getTime()).toBeGreaterThanOrEqual(link!.last_seen_at.getTime());
    });

    it('stops accepting a platform as soon as it is deactivated', async () => {
      const toggled = await createPlatform(use().support);
      await resolve(toggled.platformId);
      await setPlatformActive(use().support, toggled.platformId, false);
      const error = await refusal(resolve(toggled.platformId));
      expect(error.message).toMatch(/not an active platform/);
      await savePlatform(use().support, {
        id: toggled.platformId,
        name: 'Back',
        active: true,
        offerTypes: ['post-purchase'],
        approvedOrigins: [],
        pluginPageUrl: null,
      });
      expect((await resolve(toggled.platformId))?.id).toBe(toggled.platformId);
    });
  });

  it('records the last use of keys in one batch', async () => {
    await authenticate({ 'x-api-key': brand.key });
    await use().runtime.usage.flush();
    const row = await use().db.selectFrom('brand_api_keys').select('last_used_at').where('id', '=', brand.keyId).executeTakeFirstOrThrow();
    expect(row.last_used_at).toBeInstanceOf(Date);
  });
});
