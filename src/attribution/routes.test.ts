import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { describeEachDatabase, ADMIN_TOKEN } from '../../test/support/harness.js';
import { createBrand, createPlatform } from '../../test/support/factories.js';
import { seedPartnerOffer, type SeededPartner } from '../../test/durability/seed.js';

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

describeEachDatabase('referral links and platform stats', (use) => {
  let platformId: string;
  let brand: { companyId: string; key: string };
  let partner: SeededPartner;
  let referralUrl: string;

  beforeAll(async () => {
    ({ platformId } = await createPlatform(use().support));
    brand = await createBrand(use().support);
    partner = await seedPartnerOffer(use().support, brand.companyId, { discountCode: 'WELCOME 15&more' });
    const response = await use().app.inject({
      method: 'GET',
      url: '/v1/campaigns/offers?type=post-purchase',
      headers: { 'x-api-key': brand.key, 'x-platform-id': platformId },
    });
    referralUrl = response.json().offers[0].referralUrl;
  });

  const follow = (url: string, method: 'GET' | 'HEAD' = 'GET') => use().app.inject({ method, url: new URL(url).pathname });
  const stats = (id = platformId, headers: Record<string, string> = admin) =>
    use().app.inject({ method: 'GET', url: `/admin/platforms/${id}/stats`, headers });

  describe('GET /r/{token}', () => {
    it("redirects to the partner's store with its discount code and counts exactly one click per visit", async () => {
      const before = (await stats()).json();
      const response = await follow(referralUrl);
      expect(response.statusCode).toBe(302);
      const location = new URL(response.headers.location as string);
      expect(location.origin).toBe(`https://${partner.domain}`);
      // The store's shareable discount link, the code percent-encoded as one path segment.
      expect(location.pathname).toBe(`/discount/${encodeURIComponent('WELCOME 15&more')}`);
      expect(decodeURIComponent(location.pathname.split('/')[2]!)).toBe('WELCOME 15&more');
      // The referral token rides along, for the store to record with the order: on the link, and on the page it sends the shopper to.
      const token = new URL(referralUrl).pathname.split('/').at(-1)!;
      expect([...location.searchParams]).toEqual([
        ['redirect', `/?ref=${token}`],
        ['ref', token],
      ]);
      expect((await stats()).json()).toEqual({ ...before, clicks: before.clicks + 1 });

      await follow(referralUrl);
      const rows = await use()
        .db.selectFrom('attribution_counters')
        .select(['campaign_id', 'partner_id', 'brand_id', sql<number>`sum(clicks)::int8`.as('clicks')])
        .where('platform_id', '=', platformId)
        .groupBy(['campaign_id', 'partner_id', 'brand_id'])
        .execute();
      expect(rows).toEqual([
        { campaign_id: partner.campaignId, partner_id: partner.partnerId, brand_id: brand.companyId, clicks: before.clicks + 2 },
      ]);
    });

    it('counts concurrent clicks on one link, written together, each once', async () => {
      const before = (await stats()).json();
      const responses = await Promise.all(Array.from({ length: 8 }, () => follow(referralUrl)));
      expect(responses.map((response) => response.statusCode)).toEqual(Array(8).fill(302));
      expect((await stats()).json()).toEqual({ ...before, clicks: before.clicks + 8 });
    });

    it('does not count a HEAD request (link checkers) as a click', async () => {
      const before = (await stats()).json();
      const response = await follow(referralUrl, 'HEAD');
      expect(response.statusCode).toBe(302);
      expect((await stats()).json()).toEqual(before);
    });

    it("sends the shopper to the store without a code once the partner's offer is no longer live", async () => {
      const other = await seedPartnerOffer(use().support, brand.companyId);
      const offers = await use().app.inject({
        method: 'GET',
        url: '/v1/campaigns/offers?type=post-purchase',
        headers: { 'x-api-key': brand.key, 'x-platform-id': platformId },
      });
      const url = offers.json().offers.find((offer: { title: string }) => offer.title === other.title).referralUrl;
      await use().db.updateTable('offers').set({ live: false }).where('company_id', '=', other.partnerId).execute();
      const response = await follow(url);
      expect(response.statusCode).toBe(302);
      // Its home page still takes the referral token, for the order to name the shopper's click.
      expect(response.headers.location).toBe(`https://${other.domain}/?ref=${new URL(url).pathname.split('/').at(-1)}`);
    });

    for (const [label, mutate] of [
      ['an unknown token', () => '/r/AAAAAAAAAAAAAAAAAAAAAA'],
      [
        'a tampered token',
        () => {
          const path = new URL(referralUrl).pathname;
          const last = path.at(-1) === 'A' ? 'B' : 'A';
          return `${path.slice(0, -1)}${last}`;
        },
      ],
      ['a truncated token', () => new URL(referralUrl).pathname.slice(0, -3)],
      ['a token with odd characters', () => '/r/%3Cscript%3Ealert(1)%3C%2Fscript%3E'],
    ] as const) {
      it(`answers ${label} with a friendly 404 page and counts nothing`, async () => {
        const before = (await stats()).json();
        const response = await use().app.inject({ method: 'GET', url: mutate() });
        expect(response.statusCode).toBe(404);
        expect(response.headers['content-type']).toMatch(/^text\/html/);
        expect(response.body).toContain('This offer link is not available');
        expect(response.body).not.toMatch(/stack|error:|at .*\.ts/i);
        expect(response.body).not.toContain('<script>');
        expect((await stats()).json()).toEqual(before);
      });
    }
  });

  describe('GET /admin/platforms/{platformId}/stats', () => {
    it('reports views, clicks and zero orders for a platform', async () => {
      const fresh = await createPlatform(use().support);
      expect((await stats(fresh.platformId)).json()).toEqual({
        views: 0,
        clicks: 0,
        orders: 0,
        newCustomers: 0,
        money: [],
      });
      const response = await use().app.inject({
        method: 'GET',
        url: '/v1/campaigns/offers?type=post-purchase',
        headers: { 'x-api-key': brand.key, 'x-platform-id': fresh.platformId },
      });
      const offers = response.json().offers as Array<{ referralUrl: string }>;
      await follow(offers[0]!.referralUrl);
      expect((await stats(fresh.platformId)).json()).toEqual({
        views: offers.length,
        clicks: 1,
        orders: 0,
        newCustomers: 0,
        money: [],
      });
    });

    it('401 without the admin token', async () => {
      for (const headers of [{}, { authorization: 'Bearer wrong-token-0000000000' }] as Array<Record<string, string>>) {
        const response = await stats(platformId, headers);
        expect(response.statusCode).toBe(401);
        expect(response.json()).toMatchObject({ error: 'unauthorized' });
      }
    });

    it('404 for an unknown platform, 400 for an id that is not a UUID', async () => {
      const unknown = await stats('0b9f3c1e-1111-4222-8333-444455556666');
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toMatchObject({ error: 'not_found', message: expect.stringMatching(/no platform/) });
      const malformed = await stats('42');
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json()).toMatchObject({ error: 'invalid_request', message: expect.stringMatching(/platformId/) });
    });
  });
});
