import { freePort } from '../../test/support/service-process.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../../test/support/browser.js';
import { ADMIN_TOKEN, startTestApp, stopTestApp, type TestContext } from '../../test/support/harness.js';
import { createPlatform, uniqueId } from '../../test/support/factories.js';
import { settleScores } from '../partnerships/test-helpers.js';
import { DASHBOARD_PASSWORD } from './test-client.js';

// Screenshots go to test-artifacts/; docs/ is refreshed only on request, so a test run leaves the tracked tree unchanged.
const SCREENSHOTS = new URL(process.env.UPDATE_DOCS_SCREENSHOTS ? '../../docs/' : '../../test-artifacts/dashboard/', import.meta.url);


async function expectAccessible(page: Page, where: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  expect(serious.map((violation) => `${where}: ${violation.id} ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`)).toEqual([]);
}

/**
 * The two-brand story in Chromium: both sign up, one finds the other among its
 * recommendations and sends a connection request, the other accepts, they run a collab, the
 * offers endpoint returns the partner's offer for a platform, the referral link is followed, the
 * sandbox store takes an order through it, and both dashboards show what the platform earned.
 */
describe('brand dashboard in Chromium', () => {
  let context: TestContext;
  let browser: Browser;
  let baseUrl: string;

  beforeAll(async () => {
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    context = await startTestApp('pglite', { BASE_URL: baseUrl });
    await context.app.listen({ port, host: '127.0.0.1' });
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (context) await stopTestApp(context);
  });

  const signUp = async (page: Page, brand: { name: string; domain: string; email: string }) => {
    await page.goto(`${baseUrl}/dashboard`);
    await expectAccessible(page, 'sign in');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByLabel('Brand name').fill(brand.name);
    await page.getByLabel('Store domain').fill(brand.domain);
    await page.getByLabel('Categories').fill('home, candles');
    await page.getByLabel('Email').fill(brand.email);
    await page.getByLabel('Password').fill(DASHBOARD_PASSWORD);
    await expectAccessible(page, 'sign up');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Partnerships', level: 1 }).waitFor();
  };

  const go = async (page: Page, section: string, heading: string) => {
    await page.getByRole('link', { name: section }).click();
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  };

  it('walks two brands from sign-up to a credited order', async () => {
    const alphaDomain = `${uniqueId('alpha')}.example`;
    const betaDomain = `${uniqueId('beta')}.example`;
    const alpha = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
    const beta = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
    await signUp(alpha, { name: 'Alpha Candles', domain: alphaDomain, email: `${uniqueId('a')}@alpha.example` });
    await signUp(beta, { name: 'Beta Soap Works', domain: betaDomain, email: `${uniqueId('b')}@beta.example` });

    // Alpha finds Beta among its recommendations, with a match rate, and sends a request.
    await settleScores(context.db);
    await alpha.reload();
    const recommended = alpha.getByRole('list', { name: 'Recommendations' }).getByRole('listitem').filter({ hasText: 'Beta Soap Works' });
    await expect(recommended.textContent()).resolves.toMatch(/\d+% match/);
    await expectAccessible(alpha, 'partnerships');
    await recommended.getByRole('button', { name: 'Send connection request' }).click();
    await recommended.getByLabel('Message to Beta Soap Works').fill('Candles and soap belong together.');
    await recommended.getByRole('button', { name: 'Send' }).click();
    await alpha.getByRole('list', { name: 'Connection requests sent' }).getByText('Beta Soap Works').waitFor();

    // Beta accepts; both now see each other as partners.
    await beta.reload();
    await beta.getByRole('button', { name: 'Accept request from Alpha Candles' }).click();
    await beta.getByRole('list', { name: 'Partners' }).getByText('Alpha Candles').waitFor();
    await alpha.screenshot({ path: new URL('dashboard-partnerships.png', SCREENSHOTS).pathname, fullPage: true });

    // Beta sets up the offer Alpha's shoppers will see.
    await go(beta, 'Your offer', 'Your offer');
    await beta.getByLabel('Title', { exact: true }).fill('20% off handmade soap');
    await beta.getByLabel('Subtitle (optional)').fill('For new customers');
    await beta.getByLabel('Image URL').fill(`${baseUrl}/dashboard/assets/soap.png`);
    await beta.getByLabel('Discount for new customers').selectOption('20');
    await expectAccessible(beta, 'offer');
    await beta.getByRole('button', { name: 'Save offer' }).click();
    await beta.getByText('Saved.').waitFor();

    // Alpha creates the collab and starts it; Beta sees it too.
    await go(alpha, 'Campaigns', 'Campaigns');
    await alpha.getByLabel('Name', { exact: true }).fill('Autumn bundle');
    await alpha.getByRole('button', { name: 'Create draft' }).click();
    const collab = alpha.getByRole('list', { name: 'Collabs' }).getByRole('listitem').filter({ hasText: 'Autumn bundle' });
    await collab.getByRole('button', { name: 'Start now' }).click();
    await collab.getByText('active').waitFor();
    await expectAccessible(alpha, 'campaigns');
    await alpha.screenshot({ path: new URL('dashboard-campaigns.png', SCREENSHOTS).pathname, fullPage: true });
    await go(beta, 'Campaigns', 'Campaigns');
    await beta.getByRole('list', { name: 'Collabs' }).getByText('Autumn bundle').waitFor();

    // Alpha generates an API key; the plaintext is shown once.
    await go(alpha, 'Integrations', 'Integrations');
    await alpha.getByLabel('Key name').fill('Checkout');
    await alpha.getByRole('button', { name: 'Generate key' }).click();
    const key = (await alpha.getByTestId('new-key').textContent())!;
    expect(key).toMatch(/^svc_test_/);
    await expectAccessible(alpha, 'integrations');
    await alpha.screenshot({ path: new URL('dashboard-integrations.png', SCREENSHOTS).pathname, fullPage: true });

    // A platform asks for Alpha's offers: Beta's offer comes back, and a shopper follows its link.
    const { platformId } = await createPlatform(context.support);
    const offers = await context.app.inject({
      method: 'GET',
      url: '/v1/campaigns/offers?type=post-purchase',
      headers: { 'x-api-key': key, 'x-platform-id': platformId },
    });
    expect(offers.json().offers).toEqual([expect.objectContaining({ title: '20% off handmade soap' })]);
    const referralUrl: string = offers.json().offers[0].referralUrl;
    const shopper = await (await browser.newContext()).newPage();
    // Chromium cannot resolve the pretend store's name here, so the store's answer is stubbed
    // after the service's own redirect, which the browser request really receives.
    let storeUrl = '';
    await shopper.route(referralUrl, async (route) => {
      const response = await route.fetch({ maxRedirects: 0 });
      storeUrl = response.headers().location ?? '';
      await route.fulfill({ status: 200, contentType: 'text/html', body: '<title>Beta store</title>' });
    });
    await shopper.goto(referralUrl);
    expect(new URL(storeUrl).hostname).toBe(betaDomain);
    expect(new URL(storeUrl).searchParams.get('discount')).toMatch(/^PARTNER20-/);

    // The sandbox store takes the shopper's order, placed through the link.
    await go(beta, 'Integrations', 'Integrations');
    await beta.getByLabel('Referral token (optional)').fill(referralUrl.split('/r/')[1]!);
    await beta.getByLabel('Order total in dollars (optional)').fill('40');
    await beta.getByRole('button', { name: 'Place order' }).click();
    await beta.getByText(`credited to platform ${platformId}, new customer, commission $2.00`).waitFor();

    // Both dashboards show the view, the click, the order and the commission, as the admin stats do.
    const stats = await context.app.inject({ method: 'GET', url: `/admin/platforms/${platformId}/stats`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(stats.json()).toEqual({ views: 1, clicks: 1, orders: 1, newCustomers: 1, revenueCents: 4_000, commissionCents: 200 });
    for (const page of [alpha, beta]) {
      await go(page, 'Performance', 'Performance');
      const row = page.getByRole('table', { name: 'Per platform' }).locator(`tr[data-row="${platformId}"]`);
      await row.waitFor();
      await expect(row.locator('td').allTextContents()).resolves.toEqual(['1', '1', '1', '1', '$40.00', '$2.00']);
      await expectAccessible(page, 'performance');
    }
    await alpha.screenshot({ path: new URL('dashboard-performance.png', SCREENSHOTS).pathname, fullPage: true });
  }, 120_000);
});
