import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startBrowserApp, stopBrowserApp } from '../../test/support/browser-app.js';
import { expectAccessible, expectNoHorizontalOverflow, openSection } from '../../test/support/dashboard-browser.js';
import { DASHBOARD_PASSWORD } from '../../test/support/dashboard-client.js';
import { createBrand, uniqueId } from '../../test/support/factories.js';
import type { TestContext } from '../../test/support/harness.js';
import { createBrandUser } from '../accounts/users.js';
import { issueBrandKey } from '../auth/service.js';

/**
 * Issue 44: a brand API key belongs to the brand, not to the session or the person that made it.
 * A staff member sees the keys another staff member made and revokes one, after a question, on a
 * phone and a desktop; the key stops working at once.
 */
describe("a staff member revokes a key another staff member made, on the dashboard's Integrations", () => {
  let context: TestContext;
  let browser: Browser;
  let baseUrl: string;

  beforeAll(async () => {
    ({ context, browser, baseUrl } = await startBrowserApp('postgres'));
  });

  afterAll(async () => {
    await stopBrowserApp({ context, browser });
  });

  for (const width of [390, 1280]) {
    it(`at ${width} px`, async () => {
      const { companyId } = await createBrand(context.support, { businessName: 'Lantern Lane' });
      const maker = await createBrandUser(context.support, companyId, {
        email: `${uniqueId('maker')}@lantern.example`,
        password: DASHBOARD_PASSWORD,
        displayName: 'Mira Maker',
      });
      const reviewerEmail = `${uniqueId('reviewer')}@lantern.example`;
      await createBrandUser(context.support, companyId, { email: reviewerEmail, password: DASHBOARD_PASSWORD });
      const made = await issueBrandKey(context.support, companyId, { name: 'Old checkout', byUserId: maker.userId });
      const apiStatus = async () =>
        (await context.app.inject({ method: 'GET', url: '/v1/partners', headers: { 'x-api-key': made.key } })).statusCode;
      expect(await apiStatus()).toBe(200);

      const page = await (await browser.newContext({ viewport: { width, height: 900 } })).newPage();
      try {
        await page.goto(`${baseUrl}/dashboard`);
        await page.getByLabel('Email').fill(reviewerEmail);
        await page.getByLabel('Password').fill(DASHBOARD_PASSWORD);
        await page.getByRole('button', { name: 'Sign in', exact: true }).last().click();
        await page.getByRole('heading', { name: 'Partnerships', level: 1 }).waitFor();
        await openSection(page, 'Integrations');

        const row = page.getByRole('row', { name: /Old checkout/ });
        await row.getByText(`Mira Maker (${maker.email})`).waitFor();
        await row.getByText(`…${made.key.slice(-4)}`).waitFor();
        await row.getByText('Active', { exact: true }).waitFor();
        await expectNoHorizontalOverflow(page, 'integrations');
        await expectAccessible(page, 'integrations');

        await page.getByRole('button', { name: 'Revoke key Old checkout' }).click();
        const question = page.getByRole('group', { name: /Revoke key Old checkout\?/ });
        await expectAccessible(page, 'revoke question');
        await question.getByRole('button', { name: 'Revoke key' }).click();
        await page
          .getByRole('status')
          .getByText(`Key Old checkout (…${made.key.slice(-4)}) was revoked: requests that send it are refused.`)
          .waitFor();
        await row.getByText(/^Revoked /).waitFor();
        await expect(page.getByRole('button', { name: 'Revoke key Old checkout' }).count()).resolves.toBe(0);
        await expectNoHorizontalOverflow(page, 'integrations after revoking');
        await expectAccessible(page, 'integrations after revoking');
        expect(await apiStatus()).toBe(401);
      } finally {
        await page.context().close();
      }
    });
  }
});
