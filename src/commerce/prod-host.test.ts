import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { ADMIN_TOKEN, describeEachDatabase, testConfig } from '../../test/support/harness.js';
import { createBrand, createPlatform, uniqueId } from '../../test/support/factories.js';
import { registeredRoutes } from '../../test/support/routes.js';
import { tableContents } from '../../test/support/snapshot.js';
import { createBrandUser } from '../accounts/users.js';
import { DashboardClient, DASHBOARD_PASSWORD } from '../../test/support/dashboard-client.js';
import type { EmbedBoot, EmbedState } from '../embed/embed-view.js';
import { commercePlatformsFor } from './registry.js';
import { SandboxCommerce } from './sandbox/adapter.js';

const HOST_PAGE = 'https://host.test';
/** Values for the path parameters of the sandbox's routes. */
const PARAMS: Record<string, string> = { domain: 'shop.example', claimId: crypto.randomUUID(), file: 'logo.svg' };

describe('the commerce platforms a host has', () => {
  it('are the sandbox on test and dev hosts and none on prod, for the server and the worker alike', () => {
    const db = {} as Parameters<typeof commercePlatformsFor>[1];
    for (const env of ['test', 'dev']) {
      const platforms = commercePlatformsFor(testConfig({ SERVICE_ENV: env }), db);
      expect(platforms.forStore('shop.example')).toBeInstanceOf(SandboxCommerce);
      expect(platforms.primary).not.toBeNull();
      expect(platforms.get('sandbox')).toBe(platforms.sandbox);
      expect(platforms.shopify).toBeUndefined();
    }
    const prod = commercePlatformsFor(testConfig({ SERVICE_ENV: 'prod' }), db);
    expect(prod.primary).toBeNull();
    expect(prod.all()).toEqual([]);
  });

  it('have Shopify once it is configured: its stores go to it and are named for it, and on prod it is the only one', () => {
    const db = {} as Parameters<typeof commercePlatformsFor>[1];
    const shopify = {
      SHOPIFY_API_KEY: 'key-0123456789',
      SHOPIFY_API_SECRET: 'secret-0123456789abcdef',
      TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    };
    const test = commercePlatformsFor(testConfig(shopify), db);
    expect(test.forStore('acme.myshopify.com')).toBe(test.shopify);
    expect(test.forStore('shop.example')).toBe(test.sandbox);
    expect(test.primary?.platformNameOf('acme.myshopify.com')).toBe('Shopify');
    expect(test.primary?.platformNameOf('shop.example')).toBe('Sandbox Commerce');
    const prod = commercePlatformsFor(testConfig({ SERVICE_ENV: 'prod', ...shopify }), db);
    expect(prod.sandbox).toBeUndefined();
    expect(prod.forStore('acme.myshopify.com')).toBe(prod.shopify);
    expect(prod.primary?.platformNameOf('shop.example')).toBe('Shopify');
  });
});

/**
 * Issue 14, critical: the sandbox commerce platform stood in for every store on prod hosts, so
 * anyone could "prove" a brand's store there and issue its live keys. On prod it is gone: every
 * /sandbox path is 404, a claim of a store is refused up front (nothing written), the plugin says
 * plainly that no commerce platform is connected, and nothing offers a sandbox flow.
 */
describeEachDatabase(
  'a prod host has no sandbox commerce platform',
  (use) => {
    let sandboxRoutes: string[];

    beforeAll(async () => {
      // The sandbox's routes as a test host registers them, read from that app's own route tree.
      const testHost = await buildApp({
        config: testConfig(use().database.url ? { DATABASE_URL: use().database.url! } : {}),
        database: use().database,
      });
      await testHost.ready();
      sandboxRoutes = registeredRoutes(testHost).filter((route) => route.includes('/sandbox'));
      await testHost.close();
    });

    it('answers 404 on every /sandbox path a test host serves, and registers none', async () => {
      expect(sandboxRoutes.length).toBeGreaterThan(15);
      expect(registeredRoutes(use().app).filter((route) => route.includes('sandbox'))).toEqual([]);
      const before = await tableContents(use().db);
      const paths = sandboxRoutes.map((route) => {
        const [method, pattern] = route.split(' ') as [string, string];
        return [method, pattern.replace(/:([A-Za-z]+)/g, (_, name: string) => PARAMS[name]!)] as const;
      });
      for (const [method, url] of [
        ...paths,
        ['GET', '/sandbox/anything/else'],
        ['POST', '/sandbox/stores/shop.example/confirm?state=x'],
      ] as const) {
        const response = await use().app.inject({
          method: method as 'GET' | 'POST',
          url,
          headers: { origin: 'http://localhost:80', authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
          ...(method === 'GET' ? {} : { payload: '{"email":"owner@shop.example"}' }),
        });
        expect(response.statusCode, `${method} ${url}`).toBe(404);
        expect(response.json(), `${method} ${url}`).toMatchObject({ error: 'not_found' });
      }
      expect(await tableContents(use().db)).toEqual(before);
    });

    it(`refuses a sign-up that claims a store, saying no store platform is connected, writing nothing; \
joining with a member's invitation waits for SMTP_URL (issue 23: sign-up mails its link)`, async () => {
      const { companyId, key } = await createBrand(use().support);
      expect(key).toMatch(/^svc_live_/);
      const before = await tableContents(use().db);
      const squatter = await new DashboardClient(use().app).start();
      const claim = await squatter.post('/dashboard/api/sign-up', {
        email: `${uniqueId('s')}@squat.example`,
        brand: { businessName: 'Anything', domain: `${companyId}.example` },
      });
      expect(claim.statusCode).toBe(409);
      expect(claim.json()).toMatchObject({
        error: 'no_commerce_platform',
        message: expect.stringMatching(/^no store platform is connected on this host/),
      });
      expect(await tableContents(use().db)).toEqual(before);

      const email = `${uniqueId('staff')}@brand.example`;
      await createBrandUser({ db: use().db }, companyId, { email, password: DASHBOARD_PASSWORD });
      const member = await new DashboardClient(use().app).start();
      expect((await member.post('/dashboard/api/sign-in', { email, password: DASHBOARD_PASSWORD })).statusCode).toBe(200);
      const { code } = (await member.post('/dashboard/api/invitations')).json();
      // Sign-up confirms the address by mail (issue 23): a prod host without SMTP_URL takes none, writing nothing.
      const beforeJoin = await tableContents(use().db);
      const joined = await (await new DashboardClient(use().app).start()).post('/dashboard/api/sign-up', {
        email: `${uniqueId('new')}@brand.example`,
        invitationCode: code,
      });
      expect(joined.statusCode).toBe(503);
      expect(joined.json()).toMatchObject({ error: 'service_unavailable' });
      expect(await tableContents(use().db)).toEqual(beforeJoin);

      // A discount code lives in the store, through its platform: none here, so the offer goes without one.
      const offer = { title: '10% off', imageUrl: 'https://cdn.example/o.png' };
      const refused = await member.post('/dashboard/api/offer', { ...offer, discountPercent: 10 });
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({ error: 'no_commerce_platform' });
      expect((await member.post('/dashboard/api/offer', offer)).statusCode).toBe(200);
    });

    it(`tells the merchant in the plugin that no commerce platform is connected, where \
the install step would be, and takes no action`, async () => {
      const { platformId } = await createPlatform(use().support, { approvedOrigins: [HOST_PAGE] });
      const domain = `${uniqueId('merchant')}.example`;
      const post = (url: string, body: unknown) =>
        use().app.inject({
          method: 'POST',
          url,
          headers: { origin: 'http://localhost:80', 'content-type': 'application/json' },
          payload: JSON.stringify(body),
        });
      const page = await use().app.inject({
        url: `/plugin/v2/embed?platformId=${platformId}&domain=${domain}`,
        headers: { referer: `${HOST_PAGE}/`, 'sec-fetch-dest': 'iframe' },
      });
      const boot = JSON.parse(/id="embed-boot">(.*?)<\/script>/.exec(page.body)![1]!) as EmbedBoot;
      expect(boot).toMatchObject({ page: 'app', state: { kind: 'notice', notice: 'no_commerce_platform' } });
      expect(page.body).not.toContain('/sandbox/');
      const state = (await post('/plugin/v2/state', { platformId, domain })).json() as EmbedState;
      expect(state).toEqual({ kind: 'notice', notice: 'no_commerce_platform' });

      const before = await tableContents(use().db);
      expect((await post('/plugin/v2/consent', { platformId, domain, discountPercent: 10, acceptTerms: true })).statusCode).toBe(401);
      expect((await post('/plugin/v2/turn-on', { platformId, domain })).statusCode).toBe(401);
      expect((await post('/plugin/v2/token', { platformId, domain, secret: 'anything' })).statusCode).toBe(401);
      expect(await tableContents(use().db)).toEqual(before);

      // A brand whose offer is live already (turned on elsewhere) is shown live, as on any host.
      const liveDomain = `${uniqueId('live')}.example`;
      const { companyId } = await createBrand(use().support, { domain: liveDomain });
      await use()
        .db.insertInto('offers')
        .values({ company_id: companyId, title: 'Live elsewhere', image_url: 'https://img.example/x.png', live: true })
        .execute();
      expect((await post('/plugin/v2/state', { platformId, domain: liveDomain })).json()).toMatchObject({
        kind: 'stage',
        stage: 'live',
        offer: { title: 'Live elsewhere' },
      });
    });

    it('keeps /metrics off a live host without METRICS_TOKEN (issue 23: routes, status counts, memory and Node version)', async () => {
      const response = await use().app.inject({ method: 'GET', url: '/metrics' });
      expect(response.statusCode).toBe(404);
      expect(response.body).not.toContain('nodejs_version_info');
    });
  },
  { SERVICE_ENV: 'prod' },
);

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

describeEachDatabase(
  'a live host with METRICS_TOKEN',
  (use) => {
    it('serves /metrics to the scraper with the token only, 401 otherwise', async () => {
      const get = (authorization?: string) =>
        use().app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });
      for (const authorization of [undefined, 'Bearer wrong-token-0123456789', `Basic ${METRICS_TOKEN}`]) {
        const refused = await get(authorization);
        expect(refused.statusCode, authorization).toBe(401);
        expect(refused.json()).toMatchObject({ error: 'unauthorized', message: expect.stringContaining('METRICS_TOKEN') });
      }
      const scraped = await get(`Bearer ${METRICS_TOKEN}`);
      expect(scraped.statusCode).toBe(200);
      expect(scraped.body).toContain('http_requests_total');
    });
  },
  { SERVICE_ENV: 'prod', METRICS_TOKEN },
);
