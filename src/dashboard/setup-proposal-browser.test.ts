import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startBrowserApp, stopBrowserApp } from '../../test/support/browser-app.js';
import { expectAccessible, expectNoHorizontalOverflow, openSection, signedInContext } from '../../test/support/dashboard-browser.js';
import { DashboardClient, STORE_OWNER_PASSWORD } from '../../test/support/dashboard-client.js';
import { uniqueId } from '../../test/support/factories.js';
import type { TestContext } from '../../test/support/harness.js';
import { injectTransport, StoreOwner } from '../../test/support/sandbox-owner.js';

const STAFF_OFFER = { title: 'Hand picked', subtitle: 'STAFF EDITED', imageUrl: 'https://cdn.example/staff.png', discountPercent: null };

/** Store setup after the owner's approval leaves the staff's offer as written; "Your offer" shows what setup proposed. */
describe("store setup's suggestion on the dashboard, in Chromium", () => {
  let context: TestContext;
  let browser: Browser;
  let baseUrl: string;

  beforeAll(async () => {
    ({ context, browser, baseUrl } = await startBrowserApp('postgres', { SETUP_POLL_MS: '30', SANDBOX_IMPORT_MS: '0' }));
  });

  afterAll(async () => {
    await stopBrowserApp({ context, browser });
  });

  for (const width of [390, 1280]) {
    it(`at ${width} px: the staff offer stays, the suggestion is shown and goes into the form only on request`, async () => {
      const staff = new DashboardClient(context.app);
      const domain = `${uniqueId('proposal')}.example`;
      await staff.signUpBrand('Greenleaf Tea', domain, `staff@${domain}`, ['tea']);
      expect((await staff.post('/dashboard/api/offer', STAFF_OFFER)).statusCode).toBe(200);
      const owner = await StoreOwner.signIn(injectTransport(context.app), domain, {
        email: 'owner@store.example',
        password: STORE_OWNER_PASSWORD,
      });
      expect((await owner.post('install')).status).toBe(200);
      expect((await owner.post('plan')).status).toBe(200);
      await expect
        .poll(
          async () => (await context.db.selectFrom('setup_jobs').select('status').where('domain', '=', domain).executeTakeFirst())?.status,
          {
            timeout: 60_000,
          },
        )
        .toBe('done');

      const page = await (
        await signedInContext(await browser.newContext({ viewport: { width, height: 900 } }), staff.cookies, baseUrl)
      ).newPage();
      try {
        await page.goto(`${baseUrl}/dashboard`);
        await page.getByRole('heading', { name: 'Partnerships', level: 1 }).waitFor();
        await openSection(page, 'Your offer');
        const subtitle = page.getByLabel('Subtitle (optional)');
        await expect.poll(() => subtitle.inputValue()).toBe('STAFF EDITED');
        const suggestion = page.getByRole('region', { name: "Store setup's suggestion" });
        await expect.poll(() => suggestion.textContent()).toContain('Best sellers: ');
        await expectNoHorizontalOverflow(page, 'offer with suggestion');
        await expectAccessible(page, 'offer with suggestion');

        await suggestion.getByRole('button', { name: 'Put the suggestion in the form' }).click();
        await expect.poll(() => subtitle.inputValue()).toMatch(/^Best sellers: /);
        await expect.poll(() => page.getByRole('status').first().textContent()).toContain('save the offer to use it');
        expect((await staff.get('/dashboard/api/offer')).json().offer.subtitle).toBe('STAFF EDITED');
      } finally {
        await page.context().close();
      }
    });
  }
});
