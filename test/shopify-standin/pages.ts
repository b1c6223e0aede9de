/**
 * The few pages a shop's staff sees on the stand-in: the app grant page and the charge
 * confirmation page. Small, readable at 390 and 1280 px, and every form posts to a path relative to
 * the page, so the same page works in-process, through Playwright routing and on the local port.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f1f1f1; color: #303030; }
  main { max-width: 32rem; margin: 2rem auto; padding: 1.5rem; background: #fff; border-radius: 12px; }
  h1 { font-size: 1.25rem; margin-top: 0; }
  ul { padding-left: 1.25rem; overflow-wrap: anywhere; }
  .actions { display: flex; gap: 0.75rem; flex-wrap: wrap; margin-top: 1.5rem; }
  button {
    font: inherit; padding: 0.5rem 1rem; border-radius: 8px; border: 1px solid #8a8a8a; background: #fff; color: #303030; cursor: pointer;
  }
  button.primary { background: #303030; color: #fff; border-color: #303030; }
  p.shop { color: #616161; overflow-wrap: anywhere; }
</style>
</head>
<body><main>${body}</main></body>
</html>`;
}

const hidden = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('');

export function grantPage(options: { appTitle: string; shop: string; scopes: string[]; fields: Record<string, string> }): string {
  const scopes = options.scopes.length
    ? options.scopes.map((scope) => `<li>${escapeHtml(scope)}</li>`).join('')
    : '<li>No data access</li>';
  return page(
    `Install ${options.appTitle}`,
    `<h1>Install ${escapeHtml(options.appTitle)}</h1>
<p class="shop">On ${escapeHtml(options.shop)}</p>
<p>${escapeHtml(options.appTitle)} will be able to:</p>
<ul>${scopes}</ul>
<form method="post" action="grant">${hidden(options.fields)}
<div class="actions"><button class="primary" type="submit">Install app</button></div>
</form>`,
  );
}

export function chargePage(options: {
  appTitle: string;
  shop: string;
  name: string;
  lines: string[];
  test: boolean;
  signature: string;
}): string {
  return page(
    `Approve subscription`,
    `<h1>Approve subscription</h1>
<p class="shop">${escapeHtml(options.appTitle)} on ${escapeHtml(options.shop)}${options.test ? ' (test charge: nothing is billed)' : ''}</p>
<p><strong>${escapeHtml(options.name)}</strong></p>
<ul>${options.lines.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>
<form method="post">${hidden({ signature: options.signature })}
<div class="actions"><button class="primary" type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="decline">Decline</button></div>
</form>`,
  );
}

export function errorPage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>`);
}
