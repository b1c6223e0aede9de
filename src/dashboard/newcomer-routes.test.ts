import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase, startTestApp, stopTestApp, type TestContext } from '../../test/support/harness.js';
import { createBrand, uniqueId } from '../../test/support/factories.js';
import { DashboardClient, runningCollab } from '../../test/support/dashboard-client.js';
import { drainScoringQueue } from '../recommendations/scorer.js';
import { MAX_APPS_PER_BRAND, registerOAuthClient } from '../oauth/clients.js';

const REDIRECT = 'https://app.example/oauth/callback';

describeEachDatabase('dashboard API for a newcomer (issue 18)', (use) => {
  const signedUpBrand = async (name: string) => {
    const client = new DashboardClient(use().app);
    const domain = `${uniqueId('store')}.example`;
    const companyId = await client.signUpBrand(name, domain, `${uniqueId('staff')}@${domain}`);
    return { client, companyId, domain };
  };
  const oauthClientsOf = (companyId: string) =>
    use().db.selectFrom('oauth_clients').selectAll().where('owner_company_id', '=', companyId).orderBy('created_at').execute();

  describe("a connection request's message", () => {
    it('is listed with the open request on both sides, and not once the request is answered', async () => {
      const sender = await signedUpBrand('Sender');
      const recipient = await signedUpBrand('Recipient');
      const silent = await signedUpBrand('Silent Sender');
      await sender.client.post(`/dashboard/api/partners/${recipient.companyId}/request`, { message: '  Shall we?\nOur shoppers match.  ' });
      await silent.client.post(`/dashboard/api/partners/${recipient.companyId}/request`, {});

      const received = (await recipient.client.get('/dashboard/api/partners?status=inviteReceived')).json();
      expect(received.data.map((row: { companyId: string }) => row.companyId).sort()).toEqual([sender.companyId, silent.companyId].sort());
      expect(received.messages).toEqual({ [sender.companyId]: 'Shall we?\nOur shoppers match.' });
      const sent = (await sender.client.get('/dashboard/api/partners?status=inviteSent')).json();
      expect(sent.messages).toEqual({ [recipient.companyId]: 'Shall we?\nOur shoppers match.' });

      // GET /v1/partners keeps SPEC 2.2's fields only.
      const { key } = (await recipient.client.post('/dashboard/api/keys', { name: 'api' })).json();
      const api = await use().app.inject({ method: 'GET', url: '/v1/partners?status=inviteReceived', headers: { 'x-api-key': key } });
      expect(api.json().data.every((row: Record<string, unknown>) => !('message' in row))).toBe(true);

      await recipient.client.post(`/dashboard/api/partners/${sender.companyId}/accept`);
      const active = (await recipient.client.get('/dashboard/api/partners?status=active')).json();
      expect(active.messages).toBeUndefined();
      expect((await recipient.client.get('/dashboard/api/partners?status=inviteReceived')).json().messages).toEqual({});
    });
  });

  describe('referral links to the brand', () => {
    it("lists the links partners' pages use for the offer and where they lead; other brands see only their own", async () => {
      const collab = await runningCollab(use());
      const links = await collab.partner.get('/dashboard/api/offer/links');
      expect(links.statusCode).toBe(200);
      expect(links.json().data).toEqual([
        {
          url: collab.referralUrl,
          leadsTo: expect.stringContaining('PARTNER15-'),
          platform: expect.any(String),
          campaign: 'Orders',
          shownBy: 'Shower Co',
          createdAt: expect.any(String),
        },
      ]);
      // The link leads where the redirect goes.
      const redirect = await use().app.inject({ method: 'HEAD', url: `/r/${collab.token}` });
      expect(redirect.headers.location).toBe(links.json().data[0].leadsTo);
      // The shower's own offer has no links yet; a stranger sees none of the partner's.
      expect((await collab.shower.get('/dashboard/api/offer/links')).json().data).toEqual([]);
      const stranger = await signedUpBrand('Stranger');
      expect((await stranger.client.get('/dashboard/api/offer/links')).json().data).toEqual([]);
    });

    it('needs a signed-in brand', async () => {
      const anonymous = await new DashboardClient(use().app).start();
      const response = await anonymous.get('/dashboard/api/offer/links');
      expect(response.statusCode).toBe(401);
      expect(response.json().error).toBe('unauthorized');
    });
  });

  describe('OAuth apps a brand registers itself', () => {
    it('registers a server app with its secret shown once and stored hashed, lists it; the secret gets tokens for the brand', async () => {
      const brand = await signedUpBrand('App Maker');
      const registered = await brand.client.post('/dashboard/api/oauth-apps', {
        name: '  Maker Backend ',
        redirectUris: [REDIRECT, REDIRECT, 'http://127.0.0.1/callback'],
        confidential: true,
      });
      expect(registered.statusCode).toBe(201);
      const app = registered.json();
      expect(app).toEqual({
        clientId: expect.stringMatching(/^oc_/),
        name: 'Maker Backend',
        confidential: true,
        redirectUris: [REDIRECT, 'http://127.0.0.1/callback'],
        clientSecret: expect.stringMatching(/^svc_cs_/),
      });
      const [stored] = await oauthClientsOf(brand.companyId);
      expect(stored).toMatchObject({ client_id: app.clientId, company_id: brand.companyId });
      expect(stored?.secret_hash).not.toContain(app.clientSecret);

      const list = (await brand.client.get('/dashboard/api/oauth-apps')).json();
      expect(list.data).toEqual([
        {
          clientId: app.clientId,
          name: 'Maker Backend',
          confidential: true,
          redirectUris: app.redirectUris,
          createdAt: expect.any(String),
        },
      ]);
      expect(JSON.stringify(list)).not.toContain(app.clientSecret);

      const token = await use().app.inject({
        method: 'POST',
        url: '/v1/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `grant_type=client_credentials&scope=brand&client_id=${app.clientId}&client_secret=${app.clientSecret}`,
      });
      expect(token.statusCode).toBe(200);
    });

    it('registers a browser app without a secret, acting for no brand by itself', async () => {
      const brand = await signedUpBrand('Public App Maker');
      const registered = await brand.client.post('/dashboard/api/oauth-apps', {
        name: 'Maker SPA',
        redirectUris: [REDIRECT],
        confidential: false,
      });
      expect(registered.statusCode).toBe(201);
      expect(registered.json().clientSecret).toBeUndefined();
      const [stored] = await oauthClientsOf(brand.companyId);
      expect(stored).toMatchObject({ secret_hash: null, company_id: null, owner_company_id: brand.companyId });

      // Another brand's staff asked to allow it see which brand registered it (issue 23).
      const staff = await signedUpBrand('Careful Staff');
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: registered.json().clientId,
        redirect_uri: REDIRECT,
        scope: 'brand',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      });
      const consent = await staff.client.get(`/v1/oauth/authorize?${query.toString()}`);
      expect(consent.statusCode, consent.body).toBe(200);
      expect(consent.body).toContain('Registered by');
      expect(consent.body).toContain('the brand Public App Maker, not by Partner Collaboration');
    });

    it.each([
      ['no name', { name: '', redirectUris: [REDIRECT], confidential: true }, 'name'],
      ['a blank name', { name: '   ', redirectUris: [REDIRECT], confidential: true }, 'name must be 1 to 100 characters'],
      ['a name too long', { name: 'n'.repeat(101), redirectUris: [REDIRECT], confidential: true }, 'name'],
      ['no redirect URI', { name: 'App', redirectUris: [], confidential: true }, 'redirectUris'],
      [
        '21 redirect URIs',
        { name: 'App', redirectUris: Array.from({ length: 21 }, (_, i) => `${REDIRECT}/${i}`), confidential: true },
        'redirectUris',
      ],
      ['an http redirect URI', { name: 'App', redirectUris: ['http://app.example/cb'], confidential: true }, 'must use https'],
      ['a relative redirect URI', { name: 'App', redirectUris: ['/callback'], confidential: true }, 'is not an absolute URL'],
      ['a redirect URI with a fragment', { name: 'App', redirectUris: [`${REDIRECT}#x`], confidential: true }, 'must not have a fragment'],
      ['no kind', { name: 'App', redirectUris: [REDIRECT] }, 'confidential'],
      ['the service’s name', { name: 'Partner Collaboration (official)', redirectUris: [REDIRECT], confidential: false }, 'Partner Collab'],
      [
        'the service’s name in full width',
        { name: 'ＰａｒｔｎｅｒＣｏｌｌａｂ', redirectUris: [REDIRECT], confidential: false },
        'Partner Collab',
      ],
      ['“official”', { name: 'Checkout Helper – Official', redirectUris: [REDIRECT], confidential: false }, 'official'],
      // Look-alikes (issue 44): compared by their confusable skeleton, accents and case folded.
      ['the service’s name with a Cyrillic а', { name: 'Pаrtner Collab', redirectUris: [REDIRECT], confidential: false }, 'Partner Collab'],
      [
        'the service’s name with capital I for l',
        { name: 'PartnerCoIIab', redirectUris: [REDIRECT], confidential: false },
        'Partner Collab',
      ],
      ['the service’s name with accents', { name: 'Pártner Cöllab', redirectUris: [REDIRECT], confidential: false }, 'Partner Collab'],
      ['“OFFICIAI” with capital I for l', { name: 'Sync – OFFICIAI', redirectUris: [REDIRECT], confidential: false }, 'official'],
      ['an unknown field', { name: 'App', redirectUris: [REDIRECT], confidential: true, companyId: 'other' }, 'companyId'],
    ])('refuses %s with 400 and registers nothing', async (_case, body, named) => {
      const brand = await signedUpBrand('Careful Maker');
      const response = await brand.client.post('/dashboard/api/oauth-apps', body);
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toBe('invalid_request');
      expect(response.json().message).toContain(named);
      await expect(oauthClientsOf(brand.companyId)).resolves.toEqual([]);
    });

    it('registers names near the service’s but not like it, in any script', async () => {
      const brand = await signedUpBrand('Nearby Maker');
      for (const name of ['Partners Collaborative', 'Collab Partner Sync', 'Inventory Îsland', 'Officina Tools', 'Пекарня Sync']) {
        const registered = await brand.client.post('/dashboard/api/oauth-apps', { name, redirectUris: [REDIRECT], confidential: false });
        expect(registered.statusCode, name).toBe(201);
        expect(registered.json().name).toBe(name);
      }
    });

    it(`refuses apps past ${MAX_APPS_PER_BRAND} a brand, sent at once, with 409 too_many_apps, writing nothing`, async () => {
      const brand = await signedUpBrand('Prolific Maker');
      const body = { name: 'App', redirectUris: [REDIRECT], confidential: false };
      const results = await Promise.all(
        Array.from({ length: MAX_APPS_PER_BRAND + 3 }, () => brand.client.post('/dashboard/api/oauth-apps', body)),
      );
      expect(results.filter((result) => result.statusCode === 201)).toHaveLength(MAX_APPS_PER_BRAND);
      const refused = results.filter((result) => result.statusCode !== 201);
      expect(refused.map((result) => [result.statusCode, result.json().error])).toEqual(Array(3).fill([409, 'too_many_apps']));
      await expect(oauthClientsOf(brand.companyId)).resolves.toHaveLength(MAX_APPS_PER_BRAND);
    });

    it("deletes its own app, ending its tokens; another brand's app or support's is not found and stays", async () => {
      const brand = await signedUpBrand('Deleting Maker');
      const other = await signedUpBrand('Other Maker');
      const app = (
        await brand.client.post('/dashboard/api/oauth-apps', { name: 'Short-lived', redirectUris: [REDIRECT], confidential: true })
      ).json();
      const otherApp = (
        await other.client.post('/dashboard/api/oauth-apps', { name: 'Not yours', redirectUris: [REDIRECT], confidential: true })
      ).json();
      const token = (
        await use().app.inject({
          method: 'POST',
          url: '/v1/oauth/token',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: `grant_type=client_credentials&scope=brand&client_id=${app.clientId}&client_secret=${app.clientSecret}`,
        })
      ).json().access_token;
      const partners = () => use().app.inject({ method: 'GET', url: '/v1/partners', headers: { authorization: `Bearer ${token}` } });
      expect((await partners()).statusCode).toBe(200);

      const notYours = await brand.client.post(`/dashboard/api/oauth-apps/${otherApp.clientId}/delete`);
      expect(notYours.statusCode).toBe(404);
      expect(notYours.json().error).toBe('not_found');
      await expect(oauthClientsOf(other.companyId)).resolves.toHaveLength(1);
      const support = await registerOAuthClient(use().support, { name: 'Support app', redirectUris: [REDIRECT], confidential: false });
      const supports = await brand.client.post(`/dashboard/api/oauth-apps/${support.clientId}/delete`);
      expect(supports.statusCode).toBe(404);
      await expect(
        use().db.selectFrom('oauth_clients').select('client_id').where('client_id', '=', support.clientId).execute(),
      ).resolves.toHaveLength(1);
      const badId = await brand.client.post('/dashboard/api/oauth-apps/not%20an%20id/delete');
      expect(badId.statusCode).toBe(400);

      const noCsrf = await brand.client.post(`/dashboard/api/oauth-apps/${app.clientId}/delete`, {}, { csrf: null });
      expect(noCsrf.statusCode).toBe(403);
      await expect(oauthClientsOf(brand.companyId)).resolves.toHaveLength(1);

      const deleted = await brand.client.post(`/dashboard/api/oauth-apps/${app.clientId}/delete`);
      expect(deleted.json()).toEqual({ deleted: true });
      await expect(oauthClientsOf(brand.companyId)).resolves.toEqual([]);
      expect((await partners()).statusCode).toBe(401);
    });
  });
});

/**
 * Whether a brand's first matches are still being found. The scorer runs only when the test says
 * (no background jobs, so PostgreSQL), so the state before the first scores can be held.
 */
describe('recommendations while a new brand is scored [postgres]', () => {
  let context: TestContext;
  beforeAll(async () => {
    context = await startTestApp('postgres', { RUN_BACKGROUND_JOBS: 'false' });
  });
  afterAll(async () => {
    if (context) await stopTestApp(context);
  });

  it('says scoring until the first scores exist, then lists them ranked; a later rescore keeps the ranked list', async () => {
    await createBrand(context.support, { businessName: 'Fits Well', categories: ['tea'], country: 'Ireland' });
    await createBrand(context.support, { businessName: 'Fits Less', categories: ['tools'] });
    await drainScoringQueue(context.db);
    const brand = new DashboardClient(context.app);
    const domain = `${uniqueId('tea')}.example`;
    const companyId = await brand.signUpBrand('Tea House', domain, `${uniqueId('t')}@${domain}`, ['tea']);

    const before = (await brand.get('/dashboard/api/recommendations')).json();
    expect(before.scoring).toBe(true);
    expect(before.data.every((item: { matchRate?: number }) => item.matchRate === undefined)).toBe(true);

    await drainScoringQueue(context.db);
    const after = (await brand.get('/dashboard/api/recommendations')).json();
    expect(after.scoring).toBe(false);
    expect(after.data[0]).toMatchObject({ businessName: 'Fits Well', matchRate: 40 });
    // The scorer's own terms: what both share, and whose profile lacks the rest.
    expect(after.data[0].matchTerms).toEqual([
      { factor: 'categories', weight: 40, points: 40, shared: ['tea'] },
      { factor: 'country', weight: 25, points: 0, missing: 'you' },
      { factor: 'businessSize', weight: 15, points: 0, missing: 'both' },
      { factor: 'catalogSize', weight: 10, points: 0, missing: 'both' },
      { factor: 'commercePlatform', weight: 10, points: 0, missing: expect.stringMatching(/^(both|you|them)$/) },
    ]);
    const fitsLess = after.data.find((item: { businessName?: string }) => item.businessName === 'Fits Less');
    expect(fitsLess.matchRate).toBe(0);
    for (const item of after.data as Array<{ matchRate: number; matchTerms: Array<{ points: number }> }>) {
      expect(item.matchTerms.reduce((sum, term) => sum + term.points, 0)).toBe(item.matchRate);
    }

    // A request queues the brand again: its ranked list stays, and nothing says scoring.
    const other = await createBrand(context.support, { businessName: 'Another', categories: ['tea'] });
    await brand.post(`/dashboard/api/partners/${other.companyId}/request`, {});
    const queued = await context.db.selectFrom('scoring_queue').select('company_id').where('company_id', '=', companyId).execute();
    expect(queued).toHaveLength(1);
    const during = (await brand.get('/dashboard/api/recommendations')).json();
    expect(during.scoring).toBe(false);
    expect(during.data[0]).toMatchObject({ businessName: 'Fits Well', matchRate: expect.any(Number) });
  });
});
