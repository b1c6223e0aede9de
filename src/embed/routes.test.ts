import crypto from 'node:crypto';
import fs from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { describeEachDatabase, startTestApp, stopTestApp, type TestContext } from '../../test/support/harness.js';
import { createBrand, createPlatform } from '../../test/support/factories.js';
import { DATABASE_KINDS } from '../../test/support/databases.js';
import { tableContents } from '../../test/support/snapshot.js';
import { injectTransport, merchantToken, StoreOwner } from '../../test/support/sandbox-owner.js';
import { InvalidationBus } from '../cache/invalidation.js';
import { SandboxCommerce } from '../commerce/sandbox/adapter.js';
import { buildLoader, integrityOf, LOADER_VERSION, PUBLISHED_LOADERS } from './loader-files.js';
import * as dal from './dal.js';
import { SetupWorker } from './setup-worker.js';
import type { EmbedBoot, EmbedState } from './embed-view.js';

/** The published integrity of loader v2.0.0. A change here means the loader's bytes changed: publish a new version instead. */
const PUBLISHED_LOADER_INTEGRITY = 'sha384-23V91mNyFDZ7Sg4LxD9POwyZ1G90GvNpKJYT12m/yGwDUqYsaAFMIQEUAJqohHL3';

// Retries of a slow store (three failures) add up to 0.4 + 0.8 + 1.6 s, past the 1 s delayed threshold; a store's
// import takes 0.3 s, so setting_up is seen before consent.
const ENV = { SETUP_DELAYED_AFTER_SECONDS: '1', SETUP_POLL_MS: '30', SETUP_RETRY_MS: '400', SANDBOX_IMPORT_MS: '300' };
const HOST = 'http://localhost:80';
const ORIGIN = 'http://host.test';

/** The boot JSON the embed page hands its script. */
function bootOf(html: string): EmbedBoot {
  return JSON.parse(/<script type="application\/json" id="embed-boot">(.*?)<\/script>/.exec(html)![1]!) as EmbedBoot;
}

function uniqueDomain(prefix = ''): string {
  return `${prefix}shop-${crypto.randomBytes(4).toString('hex')}.example`;
}

function helpers(use: () => TestContext) {
  // What a request about one store can write. Tests later in a file compare these rather than the
  // whole database: the background setup worker is still working on earlier tests' stores.
  const storeRows = async (domain: string) => ({
    sandbox: await use().db.selectFrom('sandbox_stores').selectAll().where('domain', '=', domain).execute(),
    merchant: await use().db.selectFrom('merchant_stores').selectAll().where('domain', '=', domain).execute(),
    setup: await use().db.selectFrom('setup_jobs').selectAll().where('domain', '=', domain).execute(),
    companies: await use().db.selectFrom('companies').selectAll().where('domain', '=', domain).execute(),
  });
  const post = (url: string, body: unknown, origin: string | null = HOST, extra: Record<string, string> = {}) =>
    use().app.inject({
      method: 'POST',
      url,
      headers: { ...(origin ? { origin } : {}), 'content-type': 'application/json', ...extra },
      payload: JSON.stringify(body),
    });
  // What the embed app sends: a same-origin POST, so the browser adds Origin.
  const state = async (platformId: string, domain: string) => {
    const response = await post('/plugin/v2/state', { platformId, domain }, HOST, { 'sec-fetch-site': 'same-origin' });
    expect(response.statusCode).toBe(200);
    return response.json() as EmbedState;
  };
  // The store's owner, signed in at the sandbox (the first visitor of a store nobody knows sets up its sign-in).
  const owners = new Map<string, Promise<StoreOwner>>();
  const owner = (domain: string) => {
    if (!owners.has(domain)) owners.set(domain, StoreOwner.signIn(injectTransport(use().app), domain));
    return owners.get(domain)!;
  };
  /** One of the store owner's forms at the sandbox (install, plan, uninstall, close-campaign). */
  const form = async (url: string, fields: Record<string, string> = {}) => {
    const [, domain, action] = /^\/sandbox\/stores\/([^/]+)\/(.+)$/.exec(url)!;
    return (await owner(domain!)).post(action!, fields);
  };
  /** The embed app's store token: the owner confirms the app's challenge at the sandbox, the app trades its secret. */
  const tokenFor = async (platformId: string, domain: string) => merchantToken(injectTransport(use().app), await owner(domain), platformId);
  const withToken = (token: string) => ({ authorization: `Bearer ${token}` });
  /** "Turn on cross-promotions" as the embed app sends it, holding the store's token. */
  const consentAsMerchant = async (platformId: string, domain: string, body: Record<string, unknown>) =>
    post('/plugin/v2/consent', { platformId, domain, ...body }, HOST, withToken(await tokenFor(platformId, domain)));
  // A hang guard: setup's timings are seconds at most, but a loaded machine stretches them.
  const waitFor = async (platformId: string, domain: string, wanted: (s: EmbedState) => boolean, timeoutMs = 60_000) => {
    const seen: string[] = [];
    const started = Date.now();
    for (;;) {
      const current = await state(platformId, domain);
      const label = current.kind === 'stage' ? current.stage : current.notice;
      if (seen.at(-1) !== label) seen.push(label);
      if (wanted(current)) return { state: current, seen };
      if (Date.now() - started > timeoutMs) throw new Error(`gave up waiting; saw ${seen.join(' → ')}`);
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
  };
  const toConsent = async (platformId: string, domain: string) => {
    expect((await form(`/sandbox/stores/${domain}/install`)).status).toBe(200);
    expect((await form(`/sandbox/stores/${domain}/plan`)).status).toBe(200);
    return waitFor(platformId, domain, (s) => s.kind === 'stage' && s.stage === 'consent');
  };
  return { state, form, post, waitFor, toConsent, storeRows, owner, tokenFor, withToken, consentAsMerchant };
}

describeEachDatabase(
  'embedded plugin: loader, stages and onboarding',
  (use) => {
    const { state, form, post, waitFor, toConsent, storeRows, owner, tokenFor, withToken, consentAsMerchant } = helpers(use);
    let platformId: string;

    beforeAll(async () => {
      ({ platformId } = await createPlatform(use().support, { approvedOrigins: [ORIGIN] }));
    });

    it('serves loader v2.0.0 from its published files: the same bytes every time, long caching, the published sha384', async () => {
      const first = await use().app.inject('/plugin/v2.0.0/loader.js');
      const second = await use().app.inject('/plugin/v2.0.0/loader.js');
      expect(first.statusCode).toBe(200);
      expect(first.headers['content-type']).toMatch(/^application\/javascript/);
      expect(first.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(first.rawPayload.equals(second.rawPayload)).toBe(true);
      expect(first.rawPayload.equals(fs.readFileSync(`${PUBLISHED_LOADERS}2.0.0/loader.js`))).toBe(true);
      const sri = await use().app.inject('/plugin/v2.0.0/loader.js.sri');
      expect(sri.body).toBe(`sha384-${crypto.createHash('sha384').update(first.rawPayload).digest('base64')}`);
      expect(sri.body).toBe(PUBLISHED_LOADER_INTEGRITY);
      const types = await use().app.inject('/plugin/v2.0.0/index.d.ts');
      expect(types.statusCode).toBe(200);
      expect(types.body).toContain('init(options: EmbedPluginOptions): EmbedPluginHandle;');
      expect(types.rawPayload.equals(fs.readFileSync(`${PUBLISHED_LOADERS}2.0.0/index.d.ts`))).toBe(true);
    });

    it('answers 400 naming the field for a bad platform id or store domain, and 404 for an unknown asset, writing nothing', async () => {
      const before = await tableContents(use().db);
      const badId = await post('/plugin/v2/state', { platformId: '42', domain: 'shop.example' });
      expect(badId.statusCode).toBe(400);
      expect(badId.json()).toMatchObject({ error: 'invalid_request', message: 'platformId must be a UUID' });
      const badDomain = await post('/plugin/v2/state', { platformId, domain: 'not a domain' });
      expect(badDomain.statusCode).toBe(400);
      expect(badDomain.json().message).toMatch(/^domain must be a store domain/);
      const missing = await post('/plugin/v2/state', { platformId });
      expect(missing.statusCode).toBe(400);
      expect(missing.json().message).toMatch(/domain/);
      const embed = await use().app.inject(`/plugin/v2/embed?platformId=42&domain=shop.example`);
      expect(embed.statusCode).toBe(400);
      expect(embed.json()).toMatchObject({ error: 'invalid_request' });
      for (const url of ['/assets/nothing.js', '/plugin/legal/nothing', '/sandbox/images/shop.example/not-an-image.png']) {
        const missing = await use().app.inject(url);
        expect(missing.statusCode, url).toBe(404);
        expect(missing.json(), url).toEqual({
          error: 'not_found',
          message: expect.any(String),
          requestId: missing.headers['x-request-id'],
        });
      }
      const unknown = await use().app.inject('/plugin/v2/nothing-here');
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toMatchObject({ error: 'not_found' });
      expect(await tableContents(use().db)).toEqual(before);
    });

    it(`gives a store's state (and its discount code) only to the embed app: not without Origin, not \
to another origin, not by GET, not across sites`, async () => {
      const domain = uniqueDomain();
      await toConsent(platformId, domain);
      const live = await consentAsMerchant(platformId, domain, { discountPercent: 20, acceptTerms: true });
      const code = live.json().offer.discountCode as string;
      expect(code).toMatch(/^PARTNER20-/);
      const body = { platformId, domain };
      const before = await storeRows(domain);
      const refusals = [
        await post('/plugin/v2/state', body, null),
        await post('/plugin/v2/state', body, 'https://evil.example'),
        await post('/plugin/v2/state', body, HOST, { 'sec-fetch-site': 'cross-site' }),
        await use().app.inject({ url: `/plugin/v2/state?${new URLSearchParams(body)}`, headers: { origin: 'https://evil.example' } }),
      ];
      expect(refusals.map((response) => response.statusCode)).toEqual([403, 403, 403, 404]);
      expect(refusals[0]!.json()).toMatchObject({ error: 'forbidden', message: "this call is only accepted from the service's own pages" });
      for (const response of refusals) {
        expect(response.body).not.toContain(code);
        expect(response.body).not.toContain('"stage"');
        expect(response.headers['access-control-allow-origin']).toBeUndefined();
      }
      // A cross-site script's preflight gets no CORS grant, so its browser never sends the call.
      const preflight = await use().app.inject({
        method: 'OPTIONS',
        url: '/plugin/v2/state',
        headers: {
          origin: 'https://evil.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
      expect(preflight.headers['access-control-allow-methods']).toBeUndefined();
      expect(await storeRows(domain)).toEqual(before);
      const own = await state(platformId, domain);
      expect(own).toMatchObject({ stage: 'live', offer: { discountCode: code } });
    });

    it('puts the state in the embed page only for an approved host that frames it, never on the word of an origin parameter', async () => {
      const domain = uniqueDomain();
      await toConsent(platformId, domain);
      const code = (await consentAsMerchant(platformId, domain, { discountPercent: 15, acceptTerms: true })).json().offer
        .discountCode as string;
      const embed = (query: Record<string, string>, headers: Record<string, string>) =>
        use().app.inject({ url: `/plugin/v2/embed?${new URLSearchParams({ platformId, domain, ...query })}`, headers });
      const framed = { 'sec-fetch-dest': 'iframe' };

      const approved = await embed({ ancestors: ORIGIN }, { ...framed, referer: `${ORIGIN}/` });
      expect(approved.headers['content-security-policy']).toContain(`frame-ancestors ${ORIGIN}`);
      const boot = bootOf(approved.body);
      expect(boot).toMatchObject({ page: 'app', parentOrigin: ORIGIN, state: { stage: 'live', offer: { discountCode: code } } });
      // The app page's own secret, and its hash as the challenge its links carry: a new pair on every load.
      if (boot.page !== 'app') throw new Error('expected the app page');
      expect(boot.proof.challenge).toBe(crypto.createHash('sha256').update(boot.proof.secret).digest('hex'));
      const again = bootOf((await embed({ ancestors: ORIGIN }, { ...framed, referer: `${ORIGIN}/` })).body);
      expect(again.page === 'app' && again.proof.secret).not.toBe(boot.proof.secret);

      const refused = [
        // The old loader's way: an origin named in the address and no Referer, as a direct fetch can forge.
        await embed({ origin: ORIGIN, ancestors: ORIGIN }, framed),
        await embed({}, {}),
        await embed({ ancestors: ORIGIN }, { ...framed, referer: 'https://evil.example/page' }),
        // An approved host framed by a site that is not approved.
        await embed({ ancestors: `${ORIGIN} https://evil.example` }, { ...framed, referer: `${ORIGIN}/` }),
        // Opened as a page of its own rather than in the plugin's frame.
        await embed({ ancestors: ORIGIN }, { 'sec-fetch-dest': 'document', referer: `${ORIGIN}/` }),
      ];
      for (const response of refused) {
        expect(response.statusCode).toBe(200);
        expect(bootOf(response.body).page).toBe('refused');
        expect(response.body).not.toContain('"proof"');
        expect(response.body).not.toContain(code);
        expect(response.body).not.toContain('"stage"');
        expect(response.headers['access-control-allow-origin']).toBeUndefined();
        expect(response.headers['content-security-policy']).not.toContain('frame-ancestors *');
      }
      // A refusal may be framed by whoever asked, so the merchant sees it instead of the browser's blocked-frame page.
      expect(refused[2]!.headers['content-security-policy']).toContain('frame-ancestors https://evil.example');
      expect(refused[1]!.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    });

    it('boots "not available here yet" for an unknown or inactive platform, framed only by the origin that asked', async () => {
      expect(await state(crypto.randomUUID(), 'shop.example')).toEqual({ kind: 'notice', notice: 'unavailable' });
      const inactive = await createPlatform(use().support, { active: false });
      expect(await state(inactive.platformId, 'shop.example')).toEqual({ kind: 'notice', notice: 'unavailable' });
      for (const id of [crypto.randomUUID(), inactive.platformId]) {
        const page = await use().app.inject({
          url: `/plugin/v2/embed?platformId=${id}&domain=shop.example`,
          headers: { referer: 'https://any.example/x', 'sec-fetch-dest': 'iframe' },
        });
        expect(page.statusCode).toBe(200);
        expect(bootOf(page.body)).toMatchObject({ page: 'notice', notice: 'unavailable' });
        expect(page.headers['content-security-policy']).toMatch(/frame-ancestors https:\/\/any\.example$/);
      }
    });

    it('boots "could not reach the service" when the platform or the store cannot be read, and recovers', async () => {
      const domain = uniqueDomain();
      const request = () =>
        use().app.inject({
          url: `/plugin/v2/embed?platformId=${platformId}&domain=${domain}`,
          headers: { referer: `${ORIGIN}/`, 'sec-fetch-dest': 'iframe' },
        });
      await sql`alter table platforms rename to platforms_away`.execute(use().db);
      try {
        const down = await request();
        expect(down.statusCode).toBe(200);
        expect(bootOf(down.body)).toMatchObject({ page: 'notice', notice: 'unreachable' });
        expect(down.headers['content-security-policy']).toMatch(new RegExp(`frame-ancestors ${ORIGIN}$`));
      } finally {
        await sql`alter table platforms_away rename to platforms`.execute(use().db);
      }
      await sql`alter table sandbox_stores rename to sandbox_stores_away`.execute(use().db);
      try {
        expect(bootOf((await request()).body)).toMatchObject({ page: 'app', state: null });
      } finally {
        await sql`alter table sandbox_stores_away rename to sandbox_stores`.execute(use().db);
      }
      expect(bootOf((await request()).body)).toMatchObject({ page: 'app', state: { stage: 'install' } });
    });

    it('walks install → plan → setting_up → consent → live, creating one discount code once per customer', async () => {
      const domain = uniqueDomain();
      const first = await state(platformId, `https://www.${domain}/admin`);
      expect(first).toMatchObject({
        kind: 'stage',
        stage: 'install',
        install: { url: `/sandbox/stores/${domain}/install`, sameTab: false },
      });
      expect((await form(`/sandbox/stores/${domain}/install`)).status).toBe(200);
      expect(await state(platformId, domain)).toMatchObject({ kind: 'stage', stage: 'plan', approve: { sameTab: false } });
      expect((await form(`/sandbox/stores/${domain}/plan`)).status).toBe(200);
      const { state: consent, seen } = await waitFor(platformId, domain, (s) => s.kind === 'stage' && s.stage === 'consent');
      expect(seen[0]).toBe('setting_up');
      expect(consent).toMatchObject({ stage: 'consent', existingDiscountPercent: null, choices: [10, 15, 20, 25] });
      if (consent.kind !== 'stage' || consent.stage !== 'consent') throw new Error('not consent');
      expect(consent.preview.bestSellers).toHaveLength(3);

      const company = await use()
        .db.selectFrom('companies')
        .select(['id', 'commerce_platform'])
        .where('domain', '=', domain)
        .executeTakeFirstOrThrow();
      expect(company.commerce_platform).toBe('Sandbox Commerce');
      expect(await use().db.selectFrom('offers').select('live').where('company_id', '=', company.id).executeTakeFirstOrThrow()).toEqual({
        live: false,
      });

      const live = await consentAsMerchant(platformId, domain, { discountPercent: 20, acceptTerms: true });
      expect(live.statusCode).toBe(200);
      expect(live.json()).toMatchObject({
        kind: 'stage',
        stage: 'live',
        offer: { discountPercent: 20, title: expect.stringMatching(/^20% off your first order at /) },
      });
      const again = await consentAsMerchant(platformId, domain, { discountPercent: 20, acceptTerms: true });
      expect(again.json()).toMatchObject({ stage: 'live' });
      const codes = await use().db.selectFrom('sandbox_discount_codes').selectAll().where('store_domain', '=', domain).execute();
      expect(codes).toHaveLength(1);
      expect(codes[0]).toMatchObject({ percent: 20, once_per_customer: true });
      expect(
        await use()
          .db.selectFrom('offers')
          .select(['live', 'discount_code'])
          .where('company_id', '=', company.id)
          .executeTakeFirstOrThrow(),
      ).toEqual({
        live: true,
        discount_code: codes[0]!.code,
      });
    });

    it(`refuses consent from another origin, without the store token, without accepting the terms, \
without a discount, or before the consent stage`, async () => {
      const domain = uniqueDomain();
      const token = withToken(await tokenFor(platformId, domain));
      const early = await post('/plugin/v2/consent', { platformId, domain, discountPercent: 15, acceptTerms: true }, HOST, token);
      expect(early.statusCode).toBe(409);
      expect(early.json()).toMatchObject({ error: 'wrong_stage' });
      await toConsent(platformId, domain);
      const foreign = await post(
        '/plugin/v2/consent',
        { platformId, domain, discountPercent: 15, acceptTerms: true },
        'https://evil.example',
        token,
      );
      expect(foreign.statusCode).toBe(403);
      const noOrigin = await use().app.inject({
        method: 'POST',
        url: '/plugin/v2/consent',
        headers: { 'content-type': 'application/json', ...token },
        payload: JSON.stringify({ platformId, domain, discountPercent: 15, acceptTerms: true }),
      });
      expect(noOrigin.statusCode).toBe(403);
      const noToken = await post('/plugin/v2/consent', { platformId, domain, discountPercent: 15, acceptTerms: true });
      expect(noToken.statusCode).toBe(401);
      expect(noToken.json()).toMatchObject({ error: 'unauthorized', message: expect.stringMatching(/store's token/) });
      const noTerms = await post('/plugin/v2/consent', { platformId, domain, discountPercent: 15 }, HOST, token);
      expect(noTerms.statusCode).toBe(400);
      expect(noTerms.json().message).toMatch(/acceptTerms/);
      const badPercent = await post('/plugin/v2/consent', { platformId, domain, discountPercent: 30, acceptTerms: true }, HOST, token);
      expect(badPercent.statusCode).toBe(400);
      expect(badPercent.json().message).toMatch(/discountPercent/);
      const noPercent = await post('/plugin/v2/consent', { platformId, domain, acceptTerms: true }, HOST, token);
      expect(noPercent.statusCode).toBe(400);
      expect(noPercent.json().message).toBe('discountPercent is required: choose 10, 15, 20 or 25');
      expect(await state(platformId, domain)).toMatchObject({ stage: 'consent' });
    });

    it("uses the store's existing discount instead of the choices", async () => {
      const domain = uniqueDomain('promo-');
      const { state: consent } = await toConsent(platformId, domain);
      expect(consent).toMatchObject({ existingDiscountPercent: 15 });
      const other = await consentAsMerchant(platformId, domain, { discountPercent: 25, acceptTerms: true });
      expect(other.statusCode).toBe(400);
      expect(other.json().message).toMatch(/must be 15/);
      const live = await consentAsMerchant(platformId, domain, { acceptTerms: true });
      expect(live.json()).toMatchObject({ stage: 'live', offer: { discountPercent: 15 } });
    });

    it('shows delayed when setup runs past the threshold, then reaches consent as retries succeed', async () => {
      const domain = uniqueDomain('slow-');
      await form(`/sandbox/stores/${domain}/install`);
      await form(`/sandbox/stores/${domain}/plan`);
      const { seen } = await waitFor(platformId, domain, (s) => s.kind === 'stage' && s.stage === 'consent');
      expect(seen).toContain('delayed');
      expect(seen.indexOf('delayed')).toBeLessThan(seen.indexOf('consent'));
      const job = await use().db.selectFrom('setup_jobs').selectAll().where('domain', '=', domain).executeTakeFirstOrThrow();
      expect(job).toMatchObject({ status: 'done', step: 'done' });
    });

    it('says the store is not eligible yet for too few orders or no product images', async () => {
      for (const [prefix, reason] of [
        ['new-', /at least 10 orders; it has 3/],
        ['noimages-', /active product with an image/],
      ] as const) {
        const domain = uniqueDomain(prefix);
        await form(`/sandbox/stores/${domain}/install`);
        const current = await state(platformId, domain);
        expect(current).toMatchObject({ kind: 'notice', notice: 'not_eligible' });
        if (current.kind !== 'notice' || current.notice !== 'not_eligible') throw new Error('unexpected');
        expect(current.reasons.join(' ')).toMatch(reason);
      }
    });

    it('after uninstall says the app is not installed; reinstalling and approving turns it back on', async () => {
      const domain = uniqueDomain();
      await toConsent(platformId, domain);
      await consentAsMerchant(platformId, domain, { discountPercent: 10, acceptTerms: true });
      expect((await form(`/sandbox/stores/${domain}/uninstall`)).status).toBe(303);
      expect(await state(platformId, domain)).toMatchObject({
        kind: 'notice',
        notice: 'not_installed',
        reinstall: { url: `/sandbox/stores/${domain}/install` },
      });
      const offer = await use()
        .db.selectFrom('offers as o')
        .innerJoin('companies as c', 'c.id', 'o.company_id')
        .select('o.live')
        .where('c.domain', '=', domain)
        .executeTakeFirstOrThrow();
      expect(offer.live).toBe(false);
      await form(`/sandbox/stores/${domain}/install`);
      expect(await state(platformId, domain)).toMatchObject({ stage: 'plan' });
      await form(`/sandbox/stores/${domain}/plan`);
      expect(await state(platformId, domain)).toMatchObject({ stage: 'live' });
    });

    it('hears an uninstall made through the adapter the rest of the service holds (one adapter per process)', async () => {
      const domain = uniqueDomain();
      await toConsent(platformId, domain);
      await consentAsMerchant(platformId, domain, { discountPercent: 10, acceptTerms: true });
      await use().app.runtime.commerce.sandbox!.uninstall(domain);
      expect(await state(platformId, domain)).toMatchObject({ kind: 'notice', notice: 'not_installed' });
      // Onboarding's answer to the event: the store's offer leaves the network.
      const offer = await use()
        .db.selectFrom('offers as o')
        .innerJoin('companies as c', 'c.id', 'o.company_id')
        .select('o.live')
        .where('c.domain', '=', domain)
        .executeTakeFirstOrThrow();
      expect(offer.live).toBe(false);
    });

    it('after the merchant closes the campaign says it is turned off, and turns back on', async () => {
      const domain = uniqueDomain();
      await toConsent(platformId, domain);
      await consentAsMerchant(platformId, domain, { discountPercent: 10, acceptTerms: true });
      expect((await form(`/sandbox/stores/${domain}/close-campaign`)).status).toBe(303);
      expect(await state(platformId, domain)).toEqual({ kind: 'notice', notice: 'turned_off', confirm: null });
      const token = withToken(await tokenFor(platformId, domain));
      const refused = await post('/plugin/v2/turn-on', { platformId, domain }, 'https://evil.example', token);
      expect(refused.statusCode).toBe(403);
      expect((await post('/plugin/v2/turn-on', { platformId, domain })).statusCode).toBe(401);
      const on = await post('/plugin/v2/turn-on', { platformId, domain }, HOST, token);
      expect(on.json()).toMatchObject({ stage: 'live' });
      const twice = await post('/plugin/v2/turn-on', { platformId, domain }, HOST, token);
      expect(twice.statusCode).toBe(409);
    });

    it('is live at load for a store already turned on through another app, with no consent', async () => {
      const domain = uniqueDomain();
      const { companyId } = await createBrand(use().support, { domain });
      await use()
        .db.insertInto('offers')
        .values({ company_id: companyId, title: '15% off at Elsewhere', image_url: 'https://img.example/x.png', live: true })
        .execute();
      expect(await state(platformId, domain)).toMatchObject({ kind: 'stage', stage: 'live', offer: { title: '15% off at Elsewhere' } });
    });

    it('uses the same tab and returns with svc_connect=return only when support holds the page and the brand is synced', async () => {
      const page = `${ORIGIN}/apps/partners?tab=1`;
      const { platformId: withPage } = await createPlatform(use().support, { approvedOrigins: [ORIGIN], pluginPageUrl: page });
      const synced = uniqueDomain();
      const notSynced = uniqueDomain();
      await use().db.insertInto('platform_brands').values({ platform_id: withPage, domain: synced, status: 'active' }).execute();

      expect(await state(withPage, notSynced)).toMatchObject({ install: { sameTab: false, url: `/sandbox/stores/${notSynced}/install` } });
      const same = await state(withPage, synced);
      if (same.kind !== 'stage' || same.stage !== 'install') throw new Error('expected install');
      expect(same.install.sameTab).toBe(true);
      // The platform's page asks its owner to sign in first, and comes back to itself afterwards.
      const toSignIn = await use().app.inject(same.install.url);
      expect(toSignIn.statusCode).toBe(303);
      expect(toSignIn.headers.location).toBe(`/sandbox/stores/${synced}/sign-in?next=${encodeURIComponent(same.install.url)}`);
      const installPage = await (await owner(synced)).get(same.install.url);
      expect(installPage.body).toContain('name="return" value="/plugin/v2/return?');
      const back = await form(`/sandbox/stores/${synced}/install`, { return: `/plugin/v2/return?platformId=${withPage}&domain=${synced}` });
      expect(back.status).toBe(303);
      const returned = await use().app.inject(back.location!);
      expect(returned.statusCode).toBe(303);
      expect(returned.headers.location).toBe(`${ORIGIN}/apps/partners?tab=1&svc_connect=return`);

      // A return address that is not the service's own is ignored, never followed.
      const open = await form(`/sandbox/stores/${synced}/plan`, { return: 'https://evil.example/' });
      expect(open.status).toBe(200);
      expect(open.body).toContain('The plan is approved');

      // The platform closes the brand in its sync: back to new tabs, and the return address just says where to go.
      await use()
        .db.updateTable('platform_brands')
        .set({ status: 'closed', end_date: new Date() })
        .where('platform_id', '=', withPage)
        .where('domain', '=', synced)
        .execute();
      const closed = await use().app.inject(`/plugin/v2/return?platformId=${withPage}&domain=${synced}`);
      expect(closed.statusCode).toBe(200);
      expect(closed.body).toContain('Go back to the tab where you started');
    });

    it("serves the sandbox store admin to the store's owner only, with its catalog and orders, and 404 for a malformed store", async () => {
      const domain = uniqueDomain();
      const anonymous = await use().app.inject(`/sandbox/stores/${domain}`);
      expect(anonymous.statusCode).toBe(303);
      expect(anonymous.headers.location).toBe(`/sandbox/stores/${domain}/sign-in?next=${encodeURIComponent(`/sandbox/stores/${domain}`)}`);
      const admin = await (await owner(domain)).get(`/sandbox/stores/${domain}`);
      expect(admin.status).toBe(200);
      expect(admin.body).toMatch(/Catalog \(\d+ products\)/);
      expect(admin.body).toMatch(/Orders \(\d+ in all/);
      expect((await use().app.inject('/sandbox/stores/nodot')).statusCode).toBe(404);
      const before = await storeRows(domain);
      const forged = await use().app.inject({
        method: 'POST',
        url: `/sandbox/stores/${domain}/install`,
        headers: { origin: 'https://evil.example' },
      });
      expect(forged.statusCode).toBe(403);
      const planFirst = await form(`/sandbox/stores/${domain}/plan`);
      expect(planFirst.status).toBe(409);
      expect(await storeRows(domain)).toEqual(before);
    });
  },
  ENV,
);

describe('store setup survives a restart', () => {
  for (const kind of DATABASE_KINDS) {
    describe(kind, () => {
      let context: TestContext | undefined;
      afterAll(async () => {
        if (context) await stopTestApp(context);
      });

      it('resumes a job whose worker died mid-way once its lease expires, at the step it reached', async () => {
        // The first instance polls too rarely to reach the job before it stops.
        context = await startTestApp(kind, { ...ENV, SETUP_POLL_MS: '60000' });
        const { platformId } = await createPlatform(context.support, { approvedOrigins: [ORIGIN] });
        const domain = uniqueDomain();
        const install = await (await StoreOwner.signIn(injectTransport(context.app), domain)).post('install');
        expect(install.status).toBe(200);
        await context.db.updateTable('sandbox_stores').set({ plan_approved_at: new Date() }).where('domain', '=', domain).execute();
        // What a worker leaves behind when the process dies while it runs the import.
        await context.db
          .insertInto('setup_jobs')
          .values({ domain, attempts: 1, started_at: new Date(), next_attempt_at: new Date(), locked_until: new Date(Date.now() + 300) })
          .execute();
        await context.app.close();

        const restarted = await buildApp({
          config: { ...context.config, plugin: { ...context.config.plugin, setupPollMs: 30 } },
          database: context.database,
        });
        await restarted.ready();
        context = { ...context, app: restarted };
        const deadline = Date.now() + 60_000;
        let job = await context.db.selectFrom('setup_jobs').selectAll().where('domain', '=', domain).executeTakeFirstOrThrow();
        while (job.status !== 'done' && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          job = await context.db.selectFrom('setup_jobs').selectAll().where('domain', '=', domain).executeTakeFirstOrThrow();
        }
        expect(job).toMatchObject({ status: 'done', step: 'done' });
        const response = await restarted.inject({
          method: 'POST',
          url: '/plugin/v2/state',
          headers: { origin: HOST },
          payload: { platformId, domain },
        });
        expect(response.json()).toMatchObject({ kind: 'stage', stage: 'consent' });
      });
    });
  }
});

describe('published loader', () => {
  it(`v2.0.0 is what web/loader builds to today: a change to the loader, a file it imports or esbuild \
is caught here (publish a new version instead)`, async () => {
    const built = await buildLoader();
    const published = {
      loader: fs.readFileSync(`${PUBLISHED_LOADERS}${LOADER_VERSION}/loader.js`),
      declarations: fs.readFileSync(`${PUBLISHED_LOADERS}${LOADER_VERSION}/index.d.ts`),
    };
    expect(integrityOf(published.loader)).toBe(PUBLISHED_LOADER_INTEGRITY);
    expect(integrityOf(built.loader), `web/loader no longer builds to the bytes of v${LOADER_VERSION}`).toBe(integrityOf(published.loader));
    expect(
      built.declarations.equals(published.declarations),
      `web/loader/embed-plugin.d.ts differs from v${LOADER_VERSION}/index.d.ts`,
    ).toBe(true);
  });
});

describe('store setup steps', () => {
  for (const kind of DATABASE_KINDS) {
    describe(kind, () => {
      let context: TestContext | undefined;
      let worker: SetupWorker;
      let adapter: SandboxCommerce;
      beforeAll(async () => {
        context = await startTestApp(kind, ENV);
        // Nothing in the background: the test runs each step itself.
        await context.app.close();
        adapter = new SandboxCommerce(context.db, context.config.baseUrl, 0);
        worker = new SetupWorker({
          db: context.db,
          adapter,
          bus: new InvalidationBus(),
          log: context.app.log,
          pollMs: 1000,
          retryMs: 1000,
          leaseMs: 60_000,
        });
        for (let i = 0; i < 3; i += 1) await createBrand(context.support);
      });
      afterAll(async () => {
        await context?.database.close();
      });

      const jobOf = (domain: string) =>
        context!.db.selectFrom('setup_jobs').selectAll().where('domain', '=', domain).executeTakeFirstOrThrow();

      it('is done only once the matching engine has scored the store against every other brand', async () => {
        const { db } = context!;
        const domain = uniqueDomain();
        await adapter.install(domain);
        await adapter.approvePlan(domain);
        await dal.ensureSetupJob(db, domain, new Date());
        expect(await worker.runOnce()).toBe(true);
        expect(await jobOf(domain)).toMatchObject({ step: 'offer', status: 'pending', lease_id: null });
        expect(await worker.runOnce()).toBe(true);
        expect(await jobOf(domain)).toMatchObject({ step: 'match', status: 'pending' });
        const { id: companyId } = await db.selectFrom('companies').select('id').where('domain', '=', domain).executeTakeFirstOrThrow();
        const scores = () => db.selectFrom('recommendation_scores').select('candidate_id').where('company_id', '=', companyId).execute();
        const queued = () => db.selectFrom('scoring_queue').select('company_id').where('company_id', '=', companyId).execute();
        expect(await scores()).toHaveLength(0);
        expect(await queued()).toHaveLength(1);

        expect(await worker.runOnce()).toBe(true);
        expect(await jobOf(domain)).toMatchObject({ step: 'done', status: 'done' });
        const others = await db.selectFrom('companies').select('id').where('id', '<>', companyId).execute();
        expect((await scores()).map((row) => row.candidate_id).sort()).toEqual(others.map((row) => row.id).sort());
        expect(await queued()).toHaveLength(0);
      });

      it('writes a step only while the worker still holds its lease', async () => {
        const { db } = context!;
        const domain = uniqueDomain();
        // An hour ahead, so only the claims below can see the job.
        const t0 = Date.now() + 3_600_000;
        const at = (ms: number) => new Date(t0 + ms);
        await dal.ensureSetupJob(db, domain, at(0));
        const first = (await dal.claimDueJob(db, at(0), 1000))!;
        expect(first).toMatchObject({ domain, step: 'import' });
        expect(await dal.renewLease(db, domain, first.leaseId, at(500), 1000)).toBe(true);
        expect(await dal.claimDueJob(db, at(1200), 1000)).toBeUndefined();

        // The first worker stalls past its lease; a second one takes the job over.
        const second = (await dal.claimDueJob(db, at(1600), 1000))!;
        expect(second).toMatchObject({ domain, step: 'import' });
        expect(second.leaseId).not.toBe(first.leaseId);
        expect(await dal.advanceJob(db, domain, first.leaseId, 'offer', at(1700))).toBe(false);
        expect(await dal.rescheduleJob(db, domain, first.leaseId, at(9000), 'late failure', at(1700))).toBe(false);
        expect(await dal.renewLease(db, domain, first.leaseId, at(1700), 1000)).toBe(false);
        expect(await jobOf(domain)).toMatchObject({ step: 'import', lease_id: second.leaseId, last_error: null });

        // A lease that ran out is not held either, even with nobody else on the job.
        expect(await dal.advanceJob(db, domain, second.leaseId, 'offer', at(2700))).toBe(false);
        const third = (await dal.claimDueJob(db, at(2700), 1000))!;
        expect(await dal.advanceJob(db, domain, third.leaseId, 'offer', at(2800))).toBe(true);
        expect(await jobOf(domain)).toMatchObject({ step: 'offer', lease_id: null, attempts: 0 });
      });
    });
  }
});
