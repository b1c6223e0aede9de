import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { describeEachDatabase, type TestContext } from '../../test/support/harness.js';
import { createBrand, createPlatform, savePlatform } from '../../test/support/factories.js';
import { addCampaign, pinMatchRates, seedPartnerOffer, totalViews, type PartnerOfferOptions } from '../../test/durability/seed.js';
import { platformLinksOf } from '../../test/support/bulk-seeds.js';
import type { BrandPrincipal } from '../auth/authenticator.js';

interface OfferBody {
  offers: Array<{ imageUrl: string; referralUrl: string; title: string; subtitle?: string }>;
}

function offersRequest(context: TestContext, key: string | undefined, platformId: string | undefined, query = '?type=post-purchase') {
  const headers: Record<string, string> = {};
  if (key !== undefined) headers['x-api-key'] = key;
  if (platformId !== undefined) headers['x-platform-id'] = platformId;
  return context.app.inject({ method: 'GET', url: `/v1/campaigns/offers${query}`, headers });
}

describeEachDatabase('GET /v1/campaigns/offers', (use) => {
  let platformId: string;

  beforeAll(async () => {
    ({ platformId } = await createPlatform(use().support));
  });

  const getOffers = async (key: string, platform = platformId) => {
    const response = await offersRequest(use(), key, platform);
    expect(response.statusCode).toBe(200);
    return response.json() as OfferBody;
  };

  it('records the PlatformCompany link on the first valid call', async () => {
    const brand = await createBrand(use().support);
    expect(await platformLinksOf(use().db, brand.companyId)).toEqual([]);
    await getOffers(brand.key);
    expect(await platformLinksOf(use().db, brand.companyId)).toEqual([{ platform_id: platformId }]);
  });

  describe('which offers', () => {
    it('returns the live offers of partners in active campaigns, best match first, subtitle omitted when none', async () => {
      const brand = await createBrand(use().support);
      const support = use().support;
      const best = await seedPartnerOffer(support, brand.companyId);
      const second = await seedPartnerOffer(support, brand.companyId, { subtitle: null });
      const asPartner = await seedPartnerOffer(support, brand.companyId, { partnerOwnsCampaign: true });
      const startedSchedule = await seedPartnerOffer(support, brand.companyId, {
        campaignStatus: 'scheduled',
        startDate: new Date(Date.now() - 60_000),
      });
      // None of these may appear, though they would rank first.
      const excluded = [
        await seedPartnerOffer(support, brand.companyId, { live: false }),
        await seedPartnerOffer(support, brand.companyId, { campaignStatus: 'draft' }),
        await seedPartnerOffer(support, brand.companyId, { campaignStatus: 'closed' }),
        await seedPartnerOffer(support, brand.companyId, { endDate: new Date(Date.now() - 1000) }),
        await seedPartnerOffer(support, brand.companyId, { campaignStatus: 'scheduled', startDate: new Date(Date.now() + 86_400_000) }),
        await seedPartnerOffer(support, brand.companyId, { partnershipStatus: 'removed' }),
      ];
      await pinMatchRates(use().db, brand.companyId, [
        { partnerId: best.partnerId, matchRate: 90 },
        { partnerId: second.partnerId, matchRate: 60 },
        { partnerId: asPartner.partnerId, matchRate: 40 },
        { partnerId: startedSchedule.partnerId, matchRate: null },
        ...excluded.map((partner) => ({ partnerId: partner.partnerId, matchRate: 99 })),
      ]);

      const body = await getOffers(brand.key);
      expect(body.offers.map((offer) => offer.title)).toEqual([best.title, second.title, asPartner.title, startedSchedule.title]);
      expect(body.offers[0]).toEqual({
        imageUrl: `https://img.example/${best.partnerId}.png`,
        referralUrl: expect.stringMatching(/^http:\/\/svc\.test\/r\/[A-Za-z0-9_-]{22}$/),
        title: best.title,
        subtitle: `Subtitle of ${best.partnerId}`,
      });
      expect(Object.keys(body.offers[1]!).sort()).toEqual(['imageUrl', 'referralUrl', 'title']);
    });

    it('returns at most 6, one per partner, ranking unscored partners by click-through after scored ones', async () => {
      const brand = await createBrand(use().support);
      const support = use().support;
      const scored: Array<{ matchRate: number; title: string; partnerId: string }> = [];
      for (const matchRate of [10, 80, 30, 70, 20, 50, 40]) {
        scored.push({ matchRate, ...(await seedPartnerOffer(support, brand.companyId)) });
      }
      const unscored = await seedPartnerOffer(support, brand.companyId);
      await pinMatchRates(use().db, brand.companyId, [...scored, { partnerId: unscored.partnerId, matchRate: null }]);
      await addCampaign(use().db, brand.companyId, scored[1]!.partnerId);

      const body = await getOffers(brand.key);
      const expected = [...scored].sort((a, b) => b.matchRate - a.matchRate).slice(0, 6);
      expect(body.offers.map((offer) => offer.title)).toEqual(expected.map((partner) => partner.title));
      expect(body.offers.map((offer) => offer.title)).not.toContain(unscored.title);
    });

    it('ranks partners of equal score by click-through', async () => {
      const brand = await createBrand(use().support);
      const support = use().support;
      const quiet = await seedPartnerOffer(support, brand.companyId);
      const clicked = await seedPartnerOffer(support, brand.companyId);
      await pinMatchRates(
        use().db,
        brand.companyId,
        [quiet, clicked].map((partner) => ({ partnerId: partner.partnerId, matchRate: 50 })),
      );
      const today = new Date().toISOString().slice(0, 10);
      await use()
        .db.insertInto('attribution_counters')
        .values({
          platform_id: platformId,
          day: today,
          campaign_id: clicked.campaignId,
          brand_id: brand.companyId,
          partner_id: clicked.partnerId,
          views: 100,
          clicks: 30,
        })
        .execute();
      const body = await getOffers(brand.key);
      expect(body.offers.map((offer) => offer.title)).toEqual([clicked.title, quiet.title]);
    });

    it('returns an empty array, and records no view, when the brand has no active campaign', async () => {
      const brand = await createBrand(use().support);
      await seedPartnerOffer(use().support, brand.companyId, { campaignStatus: 'draft' });
      const before = await totalViews(use().db);
      expect(await getOffers(brand.key)).toEqual({ offers: [] });
      expect(await totalViews(use().db)).toBe(before);
    });

    it('returns an empty array when the partners have no live offer', async () => {
      const brand = await createBrand(use().support);
      await seedPartnerOffer(use().support, brand.companyId, { live: false });
      expect(await getOffers(brand.key)).toEqual({ offers: [] });
    });

    it("accepts the service's own platform id for a brand's own site", async () => {
      const { config, support } = use();
      await savePlatform(support, {
        id: config.servicePlatformId,
        name: 'Own site',
        active: true,
        offerTypes: ['post-purchase'],
        approvedOrigins: [],
        pluginPageUrl: null,
      });
      const brand = await createBrand(support);
      const partner = await seedPartnerOffer(support, brand.companyId);
      const body = await getOffers(brand.key, config.servicePlatformId);
      expect(body.offers.map((offer) => offer.title)).toEqual([partner.title]);
      expect(
        (await use().app.inject({ method: 'GET', url: `/admin/platforms/${config.servicePlatformId}/stats`, headers: admin() })).json(),
      ).toMatchObject({ views: 1 });
    });
  });

  describe('referral links', () => {
    it('gives each platform its own stable, opaque link', async () => {
      const brand = await createBrand(use().support);
      const partner = await seedPartnerOffer(use().support, brand.companyId);
      const other = await createPlatform(use().support);
      const [first] = (await getOffers(brand.key)).offers;
      const [again] = (await getOffers(brand.key)).offers;
      const [elsewhere] = (await getOffers(brand.key, other.platformId)).offers;
      expect(again!.referralUrl).toBe(first!.referralUrl);
      expect(elsewhere!.referralUrl).not.toBe(first!.referralUrl);
      for (const url of [first!.referralUrl, elsewhere!.referralUrl]) {
        for (const id of [partner.partnerId, partner.campaignId, brand.companyId, platformId, other.platformId])
          expect(url).not.toContain(id);
      }
    });

    it('keeps the first token when the link is asked for again after the cache is dropped', async () => {
      const brand = await createBrand(use().support);
      await seedPartnerOffer(use().support, brand.companyId);
      const [before] = (await getOffers(brand.key)).offers;
      await use()
        .db.updateTable('offers')
        .set({ title: 'Renamed' })
        .where('company_id', 'in', use().db.selectFrom('referral_links').select('partner_id').where('brand_id', '=', brand.companyId))
        .execute();
      await use().runtime.bus.publish('offers');
      const [after] = (await getOffers(brand.key)).offers;
      expect(after!.title).toBe('Renamed');
      expect(after!.referralUrl).toBe(before!.referralUrl);
    });
  });

  describe('views', () => {
    it('counts each offer returned as one view for the platform, campaign and partner', async () => {
      const brand = await createBrand(use().support);
      const partners = [await seedPartnerOffer(use().support, brand.companyId), await seedPartnerOffer(use().support, brand.companyId)];
      const platform = await createPlatform(use().support);
      for (let i = 0; i < 3; i += 1) expect((await getOffers(brand.key, platform.platformId)).offers).toHaveLength(2);
      const rows = await use()
        .db.selectFrom('attribution_counters')
        .select(['campaign_id', 'partner_id', sql<number>`sum(views)::int8`.as('views'), sql<number>`sum(clicks)::int8`.as('clicks')])
        .where('platform_id', '=', platform.platformId)
        .groupBy(['campaign_id', 'partner_id'])
        .orderBy('partner_id')
        .execute();
      expect(rows).toEqual(
        [...partners]
          .sort((a, b) => a.partnerId.localeCompare(b.partnerId))
          .map((partner) => ({ campaign_id: partner.campaignId, partner_id: partner.partnerId, views: 3, clicks: 0 })),
      );
    });

    it('writes the views of concurrent requests together, losing none', async () => {
      const brand = await createBrand(use().support);
      for (let i = 0; i < 3; i += 1) await seedPartnerOffer(use().support, brand.companyId);
      const platform = await createPlatform(use().support);
      await getOffers(brand.key, platform.platformId);
      const batchesBefore = use().app.runtime.attribution.counters.batchesWritten;
      const responses = await Promise.all(Array.from({ length: 40 }, () => offersRequest(use(), brand.key, platform.platformId)));
      expect(responses.every((response) => response.statusCode === 200)).toBe(true);
      const batches = use().app.runtime.attribution.counters.batchesWritten - batchesBefore;
      expect(batches).toBeGreaterThanOrEqual(1);
      expect(batches).toBeLessThan(10);
      const stats = await use().app.inject({ method: 'GET', url: `/admin/platforms/${platform.platformId}/stats`, headers: admin() });
      expect(stats.json()).toEqual({ views: 41 * 3, clicks: 0, orders: 0, newCustomers: 0, money: [] });
    });

    it('counts no view for HEAD, which shows nothing', async () => {
      const brand = await createBrand(use().support);
      await seedPartnerOffer(use().support, brand.companyId);
      await getOffers(brand.key);
      const before = await totalViews(use().db);
      const response = await use().app.inject({
        method: 'HEAD',
        url: '/v1/campaigns/offers?type=post-purchase',
        headers: { 'x-api-key': brand.key, 'x-platform-id': platformId },
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.body).toBe('');
      expect(await totalViews(use().db)).toBe(before);
      await getOffers(brand.key);
      expect(await totalViews(use().db)).toBe(before + 1);
    });

    it('answers 503, not 200, when the views cannot be written', async () => {
      const brand = await createBrand(use().support);
      await seedPartnerOffer(use().support, brand.companyId);
      await getOffers(brand.key);
      const before = await totalViews(use().db);
      await sql`alter table attribution_counters rename to attribution_counters_away`.execute(use().db);
      try {
        const response = await offersRequest(use(), brand.key, platformId);
        expect(response.statusCode).toBe(503);
        expect(response.json()).toMatchObject({ error: 'service_unavailable' });
      } finally {
        await sql`alter table attribution_counters_away rename to attribution_counters`.execute(use().db);
      }
      expect(await totalViews(use().db)).toBe(before);
    });
  });

  describe('cache', () => {
    it('serves offers from memory until a change is announced on the bus', async () => {
      const brand = await createBrand(use().support);
      const partner = await seedPartnerOffer(use().support, brand.companyId);
      await getOffers(brand.key);
      await use().db.updateTable('offers').set({ live: false }).where('company_id', '=', partner.partnerId).execute();
      expect((await getOffers(brand.key)).offers).toHaveLength(1);
      for (const topic of ['offers', 'campaigns', 'partnerships', 'platforms'] as const) {
        await use()
          .db.updateTable('offers')
          .set({ live: topic !== 'offers' })
          .where('company_id', '=', partner.partnerId)
          .execute();
        await use().runtime.bus.publish(topic);
        expect((await getOffers(brand.key)).offers).toHaveLength(topic === 'offers' ? 0 : 1);
      }
    });

    /**
     * Checks the offers of a fresh brand before and after a moment a little ahead, with no
     * announcement between: `setMoment` moves its campaign's date there once everything else is
     * ready. The check before counts only if it was answered before the moment; on a machine too
     * slow for that it is tried again with another brand, a few times at most.
     */
    const aroundMoment = async (
      options: PartnerOfferOptions,
      setMoment: (campaignId: string, moment: Date) => Promise<unknown>,
      expected: { before: number; after: number },
      skip: (note: string) => never,
    ) => {
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const brand = await createBrand(use().support);
        const { campaignId } = await seedPartnerOffer(use().support, brand.companyId, options);
        const moment = new Date(Date.now() + 1_500);
        await setMoment(campaignId, moment);
        const before = (await getOffers(brand.key)).offers;
        if (Date.now() >= moment.getTime()) continue;
        expect(before).toHaveLength(expected.before);
        await new Promise((resolve) => setTimeout(resolve, moment.getTime() - Date.now() + 50));
        expect((await getOffers(brand.key)).offers).toHaveLength(expected.after);
        return;
      }
      skip('three times the first answer came after the moment it had to come before; nothing was checked');
    };

    it('drops the offers of a campaign when its end date passes, without any announcement', async ({ skip }) => {
      const endAt = (campaignId: string, moment: Date) =>
        use().db.updateTable('campaigns').set({ end_date: moment }).where('id', '=', campaignId).execute();
      await aroundMoment({}, endAt, { before: 1, after: 0 }, skip);
    });

    it("shows a scheduled campaign's offers from its start date, without any announcement", async ({ skip }) => {
      const startAt = (campaignId: string, moment: Date) =>
        use().db.updateTable('campaigns').set({ start_date: moment }).where('id', '=', campaignId).execute();
      await aroundMoment(
        { campaignStatus: 'scheduled', startDate: new Date(Date.now() + 3_600_000) },
        startAt,
        { before: 0, after: 1 },
        skip,
      );
    });
  });

  describe('refuses bad requests with the SPEC 7.2 code, recording no view and no PlatformCompany link', () => {
    let brand: { companyId: string; key: string };

    beforeAll(async () => {
      brand = await createBrand(use().support);
      await seedPartnerOffer(use().support, brand.companyId);
    });

    const expectRefused = async (send: () => ReturnType<typeof offersRequest>, status: number, error: string, message: RegExp) => {
      const before = { views: await totalViews(use().db), links: await platformLinksOf(use().db, brand.companyId) };
      const response = await send();
      expect(response.statusCode).toBe(status);
      expect(response.json()).toMatchObject({ error, message: expect.stringMatching(message) });
      expect({ views: await totalViews(use().db), links: await platformLinksOf(use().db, brand.companyId) }).toEqual(before);
      return response;
    };

    for (const [label, query] of [
      ['type missing', ''],
      ['type unsupported', '?type=pre-purchase'],
      ['type empty', '?type='],
      ['type sent twice', '?type=post-purchase&type=other'],
    ] as const) {
      it(`invalid_offer_type: ${label}`, async () => {
        const response = await expectRefused(
          () => offersRequest(use(), brand.key, platformId, query),
          400,
          'invalid_offer_type',
          /type must be one of: post-purchase/,
        );
        expect(response.json().allowed).toEqual(['post-purchase']);
      });
    }

    it('platform_required: API key without X-Platform-Id', () =>
      expectRefused(() => offersRequest(use(), brand.key, undefined), 400, 'platform_required', /X-Platform-Id/));

    for (const [label, value] of [
      ['empty', ''],
      ['an integer', '42'],
      ['a word', 'shopify'],
      ['an unknown UUID', '0b9f3c1e-1111-4222-8333-444455556666'],
    ] as const) {
      it(`invalid_platform: X-Platform-Id ${label}`, () =>
        expectRefused(() => offersRequest(use(), brand.key, value), 400, 'invalid_platform', /X-Platform-Id/));
    }

    it('invalid_platform: an inactive platform', async () => {
      const inactive = await createPlatform(use().support, { active: false });
      await expectRefused(() => offersRequest(use(), brand.key, inactive.platformId), 400, 'invalid_platform', /not an active platform/);
    });

    it('unsupported_platform: the platform does not show post-purchase offers', async () => {
      const other = await createPlatform(use().support, { offerTypes: [] });
      await expectRefused(
        () => offersRequest(use(), brand.key, other.platformId),
        400,
        'unsupported_platform',
        /not set up to show post-purchase/,
      );
    });

    it('unauthorized: no credentials, or an unknown key', async () => {
      await expectRefused(() => offersRequest(use(), undefined, platformId), 401, 'unauthorized', /missing credentials/);
      await expectRefused(() => offersRequest(use(), `svc_test_${'A'.repeat(32)}`, platformId), 401, 'unauthorized', /unknown or revoked/);
    });

    describe('with an OAuth token that carries a platform', () => {
      const withToken = async <T>(tokenPlatformId: string | null, run: () => Promise<T>): Promise<T> => {
        const { auth } = use().runtime;
        const previous = auth.bearerVerifier;
        const principal: BrandPrincipal = { companyId: brand.companyId, via: 'oauth', credentialId: crypto.randomUUID(), tokenPlatformId };
        auth.bearerVerifier = { verify: async (token) => (token === 'test-token' ? principal : null) };
        try {
          return await run();
        } finally {
          auth.bearerVerifier = previous;
        }
      };
      const bearer = (platformHeader?: string) =>
        use().app.inject({
          method: 'GET',
          url: '/v1/campaigns/offers?type=post-purchase',
          headers: { authorization: 'Bearer test-token', ...(platformHeader ? { 'x-platform-id': platformHeader } : {}) },
        });

      it("uses the token's platform when X-Platform-Id is omitted, or equal", async () => {
        await withToken(platformId, async () => {
          expect((await bearer()).statusCode).toBe(200);
          expect((await bearer(platformId.toUpperCase())).statusCode).toBe(200);
        });
      });

      it("platform_mismatch: X-Platform-Id differs from the token's platform", async () => {
        const other = await createPlatform(use().support);
        await withToken(platformId, () =>
          expectRefused(() => bearer(other.platformId), 400, 'platform_mismatch', /differs from the platform/),
        );
      });

      it('platform_required: a token without a platform and no X-Platform-Id', async () => {
        await withToken(null, () => expectRefused(() => bearer(), 400, 'platform_required', /no platform given/));
      });
    });
  });
});

function admin() {
  return { authorization: 'Bearer test-admin-token-0123456789' };
}
