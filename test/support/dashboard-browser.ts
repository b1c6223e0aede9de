import { axeViolations } from './axe.js';
import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { DASHBOARD_PASSWORD, STORE_OWNER_PASSWORD } from './dashboard-client.js';

/** axe finds no serious or critical violation on the page as it is now. */
export async function expectAccessible(page: Page, where: string): Promise<void> {
  const violations = await axeViolations(page);
  const serious = violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  expect(
    serious.map((violation) => `${where}: ${violation.id} ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`),
  ).toEqual([]);
}

/**
 * The page does not scroll sideways: the document is no wider than the window. When it is, the
 * message names the elements that reach past the window's right edge.
 */
export async function expectNoHorizontalOverflow(page: Page, where: string): Promise<void> {
  const overflow = await page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const offenders = [...document.querySelectorAll('body *')]
      .filter((element) => element.getBoundingClientRect().right > width + 1)
      .map((element) => `${element.tagName.toLowerCase()}${element.className ? `.${String(element.className).replace(/ /g, '.')}` : ''}`);
    return { scrollWidth: document.documentElement.scrollWidth, width, offenders: offenders.slice(0, 8) };
  });
  expect(overflow.scrollWidth <= overflow.width ? [] : [`${where}: ${overflow.scrollWidth} px wide`, ...overflow.offenders]).toEqual([]);
}

export interface BrandToSignUp {
  name: string;
  domain: string;
  email: string;
  categories?: string;
}

/**
 * Signs up on the dashboard as a person does, then proves the store as its owner at the sandbox
 * commerce platform; ends on the Partnerships page. `check` runs on each screen on the way.
 */
export async function signUpInBrowser(
  page: Page,
  baseUrl: string,
  brand: BrandToSignUp,
  check: (page: Page, where: string) => Promise<void> = async () => {},
): Promise<void> {
  await page.goto(`${baseUrl}/dashboard`);
  await check(page, 'sign in');
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.getByLabel('Brand name').fill(brand.name);
  await page.getByLabel('Store domain').fill(brand.domain);
  await page.getByLabel('Categories').fill(brand.categories ?? 'home, candles');
  await page.getByLabel('Email').fill(brand.email);
  await check(page, 'sign up');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Check your mail' }).waitFor();
  await check(page, 'check your mail');
  await followSignUpLink(page, baseUrl, brand.email);
  await page.getByLabel('Password').fill(DASHBOARD_PASSWORD);
  await check(page, 'finish sign-up');
  await page.getByRole('button', { name: 'Create my account' }).click();

  await page.getByRole('heading', { name: 'Confirm your store', level: 1 }).waitFor();
  await check(page, 'claim');
  await page.getByRole('link', { name: 'Confirm at your store' }).click();
  await page.getByRole('heading', { name: /Set up the owner sign-in of/ }).waitFor();
  await check(page, 'store owner sign-in');
  await page.getByLabel('Email').fill(`owner@${brand.domain}`);
  await page.getByLabel('Password').fill(STORE_OWNER_PASSWORD);
  await page.getByRole('button', { name: 'Create owner sign-in' }).click();
  await page.getByRole('heading', { name: `Does ${brand.email} act for` }).waitFor();
  await check(page, 'ownership confirmation');
  await page.getByRole('button', { name: 'Confirm' }).click();
  await page.getByRole('heading', { name: 'Partnerships', level: 1 }).waitFor();
}

/** Opens the development mailbox and follows the newest sign-up link mailed to `email`, as a person clicks it in their mail. */
export async function followSignUpLink(page: Page, baseUrl: string, email: string): Promise<void> {
  await page.goto(`${baseUrl}/account/dev-mailbox`);
  const mail = page.getByRole('listitem').filter({ hasText: email }).filter({ hasText: 'Finish creating your' }).first();
  // The mail leaves just after the sign-up's answer: a person reloads the mailbox until it is there.
  await expect
    .poll(async () => {
      if ((await mail.count()) === 0) await page.reload();
      return mail.count();
    })
    .toBe(1);
  await mail.getByRole('link', { name: /finish-sign-up/ }).click();
  await page.getByRole('heading', { name: 'Finish signing up' }).waitFor();
}

/** A browser context signed in with the session a DashboardClient holds (its svc_ cookies). */
export async function signedInContext(context: BrowserContext, cookies: string, baseUrl: string): Promise<BrowserContext> {
  await context.addCookies(
    cookies
      .split('; ')
      .map((pair) => pair.split('=') as [string, string])
      .filter(([name]) => name.startsWith('svc_'))
      .map(([name, value]) => ({ name, value, url: baseUrl })),
  );
  return context;
}

/** Opens a dashboard section from the navigation, through the menu where the window is narrow. */
export async function openSection(page: Page, section: string, heading = section): Promise<void> {
  const menu = page.getByRole('button', { name: 'Menu' });
  if (await menu.isVisible()) {
    if ((await menu.getAttribute('aria-expanded')) !== 'true') await menu.click();
  }
  await page.getByRole('navigation', { name: 'Dashboard sections' }).getByRole('link', { name: section }).click();
  await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
}
