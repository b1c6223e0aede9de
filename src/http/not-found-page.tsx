import type { FastifyRequest } from 'fastify';
import type { VNode } from 'preact';
import { PageShell } from './page.js';

/** Paths whose callers are programs: they get the JSON error whatever they accept. */
const API_PATHS = /^\/(v1|admin|oauth|webhooks|metrics|healthz|readyz)(\/|$)|^\/dashboard\/api(\/|$)|^\/plugin\/v2\//;

/**
 * A browser's address-bar request (GET or HEAD preferring HTML) outside the API: a mistyped page
 * gets a page with the way home, while API clients, whose Accept names JSON or nothing, keep the JSON error.
 */
export function wantsHtmlPage(request: FastifyRequest, path: string): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  if (API_PATHS.test(path)) return false;
  const accept = request.headers.accept ?? '';
  return /(^|,)\s*text\/html/.test(accept);
}

export function notFoundPage(stylesheet: string, path: string, requestId: string): VNode {
  return (
    <PageShell title="Page not found" stylesheet={stylesheet} noIndex>
      <header class="topbar">
        <a href="/">Partner collaboration service</a>
      </header>
      <main class="sheet">
        <h1>Page not found</h1>
        <p>
          There is no page at <code>{path}</code>. Check the address, or go on from one of these:
        </p>
        <ul class="landing-links">
          <li>
            <a href="/">Home</a>
          </li>
          <li>
            <a href="/dashboard">Brand dashboard</a>
          </li>
          <li>
            <a href="/docs">API reference</a>
          </li>
        </ul>
        <p class="muted">Request id: {requestId}</p>
      </main>
    </PageShell>
  );
}
