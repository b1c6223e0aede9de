import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startBrowserApp, stopBrowserApp } from '../../test/support/browser-app.js';
import { expectAccessible, expectNoHorizontalOverflow } from '../../test/support/dashboard-browser.js';
import type { TestContext } from '../../test/support/harness.js';
import { prepareStartupData } from '../demo/startup.js';

/**
 * The newcomer's third walk (issue 27) on the dashboard's sign-in and frame, by keyboard and
 * mouse: the demo sign-in where it is needed, messages that belong to one tab, a skip link,
 * focus on the heading, and Escape folding the phone menu.
 */
describe('the dashboard by keyboard, on a test host with the demo data', () => {
  let context: TestContext;
  let browser: Browser;
  let baseUrl: string;

  beforeAll(async () => {
    ({ context, browser, baseUrl } = await startBrowserApp('postgres'));
    await prepareStartupData(context.runtime, context.app.log);
  });

  afterAll(async () => {
    await stopBrowserApp({ context, browser });
  });

  for (const width of [390, 1280]) {
    it(`at ${width} px: shows the demo sign-in, clears a message on tab change, focuses the heading, skips the header`, async () => {
      const page = await (await browser.newContext({ viewport: { width, height: 900 } })).newPage();
      try {
        await page.goto(`${baseUrl}/dashboard`);
        const hint = page.getByTestId('demo-sign-in');
        await expect.poll(() => hint.textContent()).toContain('staff@northwind-outfitters.example');
        expect(await hint.textContent()).toContain('northwind-demo-staff');
        await expectNoHorizontalOverflow(page, 'sign in');
        await expectAccessible(page, 'sign in');

        await page.getByLabel('Email').fill('staff@northwind-outfitters.example');
        await page.getByLabel('Password').fill('not the password');
        await page.getByRole('button', { name: 'Sign in', exact: true }).last().click();
        const problem = page.getByRole('alert');
        await expect.poll(() => problem.count()).toBe(1);
        await page.getByRole('button', { name: 'Sign up' }).click();
        await expect.poll(() => problem.count()).toBe(0);
        await page.getByRole('button', { name: 'Sign in', exact: true }).first().click();

        await page.getByLabel('Email').fill('staff@northwind-outfitters.example');
        await page.getByLabel('Password').fill('northwind-demo-staff');
        await page.getByRole('button', { name: 'Sign in', exact: true }).last().click();
        const heading = page.getByRole('heading', { name: 'Partnerships', level: 1 });
        await expect.poll(() => heading.evaluate((element) => element === document.activeElement)).toBe(true);

        // The skip link comes before the header's first control (the menu button on a phone, the first section on a desktop).
        const firstInHeader =
          width < 700
            ? page.getByRole('button', { name: 'Menu' })
            : page.getByRole('navigation').getByRole('link', { name: 'Partnerships' });
        await firstInHeader.focus();
        await page.keyboard.press('Shift+Tab');
        const skip = page.getByRole('button', { name: 'Skip to content' });
        await expect.poll(() => skip.evaluate((element) => element === document.activeElement)).toBe(true);
        await page.keyboard.press('Enter');
        await expect.poll(() => heading.evaluate((element) => element === document.activeElement)).toBe(true);
        expect(new URL(page.url()).hash).toBe('');
        await expectAccessible(page, 'partnerships');
      } finally {
        await page.context().close();
      }
    });
  }

  it('at 390 px: Escape folds the open menu and gives focus back to its button', async () => {
    const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    try {
      await page.goto(`${baseUrl}/dashboard`);
      await page.getByLabel('Email').fill('staff@northwind-outfitters.example');
      await page.getByLabel('Password').fill('northwind-demo-staff');
      await page.getByRole('button', { name: 'Sign in', exact: true }).last().click();
      const menu = page.getByRole('button', { name: 'Menu' });
      await menu.click();
      await expect.poll(() => menu.getAttribute('aria-expanded')).toBe('true');
      await page.getByRole('link', { name: 'Campaigns' }).focus();
      await page.keyboard.press('Escape');
      await expect.poll(() => menu.getAttribute('aria-expanded')).toBe('false');
      await expect.poll(() => menu.evaluate((element) => element === document.activeElement)).toBe(true);
    } finally {
      await page.context().close();
    }
  });
});
