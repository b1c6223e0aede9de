import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedPartnerOffer, type SeededPartner } from '../durability/seed.js';
import { createBrand, createPlatform } from '../support/factories.js';
import { ADMIN_TOKEN, startTestApp, stopTestApp, type TestContext } from '../support/harness.js';

/**
 * The boundaries of docs/security.md between tenants: whatever a brand asks of any brand route,
 * with any of its credentials, nothing of another brand's partnerships, campaigns or offers comes
 * back; a platform key reaches only its own platform's brands; brand credentials reach no admin
 * or platform route.
 */
describe('tenant isolation', () => {
  let context: TestContext;
  let platformId: string;
  let otherPlatform: { platformId: string; key: string };
  let mine: { companyId: string; key: string };
  let theirs: { companyId: string; key: string };
  let theirPartners: SeededPartner[];
  let myPartners: SeededPartner[];

  beforeAll(async () => {
    context = await startTestApp('postgres', { RUN_BACKGROUND_JOBS: 'false' });
    const { support } = context;
    ({ platformId } = await createPlatform(support));
    otherPlatform = await createPlatform(support);
    mine = await createBrand(support);
    theirs = await createBrand(support);
    myPartners = [await seedPartnerOffer(support, mine.companyId), await seedPartnerOffer(support, mine.companyId, { campaignStatus: 'draft' })];
    theirPartners = [
      await seedPartnerOffer(support, theirs.companyId),
      await seedPartnerOffer(support, theirs.companyId, { partnerOwnsCampaign: true }),
      await seedPartnerOffer(support, theirs.companyId, { partnershipStatus: 'pending' }),
    ];
  }, 60_000);

  afterAll(async () => {
    if (context) await stopTestApp(context);
  });

  const brandRoutes = [
    '/v1/partners',
    '/v1/partners?status=inviteSent',
    '/v1/partners?status=inviteReceived',
    '/v1/partners?status=declined',
    '/v1/campaigns',
    '/v1/campaigns?status=draft',
    '/v1/campaigns?status=active',
    '/v1/discover/partner/recommendations',
    '/v1/campaigns/offers?type=post-purchase',
  ];

  it('no brand route shows a brand anything of another brand\'s partnerships, campaigns or offers', async () => {
    const foreign = theirPartners.flatMap((p) => [p.campaignId, p.partnershipId, p.title, ...(p.discountCode ? [p.discountCode] : [])]);
    for (const url of brandRoutes) {
      const response = await context.app.inject({ method: 'GET', url, headers: { 'x-api-key': mine.key, 'x-platform-id': platformId } });
      expect(response.statusCode, url).toBe(200);
      for (const secret of foreign) expect(response.body.includes(secret), `${url} shows ${secret}`).toBe(false);
    }
    // The same routes do show the other brand its own data: the check above would see a leak.
    const own = await context.app.inject({ method: 'GET', url: '/v1/campaigns', headers: { 'x-api-key': theirs.key } });
    expect(own.body).toContain(theirPartners[0]!.campaignId);
    const offers = await context.app.inject({ method: 'GET', url: brandRoutes.at(-1)!, headers: { 'x-api-key': mine.key, 'x-platform-id': platformId } });
    expect((offers.json() as { offers: Array<{ title: string }> }).offers.map((o) => o.title)).toEqual([myPartners[0]!.title]);
  });

  it('a brand\'s credentials open no admin route, no platform route, and no other brand\'s referral counts', async () => {
    for (const [method, url] of [
      ['GET', '/admin/platforms'],
      ['GET', `/admin/companies/${theirs.companyId}`],
      ['POST', `/admin/companies/${theirs.companyId}/keys`],
      ['GET', `/admin/platforms/${platformId}/stats`],
    ] as const) {
      for (const headers of [{ 'x-api-key': mine.key }, { authorization: `Bearer ${mine.key}` }]) {
        const response = await context.app.inject({ method, url, headers });
        expect(response.statusCode, `${method} ${url}`).toBe(401);
      }
    }
    const sync = await context.app.inject({
      method: 'POST',
      url: '/v1/platform/brands',
      headers: { 'x-api-key': mine.key, 'content-type': 'application/json' },
      payload: { brands: [{ domain: 'taken-over.example' }] },
    });
    expect(sync.statusCode).toBe(401);
  });

  it('a platform key reaches only its own platform\'s brands', async () => {
    const sync = (key: string, body: unknown) =>
      context.app.inject({ method: 'POST', url: '/v1/platform/brands', headers: { 'x-api-key': key, 'content-type': 'application/json' }, payload: body as object });
    expect((await sync(otherPlatform.key, { brands: [{ domain: 'shared-name.example', businessName: 'Theirs' }] })).statusCode).toBe(200);
    // Naming the other platform in the body is refused, and writes nothing there.
    const crossed = await sync(otherPlatform.key, { platformId, brands: [{ domain: 'shared-name.example', status: 'closed' }] });
    expect(crossed.statusCode).toBe(400);
    const brandsOf = async (id: string) =>
      (
        await context.app.inject({ method: 'GET', url: `/admin/platforms/${id}/brands`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
      ).json() as { data: Array<{ domain: string; status: string }> };
    expect((await brandsOf(platformId)).data.map((b) => b.domain)).not.toContain('shared-name.example');
    expect((await brandsOf(otherPlatform.platformId)).data).toEqual([expect.objectContaining({ domain: 'shared-name.example', status: 'active' })]);
    // A platform key is no brand credential.
    const asBrand = await context.app.inject({ method: 'GET', url: '/v1/partners', headers: { 'x-api-key': otherPlatform.key } });
    expect(asBrand.statusCode).toBe(401);
  });
});
