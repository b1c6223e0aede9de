import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { isStandInHost } from './router.js';

/**
 * How outbound requests reach the stand-in. No machine here reaches Shopify, so:
 *  - `standInFetch` is a fetch-compatible function for `@shopify/shopify-api`'s runtime adapter
 *    (`setAbstractFetchFunc`): requests to *.myshopify.com, the bulk results host and Shopify's own
 *    sites (admin, sign-in, App Store, CDN: sites.ts) are answered
 *    in-process; anything else is refused, since nothing else is reachable either.
 *  - `routeBrowserToStandIn` makes a Playwright browser context answer the same hosts from the
 *    stand-in, so a Chromium test follows the service's real redirect to
 *    https://{shop}.myshopify.com/admin/oauth/authorize with no TLS, DNS or proxy set up. A page
 *    navigation elsewhere is fetched by Playwright; when it redirects into the stand-in, the
 *    browser gets a page that navigates there instead (Chromium would follow a real redirect
 *    past the route, to a DNS lookup that fails).
 *  - `listenLocally` serves the same handler on 127.0.0.1 for another process (a bench, a manual
 *    look), with the host as the first path segment: http://127.0.0.1:{port}/{host}/{path}.
 */
export type Handle = (request: Request) => Promise<Response>;

export function standInFetch(handle: Handle): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const host = new URL(request.url).hostname;
    if (!isStandInHost(host))
      throw new TypeError(`fetch failed: ${host} is not served by the Shopify stand-in, and tests reach no other host`);
    return handle(request);
  };
}

export async function routeBrowserToStandIn(
  target: BrowserContext | Page,
  handle: Handle,
  /** Which other navigations may redirect into the stand-in; every one by default. */
  mayRedirect: (url: URL) => boolean = () => true,
): Promise<void> {
  // Only what may reach the stand-in goes through the route: other pages keep the browser's own fetch (and its headers).
  await target.route(
    (url) => isStandInHost(url.hostname) || mayRedirect(url),
    async (route) => {
      const request = route.request();
      const url = new URL(request.url());
      if (isStandInHost(url.hostname)) {
        const headers = Object.fromEntries(Object.entries(await request.allHeaders()).filter(([name]) => !name.startsWith(':')));
        const body = request.postDataBuffer();
        const response = await handle(
          new Request(url, { method: request.method(), headers, body: body ? new Uint8Array(body) : undefined }),
        );
        const location = response.headers.get('location');
        const target = location ? new URL(location, url) : null;
        // A redirect from one of Shopify's hosts to another (the App Store to the sign-in page, to the admin)
        // would be followed by Chromium past this route, to a DNS lookup that fails: handed over as a page instead.
        if (request.isNavigationRequest() && target && isStandInHost(target.hostname)) {
          const { location: _location, 'content-length': _length, 'content-type': _type, ...kept } = Object.fromEntries(response.headers);
          await route.fulfill({ status: 200, headers: { ...kept, 'content-type': 'text/html; charset=utf-8' }, body: navigateTo(target) });
          return;
        }
        await route.fulfill({
          status: response.status,
          headers: Object.fromEntries(response.headers),
          body: Buffer.from(await response.arrayBuffer()),
        });
        return;
      }
      if (!request.isNavigationRequest()) {
        await route.continue();
        return;
      }
      // Chromium follows a redirect of a request it was let through without asking the route again,
      // and a redirect fulfilled here the same way. So a page's navigation is fetched here, and a
      // redirect into the stand-in goes back to the browser as a page that navigates there, with
      // the response's other headers (its cookies) kept: that navigation comes through this route.
      const response = await route.fetch({ maxRedirects: 0 });
      const location = response.headers().location;
      const target = location ? new URL(location, url) : null;
      // A redirect to another page the route takes (the service's plan link to its install) is handed over too.
      if (!target || !(isStandInHost(target.hostname) || (target.origin === url.origin && mayRedirect(target)))) {
        await route.fulfill({ response });
        return;
      }
      // The redirect's own policy (an app's CSP) is not the handed-over page's, whose one script does the navigation.
      const {
        location: _location,
        'content-length': _length,
        'content-type': _type,
        'content-security-policy': _policy,
        ...headers
      } = response.headers();
      await route.fulfill({
        status: 200,
        headers: { ...headers, 'content-type': 'text/html; charset=utf-8' },
        body: navigateTo(target),
      });
    },
  );
}

/** The page handed to Chromium in place of a redirect: its one script navigates to the target. */
const navigateTo = (target: URL) =>
  `<!doctype html><title>Redirecting</title><script>location.replace(${JSON.stringify(target.toString())})</script>`;

export interface LocalListener {
  baseUrl: string;
  /** `https://acme.myshopify.com/admin/…` → `http://127.0.0.1:{port}/acme.myshopify.com/admin/…` */
  localUrlFor(url: string): string;
  close(): Promise<void>;
}

export async function listenLocally(handle: Handle): Promise<LocalListener> {
  const server = http.createServer(async (incoming, outgoing) => {
    const [, host, ...rest] = (incoming.url ?? '/').split('/');
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(incoming.headers))
      if (typeof value === 'string' && name !== 'host') headers.set(name, value);
    const method = incoming.method ?? 'GET';
    let response: Response;
    try {
      response =
        host && isStandInHost(host.toLowerCase())
          ? await handle(
              new Request(`https://${host.toLowerCase()}/${rest.join('/')}`, {
                method,
                headers,
                body: method === 'GET' || method === 'HEAD' ? undefined : new Uint8Array(Buffer.concat(chunks)),
              }),
            )
          : new Response('Not Found', { status: 404 });
    } catch (error) {
      // A stand-in bug must show in the caller's test, not take the process down.
      response = new Response(error instanceof Error ? (error.stack ?? error.message) : String(error), { status: 500 });
    }
    outgoing.writeHead(response.status, Object.fromEntries(response.headers));
    outgoing.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    localUrlFor(url) {
      const parsed = new URL(url);
      return `${baseUrl}/${parsed.host}${parsed.pathname}${parsed.search}`;
    },
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
