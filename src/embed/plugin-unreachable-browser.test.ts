import type net from 'node:net';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../test/support/service-process.js';
import { startTestApp, stopTestApp, type TestContext } from '../../test/support/harness.js';
import { createPlatform } from '../../test/support/factories.js';
import { ARTIFACTS, LOADER_TIMEOUT_MS, domainFor, embeddedPluginInChromium, type Opened } from '../../test/support/embed-plugin-browser.js';
import { demoHost } from './demo-host.js';

/** When the plugin cannot go on: the service never answers, the store cannot be read, a prod host has no platform. */
describe('embedded plugin in Chromium, through the demo host page: no service, no store, no platform', () => {
  const { shared, open, stages, plugin, expectAccessible, checkScreen } = embeddedPluginInChromium();
  let context: TestContext;
  let service: string;
  beforeAll(() => {
    ({ context, service } = shared);
  });

  it(`says "Could not reach the service" with Try again when the embed app never answers \
(page and drawer mode) or the store cannot be read`, async () => {
    for (const mode of ['page', 'drawer'] as const) {
      const down = await open(`/?domain=${domainFor()}&mode=${mode}`, {
        prepare: (p) => p.route(`${service}/plugin/v2/embed*`, (route) => route.abort('connectionrefused')),
      });
      if (mode === 'drawer') await down.page.getByRole('button', { name: 'Open brand partnerships' }).click();
      const message = plugin(down.page).getByRole('alert');
      await message.getByText('Could not reach the service').waitFor({ timeout: LOADER_TIMEOUT_MS + 30_000 });
      expect(await message.isVisible()).toBe(true);
      await expectAccessible(down.page, `unreachable (${mode})`);
      await down.page.screenshot({ path: `${ARTIFACTS}/loader-unreachable-${mode}.png` });
      expect(await stages(down.page)).toEqual([]);
      // The service is back: Try again loads the app.
      await down.page.unroute(`${service}/plugin/v2/embed*`);
      await plugin(down.page).getByRole('button', { name: 'Try again' }).click();
      await down.frame.locator('[data-screen="install"]').waitFor();
      expect(await message.count()).toBe(0);
      await expect.poll(() => stages(down.page)).toEqual(['install']);
      await down.browserContext.close();
    }

    // The service answers but cannot read the store: the app says so itself, and Try again asks again.
    await sql`alter table sandbox_stores rename to sandbox_stores_away`.execute(context.db);
    let storeDown: Opened;
    try {
      storeDown = await open(`/?domain=${domainFor()}`);
      await checkScreen(storeDown.page, storeDown.frame, 'unreachable', 'unreachable-at-load');
    } finally {
      await sql`alter table sandbox_stores_away rename to sandbox_stores`.execute(context.db);
    }
    expect(await stages(storeDown.page)).toEqual([]);
    await storeDown.frame.getByRole('button', { name: 'Try again' }).click();
    await storeDown.frame.locator('[data-screen="install"]').waitFor();
    await expect.poll(() => stages(storeDown.page)).toEqual(['install']);
    await storeDown.browserContext.close();
  });

  it(`on a prod host, where no commerce platform is connected, says so plainly where \
the install step would be, and offers no sandbox`, async () => {
    const port = await freePort();
    const prodService = `http://127.0.0.1:${port}`;
    const prod = await startTestApp('postgres', { SERVICE_ENV: 'prod', BASE_URL: prodService });
    let prodPlatformId = '';
    const prodHost = demoHost({ serviceUrl: prodService, platformId: async () => prodPlatformId });
    try {
      await prod.app.listen({ port, host: '127.0.0.1' });
      await prodHost.listen({ port: 0, host: '127.0.0.1' });
      const prodDemo = `http://127.0.0.1:${(prodHost.server.address() as net.AddressInfo).port}`;
      ({ platformId: prodPlatformId } = await createPlatform(prod.support, { approvedOrigins: [prodDemo] }));
      for (const mode of ['page', 'drawer'] as const) {
        const { page, browserContext, frame, problems } = await open(`${prodDemo}/?domain=${domainFor()}&mode=${mode}`);
        if (mode === 'drawer') await page.getByRole('button', { name: 'Open brand partnerships' }).click();
        await checkScreen(page, frame, 'no_commerce_platform', `no-commerce-platform-${mode}`);
        expect(await frame.getByRole('heading').textContent()).toBe('No commerce platform is connected yet');
        expect(await frame.locator('a, button').count()).toBe(0);
        expect(await stages(page)).toEqual([]);
        expect(problems).toEqual([]);
        await browserContext.close();
      }
    } finally {
      await prodHost.close();
      await stopTestApp(prod);
    }
  });
});
