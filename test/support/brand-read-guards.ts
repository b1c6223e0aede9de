import { beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { TestContext } from './harness.js';
import { createPlatform } from './factories.js';
import { platformLinksOf } from './bulk-seeds.js';

/** One GET of a brand read endpoint: `key` null sends no credential. */
export type BrandRead = (query: string, headers: Record<string, string>, key?: string | null) => Promise<LightMyRequestResponse>;

/**
 * The checks every brand read endpoint shares (SPEC 2.5, 2.6, 7.3): bad query parameters and a bad
 * X-Platform-Id are refused with 400 before any platform link is written, a good X-Platform-Id is
 * linked, and callers without a brand credential get 401.
 */
export function describeBrandReadGuards(
  use: () => TestContext,
  brand: () => { companyId: string },
  read: BrandRead,
  badQueries: Array<[check: string, query: string, message: RegExp]>,
): void {
  describe('rejects bad input with 400 invalid_request naming the parameter, writing nothing', () => {
    let activePlatformId: string;
    let inactivePlatformId: string;
    beforeAll(async () => {
      activePlatformId = (await createPlatform(use().support)).platformId;
      inactivePlatformId = (await createPlatform(use().support, { active: false })).platformId;
    });

    const notUuid = /X-Platform-Id must be a platform id \(UUID\)/;
    const notActive = /X-Platform-Id is not an active platform/;
    const cases: Array<[string, string, (() => Record<string, string>) | null, RegExp]> = [
      ...badQueries.map(([check, query, message]): [string, string, null, RegExp] => [check, query, null, message]),
      ['empty X-Platform-Id', '', () => ({ 'x-platform-id': '' }), notUuid],
      ['integer X-Platform-Id', '', () => ({ 'x-platform-id': '42' }), notUuid],
      ['word X-Platform-Id', '', () => ({ 'x-platform-id': 'shopify' }), notUuid],
      ['unknown platform id', '', () => ({ 'x-platform-id': '00000000-0000-4000-8000-00000000abcd' }), notActive],
      ["an inactive platform's id", '', () => ({ 'x-platform-id': inactivePlatformId }), notActive],
    ];
    for (const [check, query, headers, message] of cases) {
      it(check, async () => {
        const before = await platformLinksOf(use().db, brand().companyId);
        // A valid platform alongside a bad query parameter must not be linked either.
        const response = await read(query, headers ? headers() : { 'x-platform-id': activePlatformId });
        expect(response.statusCode).toBe(400);
        expect(response.json()).toMatchObject({ error: 'invalid_request', message: expect.stringMatching(message) });
        expect(await platformLinksOf(use().db, brand().companyId)).toEqual(before);
      });
    }

    it('accepts an active platform and records the link', async () => {
      const response = await read('', { 'x-platform-id': activePlatformId });
      expect(response.statusCode).toBe(200);
      expect(await platformLinksOf(use().db, brand().companyId)).toContainEqual({ platform_id: activePlatformId });
    });
  });

  describe('refuses callers without a brand credential with 401', () => {
    it('no key', async () => {
      const response = await read('', {}, null);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ error: 'unauthorized', message: expect.stringMatching(/missing credentials/) });
    });
    it('an unknown key', async () => {
      const response = await read('', {}, `svc_test_${'B'.repeat(32)}`);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ error: 'unauthorized', message: expect.stringMatching(/unknown or revoked/) });
    });
    it('a platform key', async () => {
      const { key } = await createPlatform(use().support);
      const response = await read('', {}, key);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ error: 'unauthorized', message: expect.stringMatching(/platform keys are only for/) });
    });
  });
}
