import { expect } from 'vitest';
import type { FrameLocator, Locator, Page } from 'playwright-core';
import { fitsAndPasses, seriousViolations } from './readable.js';

/** The walks inside the stand-in's admin by keyboard only (home-browser, reinstall-browser). */

/** A button or link pressed from the keyboard: focused, then Enter. */
export async function press(target: Locator): Promise<void> {
  await target.focus();
  await target.page().keyboard.press('Enter');
}

/** The app's frame in the admin's page. */
export const appFrame = (page: Page): FrameLocator => page.frameLocator('#app-iframe');

/** The plan approved on Shopify's charge page (the admin's top window), back in the admin at the home, which says so. */
export async function approvePlanByKeyboard(page: Page): Promise<void> {
  await press(appFrame(page).getByRole('button', { name: 'Approve the plan at Shopify' }));
  const approve = page.getByRole('button', { name: 'Approve', exact: true });
  await approve.waitFor();
  await fitsAndPasses(page, "Shopify's charge page", seriousViolations);
  await press(approve);
  await appFrame(page).getByText('The plan is approved at Shopify.').waitFor();
  expect(new URL(page.url()).hostname).toBe('admin.shopify.com');
}
