import crypto from 'node:crypto';
import fs from 'node:fs';
import {
  adminAppPage,
  adminPlaceholderPage,
  appsSettingsPage,
  installPage,
  listingPage,
  signInPage,
  type AdminBar,
} from './admin-pages.js';
import type { StandInCore } from './core.js';
import { installManaged, uninstallApp } from './installation.js';
import type { ShopRecord } from './model.js';
import { hostParameter, signQuery } from './oauth.js';
import { errorPage } from './pages.js';
import { signSessionToken } from './session-tokens.js';
import { STAFF_COOKIE, type StaffSession } from './staff.js';

/**
 * Shopify's own sites, where an embedded app is installed and opened: the sign-in page
 * (accounts.shopify.com), the admin (admin.shopify.com) that frames the app and launches it with
 * signed parameters and a session token, the App Store listing (apps.shopify.com), and the CDN
 * (cdn.shopify.com) that serves App Bridge. README.md, "The embedded app", cites the Shopify page of
 * each part.
 */
export const ADMIN_HOST = 'admin.shopify.com';
export const ACCOUNTS_HOST = 'accounts.shopify.com';
export const APP_STORE_HOST = 'apps.shopify.com';
export const CDN_HOST = 'cdn.shopify.com';
export const SITE_HOSTS: ReadonlySet<string> = new Set([ADMIN_HOST, ACCOUNTS_HOST, APP_STORE_HOST, CDN_HOST]);

/** App Bridge as the app loads it, `<script src="https://cdn.shopify.com/shopifycloud/app-bridge.js">`: browser/app-bridge.js. */
export const APP_BRIDGE_PATH = '/shopifycloud/app-bridge.js';
const APP_BRIDGE_SCRIPT = fs.readFileSync(new URL('./browser/app-bridge.js', import.meta.url), 'utf8');

const html = (status: number, body: string, headers: Record<string, string> = {}) =>
  new Response(body, { status, headers: { 'content-type': 'text/html; charset=utf-8', ...headers } });
const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8' } });
const redirect = (location: string, headers: Record<string, string> = {}) =>
  new Response(null, { status: 302, headers: { location, ...headers } });
const notFound = () => html(404, errorPage('Page not found', 'The page you were looking for does not exist.'));

/** Where the sign-in page may send a staff member on: Shopify's admin and App Store only (no open redirect). */
function safeReturnTo(value: string | null): string {
  try {
    const target = new URL(value ?? '');
    if (target.protocol === 'https:' && (target.hostname === ADMIN_HOST || target.hostname === APP_STORE_HOST)) return target.toString();
  } catch {}
  return `https://${ADMIN_HOST}/`;
}

const signInFirst = (url: URL) => redirect(`https://${ACCOUNTS_HOST}/login?return_to=${encodeURIComponent(url.toString())}`);

const STORE_PATH = /^\/store\/([a-z0-9][a-z0-9-]*)(\/.*)?$/;

export class ShopifySites {
  constructor(private readonly core: StandInCore) {}

  handle(request: Request): Promise<Response> | Response {
    const url = new URL(request.url);
    if (url.hostname === CDN_HOST) {
      if (url.pathname !== APP_BRIDGE_PATH || request.method !== 'GET') return new Response('Not Found', { status: 404 });
      return new Response(APP_BRIDGE_SCRIPT, { status: 200, headers: { 'content-type': 'text/javascript; charset=utf-8' } });
    }
    if (url.hostname === ACCOUNTS_HOST) return this.accounts(request, url);
    if (url.hostname === APP_STORE_HOST) return this.appStore(request, url);
    return this.admin(request, url);
  }

  /** The sign-in page: email and password; a right pair sets the session cookie for all of shopify.com and goes back. */
  private async accounts(request: Request, url: URL): Promise<Response> {
    if (url.pathname !== '/login') return notFound();
    if (request.method === 'GET') return html(200, signInPage({ returnTo: safeReturnTo(url.searchParams.get('return_to')) }));
    if (request.method !== 'POST') return notFound();
    const form = new URLSearchParams(await request.text());
    const email = form.get('account[email]') ?? '';
    const returnTo = safeReturnTo(form.get('return_to'));
    const signedIn = this.core.staff.signIn(email, form.get('account[password]') ?? '');
    if (!signedIn) return html(401, signInPage({ returnTo, email, error: 'Incorrect email or password.' }));
    return redirect(returnTo, {
      'set-cookie': `${STAFF_COOKIE}=${signedIn.cookieValue}; Domain=shopify.com; Path=/; Secure; HttpOnly; SameSite=Lax`,
    });
  }

  private bar(shop: ShopRecord, session: StaffSession): AdminBar {
    const account = session.account;
    return { storeTitle: shop.name, storeName: shop.domain.split('.')[0]!, staffName: `${account.firstName} ${account.lastName}` };
  }

  private isAppHandle(handle: string): boolean {
    return handle === this.core.app.handle || handle === this.core.app.apiKey;
  }

  private async admin(request: Request, url: URL): Promise<Response> {
    const session = this.core.staff.sessionOf(request);
    if (!session) return request.method === 'GET' ? signInFirst(url) : html(401, errorPage('Log in', 'Log in to Shopify first.'));
    const store = STORE_PATH.exec(url.pathname);
    const shop = store ? this.core.shops.get(`${store[1]}.myshopify.com`) : undefined;
    if (!store || !shop) return notFound();
    if (!session.account.stores.has(shop.domain)) {
      return html(403, errorPage('No access to this store', `${session.account.email} is not staff of ${shop.name}.`));
    }
    const base = `/store/${store[1]}`;
    const rest = store[2] ?? '/';
    const app = /^\/apps\/([^/]+)(\/.*)?$/.exec(rest);
    if (app && this.isAppHandle(app[1]!)) {
      if (request.method === 'POST' && app[2] === '/id-token') return this.idToken(shop, session);
      if (request.method !== 'GET') return notFound();
      if (!shop.installation.installed) return redirect(`${base}/oauth/install?client_id=${encodeURIComponent(this.core.app.apiKey)}`);
      return html(
        200,
        adminAppPage({
          bar: this.bar(shop, session),
          appTitle: this.core.app.title,
          frameSrc: this.launchUrl(shop, session, app[2] ?? '', url.searchParams),
          appBase: `${base}/apps/${this.core.app.handle}`,
        }),
      );
    }
    if (rest === '/oauth/install' && url.searchParams.get('client_id') === this.core.app.apiKey) {
      const appPage = `${base}/apps/${this.core.app.handle}`;
      if (request.method === 'GET') {
        if (shop.installation.installed) return redirect(appPage);
        return html(200, installPage({ bar: this.bar(shop, session), appTitle: this.core.app.title, scopes: this.core.app.scopes }));
      }
      if (request.method !== 'POST') return notFound();
      if (!shop.installation.installed) installManaged(this.core, shop);
      return redirect(appPage);
    }
    if (rest === '/settings/apps' && request.method === 'GET') {
      const installed = shop.installation.installed ? [{ title: this.core.app.title, handle: this.core.app.handle }] : [];
      const notice = url.searchParams.get('uninstalled') === this.core.app.handle ? `${this.core.app.title} was uninstalled.` : undefined;
      return html(200, appsSettingsPage({ bar: this.bar(shop, session), apps: installed, ...(notice ? { notice } : {}) }));
    }
    const uninstall = /^\/settings\/apps\/([^/]+)\/uninstall$/.exec(rest);
    if (uninstall && request.method === 'POST' && this.isAppHandle(uninstall[1]!)) {
      if (shop.installation.installed) await uninstallApp(this.core, shop);
      return redirect(`${base}/settings/apps?uninstalled=${encodeURIComponent(this.core.app.handle)}`);
    }
    if (request.method !== 'GET') return notFound();
    return html(200, adminPlaceholderPage({ bar: this.bar(shop, session), path: rest }));
  }

  /** A fresh session token for the staff member and the store, which the admin's side of App Bridge hands the app. */
  private idToken(shop: ShopRecord, session: StaffSession): Response {
    if (!shop.installation.installed) return json(401, { error: 'The app is not installed on this store.' });
    return json(200, { idToken: this.sessionToken(shop, session) });
  }

  private sessionToken(shop: ShopRecord, session: StaffSession): string {
    return signSessionToken(this.core.app, {
      shopDomain: shop.domain,
      userId: session.account.id,
      sessionId: session.id,
      now: this.core.now(),
    });
  }

  /**
   * The App URL as the admin frames it: a path of the app after `/apps/{handle}` is a path on the
   * App URL's origin (none: the App URL itself), the admin address's own query is kept, and Shopify's
   * parameters are set and signed as every App URL launch is (signQuery: all but `hmac`, sorted,
   * HMAC-SHA256 hex with the app's secret).
   */
  private launchUrl(shop: ShopRecord, session: StaffSession, appPath: string, adminQuery: URLSearchParams): string {
    const target = appPath ? new URL(appPath, this.core.app.applicationUrl) : new URL(this.core.app.applicationUrl);
    for (const [key, value] of adminQuery) target.searchParams.set(key, value);
    target.searchParams.set('embedded', '1');
    target.searchParams.set('host', hostParameter(shop.domain));
    target.searchParams.set('id_token', this.sessionToken(shop, session));
    target.searchParams.set('locale', session.account.locale);
    target.searchParams.set('session', crypto.createHash('sha256').update(session.id).digest('hex'));
    target.searchParams.set('shop', shop.domain);
    target.searchParams.set('timestamp', String(Math.floor(this.core.now().getTime() / 1000)));
    target.searchParams.delete('hmac');
    target.searchParams.set('hmac', signQuery(this.core.app.apiSecret, Object.fromEntries(target.searchParams)));
    return target.toString();
  }

  /** The listing, and its Install: signed out, to the sign-in page; signed in, to the chosen store's install page. */
  private async appStore(request: Request, url: URL): Promise<Response> {
    const handle = this.core.app.handle;
    if (url.pathname !== `/${handle}` && url.pathname !== `/${handle}/install`) return notFound();
    const session = this.core.staff.sessionOf(request);
    const stores = session
      ? [...session.account.stores.keys()].flatMap((domain) => {
          const shop = this.core.shops.get(domain);
          return shop ? [{ name: domain.split('.')[0]!, title: shop.name }] : [];
        })
      : null;
    if (url.pathname === `/${handle}` && request.method === 'GET')
      return html(200, listingPage({ appTitle: this.core.app.title, handle, stores }));
    if (url.pathname !== `/${handle}/install` || request.method !== 'POST') return notFound();
    if (!session || !stores)
      return redirect(`https://${ACCOUNTS_HOST}/login?return_to=${encodeURIComponent(`https://${APP_STORE_HOST}/${handle}`)}`);
    const chosen = new URLSearchParams(await request.text()).get('store');
    if (!stores.some((store) => store.name === chosen)) {
      return html(
        400,
        listingPage({ appTitle: this.core.app.title, handle, stores, error: 'Choose one of your stores to install the app on.' }),
      );
    }
    return redirect(`https://${ADMIN_HOST}/store/${chosen}/oauth/install?client_id=${encodeURIComponent(this.core.app.apiKey)}`);
  }
}
