import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserApp, stopBrowserApp } from '../../test/support/browser-app.js';
import type { Browser, Page } from 'playwright-core';
import type { TestContext } from '../../test/support/harness.js';
import { createBrand, uniqueId } from '../../test/support/factories.js';
import { DashboardClient, runningCollab } from '../../test/support/dashboard-client.js';
import {
  expectAccessible,
  expectNoHorizontalOverflow,
  openSection,
  signedInContext,
  signUpInBrowser,
} from '../../test/support/dashboard-browser.js';
import { drainScoringQueue } from '../recommendations/scorer.js';

// Screenshots go to test-artifacts/; docs/ is refreshed only on request, so a test run leaves the tracked tree unchanged.
const SCREENSHOTS = new URL(process.env.UPDATE_DOCS_SCREENSHOTS ? '../../docs/' : '../../test-artifacts/dashboard/', import.meta.url);
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

/**
 * What a newcomer met on the dashboard (issue 18), walked in Chromium by clicking and typing:
 * matches found and ranked without a reload, a request's message read where it is answered,
 * confirmations that say what happened, the offer's preview and links, self-service OAuth apps,
 * and error text in the words on screen. The scorer runs only when the test says (no background
 * jobs, so PostgreSQL), which makes "matches are being found" a state the test can hold.
 */
describe('the dashboard as a newcomer meets it, in Chromium', () => {
  let context: TestContext;
  let browser: Browser;
  let baseUrl: string;

  beforeAll(async () => {
    ({ context, browser, baseUrl } = await startBrowserApp('postgres', {
      SANDBOX_STOREFRONTS: 'true',
      RUN_BACKGROUND_JOBS: 'false',
      ORDERS_WEBHOOK_SECRET: 'newcomer-test-webhook-secret',
    }));
  });

  afterAll(async () => {
    await stopBrowserApp({ context, browser });
  });

  const screenshot = (page: Page, name: string) => page.screenshot({ path: new URL(name, SCREENSHOTS).pathname, fullPage: true });

  /** A brand signed up and confirmed through the API, and a page of the browser signed in as it. */
  const brandInBrowser = async (name: string, viewport = DESKTOP) => {
    const client = new DashboardClient(context.app);
    const domain = `${uniqueId(name.toLowerCase().replace(/\W+/g, '-'))}.example`;
    const companyId = await client.signUpBrand(name, domain, `${uniqueId('staff')}@${domain}`);
    await drainScoringQueue(context.db);
    const page = await (await signedInContext(await browser.newContext({ viewport }), client.cookies, baseUrl)).newPage();
    await page.goto(`${baseUrl}/dashboard`);
    await page.getByRole('heading', { name: 'Partnerships', level: 1 }).waitFor();
    return { client, companyId, domain, page };
  };

  it('says matches are being found right after the store is confirmed, then shows them ranked without a reload', async () => {
    const fit = await createBrand(context.support, { businessName: 'Wick & Wax Supply', categories: ['home', 'candles'] });
    await Promise.all(Array.from({ length: 5 }, () => createBrand(context.support, { categories: ['pets'] })));
    await drainScoringQueue(context.db);

    const page = await (await browser.newContext({ viewport: PHONE })).newPage();
    const domain = `${uniqueId('lumen')}.example`;
    await signUpInBrowser(page, baseUrl, { name: 'Lumen Candles', domain, email: `${uniqueId('l')}@${domain}` });
    const status = page.getByRole('status').filter({ hasText: 'Finding the brands that match yours best' });
    await status.waitFor();
    const recommendations = page.getByRole('list', { name: 'Recommendations' });
    await expect(recommendations.getAttribute('aria-busy')).resolves.toBe('true');
    await expect(recommendations.getByText('% match').count()).resolves.toBe(0);
    await expectAccessible(page, 'finding matches');
    await page.evaluate(() => Object.assign(window, { beforeScoring: true }));

    await drainScoringQueue(context.db);
    const first = recommendations.getByRole('listitem').first();
    await first.getByText('Wick & Wax Supply').waitFor();
    await expect(first.textContent()).resolves.toMatch(/\d+% match/);
    await status.waitFor({ state: 'detached' });
    // The same page, never reloaded.
    await expect(page.evaluate(() => (window as unknown as { beforeScoring?: boolean }).beforeScoring)).resolves.toBe(true);
    expect(fit.companyId).toBeTruthy();
  });

  it("shows a request's message where it is accepted or declined; declining asks first and says what happened", async () => {
    const sender = await brandInBrowser('Harbor Soap');
    const recipient = await brandInBrowser('Cedar Goods');

    // The sender finds the recipient, writes a message and sends: the card says so, where the person clicked.
    await sender.page.getByLabel('Name, domain or category').fill('Cedar Goods');
    await sender.page.getByRole('button', { name: 'Search' }).click();
    const card = sender.page.getByRole('list', { name: 'Search results' }).getByRole('listitem').filter({ hasText: 'Cedar Goods' });
    await card.getByRole('button', { name: 'Send connection request' }).click();
    await card.getByLabel('Message to Cedar Goods').fill('Our soap and your linen would sell well together.');
    await card.getByRole('button', { name: 'Send', exact: true }).click();
    const sent = card.getByRole('status');
    await sent.getByText('Request sent to Cedar Goods.').waitFor();
    // Focus moves to the message once it is drawn: waited for, not read at once.
    await expect.poll(() => sent.evaluate((element) => element === document.activeElement)).toBe(true);
    await sender.page.getByRole('list', { name: 'Connection requests sent' }).getByText('Our soap and your linen').waitFor();

    // The recipient reads the message on the request's card, beside Accept and Decline.
    await recipient.page.reload();
    const request = recipient.page
      .getByRole('list', { name: 'Connection requests received' })
      .getByRole('listitem')
      .filter({ hasText: 'Harbor Soap' });
    await request.getByText('Our soap and your linen would sell well together.').waitFor();
    await request.getByRole('button', { name: 'Accept request from Harbor Soap' }).waitFor();
    await expectAccessible(recipient.page, 'request with message');
    await screenshot(recipient.page, 'dashboard-request-message.png');

    // Decline asks first; Cancel leaves the request as it was.
    await request.getByRole('button', { name: 'Decline request from Harbor Soap' }).click();
    const question = request.getByRole('group', { name: /Decline the request from Harbor Soap\?/ });
    await question.waitFor();
    await expectAccessible(recipient.page, 'decline question');
    await question.getByRole('button', { name: 'Cancel' }).click();
    await question.waitFor({ state: 'detached' });
    const stored = () =>
      context.db
        .selectFrom('partnerships')
        .select('status')
        .where('requester_id', '=', sender.companyId)
        .where('recipient_id', '=', recipient.companyId)
        .execute();
    await expect(stored()).resolves.toEqual([{ status: 'pending' }]);
    await request.getByRole('button', { name: 'Decline request from Harbor Soap' }).click();
    await request.getByRole('button', { name: 'Decline request' }).click();
    await recipient.page.getByRole('status').filter({ hasText: 'You declined the request from Harbor Soap.' }).waitFor();
    await expect(stored()).resolves.toEqual([{ status: 'declined' }]);
  });

  it('previews the offer as shoppers see it while typed, and lists the referral links partners use, with where they lead', async () => {
    const collab = await runningCollab(context);
    const page = await (await signedInContext(await browser.newContext({ viewport: DESKTOP }), collab.partner.cookies, baseUrl)).newPage();
    await page.goto(`${baseUrl}/dashboard#/offer`);
    await page.getByRole('heading', { name: 'Your offer', level: 1 }).waitFor();
    const preview = page.getByTestId('offer-preview');
    await preview.getByText('15% off', { exact: true }).waitFor();

    // The preview follows the form before anything is saved.
    await page.getByLabel('Title', { exact: true }).fill('A free candle with your first order');
    await page.getByLabel('Subtitle (optional)').fill('Hand-poured in small batches');
    await page.getByLabel('Image URL').fill(`${baseUrl}/sandbox/images/${collab.partnerDomain}/p1.svg`);
    await page.getByLabel('Discount for new customers').selectOption('20');
    await preview.getByText('A free candle with your first order').waitFor();
    await preview.getByText('Hand-poured in small batches').waitFor();
    await expect
      .poll(() => preview.locator('img').evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth > 0))
      .toBe(true);
    await page.getByText('The link opens your store with your 20% discount for new customers already applied.').waitFor();
    await expect(
      context.db.selectFrom('offers').select('title').where('company_id', '=', collab.partnerId).executeTakeFirstOrThrow(),
    ).resolves.toEqual({ title: '15% off' });

    // The link the shower's platform uses, and where it leads: the sandbox storefront with the store's code.
    const links = page.getByRole('list', { name: 'Referral links' });
    await links.getByText(collab.referralUrl).waitFor();
    const leadsTo = links.getByRole('link', { name: /\/sandbox\/shop\// });
    const destination = new URL((await leadsTo.getAttribute('href'))!);
    expect(destination.pathname).toMatch(new RegExp(`^/sandbox/shop/${collab.partnerDomain}/discount/PARTNER15-`));
    await links.getByText('Shower Co').waitFor();
    await expectAccessible(page, 'offer preview and links');
    await screenshot(page, 'dashboard-offer.png');

    await page.getByRole('button', { name: 'Save offer' }).click();
    await page.getByText('Saved.').waitFor();
  });

  it('registers an OAuth app on Integrations (secret shown once), and revokes and deletes only after asking, at phone width', async () => {
    const brand = await brandInBrowser('Juniper Tea', PHONE);
    const { page } = brand;
    await openSection(page, 'Integrations');

    // No keys yet: said in words, not as bare headers.
    await page.getByText('Your brand has no API keys.').waitFor();
    await expect(page.getByRole('table', { name: 'API keys' }).count()).resolves.toBe(0);

    await page.getByLabel('Key name').fill('Checkout');
    await page.getByRole('button', { name: 'Generate key' }).click();
    await page.getByTestId('new-key').waitFor();
    const revoke = page.getByRole('button', { name: 'Revoke key Checkout' });
    const box = (await revoke.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
    await expectNoHorizontalOverflow(page, 'integrations with a key');
    await revoke.click();
    await page
      .getByRole('group', { name: /Revoke key Checkout\?/ })
      .getByRole('button', { name: 'Revoke key' })
      .click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Key Checkout' })
      .getByText(/was revoked/)
      .waitFor();
    // The revoked key stays listed, marked revoked, with nothing left to revoke.
    await page
      .getByRole('row', { name: /Checkout/ })
      .getByText(/^Revoked /)
      .waitFor();
    await expect(page.getByRole('button', { name: 'Revoke key Checkout' }).count()).resolves.toBe(0);

    // A bad redirect URI is refused in the form's words, and nothing is registered.
    const register = page.getByRole('form', { name: 'Register an OAuth app' });
    await register.getByLabel('App name').fill('Juniper Backend');
    await register.getByLabel('Redirect URIs').fill('http://app.example/callback');
    await register.getByRole('button', { name: 'Register app' }).click();
    await register
      .getByRole('alert')
      .getByText(/^Redirect URI http:\/\/app\.example\/callback must use https/)
      .waitFor();
    const registered = () =>
      context.db.selectFrom('oauth_clients').select(['name', 'secret_hash']).where('owner_company_id', '=', brand.companyId).execute();
    await expect(registered()).resolves.toEqual([]);

    await register.getByLabel('Redirect URIs').fill('https://juniper.example/oauth/callback\nhttp://127.0.0.1/callback');
    await register.getByRole('button', { name: 'Register app' }).click();
    const secret = (await page.getByTestId('client-secret').textContent())!;
    expect(secret).toMatch(/^svc_cs_/);
    const clientId = (await page.getByTestId('registered-app').locator('code').first().textContent())!;
    const [stored] = await registered();
    expect(stored?.secret_hash).not.toContain(secret);
    await expectNoHorizontalOverflow(page, 'integrations with an app');
    await expectAccessible(page, 'integrations with an app');
    await screenshot(page, 'dashboard-integrations-phone.png');

    // The secret works: the app gets a token for this brand with client_credentials.
    const token = await context.app.inject({
      method: 'POST',
      url: '/v1/oauth/token',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
      },
      payload: 'grant_type=client_credentials&scope=brand',
    });
    expect(token.statusCode).toBe(200);
    const partners = await context.app.inject({
      method: 'GET',
      url: '/v1/partners',
      headers: { authorization: `Bearer ${token.json().access_token}` },
    });
    expect(partners.statusCode).toBe(200);

    // Deleting asks first, says what happened, and the app's tokens stop working.
    const apps = page.getByRole('table', { name: 'Your OAuth apps' });
    await apps.getByRole('button', { name: 'Delete app Juniper Backend' }).click();
    await apps.getByRole('button', { name: 'Delete app', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Juniper Backend was deleted' }).waitFor();
    await page.getByText('You have registered no OAuth app.').waitFor();
    const after = await context.app.inject({
      method: 'GET',
      url: '/v1/partners',
      headers: { authorization: `Bearer ${token.json().access_token}` },
    });
    expect(after.statusCode).toBe(401);
  });

  it('says what is wrong with a campaign in the labels on screen, before and after asking the service', async () => {
    const collab = await runningCollab(context);
    const page = await (await signedInContext(await browser.newContext({ viewport: DESKTOP }), collab.shower.cookies, baseUrl)).newPage();
    await page.goto(`${baseUrl}/dashboard#/campaigns`);
    await page.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor();
    const campaigns = () => context.db.selectFrom('campaigns').select('id').where('owner_id', '=', collab.showerId).execute();
    const before = await campaigns();

    const form = page.getByRole('form', { name: 'New campaign' });
    await form.getByLabel('Name', { exact: true }).fill('Winter bundle');
    await form.getByLabel('Start date (optional)').fill('2031-02-10T10:00');
    await form.getByLabel('End date (optional)').fill('2031-02-01T10:00');
    await form.getByRole('button', { name: 'Create draft' }).click();
    await page.getByRole('alert').getByText('End date must be after the start date.').waitFor();

    // A check only the service makes (the end in the past) reads in the same words.
    await form.getByLabel('Start date (optional)').fill('');
    await form.getByLabel('End date (optional)').fill('2020-01-01T10:00');
    await form.getByRole('button', { name: 'Create draft' }).click();
    await page.getByRole('alert').getByText('End date must be in the future').waitFor();
    await expect(campaigns()).resolves.toEqual(before);
  });

  it('the staff sign-in page says accounts are made by signing up, and its link opens the sign-up', async () => {
    const page = await (await browser.newContext({ viewport: PHONE })).newPage();
    await page.goto(`${baseUrl}/account/sign-in`);
    await expect(page.getByText(/support team/).count()).resolves.toBe(0);
    await page.getByRole('link', { name: 'Sign up on the brand dashboard' }).click();
    await page.getByRole('button', { name: 'Create account' }).waitFor();
    await expectNoHorizontalOverflow(page, 'sign-up from the sign-in page');
  });
});
