import crypto from 'node:crypto';
import type { FastifyReply } from 'fastify';

/** Escapes text for HTML element content and double-quoted attributes. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const CSS = `
:root{color-scheme:light;--ink:#111827;--muted:#4b5563;--line:#d1d5db;--accent:#1d4ed8;--accent-ink:#fff;--bad:#991b1b;--bad-bg:#fef2f2}
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:#f3f4f6;color:var(--ink);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;padding:1rem}
main{width:100%;max-width:28rem;background:#fff;border:1px solid var(--line);border-radius:12px;padding:2rem;box-shadow:0 1px 3px rgba(0,0,0,.06)}
.service{margin:0 0 .25rem;font-size:.875rem;font-weight:600;color:var(--muted);letter-spacing:.02em}
h1{margin:0 0 1rem;font-size:1.5rem;line-height:1.25}
p{margin:0 0 1rem}
.muted{color:var(--muted);font-size:.9375rem}
label{display:block;font-weight:600;margin:0 0 .25rem}
input[type=email],input[type=password]{display:block;width:100%;padding:.625rem .75rem;border:1px solid #6b7280;border-radius:8px;font:inherit;margin:0 0 1rem}
input[aria-invalid=true]{border-color:var(--bad)}
button{font:inherit;font-weight:600;border-radius:8px;padding:.625rem 1rem;cursor:pointer;border:1px solid var(--accent)}
.primary{background:var(--accent);color:var(--accent-ink);width:100%}
.secondary{background:#fff;color:var(--accent)}
.link{background:none;border:none;padding:0;color:var(--accent);text-decoration:underline;font-weight:400}
.actions{display:flex;gap:.75rem;margin-top:1.5rem}
.actions button{flex:1}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.alert{border:1px solid var(--bad);background:var(--bad-bg);color:var(--bad);border-radius:8px;padding:.75rem 1rem;margin:0 0 1rem}
dl{margin:0 0 1rem;border:1px solid var(--line);border-radius:8px;padding:.75rem 1rem}
dt{font-size:.875rem;color:var(--muted)}
dd{margin:0 0 .5rem;font-weight:600;overflow-wrap:anywhere}
dd:last-child{margin-bottom:0}
ul{margin:0 0 1rem;padding-left:1.25rem}
form.inline{display:inline}
.mailbox{list-style:none;padding:0}
.mailbox li{border-top:1px solid var(--line);padding-top:1rem}
pre.mail{white-space:pre-wrap;overflow-wrap:anywhere;font:inherit;background:#f9fafb;border:1px solid var(--line);border-radius:8px;padding:.75rem}
`;

const STYLE_HASH = `'sha256-${crypto.createHash('sha256').update(CSS).digest('base64')}'`;

export interface Page {
  title: string;
  /** Trusted HTML: every interpolated value must already be escaped. */
  body: string;
  /** Origins a form on the page may be redirected to after submission (CSP form-action follows redirects). */
  formTargets?: string[];
}

export function renderPage(page: Page): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${escapeHtml(page.title)} · Partner Collaboration</title>
<style>${CSS}</style>
</head>
<body>
<main>
<p class="service">Partner Collaboration</p>
<h1>${escapeHtml(page.title)}</h1>
${page.body}
</main>
</body>
</html>`;
}

/**
 * Sends a server-rendered page that no other site can frame, that loads nothing from elsewhere
 * and that no cache keeps (it may show who is signed in). The referrer policy is same-origin, not
 * no-referrer: under no-referrer browsers send `Origin: null` on form posts, which the CSRF check
 * refuses.
 */
export function sendPage(reply: FastifyReply, status: number, page: Page): FastifyReply {
  const formAction = ["'self'", ...(page.formTargets ?? [])].join(' ');
  return reply
    .status(status)
    .header('Content-Type', 'text/html; charset=utf-8')
    .header(
      'Content-Security-Policy',
      `default-src 'none'; style-src ${STYLE_HASH}; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    )
    .header('X-Frame-Options', 'DENY')
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'same-origin')
    .header('Cache-Control', 'no-store')
    .send(renderPage(page));
}

export const hiddenField = (name: string, value: string) =>
  `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;

export function signInPage(options: { csrfToken: string; returnTo: string; email?: string; error?: string; intro?: string }): Page {
  const invalid = options.error ? ' aria-invalid="true" aria-describedby="form-error"' : '';
  return {
    title: 'Sign in to your brand',
    body: `${options.intro ? `<p>${escapeHtml(options.intro)}</p>` : ''}
${options.error ? `<div class="alert" role="alert" id="form-error">${escapeHtml(options.error)}</div>` : ''}
<form method="post" action="/account/sign-in" novalidate>
${hiddenField('csrf_token', options.csrfToken)}
${hiddenField('return_to', options.returnTo)}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(options.email ?? '')}"${invalid}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${invalid}>
<button type="submit" class="primary">Sign in</button>
</form>
<p class="muted">Accounts are created by your brand's administrator through our support team.</p>`,
  };
}

export function messagePage(title: string, message: string): Page {
  return { title, body: `<p role="alert">${escapeHtml(message)}</p>` };
}
