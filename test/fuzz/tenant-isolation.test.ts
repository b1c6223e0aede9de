import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrandUser } from '../../src/accounts/users.js';
import { DashboardClient } from '../support/dashboard-client.js';
import { registerOAuthClient } from '../../src/oauth/clients.js';
import { seedPartnerOffer, type SeededPartner } from '../durability/seed.js';
import { createBrand, createPlatform, uniqueId } from '../support/factories.js';
import { ADMIN_TOKEN, describeEachDatabase, startTestApp, stopTestApp, type TestContext } from '../support/harness.js';
import { consent, csrfOf, pkce, PASSWORD, REDIRECT_URI, signIn, tokenRequest } from '../support/oauth-flow.js';
import {
  asksStaff,
  followCallback,
  hiddenFields,
  install,
  installToCallback,
  legacyClaimInstallPath,
  shopifyEnv,
  standInFor,
} from '../support/shopify.js';
import { ShopifyStandIn } from '../shopify-standin/stand-in.js';
import { BROWSER_USER_AGENT } from '../shopify-standin/example-app.js';
import { tableContents } from '../support/snapshot.js';

/**
 * The boundaries of docs/security.md between tenants: whatever a brand asks of any brand route,
 * with any of its credentials (API key, OAuth access token, dashboard session), nothing of
 * another brand's partnerships, campaigns, offers, keys, authorized apps or performance comes
 * back, and nothing of the other brand's can be changed; a platform key reaches only its own
 * platform's brands; brand credentials reach no admin or platform route.
 */
describe('tenant isolation', () => {
  let context: TestContext;
  let platformId: string;
  let otherPlatform: { platformId: string; key: string };
  let mine: { companyId: string; key: string; keyId: string };
  let theirs: { companyId: string; key: string; keyId: string };
  let theirPartners: SeededPartner[];
  let myPartners: SeededPartner[];
  /** Bearer tokens of my brand: one from the authorization-code flow, one from client credentials. */
  let myTokens: string[];
  let myDashboard: DashboardClient;
  let theirDashboard: DashboardClient;
  /** Their things made through the dashboard, with the ids the dashboard routes take. */
  let theirs2: { campaignId: string; keyId: string; grantId: string; offerTitle: string };

  /** A dashboard client signed in as a new staff member of the brand. */
  async function dashboardOf(companyId: string): Promise<{ client: DashboardClient; email: string }> {
    const email = `${uniqueId('staff')}@tenant.example`;
    await createBrandUser({ db: context.db }, companyId, { email, password: PASSWORD });
    const client = await new DashboardClient(context.app).start();
    const response = await client.post('/dashboard/api/sign-in', { email, password: PASSWORD });
    expect(response.statusCode, response.body).toBe(200);
    return { client, email };
  }

  beforeAll(async () => {
    context = await startTestApp('postgres', { RUN_BACKGROUND_JOBS: 'false' });
    const { support, app } = context;
    ({ platformId } = await createPlatform(support));
    otherPlatform = await createPlatform(support);
    mine = await createBrand(support);
    theirs = await createBrand(support);
    myPartners = [
      await seedPartnerOffer(support, mine.companyId),
      await seedPartnerOffer(support, mine.companyId, { campaignStatus: 'draft' }),
      await seedPartnerOffer(support, mine.companyId, { partnershipStatus: 'declined' }),
      await seedPartnerOffer(support, mine.companyId, { partnershipStatus: 'removed' }),
    ];
    theirPartners = [
      await seedPartnerOffer(support, theirs.companyId),
      await seedPartnerOffer(support, theirs.companyId, { partnerOwnsCampaign: true }),
      await seedPartnerOffer(support, theirs.companyId, { partnershipStatus: 'pending' }),
      await seedPartnerOffer(support, theirs.companyId, { partnershipStatus: 'pending', partnerOwnsCampaign: true }),
      await seedPartnerOffer(support, theirs.companyId, { partnershipStatus: 'declined' }),
      await seedPartnerOffer(support, theirs.companyId, { partnershipStatus: 'removed' }),
    ];

    // My brand's OAuth tokens: a staff member's consent (authorization code + PKCE), and a backend's client credentials.
    const mineStaff = await dashboardOf(mine.companyId);
    myDashboard = mineStaff.client;
    const publicClient = await registerOAuthClient(
      { db: context.db, serviceEnv: 'test' },
      { name: 'Tenant app', redirectUris: [REDIRECT_URI], confidential: false },
    );
    const { verifier, challenge } = pkce();
    const redirect = await consent(app, await signIn(app, mineStaff.email), { clientId: publicClient.clientId, challenge });
    const exchanged = await tokenRequest(app, {
      grant_type: 'authorization_code',
      code: redirect.searchParams.get('code')!,
      code_verifier: verifier,
      redirect_uri: REDIRECT_URI,
      client_id: publicClient.clientId,
    });
    const backend = await registerOAuthClient(
      { db: context.db, serviceEnv: 'test' },
      { name: 'Tenant backend', redirectUris: [REDIRECT_URI], confidential: true, companyId: mine.companyId },
    );
    const credentials = await tokenRequest(app, {
      grant_type: 'client_credentials',
      client_id: backend.clientId,
      client_secret: backend.clientSecret!,
    });
    myTokens = [exchanged, credentials].map((response) => {
      expect(response.statusCode, response.body).toBe(200);
      return (response.json() as { access_token: string }).access_token;
    });

    // Their brand, as its staff made it: a campaign, an offer, a key, an authorized app, and views counted.
    const theirStaff = await dashboardOf(theirs.companyId);
    theirDashboard = theirStaff.client;
    const campaign = await theirDashboard.post('/dashboard/api/campaigns', {
      partnerId: theirPartners[0]!.partnerId,
      name: 'Their private campaign',
    });
    expect(campaign.statusCode, campaign.body).toBe(201);
    const offerTitle = `Their offer ${uniqueId('title')}`;
    expect(
      (
        await theirDashboard.post('/dashboard/api/offer', {
          title: offerTitle,
          imageUrl: 'https://cdn.example/theirs.png',
          discountPercent: 20,
        })
      ).statusCode,
    ).toBe(200);
    const key = await theirDashboard.post('/dashboard/api/keys', { name: 'Their key' });
    expect(key.statusCode).toBe(201);
    await consent(app, await signIn(app, theirStaff.email), { clientId: publicClient.clientId, challenge: pkce().challenge });
    const grantId = ((await theirDashboard.get('/dashboard/api/apps')).json() as { data: Array<{ grantId: string }> }).data[0]!.grantId;
    const offers = await app.inject({
      method: 'GET',
      url: '/v1/campaigns/offers?type=post-purchase',
      headers: { 'x-api-key': theirs.key, 'x-platform-id': platformId },
    });
    expect((offers.json() as { offers: unknown[] }).offers.length).toBeGreaterThan(0);
    theirs2 = { campaignId: (campaign.json() as { id: string }).id, keyId: (key.json() as { keyId: string }).keyId, grantId, offerTitle };
  });

  afterAll(async () => {
    if (context) await stopTestApp(context);
  });

  /**
   * Everything of theirs that no route may show me. Brands themselves are no secret (search and
   * recommendations list them); who partners with whom, on what terms, is.
   */
  const foreign = () => [
    ...theirPartners.flatMap((p) => [p.campaignId, p.partnershipId, p.title, ...(p.discountCode ? [p.discountCode] : [])]),
    theirs2.campaignId,
    theirs2.keyId,
    theirs2.grantId,
    theirs2.offerTitle,
    'Their private campaign',
  ];
  /** A refusal may repeat the id the caller sent; nothing else of theirs. */
  const expectNothingForeign = (response: LightMyRequestResponse, where: string) => {
    for (const secret of foreign())
      if (!where.includes(secret)) expect(response.body.includes(secret), `${where} shows ${secret}`).toBe(false);
  };

  const brandRoutes = [
    '/v1/partners',
    '/v1/partners?status=inviteSent',
    '/v1/partners?status=inviteReceived',
    '/v1/partners?status=declined',
    '/v1/partners?status=removed',
    '/v1/campaigns',
    '/v1/campaigns?status=draft',
    '/v1/campaigns?status=active',
    '/v1/campaigns?status=closed',
    '/v1/discover/partner/recommendations',
    '/v1/campaigns/offers?type=post-purchase',
  ];

  it("no brand route shows a brand anything of another brand's, with its API key or either of its OAuth tokens", async () => {
    const credentials = [{ 'x-api-key': mine.key }, ...myTokens.map((token) => ({ authorization: `Bearer ${token}` }))];
    for (const headers of credentials) {
      for (const url of brandRoutes) {
        const response = await context.app.inject({ method: 'GET', url, headers: { ...headers, 'x-platform-id': platformId } });
        expect(response.statusCode, url).toBe(200);
        expectNothingForeign(response, `${url} with ${Object.keys(headers)[0]}`);
      }
      // My own data does come back through the same credential: the check above would see a leak.
      const offers = await context.app.inject({
        method: 'GET',
        url: '/v1/campaigns/offers?type=post-purchase',
        headers: { ...headers, 'x-platform-id': platformId },
      });
      expect((offers.json() as { offers: Array<{ title: string }> }).offers.map((o) => o.title)).toEqual([myPartners[0]!.title]);
    }
    const own = await context.app.inject({ method: 'GET', url: '/v1/campaigns', headers: { 'x-api-key': theirs.key } });
    expect(own.body).toContain(theirPartners[0]!.campaignId);
  });

  it("the declined and removed filters list only the brand's own partnerships", async () => {
    const partnerIds = async (key: string, status: string) =>
      (
        (await context.app.inject({ method: 'GET', url: `/v1/partners?status=${status}`, headers: { 'x-api-key': key } })).json() as {
          data: Array<{ companyId: string }>;
        }
      ).data.map((partner) => partner.companyId);
    // Declined also lists partnerships removed later (SPEC 2.2); removed lists only those.
    expect(await partnerIds(mine.key, 'declined')).toEqual(expect.arrayContaining([myPartners[2]!.partnerId]));
    expect(await partnerIds(mine.key, 'removed')).toEqual([myPartners[3]!.partnerId]);
    expect(await partnerIds(theirs.key, 'removed')).toEqual([theirPartners[5]!.partnerId]);
    const theirIds = theirPartners.map((p) => p.partnerId);
    for (const status of ['declined', 'removed'])
      expect((await partnerIds(mine.key, status)).filter((id) => theirIds.includes(id))).toEqual([]);
  });

  it('a dashboard session reads only its own brand: partnerships, campaigns, offer, keys, apps, performance', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const reads = [
      ...['active', 'inviteSent', 'inviteReceived', 'declined', 'removed'].map((status) => `/dashboard/api/partners?status=${status}`),
      '/dashboard/api/campaigns',
      '/dashboard/api/offer',
      '/dashboard/api/offer/links',
      '/dashboard/api/keys',
      '/dashboard/api/apps',
      '/dashboard/api/oauth-apps',
      '/dashboard/api/recommendations',
      `/dashboard/api/performance?from=${today}&to=${today}`,
      `/dashboard/api/performance.csv?from=${today}&to=${today}`,
      ...['shown', 'received'].flatMap((side) => [
        `/dashboard/api/performance/${side}?from=${today}&to=${today}`,
        `/dashboard/api/performance/${side}.csv?from=${today}&to=${today}`,
      ]),
      `/dashboard/api/statement?month=${today.slice(0, 7)}`,
      `/dashboard/api/statement.csv?month=${today.slice(0, 7)}`,
      '/dashboard/api/attribution-settings',
      '/dashboard/api/session',
    ];
    for (const url of reads) {
      const response = await myDashboard.get(url);
      expect(response.statusCode, url).toBe(200);
      expectNothingForeign(response, url);
    }
    // The same pages show their brand its own: the checks above would see a leak.
    const partnersIn = async (client: DashboardClient) =>
      (
        (await client.get(`/dashboard/api/performance?from=${today}&to=${today}`)).json() as {
          byPartner: { data: Array<{ companyId: string; views: number }> };
        }
      ).byPartner.data;
    const theirFigures = await partnersIn(theirDashboard);
    expect(theirFigures.reduce((sum, partner) => sum + partner.views, 0)).toBeGreaterThan(0);
    const myPartnerIds = myPartners.map((p) => p.partnerId);
    for (const partner of await partnersIn(myDashboard)) expect(myPartnerIds).toContain(partner.companyId);
    for (const partner of theirFigures) expect(myPartnerIds).not.toContain(partner.companyId);
    expect((await theirDashboard.get('/dashboard/api/campaigns')).body).toContain(theirs2.campaignId);
    expect((await theirDashboard.get('/dashboard/api/keys')).body).toContain(theirs2.keyId);
    expect((await theirDashboard.get('/dashboard/api/apps')).body).toContain(theirs2.grantId);
    expect((await theirDashboard.get('/dashboard/api/offer')).body).toContain(theirs2.offerTitle);
  });

  it(`a dashboard session cannot change another brand's partnerships, campaigns, keys \
or authorized apps, and writes nothing trying`, async () => {
    const attempts: Array<[string, unknown]> = [
      ...theirPartners.flatMap((partner) =>
        ['accept', 'decline', 'withdraw', 'remove'].map(
          (action) => [`/dashboard/api/partners/${partner.partnerId}/${action}`, {}] as [string, unknown],
        ),
      ),
      ...['accept', 'decline', 'withdraw', 'remove'].map(
        (action) => [`/dashboard/api/partners/${theirs.companyId}/${action}`, {}] as [string, unknown],
      ),
      ...['start', 'close'].map((action) => [`/dashboard/api/campaigns/${theirs2.campaignId}/${action}`, {}] as [string, unknown]),
      [`/dashboard/api/campaigns/${theirs2.campaignId}/schedule`, { startDate: new Date(Date.now() + 86_400_000).toISOString() }],
      ['/dashboard/api/campaigns', { partnerId: theirPartners[0]!.partnerId, name: 'Riding their partnership' }],
      [`/dashboard/api/keys/${theirs2.keyId}/revoke`, {}],
      [`/dashboard/api/keys/${theirs.keyId}/revoke`, {}],
      [`/dashboard/api/apps/${theirs2.grantId}/revoke`, {}],
    ];
    for (const [url, body] of attempts) {
      const before = await tableContents(context.db);
      const response = await myDashboard.post(url, body);
      expect([403, 404], `${url} → ${response.statusCode} ${response.body}`).toContain(response.statusCode);
      expect(response.json()).toMatchObject({ error: response.statusCode === 403 ? 'forbidden' : 'not_found' });
      expectNothingForeign(response, url);
      expect(await tableContents(context.db), `${url} wrote`).toEqual(before);
    }
    // Their keys and app still work for them.
    expect((await context.app.inject({ method: 'GET', url: '/v1/partners', headers: { 'x-api-key': theirs.key } })).statusCode).toBe(200);
    expect((await theirDashboard.get('/dashboard/api/keys')).body).toContain(theirs2.keyId);
    expect((await theirDashboard.get('/dashboard/api/apps')).body).toContain(theirs2.grantId);
  });

  it("saving my offer changes only my brand's offer", async () => {
    const offerOf = (companyId: string) =>
      context.db.selectFrom('offers').selectAll().where('company_id', '=', companyId).executeTakeFirst();
    const theirsBefore = await offerOf(theirs.companyId);
    const saved = await myDashboard.post('/dashboard/api/offer', {
      title: 'My own offer',
      imageUrl: 'https://cdn.example/mine.png',
      discountPercent: 10,
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect((await offerOf(mine.companyId))?.title).toBe('My own offer');
    expect(await offerOf(theirs.companyId)).toEqual(theirsBefore);
  });

  it("a brand's credentials open no admin route, no platform route, and no other brand's referral counts", async () => {
    for (const [method, url] of [
      ['GET', '/admin/platforms'],
      ['GET', `/admin/companies/${theirs.companyId}`],
      ['POST', `/admin/companies/${theirs.companyId}/keys`],
      ['GET', `/admin/platforms/${platformId}/stats`],
    ] as const) {
      for (const headers of [
        { 'x-api-key': mine.key },
        { authorization: `Bearer ${mine.key}` },
        ...myTokens.map((token) => ({ authorization: `Bearer ${token}` })),
      ]) {
        const response = await context.app.inject({ method, url, headers });
        expect(response.statusCode, `${method} ${url}`).toBe(401);
      }
      const session = method === 'GET' ? await myDashboard.get(url) : await myDashboard.post(url, {});
      expect(session.statusCode, `${method} ${url} with a session`).toBe(401);
    }
    // A session is no API credential: the brand API wants a key or a token.
    expect((await myDashboard.get('/v1/partners')).statusCode).toBe(401);
    for (const headers of [{ 'x-api-key': mine.key }, ...myTokens.map((token) => ({ authorization: `Bearer ${token}` }))]) {
      const sync = await context.app.inject({
        method: 'POST',
        url: '/v1/platform/brands',
        headers: { ...headers, 'content-type': 'application/json' },
        payload: { brands: [{ domain: 'taken-over.example' }] },
      });
      expect(sync.statusCode).toBe(401);
    }
  });

  it("a platform key reaches only its own platform's brands", async () => {
    const sync = (key: string, body: unknown) =>
      context.app.inject({
        method: 'POST',
        url: '/v1/platform/brands',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        payload: body as object,
      });
    expect((await sync(otherPlatform.key, { brands: [{ domain: 'shared-name.example', businessName: 'Theirs' }] })).statusCode).toBe(200);
    // Naming the other platform in the body is refused, and writes nothing there.
    const crossed = await sync(otherPlatform.key, { platformId, brands: [{ domain: 'shared-name.example', status: 'closed' }] });
    expect(crossed.statusCode).toBe(400);
    const brandsOf = async (id: string) =>
      (
        await context.app.inject({
          method: 'GET',
          url: `/admin/platforms/${id}/brands`,
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        })
      ).json() as { data: Array<{ domain: string; status: string }> };
    expect((await brandsOf(platformId)).data.map((b) => b.domain)).not.toContain('shared-name.example');
    expect((await brandsOf(otherPlatform.platformId)).data).toEqual([
      expect.objectContaining({ domain: 'shared-name.example', status: 'active' }),
    ]);
    // A platform key is no brand credential.
    const asBrand = await context.app.inject({ method: 'GET', url: '/v1/partners', headers: { 'x-api-key': otherPlatform.key } });
    expect(asBrand.statusCode).toBe(401);
  });
});

/**
 * Issue 23: a claim of a store belongs to the account that made it. Another account's session (or
 * none) can neither start the install that confirms it nor answer the question its callback shows,
 * and an account whose claim waits reads no brand's data.
 */
describeEachDatabase(
  "tenant isolation of a store's claim on Shopify",
  (use) => {
    let standIn: ShopifyStandIn;
    beforeAll(() => {
      standIn = standInFor('https://svc.test', () => use().app);
    });

    it("another person's session can neither start nor answer the claimant's confirmation; nothing is written", async () => {
      const shop = standIn.createShop({
        name: uniqueId('tn')
          .toLowerCase()
          .replace(/[^a-z0-9-]/g, '-'),
        products: 3,
        orders: 5,
      }).domain;
      expect((await install(use().app, standIn, `/commerce/shopify/install?shop=${shop}`)).statusCode).toBe(200);
      const claimant = await new DashboardClient(use().app).start();
      const claimantEmail = `${uniqueId('c')}@claimant.example`;
      await claimant.signUp({ email: claimantEmail, password: PASSWORD, brand: { businessName: 'C', domain: shop } });
      const confirmUrl = await legacyClaimInstallPath(use().db, shop, claimantEmail);
      const intruder = await new DashboardClient(use().app).start();
      await intruder.signUp({
        email: `${uniqueId('i')}@intruder.example`,
        password: PASSWORD,
        brand: { businessName: 'I', domain: `${uniqueId('i')}.example` },
      });

      const before = await tableContents(use().db);
      for (const cookie of [intruder.cookies, '']) {
        const started = await use().app.inject({ method: 'GET', url: confirmUrl, headers: { cookie, 'user-agent': BROWSER_USER_AGENT } });
        expect(started.statusCode).toBe(403);
        expect(started.headers.location).toBeUndefined();
      }
      expect(await tableContents(use().db)).toEqual(before);

      // The claimant's own flow reaches the question; the intruder posts its form with their session.
      const { callback, cookie } = await installToCallback(use().app, standIn, confirmUrl, claimant.cookies);
      const question = await followCallback(use().app, callback, cookie);
      expect(asksStaff(question)).toBe(true);
      const afterQuestion = await tableContents(use().db);
      const stolen = await use().app.inject({
        method: 'POST',
        url: '/commerce/shopify/confirm',
        headers: { cookie: intruder.cookies, origin: 'http://localhost:80', 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          ...hiddenFields(question.body),
          csrf_token: csrfOf(intruder.cookies),
          decision: 'confirm',
        }).toString(),
      });
      expect(stolen.statusCode).toBe(403);
      expect(await tableContents(use().db)).toEqual(afterQuestion);
      expect((await intruder.post('/dashboard/api/claim/check')).json()).toMatchObject({ companyId: null });

      // Waiting accounts read no brand's data.
      for (const url of ['/dashboard/api/partners', '/dashboard/api/campaigns', '/dashboard/api/keys', '/dashboard/api/offer']) {
        const read = await claimant.get(url);
        expect(read.statusCode, url).toBe(403);
        expect(read.json()).toMatchObject({ error: 'brand_unverified' });
      }
    });
  },
  { BASE_URL: 'https://svc.test', RUN_BACKGROUND_JOBS: 'false', ...shopifyEnv(new ShopifyStandIn()) },
);
