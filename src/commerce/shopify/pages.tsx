import type { FastifyReply } from 'fastify';
import type { ComponentChildren } from 'preact';
import { browserAssets } from '../../http/assets.js';
import { PageShell, sendPage } from '../../http/page.js';

/** The service's name as the store's staff read it on its pages. */
const SERVICE_NAME = 'Partner Collab';
/** The field of the confirmation form that names the question (a random token; the database keeps its hash). */
export const CONFIRMATION_FIELD = 'confirmation';
export const CSRF_FIELD = 'csrf_token';

async function sendShopifyPage(reply: FastifyReply, title: string, body: ComponentChildren, status = 200): Promise<FastifyReply> {
  const assets = await browserAssets();
  return sendPage(
    reply,
    <PageShell title={`${title} · ${SERVICE_NAME}`} stylesheet={assets.url.pagesStyle} noIndex>
      <main class="sheet">{body}</main>
    </PageShell>,
    { status },
  );
}

/** Where the merchant lands back from Shopify when the plugin did not ask to be returned to: on with the plugin's tab. */
export function sendDonePage(reply: FastifyReply, heading: string, shop: string): Promise<FastifyReply> {
  return sendShopifyPage(
    reply,
    heading,
    <>
      <h1>{heading}</h1>
      <p>
        Your Shopify store <strong>{shop}</strong> is connected to the partner network.
      </p>
      <p>Go back to the tab where you started: the plugin continues as soon as you return to it. You can close this tab.</p>
    </>,
  );
}

export interface ConfirmationQuestion {
  shop: string;
  shopName: string;
  /** The claimant's e-mail, when a sign-up asks to act for the store. */
  claimantEmail: string | null;
  /** Whether a plugin asks, and on whose pages it runs (null when the link named no platform the service knows). */
  plugin: { platformName: string | null } | null;
  token: string;
  csrfToken: string;
}

/**
 * What a verified Shopify callback asks the store's staff, who answer with a POST: the callback
 * alone (a chain of redirects any page can start) never confirms anything.
 */
export function sendConfirmationPage(reply: FastifyReply, question: ConfirmationQuestion): Promise<FastifyReply> {
  const pluginAsker = question.plugin?.platformName ?? `A ${SERVICE_NAME} plugin`;
  return sendShopifyPage(
    reply,
    'Confirm at Partner Collab',
    <>
      <h1>Confirm what you asked for</h1>
      <p>
        The app is installed on <strong>{question.shopName}</strong> ({question.shop}). Shopify signed you in as its staff, and asks nothing
        more when the app is already there, so this page asks you:
      </p>
      <ul class="asks">
        {question.claimantEmail !== null && (
          <li>
            <strong>{question.claimantEmail}</strong> asks to act for {question.shopName}: to manage its partnerships, offer, discount code,
            staff and API keys on {SERVICE_NAME}.
          </li>
        )}
        {question.plugin !== null && (
          <li>
            <strong>{pluginAsker}</strong> asks to turn on cross-promotion for this store: to create its discount code and accept the terms,
            from the plugin in the window you came from, during the next hour.
          </li>
        )}
      </ul>
      <p>Confirm only if you started this yourself, just now. If you did not, decline: nothing changes.</p>
      <form method="post" action="/commerce/shopify/confirm" class="row">
        <input type="hidden" name={CONFIRMATION_FIELD} value={question.token} />
        <input type="hidden" name={CSRF_FIELD} value={question.csrfToken} />
        <button type="submit" name="decision" value="confirm">
          Confirm
        </button>
        <button type="submit" name="decision" value="decline" class="secondary">
          Decline
        </button>
      </form>
    </>,
  );
}

/** A refusal in words the merchant can act on; nothing was written. */
export function sendRefusalPage(reply: FastifyReply, status: number, heading: string, text: string): Promise<FastifyReply> {
  return sendShopifyPage(
    reply,
    heading,
    <>
      <h1>{heading}</h1>
      <p role="alert">{text}</p>
    </>,
    status,
  );
}

export const REFUSALS = {
  notClaimant: {
    status: 403,
    heading: 'Sign in as the account that asked',
    text:
      'Only the account that claimed this store can confirm its claim. Sign in to the dashboard with that account, ' +
      'then choose “Confirm at Shopify” there. Nothing was changed.',
  },
  formExpired: {
    status: 403,
    heading: 'This form has expired',
    text: 'Start again from where you came from (the dashboard or the plugin). Nothing was changed.',
  },
  answered: {
    status: 400,
    heading: 'This question was answered already or ran out',
    text: 'Start again from where you came from (the dashboard or the plugin). Nothing was changed.',
  },
  chooseDecision: { status: 400, heading: 'Choose Confirm or Decline', text: 'Go back and choose one of the two buttons.' },
} as const;

export function sendDeclinedPage(reply: FastifyReply, shop: string): Promise<FastifyReply> {
  return sendShopifyPage(
    reply,
    'Nothing confirmed',
    <>
      <h1>Nothing was confirmed</h1>
      <p>
        Nobody was allowed to act for <strong>{shop}</strong>. The app stays installed; remove it in your Shopify admin if you do not want
        it.
      </p>
    </>,
  );
}
