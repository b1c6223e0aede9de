// The stand-in of App Bridge, served at https://cdn.shopify.com/shopifycloud/app-bridge.js (sites.ts):
// what an embedded app uses of it, as https://shopify.dev/docs/api/app-bridge-library documents it.
// README.md, "App Bridge", lists what is modelled. It talks to the admin's end (admin-bridge.js)
// with postMessage, to the admin's origin only, as the real one talks to the admin frame.
(() => {
  const apiKey = document.querySelector('meta[name="shopify-api-key"]')?.getAttribute('content');
  if (!apiKey) {
    // The real App Bridge stops here too: it cannot tell which app it is without the meta tag.
    console.error('App Bridge: the page has no <meta name="shopify-api-key" content="…">, so App Bridge is not set up.');
    return;
  }
  // The launch's parameters; the app's own links drop them, so they are kept for the frame's life.
  const params = new URLSearchParams(window.location.search);
  for (const name of ['host', 'shop', 'locale']) {
    if (params.has(name)) sessionStorage.setItem(`app-bridge:${name}`, params.get(name));
  }
  const host = sessionStorage.getItem('app-bridge:host');
  const adminUrl = host ? `https://${atob(host.replace(/-/g, '+').replace(/_/g, '/'))}` : null;
  const adminOrigin = adminUrl ? new URL(adminUrl).origin : null;
  const embedded = window.top !== window;

  // Outside the admin, the app is sent into it, at the same page.
  if (!embedded && adminUrl) {
    window.location.assign(`${adminUrl}/apps/${apiKey}${window.location.pathname}`);
    return;
  }

  const post = (message) => {
    if (embedded && adminOrigin) window.parent.postMessage(message, adminOrigin);
  };

  const pending = new Map();
  let lastId = 0;
  window.addEventListener('message', (event) => {
    if (event.source !== window.parent || event.origin !== adminOrigin) return;
    const message = event.data;
    if (message?.type !== 'shopify:idToken:result' || !pending.has(message.id)) return;
    const { resolve, reject } = pending.get(message.id);
    pending.delete(message.id);
    if (typeof message.idToken === 'string') resolve(message.idToken);
    else reject(new Error('App Bridge: the admin gave no session token'));
  });

  /** A fresh session token for the store and the staff member, from the admin (it signs one per request). */
  const idToken = () =>
    new Promise((resolve, reject) => {
      if (!embedded || !adminOrigin) {
        reject(new Error('App Bridge: a session token comes only from the Shopify admin'));
        return;
      }
      lastId += 1;
      pending.set(lastId, { resolve, reject });
      post({ type: 'shopify:idToken', id: lastId });
    });

  // fetch to the app's own origin carries a session token (and the staff member's locale); a 401 asking for it
  // (X-Shopify-Retry-Invalid-Session-Request: 1, as Shopify's app packages answer) is retried once with a fresh one.
  const originalFetch = window.fetch.bind(window);
  window.fetch = async (input, init) => {
    const request = new Request(input, init);
    if (new URL(request.url).origin !== window.location.origin || request.headers.has('Authorization')) return originalFetch(request);
    const withToken = async (unsent) => {
      const headers = new Headers(unsent.headers);
      headers.set('Authorization', `Bearer ${await idToken()}`);
      if (!headers.has('Accept-Language')) headers.set('Accept-Language', sessionStorage.getItem('app-bridge:locale') ?? 'en');
      return originalFetch(new Request(unsent, { headers }));
    };
    const retry = request.clone();
    const response = await withToken(request);
    if (response.status === 401 && response.headers.get('X-Shopify-Retry-Invalid-Session-Request') === '1') return withToken(retry);
    return response;
  };

  // open(url, '_top') and shopify://admin/… navigate the admin; anything else opens as it would.
  const originalOpen = window.open.bind(window);
  window.open = (url, target, features) => {
    const href = url === undefined || url === null ? '' : String(url);
    if (embedded && (href.startsWith('shopify://admin') || target === '_top' || target === '_parent')) {
      post({ type: 'shopify:navigate', url: href.startsWith('shopify://') ? href : new URL(href, window.location.href).toString() });
      return null;
    }
    return originalOpen(url, target, features);
  };

  // The admin renders the title bar and the navigation; the elements themselves show nothing in the frame.
  const style = document.createElement('style');
  style.textContent = 'ui-title-bar, ui-nav-menu { display: none !important; }';
  document.head.append(style);

  customElements.define(
    'ui-title-bar',
    class extends HTMLElement {
      static observedAttributes = ['title'];
      connectedCallback() {
        post({ type: 'shopify:titleBar', title: this.getAttribute('title') ?? '' });
      }
      attributeChangedCallback() {
        if (this.isConnected) this.connectedCallback();
      }
      disconnectedCallback() {
        post({ type: 'shopify:titleBar', title: '' });
      }
    },
  );

  customElements.define(
    'ui-nav-menu',
    class extends HTMLElement {
      connectedCallback() {
        const send = () =>
          post({
            type: 'shopify:navMenu',
            // The link with rel="home" is the app's home, which the admin links as the app's name; the others are the menu.
            home: this.querySelector('a[rel="home"]')?.getAttribute('href') ?? null,
            items: [...this.querySelectorAll('a')]
              .filter((link) => link.getAttribute('rel') !== 'home')
              .map((link) => ({ label: link.textContent.trim(), href: link.getAttribute('href') ?? '/' })),
          });
        this.observer = new MutationObserver(send);
        this.observer.observe(this, { subtree: true, childList: true, characterData: true, attributes: true });
        // The links are parsed after the element is connected: send once they are there.
        queueMicrotask(send);
        if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', send, { once: true });
      }
      disconnectedCallback() {
        this.observer?.disconnect();
        post({ type: 'shopify:navMenu', items: [] });
      }
    },
  );

  window.shopify = {
    config: {
      apiKey,
      host,
      shop: sessionStorage.getItem('app-bridge:shop'),
      locale: sessionStorage.getItem('app-bridge:locale') ?? 'en',
    },
    environment: { embedded, mobile: false, pos: false },
    idToken,
    toast: {
      show(message, options = {}) {
        lastId += 1;
        post({
          type: 'shopify:toast',
          id: lastId,
          message: String(message),
          isError: options.isError === true,
          duration: options.duration ?? 5000,
        });
        return String(lastId);
      },
    },
  };
})();
