import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserApp, stopBrowserApp } from '../../test/support/browser-app.js';
import type { Browser, Page } from 'playwright-core';
import { ADMIN_TOKEN, type TestContext } from '../../test/support/harness.js';
import { createBrand, createPlatform, uniqueId } from '../../test/support/factories.js';
import { settleScores } from '../../test/support/bulk-seeds.js';
import { DashboardClient } from '../../test/support/dashboard-client.js';
import { expectAccessible, signedInContext, signUpInBrowser } from '../../test/support/dashboard-browser.js';

// Screenshots go to test-artifacts/; docs/ is refreshed only on request, so a test run leaves the tracked tree unchanged.
const SCREENSHOTS = new URL(process.env.UPDATE_DOCS_SCREENSHOTS ? '../../docs/' : '../../test-artifacts/dashboard/', import.meta.url);

const money = (cents: number) => `$${(cents / 100).toFixed(2)}`;

/**
 * The two-brand story in Chromium: both sign up and prove their store at the sandbox
 * commerce platform, one finds the other among its recommendations and sends a connection
 * request, the other accepts, they run a collab (the partner choosing its offer for it), the
 * offers endpoint returns that offer for a platform, a shopper follows the referral link to the
 * partner's sandbox storefront and orders there, the platform posts the order to the signed
 * webhook, and both dashboards show what the platform earned. Then a password reset by mail.
 */
describe('brand dashboard in Chromium', () => {
  let context: TestContext;
  let browser: Browser;
  let baseUrl: string;

  beforeAll(async () => {
    ({ context, browser, baseUrl } = await startBrowserApp('postgres', {
      SANDBOX_STOREFRONTS: 'true',
      ORDERS_WEBHOOK_SECRET: 'browser-test-webhook-secret',
    }));
  });

  afterAll(async () => {
    await stopBrowserApp({ context, browser });
  });

  const screenshot = (page: Page, name: string) => page.screenshot({ path: new URL(name, SCREENSHOTS).pathname, fullPage: true });

  /** Signs up, then proves the store as its owner at the sandbox commerce platform; axe checks every screen on the way. */
  const signUp = async (page: Page, brand: { name: string; domain: string; email: string }, shoot = false) =>
    signUpInBrowser(page, baseUrl, brand, async (screen, where) => {
      await expectAccessible(screen, where);
      if (shoot && where === 'claim') await screenshot(screen, 'dashboard-claim.png');
    });

  const go = async (page: Page, section: string, heading: string) => {
    await page.getByRole('link', { name: section }).click();
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  };

  it('walks two brands from sign-up to a credited order, then resets a password by mail', async () => {
    const alphaDomain = `${uniqueId('alpha')}.example`;
    const betaDomain = `${uniqueId('beta')}.example`;
    const alphaEmail = `${uniqueId('a')}@alpha.example`;
    const alphaContext = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    await alphaContext.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
    const alpha = await alphaContext.newPage();
    const beta = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
    await signUp(alpha, { name: 'Alpha Candles', domain: alphaDomain, email: alphaEmail }, true);
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
    await alpha.reload();
    await alpha.getByRole('list', { name: 'Partners' }).getByText('Beta Soap Works').waitFor();
    await screenshot(alpha, 'dashboard-partnerships.png');

    // Beta sets up its offer, with an image from its sandbox store's catalog.
    await go(beta, 'Your offer', 'Your offer');
    await beta.getByLabel('Title', { exact: true }).fill('20% off handmade soap');
    await beta.getByLabel('Subtitle (optional)').fill('For new customers');
    await beta.getByLabel('Image URL').fill(`${baseUrl}/sandbox/images/${betaDomain}/p1.svg`);
    await beta.getByLabel('Discount for new customers').selectOption('20');
    await expectAccessible(beta, 'offer');
    await beta.getByRole('button', { name: 'Save offer' }).click();
    await beta.getByText('Saved.').waitFor();

    // Alpha creates the campaign and starts it; Beta sees it and chooses its offer for this campaign.
    await go(alpha, 'Campaigns', 'Campaigns');
    await alpha.getByLabel('Name', { exact: true }).fill('Autumn bundle');
    await alpha.getByRole('button', { name: 'Create draft' }).click();
    const collab = alpha.getByRole('list', { name: 'Campaigns' }).getByRole('listitem').filter({ hasText: 'Autumn bundle' });
    await collab.getByRole('button', { name: 'Start now' }).click();
    await collab.getByText('active').waitFor();
    await go(beta, 'Campaigns', 'Campaigns');
    const betaCollab = beta.getByRole('list', { name: 'Campaigns' }).getByRole('listitem').filter({ hasText: 'Autumn bundle' });
    await betaCollab.getByRole('button', { name: 'Change your offer for Autumn bundle' }).click();
    await betaCollab.getByLabel('Offer title').fill('Soap for candle lovers');
    await expect(betaCollab.getByLabel('Include your 20% new-customer discount').isChecked()).resolves.toBe(true);
    await expectAccessible(beta, 'collab offer');
    await betaCollab.getByRole('button', { name: 'Save offer for this campaign' }).click();
    await betaCollab.getByText('Soap for candle lovers · 20% off · for this campaign').waitFor();
    await alpha.reload();
    const alphaCollab = alpha.getByRole('list', { name: 'Campaigns' }).getByRole('listitem').filter({ hasText: 'Autumn bundle' });
    await alphaCollab.getByText('Soap for candle lovers · 20% off · for this campaign').waitFor();
    // The partner's offer image really loads (the screenshot once showed a broken one).
    await expect(
      alphaCollab
        .locator('img')
        .evaluateAll((images: HTMLImageElement[]) => images.map((image) => image.complete && image.naturalWidth > 0)),
    ).resolves.toEqual([true]);
    await expectAccessible(alpha, 'campaigns');
    await screenshot(alpha, 'dashboard-campaigns.png');

    // Alpha generates an API key and copies it; then, as on a plain-http LAN address with no clipboard, a second one is
    // selected for copying.
    await go(alpha, 'Integrations', 'Integrations');
    await alpha.getByLabel('Key name').fill('Checkout');
    await alpha.getByRole('button', { name: 'Generate key' }).click();
    const key = (await alpha.getByTestId('new-key').textContent())!;
    expect(key).toMatch(/^svc_test_/);
    await alpha.getByRole('button', { name: 'Copy' }).click();
    await alpha.getByText('The key is on your clipboard.').waitFor();
    await expect(alpha.evaluate(() => navigator.clipboard.readText())).resolves.toBe(key);
    await expectAccessible(alpha, 'integrations');
    await screenshot(alpha, 'dashboard-integrations.png');
    await alpha.evaluate(() => Object.defineProperty(navigator, 'clipboard', { value: undefined, configurable: true }));
    await alpha.getByLabel('Key name').fill('Second');
    await alpha.getByRole('button', { name: 'Generate key' }).click();
    await alpha.getByTestId('new-key').filter({ hasNotText: key }).waitFor();
    const second = (await alpha.getByTestId('new-key').textContent())!;
    await alpha.getByRole('button', { name: 'Copy' }).click();
    await alpha.getByText(/press Ctrl\+C/).waitFor();
    await expect(alpha.evaluate(() => getSelection()?.toString())).resolves.toBe(second);

    // A platform asks for Alpha's offers: Beta's offer for this campaign comes back.
    const { platformId } = await createPlatform(context.support);
    const offers = await context.app.inject({
      method: 'GET',
      url: '/v1/campaigns/offers?type=post-purchase',
      headers: { 'x-api-key': key, 'x-platform-id': platformId },
    });
    expect(offers.json().offers).toEqual([
      expect.objectContaining({ title: 'Soap for candle lovers', imageUrl: `${baseUrl}/sandbox/images/${betaDomain}/p1.svg` }),
    ]);

    // A shopper follows the link to Beta's sandbox storefront and orders there with the 20% code.
    const shopper = await (await browser.newContext()).newPage();
    await shopper.goto(offers.json().offers[0].referralUrl);
    expect(new URL(shopper.url()).pathname).toMatch(new RegExp(`^/sandbox/shop/${betaDomain}/discount/PARTNER20-[0-9A-F]{6}$`));
    await shopper.getByText(/Discount PARTNER20-[0-9A-F]{6} applied: 20% off your order\./).waitFor();
    await expectAccessible(shopper, 'storefront');
    await shopper.getByLabel('Your email').fill('shopper@buyer.example');
    await screenshot(shopper, 'sandbox-storefront.png');
    await shopper.getByRole('button', { name: 'Place order' }).click();
    await shopper.getByRole('heading', { name: 'Thank you for your order' }).waitFor();
    await expect(shopper.getByTestId('delivery').textContent()).resolves.toMatch(/order webhook, which answered HTTP 200/);
    const order = await context.db
      .selectFrom('attributed_orders')
      .selectAll()
      .where('platform_id', '=', platformId)
      .executeTakeFirstOrThrow();
    expect(order).toMatchObject({ store_domain: betaDomain, matched_by: 'referral_link', new_customer: true });

    // Both dashboards show the view, the click, the order and the commission, as the admin stats do.
    const stats = await context.app.inject({
      method: 'GET',
      url: `/admin/platforms/${platformId}/stats`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(stats.json()).toEqual({
      views: 1,
      clicks: 1,
      orders: 1,
      newCustomers: 1,
      money: [
        {
          currency: order.currency,
          orders: 1,
          newCustomers: 1,
          revenueMinor: Number(order.total_cents),
          commissionMinor: Number(order.commission_cents),
        },
      ],
    });
    // Each on its side (issue 16): Alpha showed Beta's offer and sent the order; Beta received it and owes the commission.
    const sides: Array<[typeof alpha, string, string[]]> = [
      [alpha, "Partners' offers on your pages", ['1', '1', '1']],
      [
        beta,
        "Your offer on partners' pages",
        ['1', '1', '1', '1', money(Number(order.total_cents)), money(Number(order.commission_cents))],
      ],
    ];
    for (const [page, side, cells] of sides) {
      await go(page, 'Performance', 'Performance');
      const row = page.getByRole('table', { name: `${side}, per platform` }).locator(`tr[data-row="${platformId}"]`);
      await row.waitFor();
      await expect(row.locator('td').allTextContents()).resolves.toEqual(cells);
      await expectAccessible(page, 'performance');
    }
    expect(Number(order.commission_cents)).toBe(Math.round(Number(order.total_cents) * 0.05));
    await screenshot(alpha, 'dashboard-performance.png');

    // Alpha forgets the password: the token arrives in the development mailbox (no SMTP here).
    const visitor = await (await browser.newContext()).newPage();
    await visitor.goto(`${baseUrl}/dashboard`);
    await visitor.getByRole('button', { name: 'Reset password' }).click();
    await expectAccessible(visitor, 'password reset');
    await visitor.getByRole('form', { name: 'Request a password reset' }).getByLabel('Email').fill(alphaEmail);
    await visitor.getByRole('button', { name: 'Send reset token' }).click();
    await visitor.getByText('If the email has an account, we sent it a reset token.').waitFor();
    await expectAccessible(visitor, 'password reset requested');
    const mailbox = await visitor.context().newPage();
    await mailbox.goto(`${baseUrl}/account/dev-mailbox`);
    await mailbox.getByText(alphaEmail).first().waitFor();
    await expectAccessible(mailbox, 'development mailbox');
    const token = /^([A-Za-z0-9]{43})$/m.exec((await mailbox.locator('pre.mail').first().textContent())!)![1]!;
    const setPassword = visitor.getByRole('form', { name: 'Set a new password' });
    await setPassword.getByLabel('Reset token').fill(token);
    await setPassword.getByLabel('New password').fill('a brand new long password');
    await setPassword.getByRole('button', { name: 'Set new password' }).click();
    await visitor.getByText('Your password was changed.').waitFor();
    await expectAccessible(visitor, 'password changed');
    const signInForm = visitor.getByRole('form', { name: 'Sign in' });
    await signInForm.getByLabel('Email').fill(alphaEmail);
    await signInForm.getByLabel('Password').fill('a brand new long password');
    await signInForm.getByRole('button', { name: 'Sign in' }).click();
    await visitor.getByRole('heading', { name: 'Partnerships', level: 1 }).waitFor();
  });

  it("pages a long list, and shows a declined row's current state instead of a request the service would refuse", async () => {
    const brand = new DashboardClient(context.app);
    const other = new DashboardClient(context.app);
    await brand.signUpBrand('Many Requests', `${uniqueId('many')}.example`, `${uniqueId('m')}@many.example`);
    const otherId = await other.signUpBrand('Second Chance', `${uniqueId('second')}.example`, `${uniqueId('o')}@second.example`);
    const brandId = (await brand.get('/dashboard/api/session')).json().user.companyId;
    const asked = await Promise.all(Array.from({ length: 21 }, () => createBrand(context.support)));
    for (const target of asked) await brand.post(`/dashboard/api/partners/${target.companyId}/request`, {});
    await brand.post(`/dashboard/api/partners/${otherId}/request`, {});
    await other.post(`/dashboard/api/partners/${brandId}/decline`);
    await brand.post(`/dashboard/api/partners/${otherId}/request`, {});
    await other.post(`/dashboard/api/partners/${brandId}/accept`);

    const browserContext = await signedInContext(
      await browser.newContext({ viewport: { width: 1200, height: 900 } }),
      brand.cookies,
      baseUrl,
    );
    const page = await browserContext.newPage();
    let releaseLists!: () => void;
    const listsHeld = new Promise<void>((resolve) => (releaseLists = resolve));
    await page.route('**/dashboard/api/partners?*', async (route) => {
      await listsHeld;
      await route.continue();
    });
    await page.goto(`${baseUrl}/dashboard`);
    const sent = page.getByRole('list', { name: 'Connection requests sent' });
    // Until the lists arrive they say so, rather than claiming there is nothing.
    await sent.and(page.locator('[aria-busy="true"]')).getByText('Loading…').waitFor();
    await expect(sent.getByText('None.').count()).resolves.toBe(0);
    releaseLists();
    await sent.and(page.locator('[aria-busy="false"]')).waitFor();
    await expect(sent.getByRole('listitem').count()).resolves.toBe(20);
    const pager = page.getByRole('navigation', { name: 'Connection requests sent pages' });
    await pager.getByText('Page 1 of 2 · 21 in all').waitFor();
    await pager.getByRole('button', { name: 'Next' }).click();
    await pager.getByText('Page 2 of 2 · 21 in all').waitFor();
    await expect(sent.getByRole('listitem').count()).resolves.toBe(1);
    await expectAccessible(page, 'paged partnerships');

    const declined = page.getByRole('list', { name: 'Declined and removed' }).getByRole('listitem').filter({ hasText: 'Second Chance' });
    await declined.getByText('Now: Partner').waitFor();
    await expect(declined.getByRole('button', { name: 'Send connection request' }).count()).resolves.toBe(0);
    await pager.getByRole('button', { name: 'Previous' }).click();
    await pager.getByText('Page 1 of 2 · 21 in all').waitFor();
  });
});
