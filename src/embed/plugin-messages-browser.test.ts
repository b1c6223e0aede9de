import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestContext } from '../../test/support/harness.js';
import { createPlatform } from '../../test/support/factories.js';
import { ARTIFACTS, domainFor, embeddedPluginInChromium } from '../../test/support/embed-plugin-browser.js';
import { setPlatformActive } from '../platforms/service.js';

/** What the plugin says instead of a stage: SPEC 6.3's messages, and a new tab the browser blocked. */
describe('embedded plugin in Chromium, through the demo host page: messages instead of a stage', () => {
  const { shared, open, stages, sandbox, expectAccessible, checkScreen, screenAfterAction, inNewTab } = embeddedPluginInChromium();
  let context: TestContext;
  let service: string;
  let demo: string;
  beforeAll(() => {
    ({ context, service, demo } = shared);
  });

  it('shows the messages of SPEC 6.3 instead of a stage, without calling onEvent', async () => {
    const notEligibleDomain = domainFor('new-');
    await sandbox(notEligibleDomain, 'install');
    const notEligible = await open(`/?domain=${notEligibleDomain}`);
    await checkScreen(notEligible.page, notEligible.frame, 'not_eligible');
    // The service going away after load: the merchant is told and can try again.
    await notEligible.page.route(`${service}/plugin/v2/state*`, (route) => route.abort());
    await notEligible.frame.getByRole('button', { name: 'Check again' }).click();
    await checkScreen(notEligible.page, notEligible.frame, 'unreachable');
    await notEligible.page.unroute(`${service}/plugin/v2/state*`);
    await notEligible.frame.getByRole('button', { name: 'Try again' }).click();
    await notEligible.frame.locator('[data-screen="not_eligible"]').waitFor();
    expect(await stages(notEligible.page)).toEqual([]);
    await notEligible.browserContext.close();

    // A platform id that is a UUID but was never set up, and one that support turned off.
    const inactive = await createPlatform(context.support, { approvedOrigins: [demo] });
    await setPlatformActive(context.support, inactive.platformId, false);
    for (const id of [crypto.randomUUID(), inactive.platformId]) {
      const unavailable = await open(`/?platformId=${id}&domain=${domainFor()}`);
      await checkScreen(unavailable.page, unavailable.frame, 'unavailable');
      expect(await unavailable.frame.getByRole('heading').textContent()).toBe('Brand partnerships are not available here yet');
      expect(await stages(unavailable.page)).toEqual([]);
      await unavailable.browserContext.close();
    }

    // Installed and approved at the platform, outside this page: the page holds no store token, so
    // the merchant confirms at the store (a new tab) before turning cross-promotion on.
    const domain = domainFor();
    await sandbox(domain, 'install');
    await sandbox(domain, 'plan');
    const live = await open(`/?domain=${domain}`);
    await live.frame.locator('[data-screen="consent"]').waitFor({ timeout: 60_000 });
    expect(await live.frame.getByRole('button', { name: 'Turn on cross-promotions' }).count()).toBe(0);
    await expectAccessible(live.page, 'consent before the store is confirmed');
    await inNewTab(live.page, live.frame, 'Confirm at your store', 'Confirm');
    await live.frame.getByRole('button', { name: 'Turn on cross-promotions' }).click();
    await screenAfterAction(live.frame, 'live');
    await sandbox(domain, 'close-campaign');
    await live.page.getByRole('button', { name: 'Clear log' }).click();
    await live.page.reload();
    await checkScreen(live.page, live.frame, 'turned_off');
    expect(await stages(live.page)).toEqual([]);
    // The reload dropped the page's token: confirm at the store again, then turn it back on.
    await inNewTab(live.page, live.frame, 'Confirm at your store', 'Confirm');
    await live.frame.getByRole('button', { name: 'Turn cross-promotion back on' }).click();
    await live.frame.locator('[data-screen="live"]').waitFor();
    await sandbox(domain, 'uninstall');
    await live.page.getByRole('button', { name: 'Clear log' }).click();
    await live.page.reload();
    await checkScreen(live.page, live.frame, 'not_installed');
    expect(await stages(live.page)).toEqual([]);
    await live.browserContext.close();
  });

  it('tells the merchant when the browser blocked the new tab', async () => {
    const { page, browserContext, frame } = await open(`/?domain=${domainFor()}`);
    await frame.locator('[data-screen="install"]').waitFor();
    await frame.locator('body').evaluate(() => {
      window.open = () => null;
    });
    await frame.getByRole('link', { name: /Install the app/ }).click();
    const alert = frame.getByRole('alert');
    await alert.getByText('Your browser blocked the new tab').waitFor();
    expect(await alert.getByRole('link', { name: 'open it here' }).getAttribute('href')).toMatch(
      /\/sandbox\/stores\/.*\/install\?state=[0-9a-f]{64}$/,
    );
    await expectAccessible(page, 'popup blocked');
    await page.screenshot({ path: `${ARTIFACTS}/popup-blocked.png` });
    await browserContext.close();
  });
});
