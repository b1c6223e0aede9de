import type { FastifyReply } from 'fastify';
import type { ComponentChildren, VNode } from 'preact';
import { renderToStaticMarkup } from 'preact-render-to-string';
import { pagePolicy, type PolicyDirectives } from './csp.js';
import { setPolicy } from './security-headers.js';

export interface PageShellProps {
  title: string;
  /** The stylesheet's address (from the asset pipeline, src/http/assets.ts). */
  stylesheet: string;
  bodyClass?: string;
  /** Pages a search engine should not keep (a shopper's broken link). */
  noIndex?: boolean;
  /** More of the head, after the stylesheet (the API reference's style nonce). */
  head?: ComponentChildren;
  children: ComponentChildren;
}

/** The service's icon, which every page links (src/site/routes.ts serves it, also as /favicon.ico). */
export const ICON_PATH = '/favicon.svg';

/** The one page shell: every server-rendered page of the service, and the demo host's, is one of these. */
export function PageShell({ title, stylesheet, bodyClass, noIndex, head, children }: PageShellProps): VNode {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {noIndex && <meta name="robots" content="noindex" />}
        <title>{title}</title>
        <link rel="icon" href={ICON_PATH} type="image/svg+xml" />
        <link rel="stylesheet" href={stylesheet} />
        {head}
      </head>
      <body class={bodyClass}>{children}</body>
    </html>
  );
}

/**
 * Data for a page's script, in a JSON script element: the one place markup is not escaped by
 * Preact, so `<` and the line separators JavaScript reads as line ends are written as escapes and
 * the data can never close the element.
 */
export function JsonScript({ id, value }: { id: string; value: unknown }): VNode {
  const json = JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
  return <script type="application/json" id={id} dangerouslySetInnerHTML={{ __html: json }} />;
}

/** A page as HTML text; every value in it escaped by Preact. */
export function renderPage(page: VNode): string {
  return `<!doctype html>${renderToStaticMarkup(page)}`;
}

export interface SendPageOptions {
  status?: number;
  /** The page's Content-Security-Policy (src/http/csp.ts); the base page policy if omitted. */
  policy?: PolicyDirectives;
}

/** Sends a page that no cache keeps (it may show who is signed in), under its own policy. */
export function sendPage(reply: FastifyReply, page: VNode, options: SendPageOptions = {}): FastifyReply {
  setPolicy(reply, options.policy ?? pagePolicy());
  return reply
    .status(options.status ?? 200)
    .type('text/html; charset=utf-8')
    .header('Cache-Control', 'no-store')
    .send(renderPage(page));
}
