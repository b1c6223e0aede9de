/** Small helpers for the server-rendered pages of the plugin and the sandbox. */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

/** JSON placed in a script element: `<` is escaped so the data can never close the element. */
export function inlineJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

export interface PageOptions {
  title: string;
  stylesheet: string;
  body: string;
  bodyClass?: string;
}

export function htmlPage({ title, stylesheet, body, bodyClass }: PageOptions): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(title)}</title><link rel="stylesheet" href="${escapeHtml(stylesheet)}"></head>` +
    `<body${bodyClass ? ` class="${escapeHtml(bodyClass)}"` : ''}>${body}</body></html>`
  );
}

/** The policy of the service's own pages: nothing inline, nothing from elsewhere but images. */
/**
 * The sandbox's pages differ in one point: their forms finish by redirecting back to the page
 * where the plugin lives (the return flow), and browsers apply form-action to those redirects.
 */
export const SANDBOX_PAGE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: https: http:; base-uri 'none'; frame-ancestors 'none'";

export const PAGE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: https: http:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
