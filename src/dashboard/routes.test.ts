import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../../test/support/harness.js';
import { createBrand, createPlatform, uniqueId } from '../../test/support/factories.js';
import { consent, pkce, REDIRECT_URI, signIn, tokenRequest } from '../../test/support/oauth-flow.js';
import { waitUntil } from '../../test/support/service-process.js';
import { registerOAuthClient } from '../oauth/clients.js';
import { createBrandUser } from '../accounts/users.js';
import { issueBrandKey } from '../auth/service.js';
import { hashSecret } from '../shared/keys.js';
import { DashboardClient, DASHBOARD_PASSWORD, newSignUpLinks } from '../../test/support/dashboard-client.js';

/** The error code each refusal status carries in these routes. */
const ERROR_FOR_STATUS: Record<number, string> = { 400: 'invalid_request', 404: 'not_found', 409: 'conflict' };

describeEachDatabase('brand dashboard', (use) => {
  const newClient = () => new DashboardClient(use().app);
  const count = async (
    table:
      | 'companies'
      | 'brand_users'
      | 'brand_claims'
      | 'partnerships'
      | 'campaigns'
      | 'campaign_offers'
      | 'offers'
      | 'brand_api_keys'
      | 'password_resets'
      | 'brand_invitations',
  ) =>
    Number(
      (
        await use()
          .db.selectFrom(table)
          .select(({ fn }) => fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const everything = async () => ({
    companies: await count('companies'),
    users: await count('brand_users'),
    claims: await count('brand_claims'),
    partnerships: await count('partnerships'),
    campaigns: await count('campaigns'),
    campaignOffers: await count('campaign_offers'),
    offers: await count('offers'),
    keys: await count('brand_api_keys'),
    resets: await count('password_resets'),
    invitations: await count('brand_invitations'),
  });

  describe('page and session', () => {
    it('serves the app page, refusing to be framed, with its hashed assets', async () => {
      const page = await use().app.inject({ method: 'GET', url: '/dashboard' });
      expect(page.statusCode).toBe(200);
      expect(page.headers['x-frame-options']).toBe('DENY');
      expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      const script = /src="(\/assets\/dashboard\.[0-9a-f]{12}\.js)"/.exec(page.body)![1]!;
      const asset = await use().app.inject({ method: 'GET', url: script });
      expect(asset.statusCode).toBe(200);
      expect(asset.headers['cache-control']).toContain('immutable');
      expect((await use().app.inject({ method: 'GET', url: '/assets/nope.js' })).statusCode).toBe(404);
    });

    it('answers API calls without a session with 401 and no-store', async () => {
      const response = await use().app.inject({ method: 'GET', url: '/dashboard/api/partners' });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ error: 'unauthorized' });
      expect(response.headers['cache-control']).toBe('no-store');
    });
  });

  describe('sign up, sign in and invitations', () => {
    it('signs up a brand with its first user, who is then signed in', async () => {
      const client = newClient();
      const companyId = await client.signUpBrand(
        'Sunny Socks',
        `https://www.${uniqueId('sunny')}.example/shop`,
        `${uniqueId('a')}@sunny.example`,
      );
      const session = (await client.get('/dashboard/api/session')).json();
      expect(session.user).toMatchObject({ companyId, brandName: 'Sunny Socks' });
      const company = await use().db.selectFrom('companies').selectAll().where('id', '=', companyId).executeTakeFirstOrThrow();
      expect(company.domain).toMatch(/^sunny-[0-9a-f]+\.example$/);
      const signOut = await client.post('/dashboard/api/sign-out');
      expect(signOut.statusCode).toBe(200);
      expect((await client.get('/dashboard/api/session')).json().user).toBeNull();
    });

    it("joins a brand only with a member's invitation code, once", async () => {
      const owner = newClient();
      const companyId = await owner.signUpBrand('Join Me', `${uniqueId('join')}.example`, `${uniqueId('o')}@join.example`);
      const invitation = await owner.post('/dashboard/api/invitations');
      expect(invitation.statusCode).toBe(201);
      const { code } = invitation.json();
      const stored = await use().db.selectFrom('brand_invitations').selectAll().where('company_id', '=', companyId).execute();
      expect(stored.map((row) => row.code_hash)).not.toContain(code);

      const joiner = await newClient().start();
      const joined = await joiner.signUp({
        email: `${uniqueId('j')}@join.example`,
        password: DASHBOARD_PASSWORD,
        invitationCode: code,
      });
      expect(joined.statusCode).toBe(201);
      expect(joined.json().companyId).toBe(companyId);

      const before = await everything();
      const again = await (await newClient().start()).signUp({
        email: `${uniqueId('k')}@join.example`,
        password: DASHBOARD_PASSWORD,
        invitationCode: code,
      });
      expect(again.statusCode).toBe(400);
      expect(again.json()).toMatchObject({ error: 'invalid_invitation' });
      expect(await everything()).toEqual(before);
    });

    it(`spends an invitation code only with the account it makes: two sign-ups \
racing for one email leave the loser's code usable`, async () => {
      const owner = newClient();
      const companyId = await owner.signUpBrand('Race Me', `${uniqueId('race')}.example`, `${uniqueId('o')}@race.example`);
      const codes = [
        (await owner.post('/dashboard/api/invitations')).json().code as string,
        (await owner.post('/dashboard/api/invitations')).json().code as string,
      ];
      const email = `${uniqueId('r')}@race.example`;
      const clients = [await newClient().start(), await newClient().start()];
      for (const [index, invitationCode] of codes.entries()) {
        expect((await clients[index]!.post('/dashboard/api/sign-up', { email, invitationCode })).statusCode).toBe(202);
      }
      const tokens = await newSignUpLinks(use().app, email, 0, 2);
      const answers = await Promise.all(
        tokens.map((token, index) => clients[index]!.post('/dashboard/api/sign-up/finish', { token, password: DASHBOARD_PASSWORD })),
      );
      expect(answers.map((answer) => answer.statusCode).sort()).toEqual([201, 409]);
      expect(answers.find((answer) => answer.statusCode === 409)!.json()).toMatchObject({ error: 'email_taken' });
      // The mails may leave in either order: the loser's code is the one the database shows unspent.
      const unspent = await use()
        .db.selectFrom('brand_invitations')
        .select('code_hash')
        .where('company_id', '=', companyId)
        .where('used_at', 'is', null)
        .execute();
      const lostCode = codes.filter((code) => unspent.some((row) => row.code_hash === hashSecret(code)));
      expect(lostCode).toHaveLength(1);
      const reused = await (await newClient().start()).signUp({
        email: `${uniqueId('s')}@race.example`,
        password: DASHBOARD_PASSWORD,
        invitationCode: lostCode[0],
      });
      expect(reused.statusCode).toBe(201);
      expect(reused.json().companyId).toBe(companyId);
    });

    it('signs in with the right password only', async () => {
      const email = `${uniqueId('r')}@signin.example`;
      await newClient().signUpBrand('Sign In Co', `${uniqueId('signin')}.example`, email);
      const other = await newClient().start();
      const wrong = await other.post('/dashboard/api/sign-in', { email, password: 'not the password at all' });
      expect(wrong.statusCode).toBe(401);
      expect(wrong.json()).toMatchObject({ error: 'unauthorized' });
      expect((await other.get('/dashboard/api/session')).json().user).toBeNull();
      expect((await other.post('/dashboard/api/sign-in', { email, password: DASHBOARD_PASSWORD })).statusCode).toBe(200);
      expect((await other.get('/dashboard/api/session')).json().user).toMatchObject({ email, brandName: 'Sign In Co' });
    });

    const badSignUps: Array<[string, unknown, number, string]> = [
      ['an empty body', {}, 400, 'invalid_request'],
      ['an empty brand name', { email: 'e1@x.example', brand: { businessName: '', domain: 'e1.example' } }, 400, 'invalid_request'],
      [
        'a too long brand name',
        { email: 'e2@x.example', brand: { businessName: 'x'.repeat(101), domain: 'e2.example' } },
        400,
        'invalid_request',
      ],
      ['a wrong type', { email: 12345678901234, brand: { businessName: 'B', domain: 'e3.example' } }, 400, 'invalid_request'],
      [
        // Whoever opens the mailed link chooses the password, on the page it opens (issue 44).
        'a password, which only the page of the mailed link takes',
        { email: 'e4@x.example', password: DASHBOARD_PASSWORD, brand: { businessName: 'B', domain: 'e4.example' } },
        400,
        'invalid_request',
      ],
      ['a bad email', { email: 'not-an-email', brand: { businessName: 'B', domain: 'e5.example' } }, 400, 'invalid_request'],
      [
        'both brand and invitation',
        { email: 'e6@x.example', brand: { businessName: 'B', domain: 'e6.example' }, invitationCode: 'abc' },
        400,
        'invalid_request',
      ],
      ['a bad domain', { email: 'e7@x.example', brand: { businessName: 'B', domain: '::::' } }, 400, 'invalid_request'],
      ['malformed JSON', '{"email":', 400, 'invalid_request'],
    ];
    for (const [check, body, status, error] of badSignUps) {
      it(`refuses a sign-up with ${check}, writing nothing`, async () => {
        const client = await newClient().start();
        const before = await everything();
        const response = await client.post('/dashboard/api/sign-up', body);
        expect(response.statusCode).toBe(status);
        expect(response.json()).toMatchObject({ error, message: expect.any(String) });
        expect(await everything()).toEqual(before);
      });
    }

    it('refuses a write without the CSRF header or from another origin, writing nothing', async () => {
      const client = await newClient().start();
      const before = await everything();
      const body = {
        email: `${uniqueId('c')}@csrf.example`,
        brand: { businessName: 'Csrf', domain: `${uniqueId('csrf')}.example` },
      };
      const noHeader = await client.post('/dashboard/api/sign-up', body, { csrf: null });
      expect(noHeader.statusCode).toBe(403);
      expect(noHeader.json()).toMatchObject({ error: 'csrf_failed' });
      const crossSite = await use().app.inject({
        method: 'POST',
        url: '/dashboard/api/sign-up',
        headers: {
          cookie: client.cookies,
          'x-csrf-token': /svc_csrf=([A-Za-z0-9]+)/.exec(client.cookies)![1]!,
          origin: 'https://evil.example',
          'content-type': 'application/json',
        },
        payload: JSON.stringify(body),
      });
      expect(crossSite.statusCode).toBe(403);
      expect(await everything()).toEqual(before);
    });

    it('answers a bad invitation code alike whether the email has an account or not (issue 23), writing nothing', async () => {
      const email = `${uniqueId('t')}@taken.example`;
      await newClient().signUpBrand('Taken Three', `${uniqueId('taken')}.example`, email);
      const before = await everything();
      const answers = [];
      for (const candidate of [email, `${uniqueId('free')}@taken.example`]) {
        const response = await (await newClient().start()).post('/dashboard/api/sign-up', {
          email: candidate,
          invitationCode: 'not-a-real-invitation-code',
        });
        answers.push({ status: response.statusCode, error: response.json().error, message: response.json().message });
      }
      expect(answers[0]).toEqual(answers[1]);
      expect(answers[0]).toMatchObject({ status: 400, error: 'invalid_invitation' });
      expect(await everything()).toEqual(before);
    });
  });

  describe("a brand's keys belong to the brand (issue 44)", () => {
    it("lists every key of the brand to every staff member, whoever issued it, and any of them revokes another's key", async () => {
      const first = newClient();
      const firstEmail = `${uniqueId('first')}@keys.example`;
      const companyId = await first.signUpBrand('Key Keepers', `${uniqueId('keepers')}.example`, firstEmail);
      const secondEmail = `${uniqueId('second')}@keys.example`;
      await createBrandUser(use(), companyId, { email: secondEmail, password: DASHBOARD_PASSWORD, displayName: 'Sam Second' });
      const second = await newClient().start();
      expect((await second.post('/dashboard/api/sign-in', { email: secondEmail, password: DASHBOARD_PASSWORD })).statusCode).toBe(200);

      const firstKey = (await first.post('/dashboard/api/keys', { name: 'First staff key' })).json();
      // Signing out ends the session, not the key: it belongs to the brand.
      expect((await first.post('/dashboard/api/sign-out')).statusCode).toBe(200);
      const bySupport = await issueBrandKey(use().support, companyId, { name: 'Support key' });
      const apiWith = async (key: string) =>
        (await use().app.inject({ method: 'GET', url: '/v1/partners', headers: { 'x-api-key': key } })).statusCode;
      expect(await apiWith(firstKey.key)).toBe(200);

      const listed = (await second.get('/dashboard/api/keys')).json().data;
      expect(listed).toEqual([
        expect.objectContaining({
          keyId: firstKey.keyId,
          name: 'First staff key',
          lastFour: firstKey.key.slice(-4),
          issuedBy: 'staff',
          createdBy: { email: firstEmail, displayName: null },
          revokedAt: null,
        }),
        expect.objectContaining({ keyId: bySupport.keyId, name: 'Support key', issuedBy: 'support', createdBy: null, revokedAt: null }),
      ]);
      expect(JSON.stringify(listed)).not.toContain(firstKey.key);

      const revoked = await second.post(`/dashboard/api/keys/${firstKey.keyId}/revoke`);
      expect(revoked.statusCode).toBe(200);
      expect(await apiWith(firstKey.key)).toBe(401);
      expect((await second.post(`/dashboard/api/keys/${bySupport.keyId}/revoke`)).statusCode).toBe(200);
      expect(await apiWith(bySupport.key)).toBe(401);
      expect((await second.get('/dashboard/api/keys')).json().data).toEqual([
        expect.objectContaining({ keyId: firstKey.keyId, revokedAt: revoked.json().revokedAt }),
        expect.objectContaining({ keyId: bySupport.keyId, revokedAt: expect.any(String) }),
      ]);
    });
  });

  describe('partnerships, campaigns, offers and keys between two brands', () => {
    let alpha: DashboardClient;
    let beta: DashboardClient;
    let alphaId: string;
    let betaId: string;
    let alphaEmail: string;
    let betaDomain: string;
    let platformId: string;
    let alphaKey: string;

    beforeAll(async () => {
      alpha = newClient();
      beta = newClient();
      alphaEmail = `${uniqueId('a')}@alpha.example`;
      betaDomain = `${uniqueId('beta')}.example`;
      alphaId = await alpha.signUpBrand('Alpha Candles', `${uniqueId('alpha')}.example`, alphaEmail, ['home']);
      betaId = await beta.signUpBrand('Beta Soap Works', betaDomain, `${uniqueId('b')}@beta.example`, ['home']);
      ({ platformId } = await createPlatform(use().support));
      const issued = await alpha.post('/dashboard/api/keys', { name: 'Checkout' });
      expect(issued.statusCode).toBe(201);
      alphaKey = issued.json().key;
    });

    const v1Partners = async (status: string) =>
      (await use().app.inject({ method: 'GET', url: `/v1/partners?status=${status}`, headers: { 'x-api-key': alphaKey } })).json();
    const dashboardPartners = async (client: DashboardClient, status: string) =>
      (await client.get(`/dashboard/api/partners?status=${status}`)).json();
    const offers = async () =>
      (
        await use().app.inject({
          method: 'GET',
          url: '/v1/campaigns/offers?type=post-purchase',
          headers: { 'x-api-key': alphaKey, 'x-platform-id': platformId },
        })
      ).json().offers;

    it('finds brands by name, domain or category', async () => {
      const byName = (await alpha.get('/dashboard/api/brands?q=soap')).json().data;
      expect(byName.map((b: { companyId: string }) => b.companyId)).toContain(betaId);
      expect(byName.map((b: { companyId: string }) => b.companyId)).not.toContain(alphaId);
      expect((await alpha.get('/dashboard/api/brands?q=home')).json().data.map((b: { companyId: string }) => b.companyId)).toContain(
        betaId,
      );
      expect((await alpha.get('/dashboard/api/brands?q=')).statusCode).toBe(400);
      expect((await alpha.get(`/dashboard/api/brands?q=${'x'.repeat(101)}`)).statusCode).toBe(400);
      expect((await alpha.get('/dashboard/api/recommendations')).statusCode).toBe(200);
    });

    it('walks every partnership transition, and GET /v1/partners reports what the dashboard shows', async () => {
      const send = await alpha.post(`/dashboard/api/partners/${betaId}/request`, { message: 'Our candles and your soap?' });
      expect(send.statusCode).toBe(201);
      expect((await v1Partners('inviteSent')).data.map((p: { companyId: string }) => p.companyId)).toEqual([betaId]);
      // The same list as the API, plus the request's message, which only the dashboard shows.
      const { messages, ...sentList } = await dashboardPartners(alpha, 'inviteSent');
      expect(sentList).toEqual(await v1Partners('inviteSent'));
      expect(messages).toEqual({ [betaId]: 'Our candles and your soap?' });
      expect((await dashboardPartners(beta, 'inviteReceived')).data[0]).toMatchObject({ companyId: alphaId, status: 'inviteReceived' });

      const before = await everything();
      const refusals: Array<[DashboardClient, string, unknown, number]> = [
        [alpha, `/dashboard/api/partners/${betaId}/request`, {}, 409],
        [beta, `/dashboard/api/partners/${alphaId}/request`, {}, 409],
        [alpha, `/dashboard/api/partners/${betaId}/accept`, undefined, 404],
        [alpha, `/dashboard/api/partners/${alphaId}/request`, {}, 400],
        [alpha, '/dashboard/api/partners/no-such-brand/request', {}, 404],
        [alpha, `/dashboard/api/partners/${betaId}/request`, { message: 'x'.repeat(1001) }, 400],
        [alpha, `/dashboard/api/partners/${betaId}/explode`, undefined, 400],
      ];
      for (const [client, url, body, status] of refusals) {
        const response = await client.post(url, body);
        expect(response.statusCode, url).toBe(status);
        expect(response.json(), url).toMatchObject({ error: ERROR_FOR_STATUS[status] });
      }
      expect(await everything()).toEqual(before);

      expect((await beta.post(`/dashboard/api/partners/${alphaId}/decline`)).statusCode).toBe(200);
      expect((await v1Partners('declined')).data[0]).toMatchObject({ companyId: betaId, status: 'declined' });

      expect((await alpha.post(`/dashboard/api/partners/${betaId}/request`, { message: 'Again?' })).statusCode).toBe(201);
      expect((await alpha.post(`/dashboard/api/partners/${betaId}/withdraw`)).statusCode).toBe(200);
      expect((await v1Partners('removed')).data[0]).toMatchObject({ companyId: betaId, status: 'removed' });

      expect((await alpha.post(`/dashboard/api/partners/${betaId}/request`, {})).statusCode).toBe(201);
      expect((await beta.post(`/dashboard/api/partners/${alphaId}/accept`)).statusCode).toBe(200);
      expect((await v1Partners('active')).data).toEqual([expect.objectContaining({ companyId: betaId, status: 'active' })]);
      expect(await dashboardPartners(alpha, 'active')).toEqual(await v1Partners('active'));
      expect((await v1Partners('declined')).totalRows).toBe(2);
      // The declined and removed rows are history: the dashboard says the pair are partners again.
      const declined = await dashboardPartners(alpha, 'declined');
      expect(declined.data).toEqual((await v1Partners('declined')).data);
      expect(declined.current).toEqual({ [betaId]: 'active' });
    });

    it('pages the partnership lists', async () => {
      const others = await Promise.all([0, 1, 2].map(() => createBrand(use().support)));
      for (const other of others) expect((await alpha.post(`/dashboard/api/partners/${other.companyId}/request`, {})).statusCode).toBe(201);
      const page = async (query: string) => (await alpha.get(`/dashboard/api/partners?status=inviteSent&${query}`)).json();
      const first = await page('pageSize=2&pageIndex=1');
      const second = await page('pageSize=2&pageIndex=2');
      expect(first.totalRows).toBe(3);
      expect(first.data).toHaveLength(2);
      expect(second.data).toHaveLength(1);
      expect([...first.data, ...second.data].map((partner: { companyId: string }) => partner.companyId).sort()).toEqual(
        others.map((other) => other.companyId).sort(),
      );
      expect((await page('pageSize=2&pageIndex=3')).data).toEqual([]);
      for (const query of ['pageSize=0', 'pageSize=101', 'pageIndex=0', 'pageIndex=x', 'status=pending']) {
        const response = await alpha.get(`/dashboard/api/partners?status=inviteSent&${query}`);
        expect(response.statusCode, query).toBe(400);
        expect(response.json()).toMatchObject({ error: 'invalid_request' });
      }
      for (const other of others) await alpha.post(`/dashboard/api/partners/${other.companyId}/withdraw`);
    });

    it('creates, starts and closes a campaign, and the offers endpoint follows at once', async () => {
      expect(await offers()).toEqual([]);
      const saved = await beta.post('/dashboard/api/offer', {
        title: '20% off soap',
        subtitle: 'For new customers',
        imageUrl: 'https://cdn.example/soap.png',
        discountPercent: 20,
      });
      expect(saved.statusCode).toBe(200);

      const created = await alpha.post('/dashboard/api/campaigns', { partnerId: betaId, name: 'Autumn bundle' });
      expect(created.statusCode).toBe(201);
      const campaignId = created.json().id;
      const betaView = (await beta.get('/dashboard/api/campaigns')).json().data;
      expect(betaView[0]).toMatchObject({
        id: campaignId,
        status: 'draft',
        mine: false,
        startBlocked: 'partner_starts',
        partner: { companyId: alphaId },
      });
      expect((await beta.post(`/dashboard/api/campaigns/${campaignId}/start`)).statusCode).toBe(403);

      expect((await alpha.post(`/dashboard/api/campaigns/${campaignId}/start`)).statusCode).toBe(200);
      const v1 = await use().app.inject({ method: 'GET', url: '/v1/campaigns', headers: { 'x-api-key': alphaKey } });
      expect(v1.json().data).toEqual([expect.objectContaining({ id: campaignId, status: 'active', name: 'Autumn bundle' })]);
      expect(await offers()).toEqual([
        expect.objectContaining({ title: '20% off soap', subtitle: 'For new customers', imageUrl: 'https://cdn.example/soap.png' }),
      ]);

      expect(
        (
          await beta.post('/dashboard/api/offer', {
            title: 'Soap, 25% off',
            imageUrl: 'https://cdn.example/soap2.png',
            discountPercent: 25,
          })
        ).statusCode,
      ).toBe(200);
      expect((await offers())[0]).toMatchObject({ title: 'Soap, 25% off' });
      expect((await offers())[0].subtitle).toBeUndefined();

      expect((await alpha.post(`/dashboard/api/campaigns/${campaignId}/start`)).statusCode).toBe(409);
      expect((await beta.post(`/dashboard/api/campaigns/${campaignId}/close`)).statusCode).toBe(200);
      expect(await offers()).toEqual([]);
      expect((await alpha.post(`/dashboard/api/campaigns/${campaignId}/close`)).statusCode).toBe(409);
    });

    const discountCodes = () =>
      use()
        .db.selectFrom('sandbox_discount_codes')
        .select(['code', 'percent', 'once_per_customer'])
        .where('store_domain', '=', betaDomain)
        .execute();
    const redirectOf = async () => {
      const campaigns = (await alpha.get('/dashboard/api/campaigns')).json().data;
      expect(campaigns.some((campaign: { status: string }) => campaign.status === 'active')).toBe(true);
      const referralUrl: string = (await offers())[0].referralUrl;
      return new URL(
        (await use().app.inject({ method: 'HEAD', url: referralUrl.replace(/^https?:\/\/[^/]+/, '') })).headers.location as string,
      );
    };
    // A store's discount link: https://{store}/discount/{code} (docs/offers.md).
    const discountIn = (url: URL) => /\/discount\/([^/]+)$/.exec(url.pathname)?.[1] ?? null;

    it("keeps the store's one discount code in the store, through the commerce platform, as the offer's discount changes", async () => {
      // The earlier saves (20%, then 25%) left one code: the 20% code was changed into the 25% one.
      expect(await discountCodes()).toEqual([
        { code: expect.stringMatching(/^PARTNER25-[0-9A-F]{6}$/), percent: 25, once_per_customer: true },
      ]);
      await beta.post('/dashboard/api/offer', { title: 'Soap', imageUrl: 'https://cdn.example/soap.png', discountPercent: 10 });
      const [ten] = await discountCodes();
      expect(ten).toEqual({ code: expect.stringMatching(/^PARTNER10-/), percent: 10, once_per_customer: true });
      const stored = await use()
        .db.selectFrom('offers')
        .select(['discount_code', 'discount_percent'])
        .where('company_id', '=', betaId)
        .executeTakeFirstOrThrow();
      expect(stored).toEqual({ discount_code: ten!.code, discount_percent: 10 });
      await beta.post('/dashboard/api/offer', { title: 'Soap', imageUrl: 'https://cdn.example/soap.png', discountPercent: null });
      expect(await discountCodes()).toEqual([]);
      expect(
        (
          await beta.post('/dashboard/api/offer', {
            title: 'Soap, 25% off',
            imageUrl: 'https://cdn.example/soap2.png',
            discountPercent: 25,
          })
        ).statusCode,
      ).toBe(200);
      expect(await discountCodes()).toEqual([expect.objectContaining({ percent: 25 })]);
    });

    it('lets each side choose the offer it shows in a campaign; both dashboards and the offers endpoint follow at once', async () => {
      await alpha.post('/dashboard/api/offer', { title: 'Alpha candles', imageUrl: 'https://cdn.example/candle.png', discountPercent: 10 });
      const created = await alpha.post('/dashboard/api/campaigns', {
        partnerId: betaId,
        name: 'Candles and soap',
        offer: { title: 'Candles for soap lovers', imageUrl: 'https://cdn.example/candle-soap.png', discountPercent: 10 },
      });
      expect(created.statusCode, created.body).toBe(201);
      const id = created.json().id;
      const find = async (client: DashboardClient) =>
        (await client.get('/dashboard/api/campaigns')).json().data.find((c: { id: string }) => c.id === id);
      expect((await find(alpha)).offers).toEqual({
        mine: {
          title: 'Candles for soap lovers',
          subtitle: null,
          imageUrl: 'https://cdn.example/candle-soap.png',
          discountPercent: 10,
          live: true,
          custom: true,
        },
        partner: expect.objectContaining({ title: 'Soap, 25% off', discountPercent: 25, custom: false }),
      });
      expect((await find(beta)).offers.partner).toMatchObject({ title: 'Candles for soap lovers', custom: true });

      expect((await alpha.post(`/dashboard/api/campaigns/${id}/start`)).statusCode).toBe(200);
      expect(await offers()).toEqual([expect.objectContaining({ title: 'Soap, 25% off' })]);
      expect(discountIn(await redirectOf())).toMatch(/^PARTNER25-/);

      const chosen = await beta.post(`/dashboard/api/campaigns/${id}/offer`, {
        title: 'Soap for candle lovers',
        subtitle: 'Only with Alpha',
        imageUrl: 'https://cdn.example/soap-candle.png',
        discountPercent: null,
      });
      expect(chosen.statusCode).toBe(200);
      expect(await offers()).toEqual([
        {
          title: 'Soap for candle lovers',
          subtitle: 'Only with Alpha',
          imageUrl: 'https://cdn.example/soap-candle.png',
          referralUrl: expect.any(String),
        },
      ]);
      // This campaign's offer leaves the discount out, so the link brings no code.
      expect(discountIn(await redirectOf())).toBeNull();
      expect((await find(alpha)).offers.partner).toMatchObject({ title: 'Soap for candle lovers', discountPercent: null, custom: true });
      const v1 = await use().app.inject({ method: 'GET', url: '/v1/campaigns?status=active', headers: { 'x-api-key': alphaKey } });
      expect(v1.json().data).toEqual([expect.objectContaining({ id, name: 'Candles and soap', status: 'active' })]);

      const before = await everything();
      const refusals: Array<[DashboardClient, string, unknown, number]> = [
        [beta, `/dashboard/api/campaigns/${id}/offer`, { title: 'x', imageUrl: 'https://cdn.example/a.png', discountPercent: 10 }, 400],
        [beta, `/dashboard/api/campaigns/${id}/offer`, { title: '', imageUrl: 'https://cdn.example/a.png' }, 400],
        [beta, `/dashboard/api/campaigns/${id}/offer`, { title: 'x', imageUrl: 'ftp://cdn.example/a.png' }, 400],
        [beta, `/dashboard/api/campaigns/${id}/offer`, { title: 'x', imageUrl: 'https://cdn.example/a.png', extra: true }, 400],
        [beta, '/dashboard/api/campaigns/not%20an%20id/offer', { title: 'x', imageUrl: 'https://cdn.example/a.png' }, 400],
        [
          beta,
          '/dashboard/api/campaigns/3f1b5e0e-0000-4000-8000-000000000000/offer',
          { title: 'x', imageUrl: 'https://cdn.example/a.png' },
          404,
        ],
        [
          alpha,
          '/dashboard/api/campaigns',
          { partnerId: betaId, name: 'Bad offer', offer: { title: 'x', imageUrl: 'https://cdn.example/a.png', discountPercent: 25 } },
          400,
        ],
      ];
      for (const [client, url, body, status] of refusals) {
        const response = await client.post(url, body);
        expect(response.statusCode, `${url} ${JSON.stringify(body)}`).toBe(status);
        expect(response.json()).toMatchObject({ error: ERROR_FOR_STATUS[status], message: expect.any(String) });
      }
      expect(await everything()).toEqual(before);

      expect((await beta.post(`/dashboard/api/campaigns/${id}/offer/reset`)).statusCode).toBe(200);
      expect(await offers()).toEqual([expect.objectContaining({ title: 'Soap, 25% off' })]);
      expect(discountIn(await redirectOf())).toMatch(/^PARTNER25-/);

      expect((await alpha.post(`/dashboard/api/campaigns/${id}/close`)).statusCode).toBe(200);
      const afterClose = await everything();
      for (const [url, body] of [
        [`/dashboard/api/campaigns/${id}/offer`, { title: 'Too late', imageUrl: 'https://cdn.example/a.png' }],
        [`/dashboard/api/campaigns/${id}/offer/reset`, undefined],
      ] as const) {
        const closed = await beta.post(url, body);
        expect(closed.statusCode, url).toBe(409);
        expect(closed.json()).toMatchObject({ error: 'conflict' });
      }
      expect(await everything()).toEqual(afterClose);
    });

    it('runs a campaign that support or a fixture loaded under its own id, not a uuid', async () => {
      const partnership = await use()
        .db.selectFrom('partnerships')
        .select('id')
        .where('requester_id', 'in', [alphaId, betaId])
        .where('recipient_id', 'in', [alphaId, betaId])
        .where('status', '=', 'active')
        .executeTakeFirstOrThrow();
      const id = uniqueId('cmp-fixture');
      const now = new Date();
      await use()
        .db.insertInto('campaigns')
        .values({
          id,
          partnership_id: partnership.id,
          owner_id: alphaId,
          partner_id: betaId,
          name: 'Loaded',
          status: 'draft',
          created_at: now,
          updated_at: now,
        })
        .execute();
      expect((await alpha.post(`/dashboard/api/campaigns/${id}/start`)).statusCode).toBe(200);
      expect(
        (await beta.post(`/dashboard/api/campaigns/${id}/offer`, { title: 'Loaded offer', imageUrl: 'https://cdn.example/l.png' }))
          .statusCode,
      ).toBe(200);
      expect((await beta.post(`/dashboard/api/campaigns/${id}/offer/reset`)).statusCode).toBe(200);
      expect((await beta.post(`/dashboard/api/campaigns/${id}/close`)).statusCode).toBe(200);
      const listed = (await alpha.get('/dashboard/api/campaigns')).json().data.find((c: { id: string }) => c.id === id);
      expect(listed).toMatchObject({ status: 'closed' });
    });

    it('schedules a draft for a future start', async () => {
      const created = await alpha.post('/dashboard/api/campaigns', { partnerId: betaId, name: 'Winter' });
      const id = created.json().id;
      expect((await alpha.post(`/dashboard/api/campaigns/${id}/schedule`, { startDate: '2000-01-01T00:00:00Z' })).statusCode).toBe(400);
      const start = new Date(Date.now() + 86_400_000).toISOString();
      expect((await alpha.post(`/dashboard/api/campaigns/${id}/schedule`, { startDate: start })).statusCode).toBe(200);
      const listed = (await alpha.get('/dashboard/api/campaigns')).json().data.find((c: { id: string }) => c.id === id);
      expect(listed).toMatchObject({ status: 'draft', scheduled: true, startDate: start });
    });

    it("refuses bad campaign and offer input and other brands' ids, writing nothing", async () => {
      const outsider = newClient();
      await outsider.signUpBrand('Outsider', `${uniqueId('out')}.example`, `${uniqueId('o')}@out.example`);
      const campaignId = (await alpha.get('/dashboard/api/campaigns')).json().data[0].id;
      const before = await everything();
      const cases: Array<[DashboardClient, string, unknown, number]> = [
        [alpha, '/dashboard/api/campaigns', {}, 400],
        [alpha, '/dashboard/api/campaigns', { partnerId: betaId, name: '' }, 400],
        [alpha, '/dashboard/api/campaigns', { partnerId: betaId, name: 'x'.repeat(101) }, 400],
        [alpha, '/dashboard/api/campaigns', { partnerId: betaId, name: 42 }, 400],
        [alpha, '/dashboard/api/campaigns', { partnerId: betaId, name: 'Dates', startDate: 'tomorrow' }, 400],
        [
          alpha,
          '/dashboard/api/campaigns',
          { partnerId: betaId, name: 'Dates', startDate: '2030-01-02T00:00:00Z', endDate: '2030-01-01T00:00:00Z' },
          400,
        ],
        [outsider, '/dashboard/api/campaigns', { partnerId: betaId, name: 'Not partners' }, 404],
        [outsider, `/dashboard/api/campaigns/${campaignId}/close`, undefined, 404],
        [outsider, `/dashboard/api/campaigns/${campaignId}/start`, undefined, 404],
        [outsider, `/dashboard/api/campaigns/${campaignId}/offer`, { title: 'Mine now', imageUrl: 'https://cdn.example/a.png' }, 404],
        [outsider, `/dashboard/api/campaigns/${campaignId}/offer/reset`, undefined, 404],
        [alpha, '/dashboard/api/campaigns/not%20an%20id/close', undefined, 400],
        [alpha, '/dashboard/api/campaigns/no-such-campaign/close', undefined, 404],
        [alpha, '/dashboard/api/offer', { title: '', imageUrl: 'https://cdn.example/a.png' }, 400],
        [alpha, '/dashboard/api/offer', { title: 'x'.repeat(81), imageUrl: 'https://cdn.example/a.png' }, 400],
        [alpha, '/dashboard/api/offer', { title: 'Ok', imageUrl: 'javascript:alert(1)' }, 400],
        [alpha, '/dashboard/api/offer', { title: 'Ok', imageUrl: 'https://cdn.example/a.png', discountPercent: 12 }, 400],
        [alpha, '/dashboard/api/offer', { title: 'Ok', imageUrl: 'https://cdn.example/a.png', discountPercent: '10' }, 400],
        [alpha, '/dashboard/api/keys', { name: '' }, 400],
        [alpha, '/dashboard/api/keys', { name: 'x'.repeat(101) }, 400],
      ];
      for (const [client, url, body, status] of cases) {
        const response = await client.post(url, body);
        expect(response.statusCode, `${url} ${JSON.stringify(body)}`).toBe(status);
        expect(response.json()).toMatchObject({ error: ERROR_FOR_STATUS[status], message: expect.any(String) });
      }
      expect(await everything()).toEqual(before);
    });

    it('shows when a key was last used', async () => {
      const issued = (await alpha.post('/dashboard/api/keys', { name: 'Fresh' })).json();
      const listed = async () =>
        (await alpha.get('/dashboard/api/keys')).json().data.find((key: { keyId: string }) => key.keyId === issued.keyId);
      expect((await listed()).lastUsedAt).toBeNull();
      const usedAt = Date.now();
      expect((await use().app.inject({ method: 'GET', url: '/v1/partners', headers: { 'x-api-key': issued.key } })).statusCode).toBe(200);
      // Key use is recorded off the request path, every couple of seconds.
      await waitUntil(async () => (await listed()).lastUsedAt !== null, 60_000, 200);
      expect(Date.parse((await listed()).lastUsedAt)).toBeGreaterThanOrEqual(usedAt - 1000);
      expect((await alpha.post(`/dashboard/api/keys/${issued.keyId}/revoke`)).statusCode).toBe(200);
    });

    it('lists an OAuth app authorized for the brand and revokes it: its tokens stop working', async () => {
      const client = await registerOAuthClient(
        { db: use().db, serviceEnv: 'test' },
        { name: 'Checkout Plus', redirectUris: [REDIRECT_URI], confidential: false },
      );
      const cookies = await signIn(use().app, alphaEmail, DASHBOARD_PASSWORD);
      const { verifier, challenge } = pkce();
      const redirect = await consent(use().app, cookies, { clientId: client.clientId, challenge, platformId });
      const tokens = (
        await tokenRequest(use().app, {
          grant_type: 'authorization_code',
          code: redirect.searchParams.get('code')!,
          code_verifier: verifier,
          redirect_uri: REDIRECT_URI,
          client_id: client.clientId,
        })
      ).json();
      const bearer = { authorization: `Bearer ${tokens.access_token}` };
      expect((await use().app.inject({ method: 'GET', url: '/v1/partners', headers: bearer })).statusCode).toBe(200);

      const apps = (await alpha.get('/dashboard/api/apps')).json().data;
      expect(apps).toEqual([
        {
          grantId: expect.any(String),
          clientId: client.clientId,
          name: 'Checkout Plus',
          platform: expect.any(String),
          scope: expect.any(Array),
          authorizedAt: expect.any(String),
        },
      ]);
      expect((await beta.get('/dashboard/api/apps')).json().data).toEqual([]);
      expect((await beta.post(`/dashboard/api/apps/${apps[0].grantId}/revoke`)).statusCode).toBe(404);
      expect((await use().app.inject({ method: 'GET', url: '/v1/partners', headers: bearer })).statusCode).toBe(200);

      expect((await alpha.post(`/dashboard/api/apps/${apps[0].grantId}/revoke`)).statusCode).toBe(200);
      expect((await alpha.get('/dashboard/api/apps')).json().data).toEqual([]);
      expect((await use().app.inject({ method: 'GET', url: '/v1/partners', headers: bearer })).statusCode).toBe(401);
      const refreshed = await tokenRequest(use().app, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: client.clientId,
      });
      expect(refreshed.statusCode).toBe(400);
      expect(refreshed.json()).toMatchObject({ error: 'invalid_grant' });
      expect((await alpha.post(`/dashboard/api/apps/${apps[0].grantId}/revoke`)).statusCode).toBe(404);
    });

    it('lists, and revokes only its own keys; a revoked key stops working', async () => {
      // The key revoked in an earlier test is listed, revoked; the one still in use is Checkout.
      const keys = (await alpha.get('/dashboard/api/keys')).json().data.filter((key: { revokedAt: string | null }) => !key.revokedAt);
      expect(keys).toEqual([expect.objectContaining({ name: 'Checkout', lastFour: alphaKey.slice(-4), createdAt: expect.any(String) })]);
      expect(JSON.stringify(keys)).not.toContain(alphaKey);
      expect(alphaKey.startsWith('svc_test_')).toBe(true);
      expect((await beta.post(`/dashboard/api/keys/${keys[0].keyId}/revoke`)).statusCode).toBe(404);
      expect((await alpha.post(`/dashboard/api/keys/${keys[0].keyId}/revoke`)).statusCode).toBe(200);
      expect((await alpha.get('/dashboard/api/keys')).json().data).toContainEqual(
        expect.objectContaining({ keyId: keys[0].keyId, revokedAt: expect.any(String) }),
      );
      const after = await use().app.inject({ method: 'GET', url: '/v1/partners', headers: { 'x-api-key': alphaKey } });
      expect(after.statusCode).toBe(401);
      expect((await alpha.get('/dashboard/api/apps')).json()).toEqual({ data: [] });
      expect((await alpha.post('/dashboard/api/apps/3f1b5e0e-0000-4000-8000-000000000000/revoke')).statusCode).toBe(404);
    });

    it('removes a partner, closing their campaigns, and may ask again', async () => {
      expect((await beta.post(`/dashboard/api/partners/${alphaId}/remove`)).statusCode).toBe(200);
      const campaigns = (await alpha.get('/dashboard/api/campaigns')).json().data;
      expect(campaigns.every((c: { status: string }) => c.status === 'closed')).toBe(true);
      expect((await beta.post(`/dashboard/api/partners/${alphaId}/remove`)).statusCode).toBe(404);
      expect((await beta.post(`/dashboard/api/partners/${alphaId}/request`, {})).statusCode).toBe(201);
      expect((await dashboardPartners(alpha, 'inviteReceived')).data[0]).toMatchObject({ companyId: betaId });
    });
  });
});

describeEachDatabase(
  'dashboard API keys on a prod host',
  (use) => {
    it('issues svc_live_ keys, which the API takes, and refuses test keys', async () => {
      const { companyId } = await createBrand(use().support);
      const email = `${uniqueId('live')}@prod.example`;
      await createBrandUser({ db: use().db }, companyId, { email, password: DASHBOARD_PASSWORD });
      const client = await new DashboardClient(use().app).start();
      expect((await client.post('/dashboard/api/sign-in', { email, password: DASHBOARD_PASSWORD })).statusCode).toBe(200);
      expect((await client.get('/dashboard/api/session')).json().keyPrefix).toBe('svc_live_');
      const issued = await client.post('/dashboard/api/keys', { name: 'Production checkout' });
      expect(issued.statusCode).toBe(201);
      const key: string = issued.json().key;
      expect(key).toMatch(/^svc_live_/);
      expect((await use().app.inject({ method: 'GET', url: '/v1/partners', headers: { 'x-api-key': key } })).statusCode).toBe(200);
      const testKey = `svc_test_${key.slice('svc_live_'.length)}`;
      const refused = await use().app.inject({ method: 'GET', url: '/v1/partners', headers: { 'x-api-key': testKey } });
      expect(refused.statusCode).toBe(401);
      expect(refused.json().message).toMatch(/svc_live_/);
    });
  },
  { SERVICE_ENV: 'prod' },
);
