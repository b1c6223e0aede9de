import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, describeEachDatabase } from '../../test/support/harness.js';
import { createBrand, uniqueId } from '../../test/support/factories.js';
import { tableContents } from '../../test/support/snapshot.js';
import { csrfOf, form, mergeCookies } from '../../test/support/oauth-flow.js';
import { importStore } from '../embed/merchant-stores.js';
import { DashboardClient, DASHBOARD_PASSWORD, STORE_OWNER_PASSWORD } from '../../test/support/dashboard-client.js';

/**
 * Proof of store ownership (issue 6, sign-up): an account claims a store and acts for its brand
 * only once the store's owner, signed in at the commerce platform (the sandbox here), confirms.
 */
describeEachDatabase('store ownership claims', (use) => {
  const client = () => new DashboardClient(use().app);
  const companiesWith = (domain: string) =>
    use().db.selectFrom('companies').select(['id', 'business_name']).where('domain', '=', domain).execute();
  const written = async () => ({
    companies: await use().db.selectFrom('companies').select('id').orderBy('id').execute(),
    users: await use().db.selectFrom('brand_users').select(['id', 'company_id']).orderBy('id').execute(),
    claims: await use().db.selectFrom('brand_claims').select(['id', 'status']).orderBy('id').execute(),
    keys: await use().db.selectFrom('brand_api_keys').select('id').orderBy('id').execute(),
  });
  const signUp = async (account: DashboardClient, domain: string, name = 'Claimed Co') => {
    await account.start();
    return account.signUp({
      email: `${uniqueId('c')}@claim.example`,
      password: DASHBOARD_PASSWORD,
      brand: { businessName: name, domain, categories: ['home'] },
    });
  };
  const importThroughPlugin = (domain: string) =>
    importStore(use().support, {
      domain,
      businessName: 'Imported Store',
      tagline: null,
      logoImageUrl: null,
      categories: ['home'],
      country: null,
      productCount: 8,
      platformName: 'Sandbox Commerce',
      welcomeDiscountPercent: null,
    });

  it('creates no brand and lets the account act for none until the store owner confirms at the platform', async () => {
    const domain = `${uniqueId('claim')}.example`;
    const account = client();
    const response = await signUp(account, domain, 'Claimed Co');
    expect(response.statusCode).toBe(201);
    const { companyId, claim } = response.json();
    expect(companyId).toBeNull();
    expect(claim).toMatchObject({
      domain,
      businessName: 'Claimed Co',
      status: 'pending',
      confirmUrl: expect.stringMatching(new RegExp(`^/sandbox/stores/${domain}/ownership/[0-9a-f-]{36}$`)),
    });
    expect(await companiesWith(domain)).toEqual([]);
    expect((await account.get('/dashboard/api/session')).json()).toMatchObject({ user: { companyId: null }, claim: { status: 'pending' } });

    const before = await written();
    for (const [method, url] of [
      ['GET', '/dashboard/api/partners'],
      ['GET', '/dashboard/api/keys'],
      ['POST', '/dashboard/api/keys'],
      ['POST', '/dashboard/api/offer'],
    ] as const) {
      const refused =
        method === 'GET'
          ? await account.get(url)
          : await account.post(url, { name: 'k', title: 't', imageUrl: 'https://cdn.example/a.png' });
      expect(refused.statusCode, url).toBe(403);
      expect(refused.json()).toMatchObject({ error: 'brand_unverified' });
    }
    expect((await account.post('/dashboard/api/claim/check')).json()).toMatchObject({ companyId: null, claim: { status: 'pending' } });
    expect(await written()).toEqual(before);

    expect((await account.answerAsStoreOwner(claim.confirmUrl, 'confirm')).headers.location).toBe('/dashboard');
    const settled = (await account.post('/dashboard/api/claim/check')).json();
    expect(settled.companyId).toEqual(expect.any(String));
    expect(await companiesWith(domain)).toEqual([{ id: settled.companyId, business_name: 'Claimed Co' }]);
    expect((await account.get('/dashboard/api/session')).json()).toMatchObject({
      user: { companyId: settled.companyId, brandName: 'Claimed Co' },
      claim: null,
    });
    expect((await account.get('/dashboard/api/partners')).statusCode).toBe(200);
    // The service now receives the store's orders, and knows its customers from the order history.
    const store = await use()
      .db.selectFrom('sandbox_stores')
      .select('orders_webhook_since')
      .where('domain', '=', domain)
      .executeTakeFirstOrThrow();
    expect(store.orders_webhook_since).not.toBeNull();
    const history = await use().db.selectFrom('sandbox_orders').select('customer_email').where('store_domain', '=', domain).execute();
    const known = await use().db.selectFrom('store_customers').select('customer_ref').where('store_domain', '=', domain).execute();
    expect(history.length).toBeGreaterThan(known.length);
    expect(known).toHaveLength(new Set(history.map((order) => order.customer_email)).size);
    expect(JSON.stringify(known)).not.toContain('@');
  });

  it('keeps a confirmed claim pending while the platform cannot hand over the orders, and settles it on the next check', async () => {
    const domain = `${uniqueId('retry')}.example`;
    const account = client();
    const { claim } = (await signUp(account, domain)).json();
    await account.answerAsStoreOwner(claim.confirmUrl, 'confirm');
    const adapter = use().app.runtime.commerce.sandbox!;
    const pastOrders = adapter.pastOrders;
    adapter.pastOrders = async () => {
      throw new Error('platform unavailable');
    };
    try {
      expect((await account.post('/dashboard/api/claim/check')).statusCode).toBe(500);
    } finally {
      adapter.pastOrders = pastOrders;
    }
    expect(await companiesWith(domain)).toEqual([]);
    expect((await account.get('/dashboard/api/session')).json()).toMatchObject({ user: { companyId: null }, claim: { status: 'pending' } });

    const settled = (await account.post('/dashboard/api/claim/check')).json();
    expect(settled.companyId).toEqual(expect.any(String));
    const store = await use()
      .db.selectFrom('sandbox_stores')
      .select('orders_webhook_since')
      .where('domain', '=', domain)
      .executeTakeFirstOrThrow();
    expect(store.orders_webhook_since).not.toBeNull();
    expect(await use().db.selectFrom('store_customers').select('customer_ref').where('store_domain', '=', domain).execute()).not.toEqual(
      [],
    );
  });

  it('lets an account whose claim the owner declined act for nothing, and claim again', async () => {
    const domain = `${uniqueId('declined')}.example`;
    const account = client();
    const { claim } = (await signUp(account, domain)).json();
    await account.answerAsStoreOwner(claim.confirmUrl, 'decline');
    expect((await account.post('/dashboard/api/claim/check')).json()).toMatchObject({
      companyId: null,
      claim: { status: 'declined', confirmUrl: null },
    });
    expect(await companiesWith(domain)).toEqual([]);

    const again = await account.post('/dashboard/api/claim', { brand: { businessName: 'Second Try', domain } });
    expect(again.statusCode).toBe(201);
    const second = again.json().claim;
    expect(second).toMatchObject({ status: 'pending', businessName: 'Second Try' });
    expect(second.confirmUrl).not.toBe(claim.confirmUrl);
    await account.answerAsStoreOwner(second.confirmUrl, 'confirm');
    expect((await account.post('/dashboard/api/claim/check')).json().companyId).toEqual(expect.any(String));
  });

  it('joins the staff-less company a plugin onboarding imported, without a conflict or a company id in any answer', async () => {
    const domain = `${uniqueId('plugin')}.example`;
    // The onboarding went through the store's owner sign-in at the platform, as installing the app needs.
    expect(
      (
        await client().postForm(`/sandbox/stores/${domain}/sign-in`, {
          email: 'owner@store.example',
          password: STORE_OWNER_PASSWORD,
          next: '',
        })
      ).statusCode,
    ).toBe(303);
    const importedId = await importThroughPlugin(domain);
    const account = client();
    const response = await signUp(account, domain, 'Another Name');
    expect(response.statusCode).toBe(201);
    expect(response.body).not.toContain(importedId);
    await account.answerAsStoreOwner(response.json().claim.confirmUrl, 'confirm');
    expect((await account.post('/dashboard/api/claim/check')).json().companyId).toBe(importedId);
    // The imported brand keeps its name; the claim only proved who runs it.
    expect(await companiesWith(domain)).toEqual([{ id: importedId, business_name: 'Imported Store' }]);
  });

  it(`keeps a squatter out: a pending claim creates nothing, the plugin import \
makes its own brand, and only the owner gets in`, async () => {
    const domain = `${uniqueId('squat')}.example`;
    const owner = client();
    // The real owner already has the store's sign-in at the platform.
    const signIn = await owner.postForm(`/sandbox/stores/${domain}/sign-in`, {
      email: 'real@owner.example',
      password: STORE_OWNER_PASSWORD,
      next: '',
    });
    expect(signIn.statusCode).toBe(303);

    const squatter = client();
    const { claim } = (await signUp(squatter, domain, 'Squatter')).json();
    const guess = await squatter.postForm(`/sandbox/stores/${domain}/sign-in`, {
      email: 'real@owner.example',
      password: 'a guessed password!',
      next: '',
    });
    expect(guess.statusCode).toBe(401);
    expect((await squatter.get(claim.confirmUrl)).statusCode).toBe(303);
    expect((await squatter.postForm(claim.confirmUrl, { decision: 'confirm' })).statusCode).toBe(403);
    expect((await squatter.post('/dashboard/api/claim/check')).json()).toMatchObject({ companyId: null, claim: { status: 'pending' } });

    const importedId = await importThroughPlugin(domain);
    const staff = await use().db.selectFrom('brand_users').select('id').where('company_id', '=', importedId).execute();
    expect(staff).toEqual([]);

    const realAccount = client();
    const real = (await signUp(realAccount, domain, 'Real Owner')).json();
    await realAccount.answerAsStoreOwner(real.claim.confirmUrl, 'confirm', { email: 'real@owner.example', password: STORE_OWNER_PASSWORD });
    expect((await realAccount.post('/dashboard/api/claim/check')).json().companyId).toBe(importedId);
  });

  it('never makes the first visitor the owner of a store whose brand is in the network: support sets up its sign-in', async () => {
    // A brand support created (as the demo data's brands are): no staff yet, no owner at the sandbox.
    const domain = `${uniqueId('known')}.example`;
    const { companyId } = await createBrand(use().support, { domain });
    const squatter = client();
    const { claim } = (await signUp(squatter, domain, 'Squatter')).json();
    const toSignIn = await squatter.get(claim.confirmUrl);
    expect(toSignIn.statusCode).toBe(303);
    const page = await squatter.get(toSignIn.headers.location as string);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('This store has no owner sign-in yet');
    expect(page.body).not.toContain('<form');

    const before = await tableContents(use().db);
    const taken = await squatter.postForm(`/sandbox/stores/${domain}/sign-in`, {
      email: 'squatter@evil.example',
      password: STORE_OWNER_PASSWORD,
      next: '',
    });
    expect(taken.statusCode).toBe(403);
    expect(taken.body).toMatch(/the support team sets it up/);
    expect((await squatter.postForm(claim.confirmUrl, { decision: 'confirm' })).statusCode).toBe(403);
    expect(await tableContents(use().db)).toEqual(before);
    expect((await squatter.post('/dashboard/api/claim/check')).json()).toMatchObject({ companyId: null, claim: { status: 'pending' } });

    // Support's admin API: refused without the token or with bad input, writing nothing.
    const setOwner = (body: unknown, token: string | null = ADMIN_TOKEN, target = domain) =>
      use().app.inject({
        method: 'POST',
        url: `/admin/sandbox/stores/${target}/owner`,
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        payload: JSON.stringify(body),
      });
    const refusals = [
      await setOwner({ email: 'owner@known.example' }, null),
      await setOwner({ email: 'not an email' }),
      await setOwner({ email: 'owner@known.example' }, ADMIN_TOKEN, 'localhost'),
    ];
    expect(refusals.map((response) => [response.statusCode, response.json().error])).toEqual([
      [401, 'unauthorized'],
      [400, 'invalid_request'],
      [400, 'invalid_request'],
    ]);
    expect(await tableContents(use().db)).toEqual(before);
    const set = await setOwner({ email: 'Owner@Known.example' });
    expect(set.statusCode).toBe(201);
    const { password } = set.json();
    expect(set.json()).toEqual({ domain, email: 'owner@known.example', password: expect.stringMatching(/^[A-Za-z0-9]{20}$/) });
    const stored = await use()
      .db.selectFrom('sandbox_store_owners')
      .select('password_hash')
      .where('domain', '=', domain)
      .executeTakeFirstOrThrow();
    expect(stored.password_hash).not.toContain(password);

    // The owner support set up declines the squatter; the brand's real staff is confirmed and joins the brand.
    await squatter.answerAsStoreOwner(claim.confirmUrl, 'decline', { email: 'owner@known.example', password });
    expect((await squatter.post('/dashboard/api/claim/check')).json()).toMatchObject({ companyId: null, claim: { status: 'declined' } });
    const staff = client();
    const real = (await signUp(staff, domain, 'Known Brand')).json();
    await staff.answerAsStoreOwner(real.claim.confirmUrl, 'confirm', { email: 'owner@known.example', password });
    expect((await staff.post('/dashboard/api/claim/check')).json().companyId).toBe(companyId);
  });

  it('refuses a sign-up for a store whose brand has staff with 409, naming no company, writing nothing', async () => {
    const domain = `${uniqueId('staffed')}.example`;
    const companyId = await client().signUpBrand('Staffed', domain, `${uniqueId('s')}@staffed.example`);
    const before = await written();
    const response = await signUp(client(), `https://www.${domain}/shop`);
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ error: 'brand_has_staff', message: expect.stringMatching(/invitation code/) });
    expect(response.body).not.toContain(companyId);
    expect(await written()).toEqual(before);
  });

  it('refuses the second of two confirmed claims once the first joined: a brand with staff takes invitations only', async () => {
    const domain = `${uniqueId('race')}.example`;
    const [first, second] = [client(), client()];
    const firstClaim = (await signUp(first, domain)).json().claim;
    const secondClaim = (await signUp(second, domain)).json().claim;
    await first.answerAsStoreOwner(firstClaim.confirmUrl, 'confirm');
    await second.answerAsStoreOwner(secondClaim.confirmUrl, 'confirm');
    const companyId = (await first.post('/dashboard/api/claim/check')).json().companyId;
    const refused = (await second.post('/dashboard/api/claim/check')).json();
    expect(refused).toMatchObject({ companyId: null, claim: { status: 'refused', message: expect.stringMatching(/invitation code/) } });
    expect(JSON.stringify(refused)).not.toContain(companyId);

    const { code } = (await first.post('/dashboard/api/invitations')).json();
    const joined = await second.post('/dashboard/api/join', { invitationCode: code });
    expect(joined.json()).toEqual({ companyId });
    expect((await second.get('/dashboard/api/partners')).statusCode).toBe(200);
  });

  describe('refusals', () => {
    let pending: DashboardClient;
    let verified: DashboardClient;
    let pendingClaim: { confirmUrl: string; domain: string };

    beforeAll(async () => {
      pending = client();
      pendingClaim = (await signUp(pending, `${uniqueId('pending')}.example`)).json().claim;
      verified = client();
      await verified.signUpBrand('Verified', `${uniqueId('verified')}.example`, `${uniqueId('v')}@verified.example`);
    });

    const cases: Array<[string, () => DashboardClient, string, unknown, number, string]> = [
      [
        'a claim with a domain that is not a store',
        () => pending,
        '/dashboard/api/claim',
        { brand: { businessName: 'B', domain: 'localhost' } },
        400,
        'invalid_request',
      ],
      [
        'a claim with an empty name',
        () => pending,
        '/dashboard/api/claim',
        { brand: { businessName: '   ', domain: 'fine.example' } },
        400,
        'invalid_request',
      ],
      [
        'a claim with a too long domain',
        () => pending,
        '/dashboard/api/claim',
        { brand: { businessName: 'B', domain: `${'x'.repeat(100)}.example` } },
        400,
        'invalid_request',
      ],
      ['a claim of the wrong type', () => pending, '/dashboard/api/claim', { brand: 'shop.example' }, 400, 'invalid_request'],
      [
        'a claim from an account that has a brand',
        () => verified,
        '/dashboard/api/claim',
        { brand: { businessName: 'B', domain: 'another.example' } },
        409,
        'conflict',
      ],
      ['an unknown invitation code', () => pending, '/dashboard/api/join', { invitationCode: 'not-a-code' }, 400, 'invalid_invitation'],
      ['an empty invitation code', () => pending, '/dashboard/api/join', { invitationCode: '' }, 400, 'invalid_request'],
      ['a join from an account that has a brand', () => verified, '/dashboard/api/join', { invitationCode: 'whatever' }, 409, 'conflict'],
    ];
    for (const [check, who, url, body, status, error] of cases) {
      it(`refuses ${check}, writing nothing`, async () => {
        const before = await written();
        const response = await who().post(url, body);
        expect(response.statusCode).toBe(status);
        expect(response.json()).toMatchObject({ error, message: expect.any(String) });
        expect(await written()).toEqual(before);
      });
    }

    for (const [url, body] of [
      ['/dashboard/api/claim/check', {}],
      ['/dashboard/api/claim', { brand: { businessName: 'B', domain: 'csrf.example' } }],
      ['/dashboard/api/join', { invitationCode: 'whatever' }],
    ] as const) {
      it(`refuses ${url} without a session (401) or without the CSRF header (403), writing nothing`, async () => {
        const before = await tableContents(use().db);
        const anonymous = await (await client().start()).post(url, body);
        expect(anonymous.statusCode).toBe(401);
        expect(anonymous.json()).toMatchObject({ error: 'unauthorized' });
        const forged = await pending.post(url, body, { csrf: null });
        expect(forged.statusCode).toBe(403);
        expect(forged.json()).toMatchObject({ error: 'csrf_failed' });
        expect(await tableContents(use().db)).toEqual(before);
      });
    }

    it('refuses a new claim for a store whose brand has staff with 409 brand_has_staff, writing nothing', async () => {
      const domain = `${uniqueId('staffed')}.example`;
      await client().signUpBrand('Staffed Again', domain, `${uniqueId('s')}@staffed.example`);
      const before = await tableContents(use().db);
      const response = await pending.post('/dashboard/api/claim', { brand: { businessName: 'Mine', domain } });
      expect(response.statusCode).toBe(409);
      expect(response.json()).toMatchObject({ error: 'brand_has_staff' });
      expect(await tableContents(use().db)).toEqual(before);
    });

    it('refuses store owner sign-ins that fail at the platform, writing no owner and no session', async () => {
      const fresh = `${uniqueId('fresh')}.example`;
      const owned = `${uniqueId('owned')}.example`;
      const owner = client();
      expect(
        (
          await owner.postForm(`/sandbox/stores/${owned}/sign-in`, {
            email: 'owner@owned.example',
            password: STORE_OWNER_PASSWORD,
            next: '',
          })
        ).statusCode,
      ).toBe(303);
      // A sandbox store is made up the first time anyone looks at it, as its sign-in page does.
      expect((await use().app.inject({ method: 'GET', url: `/sandbox/stores/${fresh}/sign-in` })).statusCode).toBe(200);
      const before = await tableContents(use().db);
      const attempts: Array<[string, string, Record<string, string>, number]> = [
        ['a malformed email', fresh, { email: 'not an email', password: STORE_OWNER_PASSWORD }, 401],
        // Its refusal page names the store without making it up.
        [
          'a malformed email at a store nobody opened',
          `${uniqueId('unopened')}.example`,
          { email: 'not an email', password: STORE_OWNER_PASSWORD },
          401,
        ],
        ['a first password that is too short', fresh, { email: 'first@fresh.example', password: 'short' }, 401],
        ['a wrong password', owned, { email: 'owner@owned.example', password: 'a guessed password!' }, 401],
        ['another email', owned, { email: 'someone@else.example', password: STORE_OWNER_PASSWORD }, 401],
        ['a domain that is not a store', 'localhost', { email: 'owner@owned.example', password: STORE_OWNER_PASSWORD }, 404],
      ];
      for (const [what, domain, fields, status] of attempts) {
        expect((await client().postForm(`/sandbox/stores/${domain}/sign-in`, { ...fields, next: '' })).statusCode, what).toBe(status);
      }
      const crossSite = await use().app.inject({
        method: 'POST',
        url: `/sandbox/stores/${fresh}/sign-in`,
        headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
        payload: `email=first%40fresh.example&password=${encodeURIComponent(STORE_OWNER_PASSWORD)}&next=`,
      });
      expect(crossSite.statusCode).toBe(403);
      expect(await tableContents(use().db)).toEqual(before);
    });

    it('refuses an ownership answer that is neither Confirm nor Decline, or from someone not signed in, writing nothing', async () => {
      const claimId = pendingClaim.confirmUrl.split('/').pop()!;
      const stranger = client();
      const owner = client();
      const answerUrl = `/sandbox/stores/${pendingClaim.domain}/ownership/${claimId}`;
      expect(
        (
          await owner.postForm(`/sandbox/stores/${pendingClaim.domain}/sign-in`, {
            email: 'owner@pending.example',
            password: STORE_OWNER_PASSWORD,
            next: '',
          })
        ).statusCode,
      ).toBe(303);
      const before = await tableContents(use().db);
      const notSignedIn = await stranger.postForm(answerUrl, { decision: 'confirm' });
      expect(notSignedIn.statusCode).toBe(403);
      expect(notSignedIn.body).toContain('Sign in first');
      const undecided = await owner.postForm(answerUrl, { decision: 'maybe' });
      expect(undecided.statusCode).toBe(400);
      expect(undecided.body).toContain('Choose Confirm or Decline');
      expect(await tableContents(use().db)).toEqual(before);
      expect(
        await use().db.selectFrom('sandbox_ownership_requests').select('status').where('id', '=', claimId).executeTakeFirstOrThrow(),
      ).toEqual({ status: 'pending' });
    });

    it('lets a store owner answer only for the store they are signed in to', async () => {
      const other = client();
      const otherDomain = `${uniqueId('other')}.example`;
      expect(
        (
          await other.postForm(`/sandbox/stores/${otherDomain}/sign-in`, {
            email: 'x@other.example',
            password: STORE_OWNER_PASSWORD,
            next: '',
          })
        ).statusCode,
      ).toBe(303);
      const claimId = pendingClaim.confirmUrl.split('/').pop()!;
      // The other store's session does not open this store's pages, and this claim is not the other store's.
      expect((await other.get(pendingClaim.confirmUrl)).statusCode).toBe(303);
      expect((await other.postForm(pendingClaim.confirmUrl, { decision: 'confirm' })).statusCode).toBe(403);
      expect((await other.get(`/sandbox/stores/${otherDomain}/ownership/${claimId}`)).statusCode).toBe(404);
      expect((await other.postForm(`/sandbox/stores/${otherDomain}/ownership/${claimId}`, { decision: 'confirm' })).statusCode).toBe(404);
      expect(
        await use().db.selectFrom('sandbox_ownership_requests').select('status').where('id', '=', claimId).executeTakeFirstOrThrow(),
      ).toEqual({ status: 'pending' });
      expect((await pending.post('/dashboard/api/claim/check')).json().claim.status).toBe('pending');
    });

    it('tells an unverified account signing in to the service to confirm its store first', async () => {
      const email = `${uniqueId('pending')}@claim.example`;
      await (await client().start()).signUp({
        email,
        password: DASHBOARD_PASSWORD,
        brand: { businessName: 'P', domain: `${uniqueId('p')}.example` },
      });
      const page = await use().app.inject({ method: 'GET', url: '/account/sign-in' });
      const cookies = mergeCookies('', page);
      const signedIn = await use().app.inject({
        method: 'POST',
        url: '/account/sign-in',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies },
        payload: form({ csrf_token: csrfOf(cookies), email, password: DASHBOARD_PASSWORD, return_to: '/account' }),
      });
      expect(signedIn.statusCode).toBe(200);
      expect(signedIn.body).toContain('Confirm your store first');
    });
  });
});
