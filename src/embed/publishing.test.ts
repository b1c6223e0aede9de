import crypto from 'node:crypto';
import { expect, it } from 'vitest';
import { describeEachDatabase } from '../../test/support/harness.js';
import { createPlatform } from '../../test/support/factories.js';
import { DashboardClient, STORE_OWNER_PASSWORD } from '../../test/support/dashboard-client.js';
import { injectTransport, StoreOwner } from '../../test/support/sandbox-owner.js';
import type { EmbedState } from './embed-view.js';

const ENV = { SETUP_DELAYED_AFTER_SECONDS: '30', SETUP_POLL_MS: '30', SETUP_RETRY_MS: '400', SANDBOX_IMPORT_MS: '0' };
const HOST = 'http://localhost:80';
const ORIGIN = 'http://host.test';
const STAFF_OFFER = {
  title: 'Greenleaf tea, hand picked',
  subtitle: 'STAFF EDITED',
  imageUrl: 'https://cdn.example/staff.png',
  discountPercent: null,
};

function uniqueDomain(): string {
  return `published-${crypto.randomBytes(4).toString('hex')}.example`;
}

describeEachDatabase(
  'plugin: nothing a visitor does changes what a brand publishes',
  (use) => {
    const state = async (platformId: string, domain: string) => {
      const response = await use().app.inject({
        method: 'POST',
        url: '/plugin/v2/state',
        headers: { origin: HOST, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
        payload: JSON.stringify({ platformId, domain }),
      });
      expect(response.statusCode).toBe(200);
      return response.json() as EmbedState;
    };
    const stageOf = async (platformId: string, domain: string) => {
      const seen = await state(platformId, domain);
      return seen.kind === 'stage' ? seen.stage : seen.notice;
    };
    const offerRow = (domain: string) =>
      use()
        .db.selectFrom('offers as o')
        .innerJoin('companies as c', 'c.id', 'o.company_id')
        .select(['o.title', 'o.subtitle', 'o.image_url', 'o.live', 'o.updated_at'])
        .where('c.domain', '=', domain)
        .executeTakeFirstOrThrow();
    const setupJobs = (domain: string) => use().db.selectFrom('setup_jobs').selectAll().where('domain', '=', domain).execute();
    /** A brand signed up on the dashboard whose staff wrote and published its offer. */
    const brandWithStaffOffer = async () => {
      const domain = uniqueDomain();
      const staff = new DashboardClient(use().app);
      await staff.signUpBrand('Greenleaf Tea', domain, `staff@${domain}`, ['tea']);
      const saved = await staff.post('/dashboard/api/offer', STAFF_OFFER);
      expect(saved.statusCode).toBe(200);
      return { domain, staff };
    };

    it('opening the plugin (embed page, state call) by an anonymous visitor starts no setup, changes no staff offer', async () => {
      const { platformId } = await createPlatform(use().support, { approvedOrigins: [ORIGIN] });
      const { domain } = await brandWithStaffOffer();
      const before = await offerRow(domain);
      // The store's app is installed and its plan approved at the platform, as the sandbox makes a live brand's store.
      await use()
        .db.updateTable('sandbox_stores')
        .set({ app_status: 'installed', plan_approved_at: new Date() })
        .where('domain', '=', domain)
        .execute();

      const page = await use().app.inject({
        url: `/plugin/v2/embed?platformId=${platformId}&domain=${domain}&mode=page`,
        headers: { referer: `${ORIGIN}/`, 'sec-fetch-dest': 'iframe' },
      });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('STAFF EDITED');
      const seen = await state(platformId, domain);
      expect(seen).toMatchObject({ kind: 'stage', stage: 'live', offer: { subtitle: 'STAFF EDITED', imageUrl: STAFF_OFFER.imageUrl } });

      expect(await setupJobs(domain)).toEqual([]);
      expect(await offerRow(domain)).toEqual(before);
    });

    it("a store approved at the platform but never set up asks its owner for the plan; the owner's approval starts setup", async () => {
      const { platformId } = await createPlatform(use().support, { approvedOrigins: [ORIGIN] });
      const domain = uniqueDomain();
      const owner = await StoreOwner.signIn(injectTransport(use().app), domain);
      await use()
        .db.updateTable('sandbox_stores')
        .set({ app_status: 'installed', plan_approved_at: new Date() })
        .where('domain', '=', domain)
        .execute();

      expect(await state(platformId, domain)).toMatchObject({ kind: 'stage', stage: 'plan' });
      expect(await state(platformId, domain)).toMatchObject({ kind: 'stage', stage: 'plan' });
      expect(await setupJobs(domain)).toEqual([]);

      const planPage = await owner.get(`/sandbox/stores/${domain}/plan`);
      expect(planPage.body).toContain('The plan is already approved');
      expect((await owner.post('plan')).status).toBe(200);
      await expect.poll(() => stageOf(platformId, domain), { timeout: 60_000 }).toBe('consent');
    });

    it("store setup after the owner's approval keeps the staff offer; the dashboard shows its build as a suggestion", async () => {
      const { domain, staff } = await brandWithStaffOffer();
      const before = await offerRow(domain);
      const owner = await StoreOwner.signIn(injectTransport(use().app), domain, {
        email: 'owner@store.example',
        password: STORE_OWNER_PASSWORD,
      });
      expect((await owner.post('install')).status).toBe(200);
      expect((await owner.post('plan')).status).toBe(200);
      await expect.poll(async () => (await setupJobs(domain))[0]?.status, { timeout: 60_000 }).toBe('done');

      const after = await offerRow(domain);
      expect({ ...after, updated_at: undefined }).toEqual({ ...before, updated_at: undefined });
      expect(after.updated_at).toEqual(before.updated_at);

      const shown = (await staff.get('/dashboard/api/offer')).json();
      expect(shown.offer).toMatchObject({ subtitle: 'STAFF EDITED', imageUrl: STAFF_OFFER.imageUrl });
      expect(shown.setupProposal.subtitle).toMatch(/^Best sellers: /);
      expect(shown.setupProposal.imageUrl).toMatch(/^https?:\/\//);

      // Staff who take the suggestion save it as their own: it is no longer shown apart.
      const taken = await staff.post('/dashboard/api/offer', { ...STAFF_OFFER, ...shown.setupProposal });
      expect(taken.statusCode).toBe(200);
      expect(taken.json()).toMatchObject({ offer: { subtitle: shown.setupProposal.subtitle }, setupProposal: null });
    });

    it('store setup of a brand with no offer yet writes the offer it built', async () => {
      const { platformId } = await createPlatform(use().support, { approvedOrigins: [ORIGIN] });
      const domain = uniqueDomain();
      const owner = await StoreOwner.signIn(injectTransport(use().app), domain);
      expect((await owner.post('install')).status).toBe(200);
      expect((await owner.post('plan')).status).toBe(200);
      await expect.poll(() => stageOf(platformId, domain), { timeout: 60_000 }).toBe('consent');
      const built = await offerRow(domain);
      expect(built.subtitle).toMatch(/^Best sellers: /);
      expect(built.live).toBe(false);
    });
  },
  ENV,
);
