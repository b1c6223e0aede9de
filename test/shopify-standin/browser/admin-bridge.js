// The admin's end of App Bridge, run in the stand-in admin's page of an app (admin-pages.ts inlines
// it). It answers the app frame's messages, and only that frame's, from the App URL's origin: a fresh
// session token, the title and navigation the app declares, navigation of the admin, and toasts. The
// message names are the stand-in's own (Shopify's are internal to App Bridge); app-bridge.js sends them.
(() => {
  const config = JSON.parse(document.getElementById('admin-config').textContent);
  const frame = document.getElementById('app-iframe');
  const title = document.getElementById('app-title');
  const nav = document.getElementById('app-nav');
  const toasts = document.getElementById('toasts');
  const reply = (message) => frame.contentWindow?.postMessage(message, config.appOrigin);

  /** An address of the app (a path, or a URL on its origin) as the admin's address of that page; null for any other origin. */
  const inAdmin = (href) => {
    const target = new URL(href, config.appOrigin);
    return target.origin === config.appOrigin ? `${config.appBase}${target.pathname}${target.search}${target.hash}` : null;
  };

  const handlers = {
    async 'shopify:idToken'(message) {
      const response = await fetch(`${config.appBase}/id-token`, { method: 'POST', credentials: 'same-origin' });
      const body = response.ok ? await response.json() : null;
      reply({ type: 'shopify:idToken:result', id: message.id, idToken: body?.idToken ?? null });
    },
    'shopify:titleBar'(message) {
      title.textContent = typeof message.title === 'string' && message.title ? message.title : config.appTitle;
    },
    'shopify:navMenu'(message) {
      if (!Array.isArray(message.items)) return;
      const home = document.createElement('a');
      home.href = (typeof message.home === 'string' && inAdmin(message.home)) || config.appBase;
      home.textContent = config.appTitle;
      const homeEntry = document.createElement('li');
      homeEntry.append(home);
      nav.replaceChildren(
        homeEntry,
        ...message.items.flatMap((item) => {
          const href = inAdmin(String(item.href));
          if (!href) return [];
          const link = document.createElement('a');
          link.href = href;
          link.textContent = String(item.label);
          const entry = document.createElement('li');
          entry.append(link);
          return [entry];
        }),
      );
    },
    'shopify:navigate'(message) {
      if (typeof message.url !== 'string') return;
      const url = message.url;
      if (url.startsWith('shopify://admin')) window.location.assign(`${config.storeBase}${url.slice('shopify://admin'.length) || '/'}`);
      else window.location.assign(inAdmin(url) ?? new URL(url).toString());
    },
    'shopify:toast'(message) {
      if (typeof message.message !== 'string') return;
      const toast = document.createElement('p');
      toast.textContent = message.message;
      if (message.isError === true) toast.className = 'error';
      toasts.append(toast);
      setTimeout(() => toast.remove(), typeof message.duration === 'number' ? message.duration : 5000);
    },
  };

  window.addEventListener('message', (event) => {
    if (event.source !== frame.contentWindow || event.origin !== config.appOrigin) return;
    const message = event.data;
    if (message && typeof message.type === 'string' && Object.hasOwn(handlers, message.type)) handlers[message.type](message);
  });
})();
