import type { FastifyReply } from 'fastify';
import type { ComponentChildren } from 'preact';
import { browserAssets } from '../../http/assets.js';
import { PageShell, sendPage } from '../../http/page.js';
import type { Runtime } from '../../composition.js';
import { minorUnitDigits } from '../../shared/currency.js';

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

/**
 * A callback whose install this browser no longer holds (its state cookie ran out while the
 * merchant signed in at Shopify, or the install was started in another browser): nothing was
 * installed, and the link starts the same install again.
 */
export function sendStartAgainPage(reply: FastifyReply, shop: string, restartUrl: string): Promise<FastifyReply> {
  return sendShopifyPage(
    reply,
    'Start the install again',
    <>
      <h1>Start the install again</h1>
      <p role="alert">
        The install of the app on <strong>{shop}</strong> took longer than this browser keeps it, or it was started in another browser.
        Nothing was installed and nothing was changed.
      </p>
      <p>
        <a class="button" href={restartUrl}>
          Start again
        </a>
      </p>
    </>,
    400,
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

/** The store's stage at the app home, as the plugin's onboarding describes it. */
type HomeState = Awaited<ReturnType<Runtime['onboarding']['homeState']>>;
/** What the merchant just did at the home, named in its address so the page can say what happened. */
export type HomeNote = 'plan' | 'consented' | 'turned_on';

export interface HomePage {
  shop: string;
  state: HomeState;
  note: HomeNote | null;
  csrfToken: string;
  /** The usage plan's terms, as the merchant will read them at Shopify. */
  terms: string;
}

const STEP_STATUS = { done: 'done', active: 'in progress', pending: 'to do' } as const;

function ActionForm({ page, action, label, children }: { page: HomePage; action: string; label: string; children?: ComponentChildren }) {
  return (
    <form method="post" action={`/commerce/shopify/home/${action}`}>
      <input type="hidden" name="shop" value={page.shop} />
      <input type="hidden" name={CSRF_FIELD} value={page.csrfToken} />
      {children}
      <div class="row">
        <button type="submit">{label}</button>
      </div>
    </form>
  );
}

/** What the last action did, read from the stage it left the store at. */
function noteText(page: HomePage): string | null {
  const stage = page.state.kind === 'stage' ? page.state.stage : null;
  if (page.note === 'plan') {
    return stage === 'plan'
      ? 'The plan was not approved at Shopify, so nothing is charged and nothing was set up. Approve it below to go on.'
      : 'The plan is approved at Shopify.';
  }
  if ((page.note === 'consented' || page.note === 'turned_on') && stage === 'live') {
    return 'Cross-promotion is on: partners now show your offer to their shoppers.';
  }
  return null;
}

function HomeBody({ page }: { page: HomePage }) {
  const { state } = page;
  if (state.kind === 'notice') {
    switch (state.notice) {
      case 'not_eligible':
        return (
          <>
            <h2>Your store cannot join yet</h2>
            <ul>
              {state.reasons.map((reason) => (
                <li key={reason}>{reason}</li>
              ))}
            </ul>
            <p>Come back to this page once that has changed.</p>
          </>
        );
      case 'turned_off':
        return (
          <>
            <h2>Cross-promotion is off</h2>
            <p>You turned it off: partners do not show your offer until you turn it back on.</p>
            <ActionForm page={page} action="turn-on" label="Turn cross-promotion back on" />
          </>
        );
      default:
        return (
          <>
            <h2>Your store is not connected</h2>
            <p>Open the app again from your Shopify admin to connect it.</p>
          </>
        );
    }
  }
  switch (state.stage) {
    case 'install':
      return (
        <>
          <h2>Your store is not connected</h2>
          <p>Open the app again from your Shopify admin to connect it.</p>
        </>
      );
    case 'plan':
      return (
        <>
          <h2>Step 1 of 3: approve the plan</h2>
          <p>There is no monthly fee. You pay only when a partner brings you a new customer:</p>
          <p class="note">{page.terms}.</p>
          <p>Shopify shows you the plan and bills it with your Shopify invoice.</p>
          <ActionForm page={page} action="plan" label="Approve the plan at Shopify" />
        </>
      );
    case 'setting_up':
    case 'delayed':
      return (
        <>
          <h2>Step 2 of 3: setting up your store</h2>
          <p>
            We are reading your catalog and best sellers and finding brands that fit yours.
            {state.stage === 'delayed' ? ' This is taking longer than usual; it goes on by itself.' : ''}
          </p>
          <ol aria-label="Setup progress">
            {state.steps.map((step) => (
              <li key={step.key}>
                {step.label}: <strong>{STEP_STATUS[step.status]}</strong>
              </li>
            ))}
          </ol>
          <p>
            <a href={`/commerce/shopify/home?${new URLSearchParams({ shop: page.shop }).toString()}`}>Check the progress again</a>
          </p>
        </>
      );
    case 'consent':
      return (
        <>
          <h2>Step 3 of 3: turn on cross-promotion</h2>
          <p>
            Partner brands will show an offer from <strong>{state.preview.businessName}</strong> to their shoppers after they buy.
            {state.preview.bestSellers.length > 0 && ` It features ${state.preview.bestSellers.map((item) => item.title).join(', ')}.`}
          </p>
          <ActionForm page={page} action="consent" label="Turn on cross-promotion">
            {state.existingDiscountPercent === null ? (
              <fieldset class="choices">
                <legend>Discount for a partner's shoppers on their first order</legend>
                {state.choices.map((percent) => (
                  <label key={percent}>
                    <input type="radio" name="discountPercent" value={String(percent)} required /> {percent}% off
                  </label>
                ))}
              </fieldset>
            ) : (
              <p>New customers from partners get your existing {state.existingDiscountPercent}% off their first order.</p>
            )}
            <p>
              By turning it on you accept the <a href={state.termsUrl}>terms</a> and the <a href={state.privacyUrl}>privacy notice</a>. A
              discount code is created in your Shopify store, usable once per customer.
            </p>
          </ActionForm>
        </>
      );
    case 'live':
      return (
        <>
          <h2>You are live</h2>
          <p>
            Partners show <strong>{state.offer.title}</strong> to their shoppers
            {state.offer.discountCode && (
              <>
                {' '}
                with the code <code>{state.offer.discountCode}</code>
              </>
            )}
            .
          </p>
          <p>
            Manage partnerships and campaigns in the <a href={state.manageUrl}>dashboard</a>.
          </p>
        </>
      );
  }
}

/** An amount in minor units of an ISO 4217 currency, as the currency writes it ($1,000.00, ¥1,500). */
function money(minor: number, currency: string): string {
  const digits = minorUnitDigits(currency);
  const format = new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency,
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
  return format.format(minor / 10 ** digits);
}

/**
 * Shopify waits for the store's staff to approve a higher capped amount: the commissions held
 * until then, and Shopify's own page to approve it (the staff are signed in there).
 */
function CapRaise({ raise }: { raise: NonNullable<HomeState['capRaise']> }) {
  const held = raise.held.map((amount) => money(amount.amountMinor, amount.currency)).join(' and ');
  return (
    <section class="note" aria-labelledby="cap-raise-title">
      <h2 id="cap-raise-title">Approve a higher capped amount at {raise.platformName}</h2>
      <p>
        {held
          ? `Commissions of ${held} are held, not charged: they are over your plan's capped amount.`
          : "Your plan's capped amount is nearly used: commissions over it would be held, not charged."}{' '}
        {raise.platformName} asks you to approve a capped amount of {money(raise.cappedMinor, raise.currency)} every 30 days. Once you
        approve it, the held commissions are charged and this message goes away.
      </p>
      <p>
        <a class="button" href={raise.confirmationUrl}>
          Approve the higher cap at {raise.platformName}
        </a>
      </p>
    </section>
  );
}

/** The app home at Shopify's App URL: the store's stage with the same actions as the plugin, as forms with the page's CSRF token. */
export function sendHomePage(reply: FastifyReply, page: HomePage): Promise<FastifyReply> {
  const note = noteText(page);
  return sendShopifyPage(
    reply,
    'Your store',
    <>
      <h1>
        {SERVICE_NAME} for {page.shop}
      </h1>
      {note !== null && (
        <p role="status" class="note">
          {note}
        </p>
      )}
      <HomeBody page={page} />
      {page.state.capRaise && <CapRaise raise={page.state.capRaise} />}
    </>,
  );
}

export interface HomeRefusal {
  status: number;
  heading: string;
  text: string;
}

/** A refused action of the home, in words, with the way back to the store's home when there is one. */
export function sendHomeRefusal(reply: FastifyReply, refusal: HomeRefusal, shop: string | null): Promise<FastifyReply> {
  return sendShopifyPage(
    reply,
    refusal.heading,
    <>
      <h1>{refusal.heading}</h1>
      <p role="alert">{refusal.text}</p>
      {shop !== null && (
        <p>
          <a href={`/commerce/shopify/home?${new URLSearchParams({ shop }).toString()}`}>Back to your store's page</a>
        </p>
      )}
    </>,
    refusal.status,
  );
}

export const HOME_REFUSALS = {
  launch: {
    status: 401,
    heading: 'Open the app from your Shopify admin',
    text: 'This link was not signed by Shopify, or it is more than a minute old. Open the app again from Apps in your Shopify admin.',
  },
  formExpired: {
    status: 403,
    heading: 'This form has expired',
    text: 'Open the app again from Apps in your Shopify admin and try once more. Nothing was changed.',
  },
  noSession: {
    status: 403,
    heading: 'Open the app from your Shopify admin',
    text: 'This browser is not signed in for this store any more. Open the app again from Apps in your Shopify admin. Nothing was changed.',
  },
  choosePercent: {
    status: 400,
    heading: 'Choose a discount',
    text: 'Choose 10, 15, 20 or 25% off, then turn cross-promotion on. Nothing was changed.',
  },
  wrongStage: {
    status: 409,
    heading: 'Your store is at another step',
    text: 'Your store is not waiting for this any more (it may have moved on, or left). Nothing was changed.',
  },
} as const satisfies Record<string, HomeRefusal>;
