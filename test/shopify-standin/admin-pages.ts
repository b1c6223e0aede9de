import fs from 'node:fs';
import { escapeHtml } from './pages.js';

/**
 * The pages of Shopify's own sites that an embedded app meets: the sign-in page
 * (accounts.shopify.com), the admin (admin.shopify.com) framing the app, its install page and its
 * apps settings, and the App Store listing (apps.shopify.com). Small and readable at 390 and 1280 px;
 * forms post to paths on their own host, so they work in-process and through Playwright routing.
 */
const STYLE = `
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f1f1f1; color: #303030; }
  header.bar { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: center; justify-content: space-between;
    padding: 0.5rem 1rem; background: #1a1a1a; color: #fff; }
  header.bar a { color: #fff; }
  header.bar p { margin: 0; overflow-wrap: anywhere; }
  main { max-width: 32rem; margin: 2rem auto; padding: 1.5rem; background: #fff; border-radius: 12px; }
  main.wide { max-width: none; margin: 0; padding: 1rem; border-radius: 0; }
  h1 { font-size: 1.25rem; margin-top: 0; }
  ul { padding-left: 1.25rem; overflow-wrap: anywhere; }
  label { display: block; margin-top: 1rem; font-weight: 600; }
  input, select { font: inherit; width: 100%; box-sizing: border-box; padding: 0.5rem; border: 1px solid #8a8a8a; border-radius: 8px; }
  .actions { display: flex; gap: 0.75rem; flex-wrap: wrap; margin-top: 1.5rem; }
  button { font: inherit; padding: 0.5rem 1rem; border-radius: 8px; border: 1px solid #8a8a8a; background: #fff; color: #303030;
    cursor: pointer; }
  button.primary { background: #303030; color: #fff; border-color: #303030; }
  p.error { color: #8e1f0b; font-weight: 600; }
  p.shop { color: #616161; overflow-wrap: anywhere; }
  .app { display: flex; flex-wrap: wrap; gap: 1rem; }
  .app nav { flex: 0 1 12rem; }
  .app nav ul { list-style: none; padding: 0; margin: 0; }
  .app nav a { display: block; padding: 0.25rem 0; color: #303030; }
  .app section { flex: 1 1 20rem; min-width: 0; }
  iframe { display: block; width: 100%; height: 75vh; border: 1px solid #e3e3e3; border-radius: 8px; background: #fff; }
  #toasts p { margin: 0.5rem 0 0; padding: 0.5rem 1rem; border-radius: 8px; background: #303030; color: #fff; }
  #toasts p.error { background: #8e1f0b; color: #fff; }
`;

/** The admin's end of App Bridge (browser/admin-bridge.js), inlined in the app's admin page. */
const ADMIN_BRIDGE_SCRIPT = fs.readFileSync(new URL('./browser/admin-bridge.js', import.meta.url), 'utf8');

function layout(title: string, body: string, options: { bar?: string; wide?: boolean; script?: string; data?: string } = {}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>${options.bar ?? ''}<main${options.wide ? ' class="wide"' : ''}>${body}</main>
${options.data ? `<script id="admin-config" type="application/json">${options.data}</script>` : ''}
${options.script ? `<script>${options.script}</script>` : ''}</body>
</html>`;
}

/** The admin's top bar: the store, who is signed in, and the way to the store's apps. */
export interface AdminBar {
  storeTitle: string;
  storeName: string;
  staffName: string;
}

function adminBar(bar: AdminBar): string {
  return `<header class="bar"><p><strong>${escapeHtml(bar.storeTitle)}</strong> · Shopify admin</p>
<p>${escapeHtml(bar.staffName)} · <a href="/store/${escapeHtml(bar.storeName)}/settings/apps">Apps</a></p></header>`;
}

export function signInPage(options: { returnTo: string; email?: string; error?: string }): string {
  return layout(
    'Log in – Shopify',
    `<h1>Log in</h1>
<p>Continue to Shopify</p>
${options.error ? `<p class="error" role="alert">${escapeHtml(options.error)}</p>` : ''}
<form method="post" action="/login">
<input type="hidden" name="return_to" value="${escapeHtml(options.returnTo)}">
<label for="account_email">Email</label>
<input id="account_email" name="account[email]" type="email" autocomplete="username" required value="${escapeHtml(options.email ?? '')}">
<label for="account_password">Password</label>
<input id="account_password" name="account[password]" type="password" autocomplete="current-password" required>
<div class="actions"><button class="primary" type="submit">Log in</button></div>
</form>`,
  );
}

/**
 * The admin's page of an app: the app's title and navigation as the app declares them through App
 * Bridge (`<ui-title-bar>`, `<ui-nav-menu>`), the App URL in an iframe, and the toasts it shows. The
 * script is the admin's side of App Bridge (app-bridge.ts): it answers the frame's messages, and
 * only the frame's, from the App URL's origin.
 */
export function adminAppPage(options: {
  bar: AdminBar;
  appTitle: string;
  frameSrc: string;
  /** `/store/{name}/apps/{handle}`: the admin's address of the app, which a path of the app is appended to. */
  appBase: string;
}): string {
  const config = {
    appOrigin: new URL(options.frameSrc).origin,
    appTitle: options.appTitle,
    appBase: options.appBase,
    storeBase: `/store/${options.bar.storeName}`,
  };
  return layout(
    `${options.appTitle} · ${options.bar.storeTitle} · Shopify`,
    `<div class="app">
<nav aria-label="${escapeHtml(options.appTitle)}">
<ul id="app-nav"><li><a href="${escapeHtml(options.appBase)}">${escapeHtml(options.appTitle)}</a></li></ul>
</nav>
<section>
<h1 id="app-title">${escapeHtml(options.appTitle)}</h1>
<div id="toasts" role="status" aria-live="polite"></div>
<iframe id="app-iframe" name="app-iframe" title="${escapeHtml(options.appTitle)}" src="${escapeHtml(options.frameSrc)}"></iframe>
</section>
</div>`,
    {
      bar: adminBar(options.bar),
      wide: true,
      // The configuration as JSON data (`<` escaped, so no value can end the element), read by the admin's script.
      script: ADMIN_BRIDGE_SCRIPT,
      data: JSON.stringify(config).replace(/</g, '\\u003c'),
    },
  );
}

/** Shopify's install page for a managed installation: the scopes of the app's configuration, and Install. */
export function installPage(options: { bar: AdminBar; appTitle: string; scopes: string[] }): string {
  const scopes = options.scopes.length
    ? options.scopes.map((scope) => `<li>${escapeHtml(scope)}</li>`).join('')
    : '<li>No data access</li>';
  return layout(
    `Install ${options.appTitle}`,
    `<h1>Install ${escapeHtml(options.appTitle)}</h1>
<p class="shop">On ${escapeHtml(options.bar.storeTitle)}</p>
<p>${escapeHtml(options.appTitle)} will be able to:</p>
<ul>${scopes}</ul>
<form method="post"><div class="actions"><button class="primary" type="submit">Install</button></div></form>`,
    { bar: adminBar(options.bar) },
  );
}

/** The store's installed apps (Settings › Apps), each with Uninstall. */
export function appsSettingsPage(options: { bar: AdminBar; apps: Array<{ title: string; handle: string }>; notice?: string }): string {
  const apps = options.apps.length
    ? `<ul>${options.apps
        .map(
          (app) => `<li><a href="/store/${escapeHtml(options.bar.storeName)}/apps/${escapeHtml(app.handle)}">${escapeHtml(app.title)}</a>
<form method="post" action="/store/${escapeHtml(options.bar.storeName)}/settings/apps/${escapeHtml(app.handle)}/uninstall">
<div class="actions"><button type="submit">Uninstall ${escapeHtml(app.title)}</button></div></form></li>`,
        )
        .join('')}</ul>`
    : '<p>No apps installed.</p>';
  return layout(
    'Apps and sales channels',
    `<h1>Apps and sales channels</h1>${options.notice ? `<p role="status">${escapeHtml(options.notice)}</p>` : ''}${apps}`,
    { bar: adminBar(options.bar) },
  );
}

/** An admin page the stand-in does not model (an App Bridge navigation to `shopify://admin/…` lands here). */
export function adminPlaceholderPage(options: { bar: AdminBar; path: string }): string {
  return layout(`${options.path} · Shopify`, `<h1>${escapeHtml(options.path)}</h1><p>This page of the admin is not modelled.</p>`, {
    bar: adminBar(options.bar),
  });
}

/**
 * The App Store listing: the app, and Install. Signed out, Install leads to the sign-in page;
 * signed in as staff of several stores, the staff member chooses one.
 */
export function listingPage(options: {
  appTitle: string;
  handle: string;
  /** Null when no one is signed in. */
  stores: Array<{ name: string; title: string }> | null;
  error?: string;
}): string {
  const chooser =
    options.stores && options.stores.length > 1
      ? `<label for="store">Store</label><select id="store" name="store">${options.stores
          .map((store) => `<option value="${escapeHtml(store.name)}">${escapeHtml(store.title)}</option>`)
          .join('')}</select>`
      : options.stores?.length === 1
        ? `<input type="hidden" name="store" value="${escapeHtml(options.stores[0]!.name)}">`
        : '';
  return layout(
    `${options.appTitle} – Shopify App Store`,
    `<h1>${escapeHtml(options.appTitle)}</h1>
<p>Brand partner collaborations for your store.</p>
${options.error ? `<p class="error" role="alert">${escapeHtml(options.error)}</p>` : ''}
<form method="post" action="/${escapeHtml(options.handle)}/install">${chooser}
<div class="actions"><button class="primary" type="submit">Install</button></div></form>`,
  );
}
