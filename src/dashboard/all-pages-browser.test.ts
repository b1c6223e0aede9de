import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserApp, stopBrowserApp } from '../../test/support/browser-app.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { TestContext } from '../../test/support/harness.js';
import { uniqueId } from '../../test/support/factories.js';
import { DASHBOARD_PASSWORD, DashboardClient, runningCollab } from '../../test/support/dashboard-client.js';
import {
  expectAccessible,
  expectNoHorizontalOverflow,
  followSignUpLink,
  openSection,
  signedInContext,
} from '../../test/support/dashboard-browser.js';

const VIEWPORTS = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1280, height: 900 },
] as const;

/**
 * Every page of the dashboard, signed out, waiting for its store's owner, and signed in with data
 * in every list (partners, a request with a message, a collab, keys, an authorized and a
 * registered app, performance figures), at 390 px and at 1280 px: none scrolls sideways and axe
 * finds no serious or critical violation. The signed-in sections are read from the navigation, so
 * a section added later is walked too.
 */
describe('every dashboard page at phone and desktop widths, in Chromium', () => {
  let context: TestContext;
  let browser: Browser;
  let baseUrl: string;
  let shower: DashboardClient;
  let pending: DashboardClient;

  beforeAll(async () => {
    ({ context, browser, baseUrl } = await startBrowserApp('postgres', { SANDBOX_STOREFRONTS: 'true' }));

    const collab = await runningCollab(context);
    shower = collab.shower;
    await shower.post('/dashboard/api/oauth-apps', {
      name: 'Shower Co Reporting Backend',
      redirectUris: ['https://reporting.shower.example/oauth/callback/with/a/rather/long/path'],
      confidential: true,
    });
    const asking = new DashboardClient(context.app);
    const askingDomain = `${uniqueId('a-brand-with-a-rather-long-store-name')}.example`;
    await asking.signUpBrand('A Brand With A Rather Long Name', askingDomain, `${uniqueId('ask')}@${askingDomain}`);
    await asking.post(`/dashboard/api/partners/${collab.showerId}/request`, {
      message: 'We would love to show your offer after checkout: our shoppers buy candles, soap and linen every autumn.',
    });

    pending = new DashboardClient(context.app);
    await pending.start();
    const pendingDomain = `${uniqueId('pending')}.example`;
    await pending.signUp({
      email: `${uniqueId('p')}@${pendingDomain}`,
      password: DASHBOARD_PASSWORD,
      brand: { businessName: 'Waiting Brand', domain: pendingDomain },
    });
  });

  afterAll(async () => {
    await stopBrowserApp({ context, browser });
  });

  /** The page once its data has arrived: no request in flight, nothing marked busy. */
  const settled = async (page: Page) => {
    await page.waitForLoadState('networkidle');
    await expect.poll(() => page.locator('[aria-busy="true"]').count()).toBe(0);
  };

  const check = async (page: Page, where: string) => {
    await settled(page);
    await expectNoHorizontalOverflow(page, where);
    await expectAccessible(page, where);
  };

  for (const viewport of VIEWPORTS) {
    const at = (where: string) => `${where} at ${viewport.width} px`;
    const newContext = (): Promise<BrowserContext> => browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });

    it(`signed-out pages at ${viewport.name} width`, async () => {
      const page = await (await newContext()).newPage();
      await page.goto(`${baseUrl}/dashboard`);
      await page.getByRole('form', { name: 'Sign in' }).waitFor();
      await check(page, at('sign in'));
      await page.getByRole('button', { name: 'Sign up' }).click();
      await page.getByRole('button', { name: 'Create account' }).waitFor();
      await check(page, at('sign up'));
      await page.getByRole('button', { name: 'Reset password' }).click();
      await page.getByRole('button', { name: 'Send reset token' }).waitFor();
      await check(page, at('password reset'));
      await page.goto(`${baseUrl}/account/sign-in`);
      await check(page, at('staff sign-in page'));
    });

    it(`a sign-up's "Check your mail" and finishing pages at ${viewport.name} width`, async () => {
      const page = await (await newContext()).newPage();
      const domain = `${uniqueId('mail')}.example`;
      // A long address, which must wrap rather than widen the phone's screen.
      const email = `${uniqueId('a-rather-long-mailbox-name-for-a-phone')}@${domain}`;
      await page.goto(`${baseUrl}/dashboard#/sign-up`);
      await page.getByLabel('Brand name').fill('Mail Goods');
      await page.getByLabel('Store domain').fill(domain);
      await page.getByLabel('Email').fill(email);
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByRole('heading', { name: 'Check your mail' }).waitFor();
      await expect.poll(() => page.getByText(email).count()).toBe(1);
      await check(page, at('check your mail'));
      await followSignUpLink(page, baseUrl, email);
      await page.getByLabel('Password').fill(DASHBOARD_PASSWORD);
      await check(page, at('finish sign-up'));
      await page.getByRole('button', { name: 'Create my account' }).click();
      await page.getByRole('heading', { name: 'Confirm your store', level: 1 }).waitFor();
      // The spent link left the address bar.
      expect(new URL(page.url()).hash).toBe('');
    });

    it(`the claim screen at ${viewport.name} width`, async () => {
      const page = await (await signedInContext(await newContext(), pending.cookies, baseUrl)).newPage();
      await page.goto(`${baseUrl}/dashboard`);
      await page.getByRole('heading', { name: 'Confirm your store', level: 1 }).waitFor();
      await check(page, at('claim'));
    });

    it(`every signed-in section at ${viewport.name} width`, async () => {
      const page = await (await signedInContext(await newContext(), shower.cookies, baseUrl)).newPage();
      await page.goto(`${baseUrl}/dashboard`);
      await page.getByRole('heading', { name: 'Partnerships', level: 1 }).waitFor();
      // Read from the DOM: on a phone the navigation is folded away until the menu opens.
      const sections = await page.locator('nav[aria-label="Dashboard sections"] a').allTextContents();
      expect(sections).toEqual(expect.arrayContaining(['Partnerships', 'Campaigns', 'Your offer', 'Integrations', 'Performance']));
      if (viewport.name === 'phone') {
        // The header is one line; the sections open from the menu.
        const header = (await page.locator('header.topbar').boundingBox())!;
        expect(header.height).toBeLessThan(80);
        await page.getByRole('button', { name: 'Menu' }).click();
        await check(page, at('open menu'));
      }
      // Every section is walked before the test says which failed, so one report names them all.
      const problems: string[] = [];
      const checkHere = async (where: string) => {
        try {
          await check(page, at(where));
        } catch (error) {
          // The checks compare a list of findings with []: keep the findings themselves.
          const found = (error as { actual?: unknown }).actual;
          problems.push(...(Array.isArray(found) ? found.map(String) : [(error as Error).message]));
        }
      };
      for (const section of sections) {
        await openSection(page, section);
        await checkHere(section);
      }
      // A question before a destructive action fits too.
      await openSection(page, 'Integrations');
      await settled(page);
      await page
        .getByRole('button', { name: /^Revoke key / })
        .first()
        .click();
      await checkHere('revoke question');
      expect(problems).toEqual([]);
    });
  }
});
