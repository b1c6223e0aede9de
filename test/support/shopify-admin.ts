import fs from 'node:fs';
import type { Browser, BrowserContext, FrameLocator, Page } from 'playwright-core';
import { parse as readToml, type TomlTable } from 'smol-toml';
import type { AppRegistration } from '../shopify-standin/core.js';
import { BROWSER_USER_AGENT } from '../shopify-standin/example-app.js';
import type { ShopifyStandIn } from '../shopify-standin/stand-in.js';
import { STAFF_PASSWORD } from '../shopify-standin/staff.js';

/**
 * Browser tests of the embedded app (issue 45): Chromium at the stand-in's Shopify admin
 * (admin.shopify.com), App Store (apps.shopify.com), sign-in page (accounts.shopify.com) and CDN
 * (cdn.shopify.com, App Bridge), with a staff member who signs in, installs from the listing and
 * opens the app framed in the admin. test/shopify-standin/README.md, "The embedded app", says
 * what each page does and which Shopify page it follows.
 */

/**
 * The app as shopify.app.toml registers it with Shopify, for a service at `baseUrl`: its handle
 * (the listing's and the admin's address), name, the scopes a managed installation grants, and the
 * App URL (the toml's path, on the service under test).
 */
export function appFromToml(baseUrl: string): Pick<AppRegistration, 'handle' | 'title' | 'scopes' | 'applicationUrl'> {
  const toml = readToml(fs.readFileSync(new URL('../../shopify.app.toml', import.meta.url), 'utf8'));
  const scopes = String((toml.access_scopes as TomlTable).scopes)
    .split(',')
    .map((scope) => scope.trim())
    .filter(Boolean);
  return {
    handle: String(toml.handle),
    title: String(toml.name),
    scopes,
    applicationUrl: `${baseUrl}${new URL(String(toml.application_url)).pathname}`,
  };
}

export interface AdminBrowser {
  context: BrowserContext;
  page: Page;
  /** Uncaught errors of the page and its frames (the app's, App Bridge's), for a test to expect none. */
  problems: string[];
}

/**
 * A browser context whose requests to Shopify's hosts (the stores, the admin, the App Store, the
 * sign-in page, the CDN) reach the stand-in; everything else (the service) goes out as usual.
 * `mayRedirect` as for `routeBrowser`: which other navigations the route fetches itself (and hands
 * over when they redirect into the stand-in). By default the App URL's origin: the admin's frame of
 * the app must be fetched by the route, because Chromium's local network access checks refuse a
 * page on a public host (admin.shopify.com) framing a loopback address (the service under test):
 * the frame shows chrome-error://chromewebdata/ and the app never sees the request.
 */
export async function adminBrowser(
  browser: Browser,
  standIn: ShopifyStandIn,
  options: { mayRedirect?: (url: URL) => boolean; viewport?: { width: number; height: number } } = {},
): Promise<AdminBrowser> {
  const context = await browser.newContext({ userAgent: BROWSER_USER_AGENT, viewport: options.viewport ?? { width: 1280, height: 900 } });
  await standIn.routeBrowser(context, options.mayRedirect ?? ((url) => url.origin === new URL(standIn.app.applicationUrl).origin));
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  return { context, page, problems };
}

/** On the sign-in page (where Shopify sends a staff member who is not signed in): types the email and password and logs in. */
export async function signInOnPage(page: Page, email: string, password = STAFF_PASSWORD): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
}

/** Signs in as a staff member of the store (its owner unless `email` names another), and stays on the admin. */
export async function signInAsStaff(page: Page, standIn: ShopifyStandIn, domain: string, email?: string): Promise<void> {
  const staff = standIn.staffMember(domain, email);
  const settings = `https://admin.shopify.com/store/${domain.split('.')[0]}/settings/apps`;
  await page.goto(settings);
  if (page.url().startsWith('https://accounts.shopify.com/')) await signInOnPage(page, staff.email);
  await page.waitForURL(settings);
}

/**
 * Installs the app from its App Store listing as the store's staff member (the owner unless
 * `email` is given): Install, the sign-in page when not signed in, the store chosen when the staff
 * member has several, the admin's Install; ends on the admin's page of the app, which frames it.
 */
export async function installFromListing(page: Page, standIn: ShopifyStandIn, domain: string, email?: string): Promise<FrameLocator> {
  const staff = standIn.staffMember(domain, email);
  const install = page.getByRole('button', { name: 'Install', exact: true });
  const chooseAndInstall = async () => {
    const chooser = page.getByLabel('Store');
    if ((await chooser.count()) > 0) await chooser.selectOption(domain.split('.')[0]!);
    await install.click();
    await page.waitForURL((url) => url.hostname !== 'apps.shopify.com');
  };
  await page.goto(standIn.listingUrl());
  await chooseAndInstall();
  if (page.url().startsWith('https://accounts.shopify.com/')) {
    await signInOnPage(page, staff.email);
    await page.waitForURL(standIn.listingUrl());
    await chooseAndInstall();
  }
  if (page.url().includes('/oauth/install')) await install.click();
  await page.waitForURL(`${standIn.adminAppUrl(domain)}**`);
  return page.frameLocator('#app-iframe');
}

/** Opens the app in the admin (a path of the app after its address, if given), signed in already; returns the app's frame. */
export async function openAppInAdmin(page: Page, standIn: ShopifyStandIn, domain: string, appPath = ''): Promise<FrameLocator> {
  await page.goto(standIn.adminAppUrl(domain, appPath));
  return page.frameLocator('#app-iframe');
}

/** Uninstalls the app from the admin's apps page, as the signed-in staff member. */
export async function uninstallFromAdmin(page: Page, standIn: ShopifyStandIn, domain: string): Promise<void> {
  await page.goto(`https://admin.shopify.com/store/${domain.split('.')[0]}/settings/apps`);
  await page.getByRole('button', { name: `Uninstall ${standIn.app.title}` }).click();
  await page.getByText(`${standIn.app.title} was uninstalled.`).waitFor();
}
