import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig, type TestContext } from '../../test/support/harness.js';
import { createTestDatabase, HTTP_ENGINES } from '../../test/support/databases.js';
import { buildApp } from '../app.js';
import { createPlatform } from '../../test/support/factories.js';
import { injectTransport, merchantToken, StoreOwner } from '../../test/support/sandbox-owner.js';
import { tableContents } from '../../test/support/snapshot.js';
import { hashSecret } from '../shared/keys.js';
import { InvalidationBus } from '../cache/invalidation.js';
import { SetupWorker } from './setup-worker.js';
import type { EmbedBoot, EmbedState } from './embed-view.js';

/** app.inject's Host, so the service's own pages send this Origin. */
const OWN_ORIGIN = 'http://localhost:80';
const HOST_PAGE = 'https://host.test';
const STAGES = ['install', 'plan', 'setting_up', 'delayed', 'consent', 'live', 'turned_off', 'not_installed'] as const;
type StageName = (typeof STAGES)[number];

/**
 * Issue 14: a plugin action must prove it comes from the store's merchant. A script outside the
 * browser can send any Origin, Referer and Sec-Fetch-* it likes; without the store-bound token the
 * owner's confirmation at the commerce platform gave the embed app, turning cross-promotion on is
 * refused, and without the owner's sandbox session and the page's CSRF token, so are the sandbox's
 * own controls. Every forged request is refused 401 or 403 and leaves every table as it was.
 */
for (const kind of HTTP_ENGINES) {
  describe(`forged plugin and sandbox actions [${kind}]`, () => {
    let context: TestContext | undefined;
    const use = () => context!;
    let platformId: string;
    let otherPlatformId: string;
    const transport = () => injectTransport(use().app);
    const adapter = () => use().app.runtime.commerce.sandbox!;
    const owners = new Map<string, StoreOwner>();
    const ownerOf = async (domain: string) => {
      if (!owners.has(domain)) owners.set(domain, await StoreOwner.signIn(transport(), domain));
      return owners.get(domain)!;
    };
    const uniqueDomain = () => `forged-${crypto.randomBytes(4).toString('hex')}.example`;
    const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
      use().app.inject({
        method: 'POST',
        url,
        headers: { origin: OWN_ORIGIN, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json', ...headers },
        payload: JSON.stringify(body),
      });
    const state = async (domain: string, challenge?: string) =>
      (await post('/plugin/v2/state', { platformId, domain, ...(challenge ? { challenge } : {}) })).json() as EmbedState;
    const label = (current: EmbedState) => (current.kind === 'stage' ? current.stage : current.notice);

    /** Runs the store's setup steps here and now, as the worker would in the background. */
    const finishSetup = async () => {
      const worker = new SetupWorker({
        db: use().db,
        adapter: adapter(),
        bus: new InvalidationBus(),
        log: use().app.log,
        pollMs: 1000,
        retryMs: 1000,
        leaseMs: 60_000,
      });
      while (await worker.runOnce());
    };

    /** A store of its own at the given stage, reached the way a merchant gets there. */
    const storeAt = async (stage: StageName): Promise<string> => {
      const domain = uniqueDomain();
      await ownerOf(domain);
      if (stage === 'install') return domain;
      await adapter().install(domain);
      if (stage === 'plan') return domain;
      await adapter().approvePlan(domain);
      if (stage === 'setting_up') return domain;
      if (stage === 'delayed') {
        await use()
          .db.updateTable('setup_jobs')
          .set({ started_at: new Date(Date.now() - 3_600_000) })
          .where('domain', '=', domain)
          .execute();
        return domain;
      }
      await finishSetup();
      if (stage === 'consent') return domain;
      const token = await merchantToken(transport(), await ownerOf(domain), platformId);
      expect(
        (
          await post(
            '/plugin/v2/consent',
            { platformId, domain, discountPercent: 25, acceptTerms: true },
            { authorization: `Bearer ${token}` },
          )
        ).statusCode,
      ).toBe(200);
      if (stage === 'turned_off') await adapter().closeCampaign(domain);
      if (stage === 'not_installed') await adapter().uninstall(domain);
      return domain;
    };

    beforeAll(async () => {
      // No background jobs, on PGlite too (which a real host never runs that way): the test moves
      // each store to its stage itself, so nothing but the requests under test writes.
      const database = await createTestDatabase(kind);
      const config = {
        ...testConfig({ SANDBOX_IMPORT_MS: '0', ...(database.url ? { DATABASE_URL: database.url } : {}) }),
        runBackgroundJobs: false,
      };
      const app = await buildApp({ config, database });
      await app.ready();
      context = {
        kind,
        app,
        db: database.db,
        runtime: app.runtime,
        config,
        database,
        support: { db: database.db, bus: app.runtime.bus, serviceEnv: config.serviceEnv },
      };
      ({ platformId } = await createPlatform(use().support, { approvedOrigins: [HOST_PAGE] }));
      ({ platformId: otherPlatformId } = await createPlatform(use().support, { approvedOrigins: [HOST_PAGE] }));
    });

    afterAll(async () => {
      await context?.app.close();
      await context?.database.close();
    });

    it('reaches every stage the way a merchant does (the ground the forgeries stand on)', async () => {
      for (const stage of STAGES) expect(label(await state(await storeAt(stage)))).toBe(stage);
    });

    it(`refuses consent and turn-on with 401, whatever headers a script sends, \
against a store in each stage, writing nothing`, async () => {
      // A script can load the embed page with an approved Referer and read its secret: that secret was never confirmed.
      const page = await use().app.inject({
        url: `/plugin/v2/embed?platformId=${platformId}&domain=${uniqueDomain()}`,
        headers: { referer: `${HOST_PAGE}/`, 'sec-fetch-dest': 'iframe' },
      });
      const boot = JSON.parse(/id="embed-boot">(.*?)<\/script>/.exec(page.body)![1]!) as EmbedBoot;
      if (boot.page !== 'app') throw new Error('expected the app page');
      const elsewhere = await storeAt('consent');
      const otherStoreToken = await merchantToken(transport(), await ownerOf(elsewhere), platformId);

      for (const stage of STAGES) {
        const domain = await storeAt(stage);
        const otherPlatformToken = await merchantToken(transport(), await ownerOf(domain), otherPlatformId);
        const expired = await merchantToken(transport(), await ownerOf(domain), platformId);
        await use()
          .db.updateTable('merchant_tokens')
          .set({ expires_at: new Date(Date.now() - 1000) })
          .where('token_hash', '=', hashSecret(expired))
          .execute();
        const forgeries: Array<[string, Record<string, string>]> = [
          ['no token', {}],
          [
            'a guessed token',
            { authorization: `Bearer svc_store_${crypto.randomBytes(32).toString('base64url').replace(/[-_]/g, 'x').slice(0, 43)}` },
          ],
          ["another store's token", { authorization: `Bearer ${otherStoreToken}` }],
          ["this store's token for another platform", { authorization: `Bearer ${otherPlatformToken}` }],
          ["this store's expired token", { authorization: `Bearer ${expired}` }],
          ["an embed page's unconfirmed secret", { authorization: `Bearer ${boot.proof.secret}` }],
          [
            'browser-like headers and cookies',
            {
              referer: `${OWN_ORIGIN}/plugin/v2/embed`,
              'sec-fetch-mode': 'cors',
              'sec-fetch-dest': 'empty',
              cookie: (await ownerOf(domain)).cookieHeader,
            },
          ],
        ];
        const before = await tableContents(use().db);
        for (const [what, headers] of forgeries) {
          for (const [url, body] of [
            ['/plugin/v2/consent', { platformId, domain, discountPercent: 25, acceptTerms: true }],
            ['/plugin/v2/turn-on', { platformId, domain }],
          ] as const) {
            const response = await post(url, body, headers);
            expect(response.statusCode, `${url} at ${stage} with ${what}`).toBe(401);
            expect(response.json(), `${url} at ${stage} with ${what}`).toMatchObject({
              error: 'unauthorized',
              message: expect.stringMatching(/store's token/),
            });
          }
        }
        const traded = await post('/plugin/v2/token', { platformId, domain, secret: boot.proof.secret });
        expect(traded.statusCode, `token at ${stage}`).toBe(401);
        expect(traded.json()).toMatchObject({ error: 'not_confirmed' });
        expect(await tableContents(use().db), `tables after the forgeries at ${stage}`).toEqual(before);
        expect(label(await state(domain))).toBe(stage);
      }
    });

    it(`refuses the sandbox's store controls (close campaign, uninstall, install, approve, confirm) without the owner's session and the \
page's CSRF token, against a store in each stage, writing nothing`, async () => {
      const stranger = await ownerOf(await storeAt('install'));
      for (const stage of STAGES) {
        const domain = await storeAt(stage);
        const owner = await ownerOf(domain);
        const token = await merchantToken(transport(), owner, platformId);
        const visitor = StoreOwner.visitor(transport(), domain);
        await visitor.get(`/sandbox/stores/${domain}/sign-in`);
        const url = (action: string) => `/sandbox/stores/${domain}/${action}`;
        const challenge = hashSecret('a secret the forger made');
        const forgeries: Array<[string, (action: string) => Promise<{ status: number }>]> = [
          [
            'no session, no CSRF token',
            (action) =>
              transport().send({
                method: 'POST',
                url: url(action),
                headers: { origin: OWN_ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
                body: `state=${challenge}`,
              }),
          ],
          ['a CSRF token but no owner session', (action) => visitor.postTo(url(action), { state: challenge })],
          ["another store's owner session", (action) => stranger.postTo(url(action), { state: challenge })],
          [
            "the owner's session without the page's CSRF token",
            (action) => owner.postTo(url(action), { state: challenge, csrf_token: 'forged' }),
          ],
          [
            "the owner's session and token from another site",
            (action) => owner.postTo(url(action), { state: challenge }, { origin: 'https://evil.example' }),
          ],
          ["the plugin's store token", (action) => visitor.postTo(url(action), { state: challenge }, { authorization: `Bearer ${token}` })],
        ];
        const before = await tableContents(use().db);
        for (const [what, send] of forgeries) {
          for (const action of ['close-campaign', 'uninstall', 'install', 'plan', 'confirm']) {
            expect((await send(action)).status, `${action} at ${stage} with ${what}`).toBe(403);
          }
        }
        expect(await tableContents(use().db), `tables after the forgeries at ${stage}`).toEqual(before);
        expect(label(await state(domain))).toBe(stage);
      }
      // The store's owner, signed in, with the page's token, is not refused.
      const live = await storeAt('live');
      expect((await (await ownerOf(live)).post('close-campaign')).status).toBe(303);
      expect(label(await state(live))).toBe('turned_off');
    });

    it(`carries the app's challenge as the state of its links; only the owner's click there lets \
that app act, once, for a while, for that store`, async () => {
      const domain = await storeAt('install');
      const secret = crypto.randomBytes(32).toString('base64url');
      const challenge = hashSecret(secret);
      const install = await state(domain, challenge);
      expect(install).toMatchObject({ stage: 'install', install: { url: `/sandbox/stores/${domain}/install?state=${challenge}` } });
      const trade = (body: Record<string, string> = {}) => post('/plugin/v2/token', { platformId, domain, secret, ...body });

      // Nothing confirmed yet: no token, nothing written.
      let before = await tableContents(use().db);
      expect((await trade()).statusCode).toBe(401);
      // Opening the platform's pages records nothing: only a form the owner submits does.
      const owner = await ownerOf(domain);
      expect((await owner.get(install.kind === 'stage' && install.stage === 'install' ? install.install.url : '')).body).toContain(
        `name="state" value="${challenge}"`,
      );
      expect((await owner.get(`/sandbox/stores/${domain}/confirm?state=${challenge}`)).status).toBe(200);
      expect(await tableContents(use().db)).toEqual(before);

      expect((await owner.post('install', { state: challenge })).status).toBe(200);
      before = await tableContents(use().db);
      for (const [what, body] of [
        ['another store', { domain: uniqueDomain() }],
        ['an unknown platform', { platformId: crypto.randomUUID() }],
        ['a wrong secret', { secret: `${secret}x` }],
      ] as const) {
        const refused = await trade(body);
        expect(refused.statusCode, what).toBe(401);
        expect(refused.json(), what).toMatchObject({ error: 'not_confirmed' });
      }
      expect(await tableContents(use().db)).toEqual(before);
      const traded = await trade();
      expect(traded.statusCode).toBe(200);
      const { token, expiresAt } = traded.json();
      expect(token).toMatch(/^svc_store_[A-Za-z0-9]{43}$/);
      expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(59 * 60_000);
      expect(JSON.stringify(await use().db.selectFrom('merchant_tokens').selectAll().execute())).not.toContain(token);
      // Spent: the same secret buys nothing more until the owner confirms again.
      expect((await trade()).statusCode).toBe(401);

      // A confirmation the app did not trade in time runs out.
      expect((await owner.post('confirm', { state: challenge })).status).toBe(200);
      await use()
        .db.updateTable('merchant_confirmations')
        .set({ confirmed_at: new Date(Date.now() - 16 * 60_000) })
        .where('challenge', '=', challenge)
        .execute();
      expect((await trade()).statusCode).toBe(401);

      // The consent screen offers the confirmation in a new tab, carrying the challenge.
      await adapter().approvePlan(domain);
      await finishSetup();
      expect(await state(domain, challenge)).toMatchObject({
        stage: 'consent',
        confirm: { url: `/sandbox/stores/${domain}/confirm?state=${challenge}`, sameTab: false },
      });
      // The token the owner's install gave the app turns cross-promotion on.
      const on = await post(
        '/plugin/v2/consent',
        { platformId, domain, discountPercent: 15, acceptTerms: true },
        { authorization: `Bearer ${token}` },
      );
      expect(on.json()).toMatchObject({ stage: 'live' });
    });
  });
}
