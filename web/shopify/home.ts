// The Shopify app home in the admin's frame (src/commerce/shopify/pages.tsx). Its buttons are sent
// as fetches: App Bridge, loaded first from Shopify's CDN, adds `Authorization: Bearer` with a
// fresh session token to each, and sends one again with a new token when the service answers 401
// with X-Shopify-Retry-Invalid-Session-Request. No cookie is involved, so a browser that blocks
// third-party cookies in the admin's frame works the same.
const HOME = '/commerce/shopify/home';

const view = document.getElementById('home-view') as HTMLElement;
const failure = document.getElementById('home-error') as HTMLElement;
const shop = view.dataset.shop ?? '';
let refreshTimer: number | undefined;

function showError(message: string): void {
  failure.textContent = message;
  failure.hidden = false;
}

/** Shows the store's stage as the service reads it now, saying what the last action did; focus on what changed. */
async function refresh(done?: string): Promise<void> {
  window.clearTimeout(refreshTimer);
  const query = new URLSearchParams({ shop });
  if (done) query.set('done', done);
  const answer = await fetch(`${HOME}?${query.toString()}`, { headers: { accept: 'text/html' } });
  if (!answer.ok) {
    showError('The page could not be brought up to date. Open the app again from Apps in your Shopify admin.');
    return;
  }
  // Focus inside the view would be lost with the markup it was on: it goes to what the page now says.
  const focusWasInside = view.contains(document.activeElement);
  view.innerHTML = await answer.text();
  if (done || focusWasInside) view.querySelector<HTMLElement>('[role="status"], h2')?.focus();
  scheduleRefresh();
}

/** While the store is being set up, its progress is looked at again by itself. */
function scheduleRefresh(): void {
  const waiting = view.querySelector<HTMLElement>('[data-refresh-after]');
  if (waiting) refreshTimer = window.setTimeout(() => void refresh(), Number(waiting.dataset.refreshAfter));
}

async function send(form: HTMLFormElement): Promise<void> {
  const action = form.dataset.action ?? '';
  const body: Record<string, unknown> = { shop };
  const chosen = form.querySelector<HTMLInputElement>('input[name="discountPercent"]:checked');
  if (chosen) body.discountPercent = Number(chosen.value);
  // What the form answers (a claim and the decision on it) rides in the body, with the session token App Bridge adds.
  for (const field of form.querySelectorAll<HTMLInputElement>('input[data-field]')) body[field.name] = field.value;
  const answer = await fetch(`${HOME}/${action}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  const result = (await answer.json().catch(() => ({}))) as { done?: string; confirmationUrl?: string; message?: string };
  if (!answer.ok) {
    showError(result.message ?? 'That did not work. Open the app again from Apps in your Shopify admin; nothing was changed.');
    return;
  }
  // Shopify's own page (the plan's approval) opens in the admin's top window, never inside the frame.
  if (result.confirmationUrl) {
    window.open(result.confirmationUrl, '_top');
    return;
  }
  await refresh(result.done);
}

view.addEventListener('submit', (event) => {
  const form = (event.target as HTMLElement).closest<HTMLFormElement>('form[data-action]');
  if (!form) return;
  event.preventDefault();
  failure.hidden = true;
  const button = form.querySelector<HTMLButtonElement>('button[type="submit"]');
  if (button) button.disabled = true;
  send(form)
    .catch(() => showError('The service could not be reached. Check your connection and try again; nothing was changed.'))
    .finally(() => {
      if (button?.isConnected) button.disabled = false;
    });
});

view.addEventListener('click', (event) => {
  if (!(event.target as HTMLElement).closest('[data-refresh]')) return;
  failure.hidden = true;
  refresh().catch(() => showError('The service could not be reached. Check your connection and try again.'));
});

scheduleRefresh();
