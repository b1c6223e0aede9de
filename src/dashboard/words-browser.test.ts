import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startBrowserApp, stopBrowserApp } from '../../test/support/browser-app.js';
import { expectAccessible, expectNoHorizontalOverflow, openSection, signedInContext } from '../../test/support/dashboard-browser.js';
import { DashboardClient } from '../../test/support/dashboard-client.js';
import { uniqueId } from '../../test/support/factories.js';
import type { TestContext } from '../../test/support/harness.js';
import { drainScoringQueue } from '../recommendations/scorer.js';

const DAY_MS = 86_400_000;

/**
 * Issue 27's dashboard items, in Chromium at 390 and 1280 px: a match rate says why, from the
 * scorer's terms; the pages speak of campaigns, never collabs or showings; the campaigns list runs
 * by status then date, each draft says whether it can start; Start now on a draft with a start
 * date to come asks first, and both answers do what they say.
 */
describe('match reasons, one vocabulary and starting a draft, in Chromium', () => {
  let context: TestContext;
  let browser: Browser;
  let baseUrl: string;
  let alpha: DashboardClient;
  let beta: DashboardClient;
  let alphaId: string;
  let betaId: string;

  const brand = async (name: string, categories: string[]) => {
    const client = new DashboardClient(context.app);
    const domain = `${uniqueId(name.toLowerCase().replace(/\W+/g, '-'))}.example`;
    const id = await client.signUpBrand(name, domain, `${uniqueId('staff')}@${domain}`, categories);
    return { client, id };
  };

  beforeAll(async () => {
    ({ context, browser, baseUrl } = await startBrowserApp('postgres'));
    ({ client: alpha, id: alphaId } = await brand('Alpha Teas', ['Tea', 'Snacks']));
    ({ client: beta, id: betaId } = await brand('Beta Kettles', ['Kettles']));
    await brand('Leaf Friends', ['tea']);
    await brand('Pet Place', ['Pets']);
    await alpha.post(`/dashboard/api/partners/${betaId}/request`, {});
    expect((await beta.post(`/dashboard/api/partners/${alphaId}/accept`)).statusCode).toBe(200);
    await drainScoringQueue(context.db);
  });

  afterAll(async () => {
    await stopBrowserApp({ context, browser });
  });

  const settled = async (page: Page) => {
    await page.waitForLoadState('networkidle');
    await expect.poll(() => page.locator('[aria-busy="true"]').count()).toBe(0);
  };
  const check = async (page: Page, where: string) => {
    await settled(page);
    await expectNoHorizontalOverflow(page, where);
    await expectAccessible(page, where);
  };

  /** Alpha's campaigns with Beta for one run: a running one, a draft to start in ten days, Beta's draft, a closed one. */
  const campaignsFor = async (suffix: string) => {
    const create = async (client: DashboardClient, partnerId: string, name: string, startDate?: string) => {
      const created = await client.post('/dashboard/api/campaigns', { partnerId, name, startDate });
      expect(created.statusCode).toBe(201);
      return created.json().id as string;
    };
    const ended = await create(alpha, betaId, `Ended ${suffix}`);
    const running = await create(alpha, betaId, `Running ${suffix}`);
    const soonStart = new Date(Date.now() + 10 * DAY_MS).toISOString();
    const soon = await create(alpha, betaId, `Soon ${suffix}`, soonStart);
    await create(beta, alphaId, `Beta idea ${suffix}`);
    expect((await alpha.post(`/dashboard/api/campaigns/${running}/start`)).statusCode).toBe(200);
    expect((await alpha.post(`/dashboard/api/campaigns/${ended}/close`)).statusCode).toBe(200);
    return { soon, soonStart };
  };
  const stored = (id: string) =>
    context.db.selectFrom('campaigns').select(['status', 'start_date']).where('id', '=', id).executeTakeFirstOrThrow();

  for (const width of [390, 1280]) {
    it(`at ${width} px: a match rate says why, and the pages say campaign`, async () => {
      const page = await (
        await signedInContext(await browser.newContext({ viewport: { width, height: 900 } }), alpha.cookies, baseUrl)
      ).newPage();
      try {
        await page.goto(`${baseUrl}/dashboard`);
        await page.getByRole('heading', { name: 'Partnerships', level: 1 }).waitFor();
        const rates = new Map(
          ((await alpha.get('/dashboard/api/recommendations')).json().data as Array<{ businessName: string; matchRate: number }>).map(
            (item) => [item.businessName, item.matchRate],
          ),
        );
        const card = (name: string) => page.getByRole('list', { name: 'Recommendations' }).getByRole('listitem').filter({ hasText: name });
        const leaf = card('Leaf Friends');
        await leaf.getByText(`${rates.get('Leaf Friends')}% match`).waitFor();
        await leaf.getByText(`Why ${rates.get('Leaf Friends')}%?`).click();
        await leaf.getByText('You both sell Tea: 40 of 40 points').waitFor();
        await leaf.getByText(/Not compared, so no points: country \(neither is known\)/).waitFor();
        // Nothing in common scores low, and says so.
        const pets = card('Pet Place');
        expect(rates.get('Pet Place')).toBeLessThanOrEqual(10);
        await pets.getByText(`Why ${rates.get('Pet Place')}%?`).click();
        await pets.getByText('No category in common: 0 of 40 points').waitFor();
        await check(page, `recommendations at ${width} px`);

        // One vocabulary on every section: no collab, no showing.
        const sections = await page.locator('nav[aria-label="Dashboard sections"] a').allTextContents();
        for (const section of sections) {
          await openSection(page, section);
          await settled(page);
          const text = (await page.locator('main').textContent()) ?? '';
          expect({ section, words: text.match(/\bcollabs?\b|\bshowing\b|platform's order count/gi) }).toEqual({ section, words: null });
        }
      } finally {
        await page.context().close();
      }
    });

    it(`at ${width} px: campaigns by status then date, drafts say if they can start, Start now asks before moving a date`, async () => {
      const suffix = String(width);
      const { soon, soonStart } = await campaignsFor(suffix);
      const page = await (
        await signedInContext(await browser.newContext({ viewport: { width, height: 900 } }), alpha.cookies, baseUrl)
      ).newPage();
      try {
        await page.goto(`${baseUrl}/dashboard#/campaigns`);
        await page.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor();
        await settled(page);
        const list = page.getByRole('list', { name: 'Campaigns' });
        const names = (await list.locator(':scope > li > strong').allTextContents()).filter((name) => name.endsWith(suffix));
        expect(names).toEqual([`Running ${suffix}`, `Soon ${suffix}`, `Beta idea ${suffix}`, `Ended ${suffix}`]);

        const theirs = list.getByRole('listitem').filter({ hasText: `Beta idea ${suffix}` });
        await theirs.getByText('Beta Kettles created this draft, so only Beta Kettles can start it.').waitFor();
        await expect(theirs.getByRole('button', { name: 'Start now' }).count()).resolves.toBe(0);

        const draft = list.getByRole('listitem').filter({ hasText: `Soon ${suffix}` });
        await draft.getByText(/^Ready to start/).waitFor();
        await check(page, `campaigns at ${width} px`);

        // First answer: keep the date. Nothing is sent; the draft and its date stay.
        await draft.getByRole('button', { name: 'Start now' }).click();
        const question = draft.getByRole('group', { name: new RegExp(`^Soon ${suffix} is set to start on .+\\. Start it now instead\\?`) });
        await question.waitFor();
        await check(page, `start question at ${width} px`);
        await question.getByRole('button', { name: 'Keep the start date' }).click();
        await expect.poll(() => question.count()).toBe(0);
        await expect
          .poll(() => draft.getByRole('button', { name: 'Start now' }).evaluate((button) => button === document.activeElement))
          .toBe(true);
        expect(await stored(soon)).toEqual({ status: 'draft', start_date: new Date(soonStart) });

        // Second answer: start now. The draft is active from now on.
        const before = Date.now();
        await draft.getByRole('button', { name: 'Start now' }).click();
        await question.getByRole('button', { name: 'Start now instead' }).click();
        await page
          .getByRole('status')
          .filter({ hasText: `Soon ${suffix} is active.` })
          .waitFor();
        await draft.locator('.badge').getByText('active', { exact: true }).waitFor();
        const started = await stored(soon);
        expect(started.status).toBe('active');
        expect(started.start_date!.getTime()).toBeGreaterThanOrEqual(before - 1000);
        expect(started.start_date!.getTime()).toBeLessThan(new Date(soonStart).getTime());
        await check(page, `started campaign at ${width} px`);
      } finally {
        await page.context().close();
      }
    });
  }
});
